// Package logreport turns what package aggregator/accesslog read from
// aggregator logs into a self-contained HTML report (package
// internal/report): the paper's Table 3 (what each archive answered) as a
// table and a stacked bar chart, and Figure 4 (archived vs accessed URI-Rs,
// Alam et al., JCDL 2019) as a matrix table and a bar chart, with the
// module's chart conventions (package internal/chart).
package logreport

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/mementokit/mementokit/aggregator/accesslog"
	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/report"
)

// Input is what a log report shows.
type Input struct {
	Title string // "" means "Lookups from access logs"
	Stats *accesslog.Stats
	// Overlap is Figure 4; nil leaves its section out (no index given).
	Overlap       *accesslog.Overlap
	DistinctURIRs int
	Sources       []string
	Generator     string
}

// Report builds the page. A chart without data is left out and named in
// its section's text; a malformed chart is an error.
func Report(in Input) (*report.Page, error) {
	st := in.Stats
	if st == nil {
		return nil, errors.New("logreport: no stats")
	}
	pg := &report.Page{Title: in.Title, Sources: in.Sources, Generator: in.Generator}
	if pg.Title == "" {
		pg.Title = "Lookups from access logs"
	}
	cnt := func(v int64) string { return chart.Exact(float64(v), chart.Count) }
	pg.Intro = fmt.Sprintf("%s lookups of %s distinct URI-Rs read from %s lines of %d log files; %s lines not of their format, %s lookups refused (their URI-R or datetime does not parse).",
		cnt(st.Lookups), cnt(int64(in.DistinctURIRs)), cnt(st.Lines), st.Files, cnt(st.Bad), cnt(st.Refused))
	var charts report.Charts
	add := charts.Add
	s := report.Section{ID: "archives", Title: "What each archive answered (Table 3)", TablesFirst: true,
		Text: "Per archive, the searches that considered it: hits (mementos found), misses (none), errors (the request failed), " +
			"skipped by its MementoMap, or not asked while dormant; put to sleep counts how often it became dormant. Answers from the cache asked no archive."}
	if len(st.Archives) == 0 {
		s.Text += " The logs name no archive outcome (Common and Combined logs do not; aggregator logs do for searches)."
	} else {
		s.Tables = append(s.Tables, archiveTable(st))
		c, e := ArchiveChart(st)
		add(&s, c, e, "archive outcomes")
	}
	pg.Sections = append(pg.Sections, s)
	if ov := in.Overlap; ov != nil {
		s = report.Section{ID: "overlap", Title: "Archived vs accessed URI-Rs (Figure 4)", TablesFirst: true,
			Text: fmt.Sprintf("%s URI-Rs archived, %s requested, %s both. Rows: mementos the index holds of a URI-R; columns: lookups of it in the logs, "+
				"both by order of magnitude. Row Zero: URI-Rs asked for that the index does not hold; column Zero: URI-Rs held that nobody asked for; "+
				"the Zero–Zero cell is unknown.", cnt(ov.Archived), cnt(ov.Requested), cnt(ov.Both))}
		s.Tables = append(s.Tables, overlapTable(ov))
		c, e := OverlapChart(ov)
		add(&s, c, e, "the overlap matrix")
		pg.Sections = append(pg.Sections, s)
	}
	if err := charts.Err(); err != nil {
		return nil, err
	}
	return pg, nil
}

func archiveTable(st *accesslog.Stats) *report.Table {
	t := &report.Table{ID: "3", Title: "Table 3 — archive outcomes", Columns: []report.Column{{Name: "archive"},
		{Name: "requests", Unit: chart.Count}, {Name: "hits", Unit: chart.Count}, {Name: "hit share", Unit: chart.Percent},
		{Name: "misses", Unit: chart.Count}, {Name: "miss share", Unit: chart.Percent},
		{Name: "errors", Unit: chart.Count}, {Name: "error share", Unit: chart.Percent},
		{Name: "skipped by map", Unit: chart.Count}, {Name: "dormant", Unit: chart.Count}, {Name: "put to sleep", Unit: chart.Count}}}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	share := func(n, d int64) string {
		if d == 0 {
			return ""
		}
		return strconv.FormatFloat(float64(n)/float64(d), 'g', -1, 64)
	}
	for _, a := range st.Archives {
		t.Rows = append(t.Rows, []string{a.Archive, i(a.Requests), i(a.Hits), share(a.Hits, a.Requests), i(a.Misses), share(a.Misses, a.Requests),
			i(a.Errors), share(a.Errors, a.Requests), i(a.Skipped), i(a.Dormant), i(a.Slept)})
	}
	return t
}

func overlapTable(ov *accesslog.Overlap) *report.Table {
	t := &report.Table{ID: "4", Title: "Figure 4 — URI-Rs by mementos held (rows) and lookups (columns)",
		Note: "The Zero–Zero cell (URI-Rs neither held nor asked for) is unknown.", Columns: []report.Column{{Name: "mementos \\ lookups"}}}
	for c := range ov.Cells[0] {
		t.Columns = append(t.Columns, report.Column{Name: ov.Bins[c], Unit: chart.Count})
	}
	for m, row := range ov.Cells {
		r := []string{ov.Bins[m]}
		for _, v := range row {
			if v < 0 {
				r = append(r, "")
			} else {
				r = append(r, strconv.FormatInt(v, 10))
			}
		}
		t.Rows = append(t.Rows, r)
	}
	return t
}

// ArchiveChart is Table 3 as bars: each archive's searches split into
// hits, misses, errors, skipped by map and dormant, stacked to 100 %.
func ArchiveChart(st *accesslog.Stats) (*chart.Chart, error) {
	c := &chart.Chart{ID: "archive-outcomes", Title: "What each archive answered (Table 3)", Kind: chart.StackedBar,
		X: chart.Axis{Label: "archive"}, Y: chart.Axis{Label: "share of the searches that considered it", Unit: chart.Percent}}
	series := []chart.Series{{Name: "hits"}, {Name: "misses"}, {Name: "errors"}, {Name: "skipped by map"}, {Name: "dormant"}}
	for _, a := range st.Archives {
		if a.Requests == 0 {
			continue
		}
		c.Categories = append(c.Categories, a.Archive)
		d := float64(a.Requests)
		for i, v := range []int64{a.Hits, a.Misses, a.Errors, a.Skipped, a.Dormant} {
			series[i].Values = append(series[i].Values, float64(v)/d)
		}
	}
	if len(c.Categories) == 0 {
		return nil, chart.ErrNoData
	}
	c.Series = series
	if err := c.Finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// OverlapChart is Figure 4 as bars: one group per lookup bin (never asked
// for, asked 1–9 times, ...), one bar per memento bin (not archived, 1–9
// mementos, ...), the URI-R counts on a log scale. The unknown cell is not
// drawn.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func OverlapChart(ov *accesslog.Overlap) (*chart.Chart, error) {
	c := &chart.Chart{ID: "archived-vs-accessed", Title: "Archived vs accessed URI-Rs (Figure 4)", Kind: chart.Bar,
		X: chart.Axis{Label: "lookups of a URI-R in the logs"}, Y: chart.Axis{Label: "URI-Rs (log scale)", Type: chart.Log, Unit: chart.Count},
		Note: "Zero lookups: URI-Rs held that nobody asked for; the \"not archived\" bars: URI-Rs asked for that the index does not hold."}
	for q := range ov.Cells[0] {
		c.Categories = append(c.Categories, binLabel(q, "never asked", "asked"))
	}
	for m, row := range ov.Cells {
		s := chart.Series{Name: binLabel(m, "not archived", "mementos")}
		for _, v := range row {
			s.Values = append(s.Values, float64(max(v, 0)))
		}
		c.Series = append(c.Series, s)
	}
	if len(c.Series) > chart.MaxSeries {
		n := len(c.Series)
		c.Series = chart.Fold(c.Series, 0)
		c.Note += fmt.Sprintf(" %d memento bins; the %d largest shown, the rest summed.", n, len(c.Series)-1)
	}
	if err := c.Finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// binLabel names bin b of an axis: zero for bin 0, else "what 1–9",
// "what 10–99", ... ("what 1k–10k" past 999).
func binLabel(b int, zero, what string) string {
	if b == 0 {
		return zero
	}
	lo := 1.0
	for i := 1; i < b; i++ {
		lo *= 10
	}
	if b <= 3 {
		return fmt.Sprintf("%s %d–%d", what, int64(lo), int64(lo*10-1))
	}
	return fmt.Sprintf("%s %s–%s", what, chart.Human(lo, chart.Count), chart.Human(lo*10, chart.Count))
}
