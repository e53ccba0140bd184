package main

import (
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"io"
	"slices"
	"strings"

	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/internal/summarychart"
	"github.com/mementokit/mementokit/summary"
)

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }

func (e *env) report(args []string) error {
	fs := e.newFlags("report", `One self-contained HTML file (no network needed to view it): interactive charts with hover and zoom,
sortable tables, and the numbers behind each as CSV, for summaries and, with -daily or -index, the daily
series per organization.`)
	out := fs.String("o", "report.html", "output HTML file")
	title := fs.String("title", "", "title of the report (default: from the summaries' names)")
	var tlds, dailies, indexes listFlag
	fs.Var(&tlds, "tld", "also chart the domains under this top-level domain per year (repeatable; default: the commonest)")
	fs.Var(&dailies, "daily", "a daily series file written by `summarize daily` (repeatable)")
	fs.Var(&indexes, "index", "an index file (CDX, CDXJ) to build the daily series from (repeatable)")
	getOpts := e.dailyFlags(fs)
	server := cdxflag.Add(fs)
	files, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if e.server, err = server(); err != nil {
		return cli.Usagef("%v", err)
	}
	if len(files)+len(dailies)+len(indexes) == 0 {
		fs.Usage()
		return cli.Usagef("report needs summaries, -daily or -index")
	}
	if len(dailies) > 0 && len(indexes) > 0 {
		return cli.Usagef("-daily and -index exclude each other: give the series, or the indexes to build it from")
	}
	in := summarychart.ReportInput{Title: *title, TLDs: tlds, Generator: "mementokit summarize report",
		Sources: append(append(append([]string{}, files...), dailies...), indexes...)}
	if len(files) > 0 {
		if in.Summaries, err = e.overviews(files); err != nil {
			return err
		}
		if len(files) > 1 {
			if in.Overlap, err = e.overlapResult(files, false); err != nil {
				return err
			}
		}
		if in.Title == "" {
			in.Title = "Summary of " + strings.Join(summarychart.Names(files), ", ")
		}
	}
	switch {
	case len(dailies) > 0:
		err = e.eachFile(dailies, func(name string, r io.Reader) error {
			days, err := summary.ReadDays(r, name)
			in.Days = mergeDays(in.Days, days)
			return err
		})
	case len(indexes) > 0:
		opts, err2 := getOpts()
		if err2 != nil {
			return err2
		}
		var d *summary.Daily
		if d, err = e.buildDaily(indexes, opts, false); err == nil {
			in.Days = d.Days()
		}
	}
	if err != nil {
		return err
	}
	if in.Title == "" {
		in.Title = "Daily crawl activity"
	}
	page, err := summarychart.Report(in)
	if err != nil {
		return err
	}
	return report.Save(*out, page)
}

// mergeDays adds the days of b to a (each a series, days ascending),
// summing organizations of a day found in both.
func mergeDays(a, b []summary.Day) []summary.Day {
	if len(a) == 0 {
		return b
	}
	byDay := map[string]summary.Day{}
	for _, d := range a {
		byDay[d.Day] = d
	}
	for _, d := range b {
		m, ok := byDay[d.Day]
		if !ok {
			byDay[d.Day] = d
			continue
		}
		for o, c := range d.Orgs {
			x := m.Orgs[o]
			x.Count += c.Count
			x.Size += c.Size
			x.OKCount += c.OKCount
			x.OKSize += c.OKSize
			m.Orgs[o] = x
		}
	}
	out := make([]summary.Day, 0, len(byDay))
	for _, d := range byDay {
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y summary.Day) int { return strings.Compare(x.Day, y.Day) })
	return out
}
