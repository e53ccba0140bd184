package summary

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
)

// TotalsOptions configures WriteTotals.
type TotalsOptions struct {
	NoYear  bool // one line per key, summed over its periods
	NoTotal bool // leave out the n_total and s_total columns
}

// WriteTotals writes the space-separated totals of a summary, as the
// original host_year_total.py: "key period n_total s_total" for every period
// with n_total > 0, periods ascending. With NoYear the periods are summed
// ("key n_total s_total"); with NoTotal the numbers are left out ("key
// period", or just "key" with both). It streams: memory holds one line. A
// malformed line, or a NoYear sum that overflows int64 (ErrOverflow), is a
// *ParseError naming the line; the lines before it have been written.
func WriteTotals(w io.Writer, r io.Reader, name string, opts *TotalsOptions) error {
	var o TotalsOptions
	if opts != nil {
		o = *opts
	}
	bw := bufio.NewWriter(w)
	sr := NewSummaryReader(r, name)
	var b []byte
	for {
		l, err := sr.Read()
		if err == io.EOF {
			return bw.Flush()
		}
		if err != nil {
			bw.Flush()
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
					bw.Flush()
					return &ParseError{Name: name, Line: sr.line, Err: fmt.Errorf("key %q: %w", l.Key, ErrOverflow)}
				}
			}
			if n <= 0 {
				continue
			}
			b = append(b[:0], l.Key...)
			if !o.NoTotal {
				b = append(b, ' ')
				b = strconv.AppendInt(b, n, 10)
				b = append(b, ' ')
				b = strconv.AppendInt(b, s, 10)
			}
			b = append(b, '\n')
			if _, err := bw.Write(b); err != nil {
				return err
			}
			continue
		}
		for _, p := range ps {
			if p.Counters[NTotal] <= 0 {
				continue
			}
			b = append(b[:0], l.Key...)
			b = append(b, ' ')
			b = append(b, p.Period.String()...)
			if !o.NoTotal {
				b = append(b, ' ')
				b = strconv.AppendInt(b, p.Counters[NTotal], 10)
				b = append(b, ' ')
				b = strconv.AppendInt(b, p.Counters[STotal], 10)
			}
			b = append(b, '\n')
			if _, err := bw.Write(b); err != nil {
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
// ascending, rows whose counters are all zero left out. It streams.
func WriteCSV(w io.Writer, r io.Reader, name string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader()); err != nil {
		return err
	}
	return AppendCSV(cw, r, name)
}

// AppendCSV writes the rows of one summary to cw as WriteCSV does, without
// the header, and flushes cw. Several summaries are exported to one table by
// writing CSVHeader once and calling AppendCSV per summary, so that each
// keeps its own line numbers in errors (a malformed line is a *ParseError
// naming name and the line; the rows before it have been written).
func AppendCSV(cw *csv.Writer, r io.Reader, name string) error {
	sr := NewSummaryReader(r, name)
	row := make([]string, 2+NumCounters)
	for {
		l, err := sr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			cw.Flush()
			return err
		}
		ps := slices.Clone(l.Periods)
		slices.SortFunc(ps, func(a, b PeriodCounters) int { return int(a.Period) - int(b.Period) })
		for _, p := range ps {
			if p.Counters.IsZero() {
				continue
			}
			row[0], row[1] = l.Key, p.Period.String()
			for i, v := range p.Counters {
				row[2+i] = strconv.FormatInt(v, 10)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
