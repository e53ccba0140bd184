package main

import (
	"io"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/summary"
)

// tableFormat reads a -format flag of the labelled tables.
func tableFormat(s string) (summary.TableFormat, error) {
	f, err := summary.ParseTableFormat(s)
	if err != nil {
		return 0, cli.Usagef("-format %q: want text, csv or json", s)
	}
	return f, nil
}

func (e *env) overlap(args []string) error {
	fs := e.newFlags("overlap", "")
	noyear := fs.Bool("noyear", false, "compare keys over all periods together")
	format := fs.String("format", "text", "text (aligned table), csv or json: one row per period and combination of summaries, every number labelled; tables: the three CSV tables of the original overlap.py -csv")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	var f summary.TableFormat
	if *format != "tables" {
		if f, err = tableFormat(*format); err != nil {
			return err
		}
	}
	res, err := e.overlapResult(files, *noyear)
	if err != nil {
		return err
	}
	if *format == "tables" {
		return res.WriteCSV(e.stdout)
	}
	return res.WriteTable(e.stdout, f)
}

func (e *env) totals(args []string) error {
	fs := e.newFlags("totals", "")
	noyear := fs.Bool("noyear", false, "one line per key, summed over periods")
	nototal := fs.Bool("nototal", false, "leave the n_total and s_total columns out")
	format := fs.String("format", "text", "text, csv or json; a header row names the columns (summary, with several files; key; period; n_total; s_total)")
	noheader := fs.Bool("noheader", false, "the original host_year_total.py layout: text rows without a header or summary column")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	f, err := tableFormat(*format)
	if err != nil {
		return err
	}
	opts := &summary.TotalsOptions{NoYear: *noyear, NoTotal: *nototal, Summary: len(files) > 1}
	if *noheader {
		if f != summary.FormatText {
			return cli.Usagef("-noheader is the text layout of the original; it excludes -format %s", *format)
		}
		return e.eachFile(files, func(name string, r io.Reader) error { return summary.WriteTotals(e.stdout, r, name, opts) })
	}
	tw := summary.NewTotalsWriter(e.stdout, f, opts)
	if err := e.eachFile(files, func(name string, r io.Reader) error { return tw.Add(r, name) }); err != nil {
		return err
	}
	return tw.Close()
}

func (e *env) csv(args []string) error {
	fs := e.newFlags("csv", "")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	// One table; each file read on its own, so that a file without a final
	// newline does not join its last line to the next file's first, and
	// errors name the file and its own line.
	cw := summary.NewCSVWriter(e.stdout, len(files) > 1)
	if err := e.eachFile(files, func(name string, r io.Reader) error { return cw.Add(r, name) }); err != nil {
		return err
	}
	return cw.Close()
}
