package main

import (
	"encoding/csv"
	"io"

	"github.com/mementokit/mementokit/summary"
)

func (e *env) overlap(args []string) error {
	fs := newFlags("overlap", "summarize overlap [-noyear] [-csv] SUMMARY...", e.stderr)
	noyear := fs.Bool("noyear", false, "compare keys over all periods together")
	asCSV := fs.Bool("csv", false, "write the CSV tables instead of JSON")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	var readers []io.Reader
	for _, name := range files {
		r, closeFn, err := e.open(name, true)
		if err != nil {
			return err
		}
		defer closeFn()
		readers = append(readers, r)
	}
	res, err := summary.Overlap(files, readers, &summary.OverlapOptions{NoYear: *noyear})
	if err != nil {
		return err
	}
	if *asCSV {
		return res.WriteCSV(e.stdout)
	}
	return res.WriteJSON(e.stdout)
}

func (e *env) totals(args []string) error {
	fs := newFlags("totals", "summarize totals [-noyear] [-nototal] SUMMARY...", e.stderr)
	noyear := fs.Bool("noyear", false, "one line per key, summed over periods")
	nototal := fs.Bool("nototal", false, "leave the n_total and s_total columns out")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	return e.eachFile(files, func(name string, r io.Reader) error {
		return summary.WriteTotals(e.stdout, r, name, &summary.TotalsOptions{NoYear: *noyear, NoTotal: *nototal})
	})
}

func (e *env) csv(args []string) error {
	fs := newFlags("csv", "summarize csv SUMMARY...", e.stderr)
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	// One table; each file read on its own, so that a file without a final
	// newline does not join its last line to the next file's first, and
	// errors name the file and its own line.
	cw := csv.NewWriter(e.stdout)
	if err := cw.Write(summary.CSVHeader()); err != nil {
		return err
	}
	return e.eachFile(files, func(name string, r io.Reader) error { return summary.AppendCSV(cw, r, name) })
}
