package main

import (
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"io"
	"slices"
	"strings"

	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/summarychart"
	"github.com/mementokit/mementokit/summary"
)

// chartKinds are the kinds of `summarize chart`, named by their chart IDs;
// the daily ones read index files, the others summaries.
var chartKinds = []string{
	"bytes-per-type", "types-by-captures", "types-by-bytes",
	"captures-per-year", "domains-per-year", "domains-by-letter", "overlap",
	"daily-captures", "daily-bytes", "daily-2xx",
}

func (e *env) chart(args []string) error {
	fs := e.newFlags("chart", "")
	kind := fs.String("kind", "", "what to draw: "+strings.Join(chartKinds, ", ")+" (daily-* from index files, the others from summaries)")
	out := fs.String("o", "", "output image, .svg or .png")
	tld := fs.String("tld", "", "domains-per-year: only the domains under this top-level domain (lu, fr, ...)")
	noyear := fs.Bool("noyear", false, "overlap: compare keys over all years together")
	getOpts := e.dailyFlags(fs)
	server := cdxflag.Add(fs)
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if e.server, err = server(); err != nil {
		return cli.Usagef("%v", err)
	}
	if !slices.Contains(chartKinds, *kind) {
		return cli.Usagef("-kind %q: want one of %s", *kind, strings.Join(chartKinds, ", "))
	}
	if *out == "" {
		return cli.Usagef("chart needs -o OUT.svg or OUT.png")
	}
	if _, err := chart.Format(*out); err != nil {
		return cli.Usagef("%w", err)
	}
	var c *chart.Chart
	switch *kind {
	case "daily-captures", "daily-bytes", "daily-2xx":
		opts, err := getOpts()
		if err != nil {
			return err
		}
		d, err := e.buildDaily(files, opts, false)
		if err != nil {
			return err
		}
		cs, err := summarychart.Daily(d.Days())
		if err != nil {
			return err
		}
		if c = cs[slices.Index([]string{"daily-captures", "daily-bytes", "daily-2xx"}, *kind)]; c == nil {
			return chart.ErrNoData
		}
	case "overlap":
		res, err := e.overlapResult(files, *noyear)
		if err != nil {
			return err
		}
		if c, err = summarychart.Overlap(res); err != nil {
			return err
		}
	case "bytes-per-type", "types-by-captures", "types-by-bytes":
		// One summary, or the sum of several.
		o := summary.NewOverview(strings.Join(summarychart.Names(files), " + "))
		err := e.eachFile(files, func(name string, r io.Reader) error { return o.AddSummary(r, name) })
		if err != nil {
			return err
		}
		switch *kind {
		case "bytes-per-type":
			c, err = summarychart.CategoryBytes(o)
		case "types-by-captures":
			c, err = summarychart.CategoryTreemap(o, false)
		default:
			c, err = summarychart.CategoryTreemap(o, true)
		}
		if err != nil {
			return err
		}
	default:
		os, err := e.overviews(files)
		if err != nil {
			return err
		}
		switch *kind {
		case "captures-per-year":
			c, err = summarychart.CapturesPerYear(os)
		case "domains-per-year":
			c, err = summarychart.DomainsPerYear(os, *tld)
		default:
			c, err = summarychart.FirstLetters(os)
		}
		if err != nil {
			return err
		}
	}
	return chart.Save(*out, c)
}

// overviews reads one Overview per summary file, named by summarychart.Names.
func (e *env) overviews(files []string) ([]*summary.Overview, error) {
	names := summarychart.Names(files)
	var os []*summary.Overview
	i := 0
	err := e.eachFile(files, func(name string, r io.Reader) error {
		o, err := summary.ReadOverview(r, name)
		if err != nil {
			return err
		}
		o.Name = names[i]
		i++
		os = append(os, o)
		return nil
	})
	return os, err
}

// overlapResult compares the summary files (errors name the files), with
// the summaries named by summarychart.Names.
func (e *env) overlapResult(files []string, noyear bool) (*summary.OverlapResult, error) {
	for i, f := range files {
		if slices.Contains(files[:i], f) {
			return nil, cli.Usagef("%s is given twice: overlap compares different summaries", f)
		}
	}
	var readers []io.Reader
	for _, name := range files {
		r, closeFn, err := e.open(name, true)
		if err != nil {
			return nil, err
		}
		defer closeFn()
		readers = append(readers, r)
	}
	res, err := summary.Overlap(files, readers, &summary.OverlapOptions{NoYear: noyear})
	if err != nil {
		return nil, err
	}
	return summarychart.RenameOverlap(res, summarychart.Names(files)), nil
}
