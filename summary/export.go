package summary

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// TotalsOptions configures WriteTotals and TotalsWriter.
type TotalsOptions struct {
	NoYear  bool // one line per key, summed over its periods
	NoTotal bool // leave out the n_total and s_total columns
	// Summary starts every TotalsWriter row with the summary's name (for
	// tables of several summaries); WriteTotals ignores it.
	Summary bool
}

// WriteTotals writes the space-separated totals of a summary, as the
// original host_year_total.py: "key period n_total s_total" for every period
// with n_total > 0, periods ascending, without a header row. With NoYear the
// periods are summed ("key n_total s_total"); with NoTotal the numbers are
// left out ("key period", or just "key" with both). It streams: memory
// holds one line. A malformed line, or a NoYear sum that overflows int64
// (ErrOverflow), is a *ParseError naming the line; the lines before it have
// been written. TotalsWriter writes the same rows as a labelled table.
func WriteTotals(w io.Writer, r io.Reader, name string, opts *TotalsOptions) error {
	var o TotalsOptions
	if opts != nil {
		o = *opts
	}
	bw := bufio.NewWriter(w)
	var b []byte
	err := eachTotal(r, name, &o, func(key, period string, n, s int64) error {
		b = append(b[:0], key...)
		if !o.NoYear {
			b = append(b, ' ')
			b = append(b, period...)
		}
		if !o.NoTotal {
			b = append(b, ' ')
			b = strconv.AppendInt(b, n, 10)
			b = append(b, ' ')
			b = strconv.AppendInt(b, s, 10)
		}
		b = append(b, '\n')
		_, err := bw.Write(b)
		return err
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	return err
}

// eachTotal calls fn for every totals row of the summary r: key, period
// ("" with NoYear), n_total and s_total, rows with n_total > 0 only,
// periods ascending.
func eachTotal(r io.Reader, name string, o *TotalsOptions, fn func(key, period string, n, s int64) error) error {
	sr := NewSummaryReader(r, name)
	for {
		l, err := sr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		ps := slices.Clone(l.Periods)
		slices.SortFunc(ps, func(a, b PeriodCounters) int { return int(a.Period) - int(b.Period) })
		if o.NoYear {
			var n, s int64
			for _, p := range ps {
				var okN, okS bool
				n, okN = addCount(n, p.Counters[NTotal])
				s, okS = addCount(s, p.Counters[STotal])
				if !okN || !okS {
					return &ParseError{Name: name, Line: sr.line, Err: fmt.Errorf("key %q: %w", l.Key, ErrOverflow)}
				}
			}
			if n <= 0 {
				continue
			}
			if err := fn(l.Key, "", n, s); err != nil {
				return err
			}
			continue
		}
		for _, p := range ps {
			if p.Counters[NTotal] <= 0 {
				continue
			}
			if err := fn(l.Key, p.Period.String(), p.Counters[NTotal], p.Counters[STotal]); err != nil {
				return err
			}
		}
	}
}

// CSVHeader is the header row WriteCSV writes: key, period, then the 26
// counters in the order of CounterNames.
func CSVHeader() []string {
	return append([]string{"key", "period"}, CounterNames[:]...)
}

// WriteCSV converts a summary to RFC 4180 CSV (as the original
// summary2csv.py does, but comma-separated with quoting as needed): a
// header row (CSVHeader), then one row per key and period, periods
// ascending, rows whose counters are all zero left out. It streams. A
// malformed summary line is a *ParseError naming name and the line, the
// rows before it written; otherwise the error is r's read error or w's
// write error.
func WriteCSV(w io.Writer, r io.Reader, name string) error {
	cw := NewCSVWriter(w, false)
	if err := cw.Add(r, name); err != nil {
		return err
	}
	return cw.Close()
}

// CSVWriter writes one or more summaries as one CSV table: the header row
// (CSVHeader, after a "summary" column when it names the summaries), then
// the rows of each summary added, as WriteCSV writes them. Each summary
// keeps its own line numbers in errors. It streams.
type CSVWriter struct {
	cw    *csv.Writer
	named bool
	row   []string
}

// NewCSVWriter returns a CSVWriter writing to w; with named, every row
// starts with the name of its summary.
func NewCSVWriter(w io.Writer, named bool) *CSVWriter {
	c := &CSVWriter{cw: csv.NewWriter(w), named: named}
	head := CSVHeader()
	if named {
		head = append([]string{"summary"}, head...)
	}
	c.cw.Write(head) // an error surfaces at Flush
	c.row = make([]string, len(head))
	return c
}

// Add writes the rows of the summary r (called name in its rows and in
// errors). A malformed line is a *ParseError naming name and the line; the
// rows before it have been written.
func (c *CSVWriter) Add(r io.Reader, name string) error {
	sr := NewSummaryReader(r, name)
	off := 0
	if c.named {
		c.row[0] = name
		off = 1
	}
	for {
		l, err := sr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			c.cw.Flush()
			return err
		}
		ps := slices.Clone(l.Periods)
		slices.SortFunc(ps, func(a, b PeriodCounters) int { return int(a.Period) - int(b.Period) })
		for _, p := range ps {
			if p.Counters.IsZero() {
				continue
			}
			c.row[off], c.row[off+1] = l.Key, p.Period.String()
			for i, v := range p.Counters {
				c.row[off+2+i] = strconv.FormatInt(v, 10)
			}
			if err := c.cw.Write(c.row); err != nil {
				return err
			}
		}
	}
	c.cw.Flush()
	return c.cw.Error()
}

// Close flushes the table.
func (c *CSVWriter) Close() error {
	c.cw.Flush()
	return c.cw.Error()
}
