package summary

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// TableFormat is the layout of a labelled table (totals, overlap).
type TableFormat uint8

// The table layouts.
const (
	// FormatText is a header row, then one row per line, columns separated
	// by blanks (aligned when the whole table is in memory, as overlap's).
	FormatText TableFormat = iota
	// FormatCSV is RFC 4180 CSV with a header row.
	FormatCSV
	// FormatJSON is one JSON array of objects, one per row, named by the
	// header's column names.
	FormatJSON
)

// ParseTableFormat reads "text", "csv" or "json". Any other value is an
// error naming it and the three.
func ParseTableFormat(s string) (TableFormat, error) {
	switch s {
	case "text":
		return FormatText, nil
	case "csv":
		return FormatCSV, nil
	case "json":
		return FormatJSON, nil
	}
	return 0, fmt.Errorf("summary: table format %q: want text, csv or json", s)
}

// tableWriter writes rows of one layout: strings for text and CSV, with
// numeric columns as JSON numbers in JSON.
type tableWriter struct {
	format  TableFormat
	bw      *bufio.Writer
	cw      *csv.Writer
	head    []string
	numeric []bool
	rows    int64
	buf     []byte
}

func newTableWriter(w io.Writer, format TableFormat, head []string, numeric []bool) *tableWriter {
	t := &tableWriter{format: format, bw: bufio.NewWriter(w), head: head, numeric: numeric}
	switch format {
	case FormatCSV:
		t.cw = csv.NewWriter(t.bw)
		t.cw.Write(head) // errors surface at Flush
	case FormatText:
		t.bw.WriteString(strings.Join(head, " ") + "\n")
	case FormatJSON:
		t.bw.WriteString("[")
	}
	return t
}

// row writes one row; an empty field of a numeric column is left out of
// the JSON object (a summary that is no member of an overlap combination).
func (t *tableWriter) row(fields []string) error {
	t.rows++
	switch t.format {
	case FormatCSV:
		return t.cw.Write(fields)
	case FormatText:
		b := t.buf[:0]
		for i, f := range fields {
			if i > 0 {
				b = append(b, ' ')
			}
			if f == "" {
				f = "-"
			}
			b = append(b, f...)
		}
		t.buf = append(b, '\n')
		_, err := t.bw.Write(t.buf)
		return err
	default:
		b := t.buf[:0]
		if t.rows > 1 {
			b = append(b, ',')
		}
		b = append(b, "\n{"...)
		first := true
		for i, f := range fields {
			if f == "" && t.numeric[i] {
				continue
			}
			if !first {
				b = append(b, ", "...)
			}
			first = false
			q, _ := json.Marshal(t.head[i])
			b = append(b, q...)
			b = append(b, ": "...)
			if t.numeric[i] {
				b = append(b, f...)
			} else {
				q, _ = json.Marshal(f)
				b = append(b, q...)
			}
		}
		t.buf = append(b, '}')
		_, err := t.bw.Write(t.buf)
		return err
	}
}

// close ends the table (the JSON array) and flushes it.
func (t *tableWriter) close() error {
	switch t.format {
	case FormatCSV:
		t.cw.Flush()
		if err := t.cw.Error(); err != nil {
			return err
		}
	case FormatJSON:
		if t.rows > 0 {
			t.bw.WriteString("\n")
		}
		t.bw.WriteString("]\n")
	}
	return t.bw.Flush()
}

// TotalsWriter writes the totals of one or more summaries (the rows of
// WriteTotals) as one labelled table: a header row naming the columns —
// summary (with TotalsOptions.Summary), key, period (without NoYear),
// n_total and s_total (without NoTotal) — then the rows of each summary
// added, in input order. It streams: memory holds one line.
type TotalsWriter struct {
	opts TotalsOptions
	t    *tableWriter
	row  []string
}

// NewTotalsWriter returns a TotalsWriter writing format to w; nil options
// mean defaults.
func NewTotalsWriter(w io.Writer, format TableFormat, opts *TotalsOptions) *TotalsWriter {
	tw := &TotalsWriter{}
	if opts != nil {
		tw.opts = *opts
	}
	var head []string
	var numeric []bool
	add := func(name string, num bool) {
		head = append(head, name)
		numeric = append(numeric, num)
	}
	if tw.opts.Summary {
		add("summary", false)
	}
	add("key", false)
	if !tw.opts.NoYear {
		add("period", false)
	}
	if !tw.opts.NoTotal {
		add("n_total", true)
		add("s_total", true)
	}
	tw.t = newTableWriter(w, format, head, numeric)
	tw.row = make([]string, len(head))
	return tw
}

// Add writes the rows of the summary r, named name in the summary column
// and in errors. A malformed line, or a NoYear sum that overflows int64,
// is a *ParseError naming the line; the rows before it have been written.
func (tw *TotalsWriter) Add(r io.Reader, name string) error {
	err := eachTotal(r, name, &tw.opts, func(key, period string, n, s int64) error {
		f := tw.row[:0]
		if tw.opts.Summary {
			f = append(f, name)
		}
		f = append(f, key)
		if !tw.opts.NoYear {
			f = append(f, period)
		}
		if !tw.opts.NoTotal {
			f = append(f, strconv.FormatInt(n, 10), strconv.FormatInt(s, 10))
		}
		return tw.t.row(f)
	})
	if err != nil {
		tw.t.bw.Flush()
	}
	return err
}

// Close ends the table and flushes it.
func (tw *TotalsWriter) Close() error { return tw.t.close() }

// WriteTable writes the result as one labelled table in format: a row per
// period and combination (periods, then combinations in the order of
// their members in Names, single summaries first), with the columns
// period, combination ("a AND b"), keys (held by exactly that
// combination), then NAME:n_total and NAME:s_total for every summary
// (empty, "-" in text, or absent in JSON, for a summary outside the
// combination). Text is aligned in columns. Its only errors are w's
// (writing stops at the first).
func (r *OverlapResult) WriteTable(w io.Writer, format TableFormat) error {
	head := []string{"period", "combination", "keys"}
	numeric := []bool{false, false, true}
	for _, n := range r.Names {
		head = append(head, n+":n_total", n+":s_total")
		numeric = append(numeric, true, true)
	}
	rank := map[string]int{}
	for i, n := range r.Names {
		if _, dup := rank[n]; !dup {
			rank[n] = i
		}
	}
	type cellRow struct {
		period, combo string
		members       []int
		cell          *OverlapCell
	}
	var rows []cellRow
	for combo, m := range r.Combos {
		var members []int
		for _, n := range strings.Split(combo, " AND ") {
			members = append(members, rank[n])
		}
		for p, c := range m {
			rows = append(rows, cellRow{p, combo, members, c})
		}
	}
	slices.SortFunc(rows, func(a, b cellRow) int {
		if a.period != b.period {
			return strings.Compare(a.period, b.period)
		}
		if len(a.members) != len(b.members) {
			return len(a.members) - len(b.members)
		}
		return slices.Compare(a.members, b.members)
	})
	if format == FormatText {
		tab := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tab, strings.Join(head, "\t"))
		for _, row := range rows {
			fields := overlapFields(row.period, row.combo, row.members, row.cell, len(head))
			for i, f := range fields {
				if f == "" {
					fields[i] = "-"
				}
			}
			fmt.Fprintln(tab, strings.Join(fields, "\t"))
		}
		return tab.Flush()
	}
	t := newTableWriter(w, format, head, numeric)
	for _, row := range rows {
		if err := t.row(overlapFields(row.period, row.combo, row.members, row.cell, len(head))); err != nil {
			return err
		}
	}
	return t.close()
}

// overlapFields returns the fields of one row of WriteTable: members are
// the indexes in Names of the combination's summaries, in order.
func overlapFields(period, combo string, members []int, c *OverlapCell, n int) []string {
	fields := make([]string, n)
	fields[0], fields[1], fields[2] = period, combo, strconv.FormatInt(c.Keys, 10)
	for j, m := range members {
		if j < len(c.N) {
			fields[3+2*m] = strconv.FormatInt(c.N[j], 10)
			fields[4+2*m] = strconv.FormatInt(c.S[j], 10)
		}
	}
	return fields
}
