package summarychart

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/summary"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// chartsEnv names a folder that, when set, receives every golden chart as
// PNG, to look at.
const chartsEnv = "MEMENTOKIT_CHARTS"

// index returns a shipped real index file.
func index(t *testing.T, name string) []byte {
	t.Helper()
	b, err := sampledata.ReadFile("real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// overview summarizes a shipped index file as `summarize` does and reads
// the summary back into an Overview named name.
func overview(t *testing.T, file, name string) *summary.Overview {
	t.Helper()
	s := summary.New(nil)
	if err := s.ReadIndex(context.Background(), cdxj.NewStream(file, bytes.NewReader(index(t, file)), nil), true); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	o, err := summary.ReadOverview(&b, name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// summaryText summarizes a shipped index file.
func summaryText(t *testing.T, file string) []byte {
	t.Helper()
	s := summary.New(nil)
	if err := s.ReadIndex(context.Background(), cdxj.NewStream(file, bytes.NewReader(index(t, file)), nil), true); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The real archives of internal/sampledata, by the names the charts show.
var archives = []struct{ file, name string }{
	{"openwayback_archive-org.cdx", "IA wayback"},
	{"cc_commoncrawl-org_from-cdxapi.cdxj", "Common Crawl"},
	{"ia_cdxapi_from-json.cdx7", "IA CDX API"},
	{"ipwb_sample-1.cdxj", "ipwb"},
	{"cdxjindexer_post-append.cdxj", "cdxj-indexer"},
}

func overviews(t *testing.T) []*summary.Overview {
	var os []*summary.Overview
	for _, a := range archives {
		os = append(os, overview(t, a.file, a.name))
	}
	return os
}

func daily(t *testing.T, org summary.OrgFunc) []summary.Day {
	d := summary.NewDaily(&summary.DailyOptions{Org: org})
	if err := d.ReadIndex(context.Background(), cdxj.NewStream("openwayback_archive-org.cdx", bytes.NewReader(index(t, "openwayback_archive-org.cdx")), nil), false); err != nil {
		t.Fatal(err)
	}
	return d.Days()
}

// pointRE and tickRE match one indented point or tick of the golden JSON,
// to write it on one line.
var (
	pointRE = regexp.MustCompile(`\{\n\s+"x": ([^,\n]+),\n\s+"y": ([^\n]+)\n\s+\}`)
	tickRE  = regexp.MustCompile(`\{\n\s+"value": ([^,\n]+)(,)?(\n\s+"label": ("[^"\n]*"))?\n\s+\}`)
)

// golden compares c (as JSON: what is plotted, after the fold and with its
// tick labels) with testdata/golden/NAME.json.
func golden(t *testing.T, name string, c *chart.Chart) {
	t.Helper()
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	b = pointRE.ReplaceAll(b, []byte(`{"x": $1, "y": $2}`))
	b = tickRE.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := tickRE.FindSubmatch(m)
		if len(sub[4]) == 0 {
			return []byte(`{"value": ` + string(sub[1]) + `}`)
		}
		return []byte(`{"value": ` + string(sub[1]) + `, "label": ` + string(sub[4]) + `}`)
	})
	b = append(b, '\n')
	path := filepath.Join("testdata", "golden", name+".json")
	if *update {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if dir := os.Getenv(chartsEnv); dir != "" {
		if err := chart.Save(filepath.Join(dir, name+".png"), c); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if d := cmp.Diff(string(want), string(b)); d != "" {
		t.Errorf("%s (-want +got):\n%s", path, d)
	}
}

func TestGolden(t *testing.T) {
	os := overviews(t)
	ia := os[0]
	overlapInputs := func(noYear bool) *summary.OverlapResult {
		var names []string
		var readers []io.Reader
		for _, a := range archives[:3] {
			names = append(names, a.name)
			readers = append(readers, bytes.NewReader(summaryText(t, a.file)))
		}
		res, err := summary.Overlap(names, readers, &summary.OverlapOptions{NoYear: noYear})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	days := daily(t, nil)
	cs, err := Daily(days)
	if err != nil {
		t.Fatal(err)
	}
	reDays := daily(t, summary.OrgByRegexp(regexp.MustCompile(`^([A-Z]+)[-_]`)))
	rcs, err := Daily(reDays)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		c    func() (*chart.Chart, error)
	}{
		{"bytes-per-type-ia", func() (*chart.Chart, error) { return CategoryBytes(ia) }},
		{"types-by-captures-ia", func() (*chart.Chart, error) { return CategoryTreemap(ia, false) }},
		{"types-by-bytes-cc", func() (*chart.Chart, error) { return CategoryTreemap(os[1], true) }},
		{"captures-per-year", func() (*chart.Chart, error) { return CapturesPerYear(os) }},
		{"domains-per-year", func() (*chart.Chart, error) { return DomainsPerYear(os, "") }},
		{"domains-per-year-org", func() (*chart.Chart, error) { return DomainsPerYear(os, ".org") }},
		{"domains-by-letter-cc", func() (*chart.Chart, error) { return FirstLetters(os[1:2]) }},
		{"domains-by-letter", func() (*chart.Chart, error) { return FirstLetters(os) }},
		{"overlap", func() (*chart.Chart, error) { return Overlap(overlapInputs(false)) }},
		{"overlap-noyear", func() (*chart.Chart, error) { return Overlap(overlapInputs(true)) }},
		{"daily-captures-ia", func() (*chart.Chart, error) { return cs[0], nil }},
		{"daily-bytes-ia", func() (*chart.Chart, error) { return cs[1], nil }},
		{"daily-2xx-ia", func() (*chart.Chart, error) { return cs[2], nil }},
		{"daily-captures-ia-regexp", func() (*chart.Chart, error) { return rcs[0], nil }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := tc.c()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, c)
			checkReadable(t, c)
		})
	}
}

// checkReadable checks the rules every chart keeps: a title and axis
// labels, at most chart.MaxSeries series with "other" last, distinct
// non-empty tick labels (a month name may repeat on a date axis), at least
// two of them on the value axis.
func checkReadable(t *testing.T, c *chart.Chart) {
	t.Helper()
	if c.Title == "" || c.ID == "" {
		t.Errorf("chart without a title or ID: %q %q", c.ID, c.Title)
	}
	if len(c.Series) > chart.MaxSeries {
		t.Errorf("%s: %d series", c.ID, len(c.Series))
	}
	for i, s := range c.Series {
		if len(s.Folded) > 0 && i != len(c.Series)-1 {
			t.Errorf("%s: folded series %q is not last", c.ID, s.Name)
		}
	}
	if c.Kind == chart.Treemap {
		return
	}
	if c.Y.Label == "" || (c.X.Label == "" && c.Categories[0] != "all years") {
		t.Errorf("%s: axis labels %q, %q", c.ID, c.X.Label, c.Y.Label)
	}
	for k, a := range []chart.Axis{c.X, c.Y} {
		seen := map[string]bool{}
		n := 0
		for _, tk := range a.Ticks {
			if tk.Label == "" {
				continue
			}
			n++
			if seen[tk.Label] && a.Type != chart.Time { // "Jul" may come back a year later
				t.Errorf("%s: tick label %q twice on the %s axis", c.ID, tk.Label, a.Label)
			}
			seen[tk.Label] = true
			if strings.Contains(tk.Label, "e+") || strings.Contains(tk.Label, ".00") {
				t.Errorf("%s: tick label %q is not in human units", c.ID, tk.Label)
			}
		}
		if n < 1 || (k == 1 && n < 2) {
			t.Errorf("%s: %d labelled ticks on the %s axis", c.ID, n, a.Label)
		}
	}
}

func total(c *chart.Chart) float64 {
	sum := 0.0
	for _, s := range c.Series {
		sum += s.Total()
	}
	return sum
}

// The daily charts fold the Internet Archive sample's 66 WARC-name prefixes
// into 7 and "other", keep every capture, and break lines at missing days;
// -org-regexp decides the organizations alone.
func TestDailyFold(t *testing.T) {
	d := summary.NewDaily(nil)
	if err := d.ReadIndex(context.Background(), cdxj.NewStream("ia", bytes.NewReader(index(t, "openwayback_archive-org.cdx")), nil), false); err != nil {
		t.Fatal(err)
	}
	cs, err := Daily(d.Days())
	if err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	if len(c.Series) != 8 || c.Series[7].Name != "other (59)" || len(c.Series[7].Folded) != 59 {
		t.Errorf("series %d, last %q with %d folded", len(c.Series), c.Series[7].Name, len(c.Series[7].Folded))
	}
	if got, want := total(c), float64(d.Stats().Records); got != want {
		t.Errorf("captures plotted %g, want every record: %g", got, want)
	}
	if c.Gap != 86400 || len(chart.Segments(c.Series[0].Points, c.Gap)) < 2 {
		t.Errorf("gap %g: the largest organization's line has no break", c.Gap)
	}
	for _, name := range []string{cs[0].Series[3].Name, cs[1].Series[3].Name, cs[2].Series[3].Name} {
		if name != c.Series[3].Name {
			t.Errorf("the three daily charts order organizations differently: %q, %q", name, c.Series[3].Name)
		}
	}
	re := summary.NewDaily(&summary.DailyOptions{Org: summary.OrgByRegexp(regexp.MustCompile(`^([A-Z]+)[-_]`))})
	if err := re.ReadIndex(context.Background(), cdxj.NewStream("ia", bytes.NewReader(index(t, "openwayback_archive-org.cdx")), nil), false); err != nil {
		t.Fatal(err)
	}
	rcs, err := Daily(re.Days())
	if err != nil {
		t.Fatal(err)
	}
	if rcs[0].Series[0].Name != summary.UnmatchedOrg || !strings.HasPrefix(rcs[0].Note, "17 organizations") {
		t.Errorf("with -org-regexp: first series %q, note %q", rcs[0].Series[0].Name, rcs[0].Note)
	}
}

// The overlap chart's segments add up to the distinct keys of each year.
func TestOverlapSums(t *testing.T) {
	a := "a.org {\"2020\": {\"n_total\": 1}, \"2021\": {\"n_total\": 2}}\nb.org {\"2020\": {\"n_total\": 1}}\n"
	b := "a.org {\"2020\": {\"n_total\": 5}}\nc.org {\"2021\": {\"n_total\": 1}}\n"
	res, err := summary.Overlap([]string{"x/a.sum", "x/b.sum"}, []io.Reader{strings.NewReader(a), strings.NewReader(b)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Overlap(RenameOverlap(res, Names([]string{"x/a.sum", "x/b.sum"})))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]float64{}
	for _, s := range c.Series {
		got[s.Name] = s.Values
	}
	want := map[string][]float64{"only a": {1, 1}, "only b": {0, 1}, "a + b": {1, 0}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"2020", "2021"}, c.Categories); d != "" {
		t.Errorf("categories (-want +got):\n%s", d)
	}
}

func TestNames(t *testing.T) {
	got := Names([]string{"a/ia.summary.gz", "b/bnl.txt", "c/x.sum", "d/x.sum", "plain"})
	want := []string{"ia", "bnl", "c/x.sum", "d/x.sum", "plain"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Years missing between others stay on the axis, as empty bars.
func TestYearsFilled(t *testing.T) {
	o := summary.NewOverview("gaps")
	in := "a.org {\"2001\": {\"n_html\": 1, \"n_total\": 1, \"s_html\": 10, \"s_total\": 10}, \"2004\": {\"n_html\": 1, \"n_total\": 1, \"s_html\": 20, \"s_total\": 20}}\n"
	if err := o.AddSummary(strings.NewReader(in), "gaps"); err != nil {
		t.Fatal(err)
	}
	c, err := CategoryBytes(o)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"2001", "2002", "2003", "2004"}, c.Categories); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if d := cmp.Diff([]float64{10, 0, 0, 20}, c.Series[0].Values); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
