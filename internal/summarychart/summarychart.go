// Package summarychart turns summaries (package summary) into charts
// (package internal/chart) and into the report of one or more archives
// (package internal/report): what cdx-summarize's readers and the End of
// Term crawl notes look at.
//
// # Charts
//
//	CategoryBytes    bytes per content type and year (stacked bars), one summary
//	CategoryTreemap  content types by captures or by bytes (treemap), one summary
//	CapturesPerYear  captures per year, one line per summary
//	DomainsPerYear   domains (keys) held per year, one line per summary, optionally under one TLD
//	FirstLetters     registrable domains by first character, bars per summary
//	Overlap          keys held by exactly each combination of summaries, per year (stacked bars)
//	Daily            captures, bytes or 2xx captures per day and organization (lines with gaps)
//
// Summaries are compared in the order given, so that each keeps its colour
// across charts; organizations are ordered by captures, largest first, and
// keep that order (and colour) in the three daily charts.
package summarychart

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/summary"
	"github.com/mementokit/mementokit/timestamp"
)

// Names returns display names for summary files: the base name without
// the extensions .gz, .txt, .summary, .sum, .cdxj, .cdx (a/ia.summary.gz →
// ia), or the path as given where two base names would be the same, and
// "x (2)" for the second of two equal paths.
func Names(paths []string) []string {
	names := make([]string, len(paths))
	count := map[string]int{}
	for i, p := range paths {
		n := filepath.Base(p)
		for _, ext := range []string{".gz", ".txt", ".summary", ".sum", ".cdxj", ".cdx"} {
			if t := strings.TrimSuffix(n, ext); t != "" {
				n = t
			}
		}
		names[i] = n
		count[n]++
	}
	for i, p := range paths {
		if count[names[i]] > 1 {
			names[i] = p
		}
	}
	seen := map[string]int{}
	for i, n := range names { // the same path twice: "x (2)"
		seen[n]++
		if seen[n] > 1 {
			names[i] = fmt.Sprintf("%s (%d)", n, seen[n])
		}
	}
	return names
}

// fillYears returns periods with the years missing between them added,
// when every period is a year (YYYY), so that a bar chart's year axis
// keeps its scale; other periods (202001, "all") are returned as they are.
func fillYears(periods []string) []string {
	var ys []int
	for _, p := range periods {
		var y int
		if len(p) != 4 {
			return periods
		}
		if _, err := fmt.Sscan(p, &y); err != nil {
			return periods
		}
		ys = append(ys, y)
	}
	if len(ys) == 0 {
		return periods
	}
	lo, hi := slices.Min(ys), slices.Max(ys)
	out := make([]string, 0, hi-lo+1)
	for y := lo; y <= hi; y++ {
		out = append(out, fmt.Sprint(y))
	}
	return out
}

// finish folds c's series to chart.MaxSeries, notes what was folded, and
// calls Finish.
func finish(c *chart.Chart, what string) (*chart.Chart, error) {
	n := len(c.Series)
	c.Series = chart.Fold(c.Series, 0)
	if len(c.Series) < n {
		folded := c.Series[len(c.Series)-1].Folded
		note := fmt.Sprintf("%d %s; the %d largest shown, %d summed in %q", n, what, len(c.Series)-1, len(folded), c.Series[len(c.Series)-1].Name)
		if c.Note != "" {
			note = c.Note + ". " + note
		}
		c.Note = note
	}
	if err := c.Finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// logWhenApart switches c to a log Y axis when its series' largest values
// are two or more powers of ten apart, so that a small archive compared
// with a large one does not lie flat on the axis.
func logWhenApart(c *chart.Chart) {
	lo, hi := math.Inf(1), 0.0
	for _, s := range c.Series {
		m := 0.0
		for _, v := range s.Values {
			m = math.Max(m, v)
		}
		for _, p := range s.Points {
			m = math.Max(m, p.Y)
		}
		if m > 0 {
			lo, hi = math.Min(lo, m), math.Max(hi, m)
		}
	}
	if hi > 0 && hi/lo >= 100 {
		c.Y.Type = chart.Log
		c.Y.Label += " (log scale)"
	}
}

// titled appends " — name" to a title when name is not empty.
func titled(title, name string) string {
	if name == "" {
		return title
	}
	return title + " — " + name
}

// categories are the content types in summary counter order, as charts name them.
var categories = []string{"html", "image", "video", "audio", "pdf", "js", "json", "font", "css", "other types"}

// CategoryBytes is "bytes per content type and year" of one summary: one
// bar per year, stacked by content type (html, image, ..., other types).
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func CategoryBytes(o *summary.Overview) (*chart.Chart, error) {
	byYear := map[string]summary.Counters{}
	var periods []string
	for _, y := range o.Years() {
		periods = append(periods, fmt.Sprint(y.Year))
		byYear[periods[len(periods)-1]] = y.Counters
	}
	c := &chart.Chart{
		ID: "bytes-per-type", Title: titled("Bytes per content type and year", o.Name), Kind: chart.StackedBar,
		Categories: fillYears(periods),
		X:          chart.Axis{Label: "year"},
		Y:          chart.Axis{Label: "bytes (compressed WARC records)", Unit: chart.Bytes},
	}
	for k, name := range categories {
		s := chart.Series{Name: name, Values: make([]float64, len(c.Categories))}
		for i, y := range c.Categories {
			cs := byYear[y]
			s.Values[i] = float64(cs[summary.SHTML+k])
		}
		if s.Total() > 0 {
			c.Series = append(c.Series, s)
		}
	}
	return finish(c, "content types")
}

// CategoryTreemap is "content types by captures" (or, with bytes, "by
// bytes") of one summary: one rectangle per content type with captures.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func CategoryTreemap(o *summary.Overview, bytes bool) (*chart.Chart, error) {
	c := &chart.Chart{ID: "types-by-captures", Title: titled("Content types by captures", o.Name), Kind: chart.Treemap,
		Y: chart.Axis{Label: "captures", Unit: chart.Count}}
	first := summary.NHTML
	if bytes {
		c.ID, c.Title, c.Y = "types-by-bytes", titled("Content types by bytes", o.Name), chart.Axis{Label: "bytes", Unit: chart.Bytes}
		first = summary.SHTML
	}
	s := chart.Series{Name: c.Y.Label}
	for k, name := range categories {
		if v := o.Total[first+k]; v > 0 {
			c.Categories = append(c.Categories, name)
			s.Values = append(s.Values, float64(v))
		}
	}
	c.Series = []chart.Series{s}
	total := s.Total()
	c.Note = fmt.Sprintf("Total %s (%s) in %s; types without any are left out", chart.Human(total, c.Y.Unit), chart.Exact(total, c.Y.Unit), count.Of(len(s.Values), "content type", "content types"))
	if err := c.Finish(); err != nil {
		return nil, err
	}
	return c, nil
}

// perYear builds a line chart with one series per overview from value(o, year).
func perYear(os []*summary.Overview, c *chart.Chart, value func(*summary.Overview, summary.YearOverview) float64) (*chart.Chart, error) {
	c.Kind = chart.Line
	c.X = chart.Axis{Label: "year", Unit: chart.Year}
	c.Gap = 1
	for _, o := range os {
		s := chart.Series{Name: o.Name}
		for _, y := range o.Years() {
			if v := value(o, y); v > 0 {
				s.Points = append(s.Points, chart.Point{X: float64(y.Year), Y: v})
			}
		}
		c.Series = append(c.Series, s)
	}
	logWhenApart(c)
	return finish(c, "summaries")
}

// CapturesPerYear is "captures per year": one line per summary (a year
// without captures is a gap).
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func CapturesPerYear(os []*summary.Overview) (*chart.Chart, error) {
	c := &chart.Chart{ID: "captures-per-year", Title: "Captures per year", Y: chart.Axis{Label: "captures (2xx)", Unit: chart.Count}}
	if len(os) == 1 {
		c.Title = titled(c.Title, os[0].Name)
	}
	return perYear(os, c, func(_ *summary.Overview, y summary.YearOverview) float64 { return float64(y.Counters[summary.NTotal]) })
}

// DomainsPerYear is "domains held per year": the keys with captures each
// summary holds per year, one line per summary; with tld (such as "lu")
// only the keys under that top-level domain.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func DomainsPerYear(os []*summary.Overview, tld string) (*chart.Chart, error) {
	tld = strings.ToLower(strings.TrimPrefix(tld, "."))
	c := &chart.Chart{ID: "domains-per-year", Title: "Domains held per year", Y: chart.Axis{Label: "domains with captures", Unit: chart.Count}}
	if tld != "" {
		c.ID, c.Title = "domains-per-year-"+tld, "Domains under ."+tld+" held per year"
	}
	if len(os) == 1 {
		c.Title = titled(c.Title, os[0].Name)
	}
	perTLD := make([]map[int]int64, len(os))
	for i, o := range os {
		if tld != "" {
			perTLD[i] = o.TLDKeys(tld)
		}
	}
	idx := map[*summary.Overview]int{}
	for i, o := range os {
		idx[o] = i
	}
	return perYear(os, c, func(o *summary.Overview, y summary.YearOverview) float64 {
		if tld != "" {
			return float64(perTLD[idx[o]][y.Year])
		}
		return float64(y.Keys)
	})
}

// FirstLetters is "registrable domains by first letter": for one summary
// the count of domains per first character (a to z, 0-9, IDN, other); for
// several, each summary's share of its own domains, so that archives of
// different sizes compare. Keys that are no domain name are left out and
// counted in the note.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func FirstLetters(os []*summary.Overview) (*chart.Chart, error) {
	c := &chart.Chart{ID: "domains-by-letter", Title: "Registrable domains by first letter", Kind: chart.Bar,
		Categories: summary.FirstCharClasses,
		X:          chart.Axis{Label: "first character of the registrable domain"},
		Y:          chart.Axis{Label: "domains", Unit: chart.Count}}
	share := len(os) > 1
	if share {
		c.Y = chart.Axis{Label: "share of the summary's domains", Unit: chart.Percent}
	} else {
		c.Title = titled(c.Title, os[0].Name)
	}
	var left []string
	for _, o := range os {
		s := chart.Series{Name: o.Name, Values: make([]float64, len(c.Categories))}
		total := 0.0
		for _, n := range o.FirstChar {
			total += float64(n)
		}
		for j, cl := range c.Categories {
			v := float64(o.FirstChar[cl])
			if share && total > 0 {
				v /= total
			}
			s.Values[j] = v
		}
		c.Series = append(c.Series, s)
		if o.NotDomains > 0 {
			left = append(left, fmt.Sprintf("%s: %s", o.Name, chart.Thousands(float64(o.NotDomains))))
		}
	}
	// Classes no summary has (IDN, other, often) are dropped, not drawn empty.
	for j := len(c.Categories) - 1; j >= 0; j-- {
		if j < 26 {
			break // the letters always show, so that the axis reads a to z
		}
		empty := true
		for _, s := range c.Series {
			empty = empty && s.Values[j] == 0
		}
		if empty {
			c.Categories = slices.Delete(slices.Clone(c.Categories), j, j+1)
			for i := range c.Series {
				c.Series[i].Values = slices.Delete(c.Series[i].Values, j, j+1)
			}
		}
	}
	if len(left) > 0 {
		c.Note = "Keys that are no domain name (IP addresses, dns: and other pseudo-URIs) left out: " + strings.Join(left, ", ")
	}
	return finish(c, "summaries")
}

// RenameOverlap returns res with its summaries renamed: names[i] for
// res.Names[i], in the names and in the combinations.
func RenameOverlap(res *summary.OverlapResult, names []string) *summary.OverlapResult {
	to := map[string]string{}
	for i, n := range res.Names {
		if i < len(names) {
			to[n] = names[i]
		}
	}
	out := &summary.OverlapResult{Combos: make(map[string]map[string]*summary.OverlapCell, len(res.Combos))}
	for _, n := range res.Names {
		out.Names = append(out.Names, to[n])
	}
	for k, m := range res.Combos {
		members := strings.Split(k, " AND ")
		for i, mb := range members {
			members[i] = to[mb]
		}
		out.Combos[strings.Join(members, " AND ")] = m
	}
	return out
}

// comboName writes a combination of summaries ("a AND b" in
// summary.Overlap's result) for a legend: "only a", "a + b", "all 3".
func comboName(combo string, n int) string {
	members := strings.Split(combo, " AND ")
	switch {
	case len(members) == 1:
		return "only " + members[0]
	case len(members) == n && n > 2:
		return fmt.Sprintf("all %d", n)
	}
	return strings.Join(members, " + ")
}

// Overlap is "keys held by each combination of summaries": one stacked bar
// per year (or one for all years, with summary.OverlapOptions.NoYear), a
// segment per combination of summaries holding exactly those keys,
// single summaries first.
// It returns chart.ErrNoData when there is nothing to draw, and
// chart.Chart.Finish's error for a malformed chart.
func Overlap(res *summary.OverlapResult) (*chart.Chart, error) {
	combos := make([]string, 0, len(res.Combos))
	periodSet := map[string]bool{}
	for k, m := range res.Combos {
		combos = append(combos, k)
		for p := range m {
			periodSet[p] = true
		}
	}
	rank := map[string]int{}
	for i, n := range res.Names {
		rank[n] = i
	}
	memberRanks := func(k string) []int {
		var r []int
		for _, m := range strings.Split(k, " AND ") {
			r = append(r, rank[m])
		}
		return r
	}
	slices.SortFunc(combos, func(a, b string) int {
		ra, rb := memberRanks(a), memberRanks(b)
		if len(ra) != len(rb) {
			return len(ra) - len(rb)
		}
		return slices.Compare(ra, rb)
	})
	periods := make([]string, 0, len(periodSet))
	for p := range periodSet {
		periods = append(periods, p)
	}
	slices.Sort(periods)
	periods = fillYears(periods)
	c := &chart.Chart{ID: "overlap", Title: "Keys held by each combination of summaries", Kind: chart.StackedBar,
		Categories: periods,
		X:          chart.Axis{Label: "year"},
		Y:          chart.Axis{Label: "keys (domains) with captures", Unit: chart.Count}}
	if len(periods) == 1 && periods[0] == summary.AllPeriods {
		c.X.Label, c.Categories = "", []string{"all years"}
	}
	for _, k := range combos {
		s := chart.Series{Name: comboName(k, len(res.Names)), Values: make([]float64, len(periods))}
		for j, p := range periods {
			if cell := res.Combos[k][p]; cell != nil {
				s.Values[j] = float64(cell.Keys)
			}
		}
		c.Series = append(c.Series, s)
	}
	return finish(c, "combinations")
}

// Measure is what a daily chart counts.
type Measure int

// The daily measures (the three series of the End of Term crawl notes).
const (
	Captures   Measure = iota // captures per day
	Bytes                     // bytes (record lengths) per day
	OKCaptures                // captures with a 2xx status per day
)

// Daily returns the three daily charts — captures, bytes and 2xx captures
// per day and organization — of a series from summary.Daily. The same
// organizations, ordered by captures (largest first), are shown in all
// three; beyond chart.MaxSeries-1 the others are summed in "other (k)".
// Each organization's line breaks between days more than one day apart.
// A chart with nothing to draw (no 2xx capture on any day, say) is nil;
// when all three are, the error is chart.ErrNoData.
func Daily(days []summary.Day) ([3]*chart.Chart, error) {
	var out [3]*chart.Chart
	totals := map[string]int64{}
	for _, d := range days {
		for o, c := range d.Orgs {
			totals[o] += c.Count
		}
	}
	orgs := make([]string, 0, len(totals))
	for o := range totals {
		orgs = append(orgs, o)
	}
	slices.SortFunc(orgs, func(a, b string) int {
		if totals[a] != totals[b] {
			if totals[a] > totals[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	keep := len(orgs)
	if keep > chart.MaxSeries {
		keep = chart.MaxSeries - 1
	}
	specs := []struct {
		id, title, label string
		unit             chart.Unit
		pick             func(summary.DayOrg) int64
	}{
		{"daily-captures", "Captures per day by organization", "captures", chart.Count, func(c summary.DayOrg) int64 { return c.Count }},
		{"daily-bytes", "Bytes per day by organization", "bytes (compressed WARC records)", chart.Bytes, func(c summary.DayOrg) int64 { return c.Size }},
		{"daily-2xx", "2xx captures per day by organization", "captures with a 2xx status", chart.Count, func(c summary.DayOrg) int64 { return c.OKCount }},
	}
	for m, sp := range specs {
		c := &chart.Chart{ID: sp.id, Title: sp.title, Kind: chart.Line, Gap: 86400,
			X: chart.Axis{Label: "day (UTC)", Type: chart.Time},
			Y: chart.Axis{Label: sp.label, Unit: sp.unit}}
		series := make([]chart.Series, len(orgs))
		for i, o := range orgs {
			series[i].Name = o
		}
		pos := map[string]int{}
		for i, o := range orgs {
			pos[o] = i
		}
		for _, d := range days {
			t, err := timestamp.Parse(d.Day)
			if err != nil {
				return out, fmt.Errorf("summarychart: day %q: %v", d.Day, err)
			}
			x := float64(t.Unix())
			for o, dc := range d.Orgs {
				i := pos[o]
				series[i].Points = append(series[i].Points, chart.Point{X: x, Y: float64(sp.pick(dc))})
			}
		}
		if keep < len(orgs) {
			other := chart.Sum(chart.OtherName(len(orgs)-keep), series[keep:])
			series = append(series[:keep:keep], other)
			c.Note = fmt.Sprintf("%d organizations; the %d with most captures shown, %d summed in %q", len(orgs), keep, len(orgs)-keep, other.Name)
		}
		c.Series = series
		if err := c.Finish(); errors.Is(err, chart.ErrNoData) {
			continue // no 2xx capture at all, say: that chart alone is missing
		} else if err != nil {
			return out, err
		}
		out[m] = c
	}
	if out[0] == nil && out[1] == nil && out[2] == nil {
		return out, chart.ErrNoData
	}
	return out, nil
}
