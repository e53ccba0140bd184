package columnar

import (
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/gzip"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// DefaultRowGroupRows is the number of rows per row group when
// Options.RowGroupRows is 0: large enough for good compression and for an
// engine to skip row groups by their statistics, small enough that a row
// group being written stays in memory.
const DefaultRowGroupRows = 1 << 20

// writeBatch is the number of rows handed to parquet-go at a time.
const writeBatch = 256

// codec compresses every column: Zstandard (RFC 8878), which DuckDB,
// Spark, Trino/Athena and Arrow read, at its fastest level.
var codec = &zstd.Codec{Level: zstd.SpeedFastest}

// columnCodecs overrides codec for single columns: record_key, a base-32
// SHA-1, is random over 32 symbols, which Zstandard's fast levels leave
// as it is; GZIP with Huffman coding alone (RFC 1951 blocks without
// matches) stores its 5 bits per byte in about 5, at a fraction of the CPU
// of GZIP's default level. fetch_time, warc_record_offset and
// warc_record_length are DELTA_BINARY_PACKED: in key order their deltas
// are as random as the values, bit-packed to their width, which Zstandard
// passes through at the same size, so they are stored uncompressed.
var columnCodecs = map[string]compress.Codec{
	"record_key":         &gzip.Codec{Level: gzip.HuffmanOnly},
	"fetch_time":         &uncompressed.Codec{},
	"warc_record_offset": &uncompressed.Codec{},
	"warc_record_length": &uncompressed.Codec{},
}

// schema is Row's schema with the codecs of columnCodecs.
var schema = func() *parquet.Schema {
	s := parquet.SchemaOf(Row{})
	fields := s.Fields()
	out := make([]parquet.Field, len(fields))
	for i, f := range fields {
		out[i] = f
		if c, ok := columnCodecs[f.Name()]; ok {
			out[i] = codecField{f, c}
		}
	}
	return parquet.NewSchema(s.Name(), fieldsNode{s, out})
}()

// fieldsNode is a group node with the given fields, in their order.
type fieldsNode struct {
	parquet.Node
	fields []parquet.Field
}

func (n fieldsNode) Fields() []parquet.Field { return n.fields }

// codecField is a leaf field compressed with codec.
type codecField struct {
	parquet.Field
	codec compress.Codec
}

func (f codecField) Compression() compress.Codec { return f.codec }

// noBounds lists the columns whose pages get no min/max bounds in the
// column index: values nobody filters on by range, where bounds cost time
// and space for nothing.
var noBounds = []string{
	"url_host_2nd_last_part", "url_host_3rd_last_part", "url_host_4th_last_part", "url_host_5th_last_part",
	"url_host_registry_suffix", "url_host_private_suffix", "url_host_name_reversed", "url", "url_protocol", "url_port", "url_path", "url_query",
	"fetch_redirect", "content_digest", "content_charset", "content_languages", "content_truncated",
	"warc_record_offset", "warc_record_length", "warc_segment", "subset", "record_key", "content_mime_category", "revisit", "fetch_time_digits", "input_line",
}

// pageSize is the target size of a data page before compression.
var pageSize = 64 << 10

// Writer writes Rows to one Parquet file on an io.Writer, in row groups of
// Options.RowGroupRows rows. Call Close to write the footer: without it the
// output is not a Parquet file.
//
// Memory: the row group being written, as encoded and compressed pages
// (with Options.BufferDir, these go to temporary files there instead, each
// behind a 32 KiB write buffer), plus one page of values per column (64 KiB
// each). Not safe for
// concurrent use.
type Writer struct {
	pw    *parquet.GenericWriter[Row]
	batch []Row
	rows  int64
	err   error
}

// NewWriter returns a Writer to w (nil options mean defaults; Partition is
// ignored: a Writer writes one file).
func NewWriter(w io.Writer, opts *Options) *Writer {
	o := opts.withDefaults()
	wopts := []parquet.WriterOption{
		schema,
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(int64(o.RowGroupRows)),
		parquet.PageBufferSize(pageSize),
		// Page bounds go to the column index and the column chunk
		// statistics, where engines look for them; the same bounds in
		// every data page header would cost a second pass over each page.
		parquet.DataPageStatistics(false),
		parquet.CreatedBy("github.com/mementokit/mementokit/columnar", "", ""),
		parquet.KeyValueMetadata("mementokit.schema", SchemaName),
	}
	for _, c := range noBounds {
		wopts = append(wopts, parquet.SkipPageBounds(c))
	}
	if o.BufferDir != "" {
		wopts = append(wopts, parquet.ColumnPageBuffers(newFilePagePool(o.BufferDir)))
	}
	return &Writer{pw: parquet.NewGenericWriter[Row](w, wopts...), batch: make([]Row, 0, writeBatch)}
}

// SchemaName names the table layout in each file's key-value metadata
// (key "mementokit.schema"), so that a reader can tell this table from
// another that shares column names.
const SchemaName = "mementokit capture table 1 (cc-index-table columns and End of Term fields)"

// Write adds one row (copied). An error from the underlying writer is
// returned by this call or a later one, and by Close.
func (w *Writer) Write(row *Row) error {
	if w.err != nil {
		return w.err
	}
	w.batch = append(w.batch, *row)
	w.rows++
	if len(w.batch) == cap(w.batch) {
		return w.flushBatch()
	}
	return nil
}

func (w *Writer) flushBatch() error {
	if len(w.batch) == 0 || w.err != nil {
		return w.err
	}
	if _, err := w.pw.Write(w.batch); err != nil {
		w.err = fmt.Errorf("columnar: writing rows: %w", err)
	}
	clear(w.batch) // drop the strings
	w.batch = w.batch[:0]
	return w.err
}

// Rows returns the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// Close writes the buffered rows and the file footer. It does not close the
// io.Writer.
func (w *Writer) Close() error {
	if err := w.flushBatch(); err != nil {
		return err
	}
	if err := w.pw.Close(); err != nil {
		w.err = fmt.Errorf("columnar: writing the footer: %w", err)
		return w.err
	}
	w.err = errClosed
	return nil
}

var errClosed = fmt.Errorf("columnar: writer closed")
