package columnar

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/compress/zstd"
	"github.com/parquet-go/parquet-go/format"
)

// DefaultRowGroupRows is the number of rows per row group when
// Options.RowGroupRows is 0: large enough for good compression and for an
// engine to skip row groups by their statistics, small enough that a row
// group being written stays in memory.
const DefaultRowGroupRows = 1 << 20

// writeBatch is the number of summary rows handed to parquet-go at a time.
const writeBatch = 256

// codec compresses every column: Zstandard (RFC 8878), which DuckDB,
// Spark, Trino/Athena and Arrow read, at its fastest level.
var codec = &zstd.Codec{Level: zstd.SpeedFastest}

// columnCodecs overrides codec for single columns: record_key, a base-32
// SHA-1, is random over 32 symbols, which Zstandard's fast levels leave
// as it is, and content_digest is a hash too (after DELTA_BYTE_ARRAY took
// the "sha1:" its values share); Zstandard frames of Huffman-coded
// literals alone (huffmanCodec) store their 5 bits per byte in about 5,
// at a fraction of the CPU of Zstandard's or DEFLATE's match finding.
// fetch_time, warc_record_offset and
// warc_record_length are DELTA_BINARY_PACKED: in key order their deltas
// are as random as the values, bit-packed to their width, which Zstandard
// passes through at the same size, so they are stored uncompressed.
// url_surtkey, url, url_path and url_query are DELTA_BYTE_ARRAY, which
// has already taken the prefix each value shares with the one before: the
// suffixes left shrink by about a third under Zstandard's fastest level
// (3.5 bytes a row of 54 on cdxgen lines), for about a tenth of the
// export's CPU, so they are stored uncompressed too.
var columnCodecs = map[string]compress.Codec{
	"record_key":         &huffmanCodec{},
	"content_digest":     &huffmanCodec{},
	"fetch_time":         &uncompressed.Codec{},
	"warc_record_offset": &uncompressed.Codec{},
	"warc_record_length": &uncompressed.Codec{},
	"url_surtkey":        &uncompressed.Codec{},
	"url":                &uncompressed.Codec{},
	"url_path":           &uncompressed.Codec{},
	"url_query":          &uncompressed.Codec{},
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

// noBounds lists the columns that get no min/max bounds (neither in the
// column chunk statistics nor a column index): values nobody filters on by
// range, where bounds cost time and space for nothing.
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
// output is not a Parquet file. Each column is written by a writer of its
// own type (see pages.go), not through parquet-go's rows: the files are the
// ones parquet-go reads with the schema of Row.
//
// Memory: the row group being written, as encoded and compressed pages
// (with Options.BufferDir, these go to one temporary file per column
// there instead, each behind a 32 KiB write buffer), the row group's
// dictionaries, plus one page of values per column (64 KiB or 32,768
// values each). Not safe for concurrent use.
type Writer struct {
	fw           *fileWriter
	h            *headerEncoder
	rowGroupRows int64
	inGroup      int64
	rows         int64
	err          error
	addErr       error // the first error of a column's add

	surtKey, url, path, query, redirect, digest, recordKey  *bytesColumn
	hostName, tld, part2, part3, part4, part5               *dictColumn
	registrySuffix, registeredDomain, privateSuffix         *dictColumn
	privateDomain, reversed, protocol, mime, mimeDetected   *dictColumn
	charset, languages, truncated, warcFile, segment, crawl *dictColumn
	subset, org, category, inputFile                        *dictColumn
	port                                                    *int32Column
	status, digits                                          *int32DictColumn
	fetchTime, offset, length, inputLine                    *int64Column
	revisit                                                 *boolColumn
}

// createdBy names the writer in each file's footer.
const createdBy = "github.com/mementokit/mementokit/columnar"

// footer is the footer template of the capture table: schema elements,
// column orders and metadata as parquet-go writes them for schema.
var footer = sync.OnceValues(func() (*template, error) {
	return footerTemplate(schema,
		parquet.CreatedBy(createdBy, "", ""),
		parquet.KeyValueMetadata("mementokit.schema", SchemaName))
})

// NewWriter returns a Writer to w (nil options mean defaults; Partition is
// ignored: a Writer writes one file).
func NewWriter(w io.Writer, opts *Options) *Writer {
	o := opts.withDefaults()
	out := &Writer{h: newHeaderEncoder(), rowGroupRows: int64(o.RowGroupRows)}
	tmpl, err := footer()
	if err != nil {
		out.err = fmt.Errorf("columnar: the schema: %w", err)
		return out
	}
	out.fw = &fileWriter{out: &countingWriter{w: w, buf: make([]byte, 0, 64<<10)}, tmpl: tmpl, h: out.h}
	var pool *filePagePool
	if o.BufferDir != "" {
		pool = newFilePagePool(o.BufferDir).(*filePagePool)
	}
	byName := map[string]column{}
	for _, f := range schema.Fields() {
		c := chunk{
			name:     f.Name(),
			typ:      *f.Type().PhysicalType(),
			optional: f.Optional(),
			codec:    codec,
			bounds:   !slices.Contains(noBounds, f.Name()),
			encoding: format.Plain,
		}
		if cc, ok := columnCodecs[c.name]; ok {
			c.codec = cc
			if _, ok := cc.(*huffmanCodec); ok {
				c.codec = &huffmanCodec{} // scratch of its own
			}
		}
		if e := f.Encoding(); e != nil {
			c.encoding = e.Encoding()
		}
		c.errp = &out.addErr
		if pool != nil {
			sink, err := pool.sink()
			if err != nil && out.err == nil {
				out.err = fmt.Errorf("columnar: %w", err)
			}
			c.sink = sink
		} else {
			c.sink = &memSink{}
		}
		var col column
		switch kind := f.Type().Kind(); {
		case kind == parquet.ByteArray && c.encoding == format.RLEDictionary:
			col = newDictColumn(c)
		case kind == parquet.ByteArray:
			col = newBytesColumn(c)
		case kind == parquet.Int32 && c.encoding == format.RLEDictionary:
			col = newInt32DictColumn(c)
		case kind == parquet.Int32:
			col = &int32Column{chunk: c}
		case kind == parquet.Int64:
			col = &int64Column{chunk: c}
		case kind == parquet.Boolean:
			col = &boolColumn{chunk: c}
		default:
			panic("columnar: no column writer for " + c.name)
		}
		out.fw.cols = append(out.fw.cols, col)
		byName[c.name] = col
	}
	pick(byName, "url_surtkey", &out.surtKey)
	pick(byName, "url", &out.url)
	pick(byName, "url_host_name", &out.hostName)
	pick(byName, "url_host_tld", &out.tld)
	pick(byName, "url_host_2nd_last_part", &out.part2)
	pick(byName, "url_host_3rd_last_part", &out.part3)
	pick(byName, "url_host_4th_last_part", &out.part4)
	pick(byName, "url_host_5th_last_part", &out.part5)
	pick(byName, "url_host_registry_suffix", &out.registrySuffix)
	pick(byName, "url_host_registered_domain", &out.registeredDomain)
	pick(byName, "url_host_private_suffix", &out.privateSuffix)
	pick(byName, "url_host_private_domain", &out.privateDomain)
	pick(byName, "url_host_name_reversed", &out.reversed)
	pick(byName, "url_protocol", &out.protocol)
	pick(byName, "url_port", &out.port)
	pick(byName, "url_path", &out.path)
	pick(byName, "url_query", &out.query)
	pick(byName, "fetch_time", &out.fetchTime)
	pick(byName, "fetch_status", &out.status)
	pick(byName, "fetch_redirect", &out.redirect)
	pick(byName, "content_digest", &out.digest)
	pick(byName, "content_mime_type", &out.mime)
	pick(byName, "content_mime_detected", &out.mimeDetected)
	pick(byName, "content_charset", &out.charset)
	pick(byName, "content_languages", &out.languages)
	pick(byName, "content_truncated", &out.truncated)
	pick(byName, "warc_filename", &out.warcFile)
	pick(byName, "warc_record_offset", &out.offset)
	pick(byName, "warc_record_length", &out.length)
	pick(byName, "warc_segment", &out.segment)
	pick(byName, "crawl", &out.crawl)
	pick(byName, "subset", &out.subset)
	pick(byName, "record_key", &out.recordKey)
	pick(byName, "organization", &out.org)
	pick(byName, "content_mime_category", &out.category)
	pick(byName, "revisit", &out.revisit)
	pick(byName, "fetch_time_digits", &out.digits)
	pick(byName, "input_file", &out.inputFile)
	pick(byName, "input_line", &out.inputLine)
	if len(byName) != 0 {
		panic(fmt.Sprintf("columnar: columns without a field of Row: %v", slices.Sorted(maps.Keys(byName))))
	}
	return out
}

// pick sets *dst to the column called name, taking it out of byName.
func pick[T column](byName map[string]column, name string, dst *T) {
	c, ok := byName[name].(T)
	if !ok {
		panic("columnar: column " + name + " missing or of another type")
	}
	*dst = c
	delete(byName, name)
}

// SchemaName names the table layout in each file's key-value metadata
// (key "mementokit.schema"), so that a reader can tell this table from
// another that shares column names.
const SchemaName = "mementokit capture table 1 (cc-index-table columns and End of Term fields)"

// Write adds one row (its values are copied). An error from the
// underlying writer is returned by this call or a later one, and by
// Close.
func (w *Writer) Write(row *Row) error {
	if w.err != nil {
		return w.err
	}
	h := w.h
	w.surtKey.add(h, row.URLSurtKey)
	w.url.add(h, row.URL)
	w.hostName.add(h, row.URLHostName)
	w.tld.add(h, row.URLHostTLD)
	w.part2.add(h, row.URLHost2ndLastPart)
	w.part3.add(h, row.URLHost3rdLastPart)
	w.part4.add(h, row.URLHost4thLastPart)
	w.part5.add(h, row.URLHost5thLastPart)
	w.registrySuffix.add(h, row.URLHostRegistrySuffix)
	w.registeredDomain.add(h, row.URLHostRegisteredDomain)
	w.privateSuffix.add(h, row.URLHostPrivateSuffix)
	w.privateDomain.add(h, row.URLHostPrivateDomain)
	w.reversed.add(h, row.URLHostNameReversed)
	w.protocol.add(h, row.URLProtocol)
	w.port.add(h, row.URLPort)
	w.path.add(h, row.URLPath)
	w.query.add(h, row.URLQuery)
	w.fetchTime.add(h, row.FetchTime.UnixMilli())
	w.status.add(h, int32(row.FetchStatus))
	w.redirect.add(h, row.FetchRedirect)
	w.digest.add(h, row.ContentDigest)
	w.mime.add(h, row.ContentMIMEType)
	w.mimeDetected.add(h, row.ContentMIMEDetected)
	w.charset.add(h, row.ContentCharset)
	w.languages.add(h, row.ContentLanguages)
	w.truncated.add(h, row.ContentTruncated)
	w.warcFile.add(h, row.WARCFilename)
	w.offset.add(h, row.WARCRecordOffset)
	w.length.add(h, row.WARCRecordLength)
	w.segment.add(h, row.WARCSegment)
	w.crawl.add(h, row.Crawl)
	w.subset.add(h, row.Subset)
	w.recordKey.add(h, row.RecordKey)
	w.org.add(h, row.Organization)
	w.category.add(h, row.ContentMIMECategory)
	w.revisit.add(h, row.Revisit)
	w.digits.add(h, int32(row.FetchTimeDigits))
	w.inputFile.add(h, row.InputFile)
	w.inputLine.add(h, row.InputLine)
	err := w.addErr
	if err == nil {
		w.rows++
		if w.inGroup++; w.inGroup == w.rowGroupRows {
			err = w.fw.writeRowGroup(w.inGroup)
			w.inGroup = 0
		}
	}
	if err != nil {
		w.fail(fmt.Errorf("columnar: writing rows: %w", err))
	}
	return w.err
}

// fail keeps the first error and releases the page buffers.
func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
	w.release()
}

// release closes (and removes) the page buffers.
func (w *Writer) release() {
	if w.fw == nil {
		return
	}
	for _, c := range w.fw.cols {
		if s := c.base().sink; s != nil {
			s.close()
		}
	}
	w.fw = nil
}

// Rows returns the number of rows written so far.
func (w *Writer) Rows() int64 { return w.rows }

// Close writes the buffered rows and the file footer, and removes the page
// buffers. It does not close the io.Writer.
func (w *Writer) Close() error {
	if w.err != nil {
		w.release()
		return w.err
	}
	err := w.fw.writeRowGroup(w.inGroup)
	if err == nil {
		err = w.fw.close()
	}
	w.release()
	if err != nil {
		w.err = fmt.Errorf("columnar: writing the footer: %w", err)
		return w.err
	}
	w.err = errClosed
	return nil
}

var errClosed = fmt.Errorf("columnar: writer closed")
