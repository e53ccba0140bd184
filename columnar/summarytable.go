package columnar

import (
	"fmt"
	"io"

	"github.com/mementokit/mementokit/summary"
	"github.com/parquet-go/parquet-go"
)

// SummaryRow is one row of the summary table: the captures and bytes of one
// MIME category for one key and period of one summary file.
type SummaryRow struct {
	// SummaryFile names the summary the row comes from, as given to
	// AddSummary: comparing archives is a GROUP BY summary_file.
	SummaryFile string `parquet:"summary_file,dict"`
	// Key is the summary line's key: a registrable domain, a host, an IP
	// address or a pseudo-scheme such as "dns:" (see package summary).
	Key string `parquet:"key,dict"`
	// Year and Month are the period; Month is NULL (0 here) in a yearly
	// summary.
	Year  int32 `parquet:"year"`
	Month int8  `parquet:"month,optional,int(8)"`
	// Category is html, image, video, audio, pdf, js, json, font, css or
	// other (summary.Category).
	Category string `parquet:"category,dict"`
	// Captures and Bytes are the n_ and s_ counters of the category: 2xx
	// captures, and their record lengths in bytes.
	Captures int64 `parquet:"captures"`
	Bytes    int64 `parquet:"bytes"`
	// NHTTP … STotal are the period's scheme and total counters of the
	// summary format (n_http, s_http, n_https, s_https, n_total, s_total:
	// captures and bytes of http:// and https:// URLs, and of all), the
	// same on every category row of the period, since the summary does
	// not split them by category. Sum them over periods, not over rows:
	// SELECT DISTINCT summary_file, key, year, month, n_https, n_total
	// first, then aggregate.
	NHTTP  int64 `parquet:"n_http"`
	SHTTP  int64 `parquet:"s_http"`
	NHTTPS int64 `parquet:"n_https"`
	SHTTPS int64 `parquet:"s_https"`
	NTotal int64 `parquet:"n_total"`
	STotal int64 `parquet:"s_total"`
}

// SummarySchemaName names the summary table layout in each file's
// key-value metadata (key "mementokit.schema").
const SummarySchemaName = "mementokit summary table 2 (one row per summary file, key, period and MIME category, with the period's scheme and total counters)"

// SummaryWriter writes summaries as one Parquet file of SummaryRows, in the
// order read. Memory: one summary line and one row group (Options.RowGroupRows
// rows) at a time. Not safe for concurrent use.
type SummaryWriter struct {
	pw    *parquet.GenericWriter[SummaryRow]
	batch []SummaryRow
	rows  int64
	err   error
}

// NewSummaryWriter returns a SummaryWriter to w (nil options mean defaults;
// only RowGroupRows applies).
func NewSummaryWriter(w io.Writer, opts *Options) *SummaryWriter {
	o := opts.withDefaults()
	return &SummaryWriter{pw: parquet.NewGenericWriter[SummaryRow](w,
		parquet.Compression(codec),
		parquet.MaxRowsPerRowGroup(int64(o.RowGroupRows)),
		parquet.CreatedBy("github.com/mementokit/mementokit/columnar", "", ""),
		parquet.KeyValueMetadata("mementokit.schema", SummarySchemaName),
	), batch: make([]SummaryRow, 0, writeBatch)}
}

// AddSummary reads a whole summary (see summary.NewSummaryReader) and
// writes its rows with name as summary_file. A malformed line is a
// *summary.ParseError naming name and the line; the rows of the lines before
// it have been written.
func (w *SummaryWriter) AddSummary(r io.Reader, name string) error {
	sr := summary.NewSummaryReader(r, name)
	for {
		l, err := sr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := w.AddLine(l, name); err != nil {
			return err
		}
	}
}

// AddLine writes the rows of one summary line: one per period and category
// whose count or size is not zero, each with the period's scheme and total
// counters. A period whose category counters are all zero but some other
// counter is not (a summary edited by hand, or the original tool's count
// of a capture whose MIME type is not a string) is one row of category ""
// with captures and bytes 0, so that its totals are not lost. Its errors
// are [SummaryWriter.Write]'s: it stops at the first, the rows before it
// added.
func (w *SummaryWriter) AddLine(l *summary.Line, name string) error {
	for _, p := range l.Periods {
		row := SummaryRow{SummaryFile: name, Key: l.Key, Year: int32(p.Period.Year()),
			NHTTP: p.Counters[summary.NHTTP], SHTTP: p.Counters[summary.SHTTP],
			NHTTPS: p.Counters[summary.NHTTPS], SHTTPS: p.Counters[summary.SHTTPS],
			NTotal: p.Counters[summary.NTotal], STotal: p.Counters[summary.STotal]}
		if p.Period >= 100000 {
			row.Month = int8(p.Period % 100)
		}
		wrote := false
		for c := summary.HTML; c <= summary.Other; c++ {
			n, s := p.Counters[summary.NHTML+int(c)], p.Counters[summary.SHTML+int(c)]
			if n == 0 && s == 0 {
				continue
			}
			row.Category, row.Captures, row.Bytes = c.String(), n, s
			if err := w.Write(&row); err != nil {
				return err
			}
			wrote = true
		}
		if !wrote && (row.NHTTP|row.SHTTP|row.NHTTPS|row.SHTTPS|row.NTotal|row.STotal) != 0 {
			row.Category, row.Captures, row.Bytes = "", 0, 0
			if err := w.Write(&row); err != nil {
				return err
			}
		}
	}
	return nil
}

// Write adds one row (copied). Rows are written in batches; a failed
// batch gives an error "columnar: writing rows: ..." wrapping the Parquet
// writer's, which is sticky: every later Write (and Close) returns it.
// After Close, Write returns an error saying the writer is closed.
func (w *SummaryWriter) Write(row *SummaryRow) error {
	if w.err != nil {
		return w.err
	}
	w.batch = append(w.batch, *row)
	w.rows++
	if len(w.batch) == cap(w.batch) {
		return w.flush()
	}
	return nil
}

func (w *SummaryWriter) flush() error {
	if len(w.batch) == 0 || w.err != nil {
		return w.err
	}
	if _, err := w.pw.Write(w.batch); err != nil {
		w.err = fmt.Errorf("columnar: writing rows: %w", err)
	}
	w.batch = w.batch[:0]
	return w.err
}

// Rows returns the number of rows written so far.
func (w *SummaryWriter) Rows() int64 { return w.rows }

// Close writes the buffered rows and the file footer; it does not close the
// io.Writer.
func (w *SummaryWriter) Close() error {
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.pw.Close(); err != nil {
		w.err = fmt.Errorf("columnar: writing the footer: %w", err)
		return w.err
	}
	w.err = errClosed
	return nil
}
