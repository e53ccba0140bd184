package profilereport

import (
	"bytes"
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/report"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/mementomap"
)

func TestReport(t *testing.T) {
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 5000, Seed: 2}).Write(&b); err != nil {
		t.Fatal(err)
	}
	p, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("gen", &b, nil)}, &mementomap.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := Report(Input{Profile: p, TopTLDs: 3})
	if err != nil {
		t.Fatal(err)
	}
	charts, tables := 0, 0
	for _, s := range pg.Sections {
		charts += len(s.Charts)
		tables += len(s.Tables)
		for _, c := range s.Charts {
			if c.Title == "" || c.X.Label == "" || c.Y.Label == "" || len(c.Series) == 0 || len(c.Series) > 8 {
				t.Errorf("chart %s: title %q, axes %q %q, %d series", c.ID, c.Title, c.X.Label, c.Y.Label, len(c.Series))
			}
		}
	}
	wantTables := 8 // Tables 2, 1, 4, 5, 6, 7, 8 (hosts), 8 (paths)
	if p.Fit != nil {
		wantTables++ // and the fit
	}
	if charts != 12 || tables != wantTables {
		t.Errorf("%d charts and %d tables, want 12 and %d", charts, tables, wantTables)
	}
	// Table 1 holds the top 3 TLDs and says how many there are.
	tld := pg.Sections[0].Tables[1]
	if len(tld.Rows) != 3 || !strings.Contains(tld.Note, "3 with most URI-Rs") {
		t.Errorf("Table 1: %d rows, note %q", len(tld.Rows), tld.Note)
	}
	var out bytes.Buffer
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
	// An empty index gives a page whose sections say what was not drawn.
	e, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("empty", strings.NewReader(""), nil)}, &mementomap.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pg, err = Report(Input{Profile: e})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(pg.Sections[1].Text, "Not drawn, for want of data") {
		t.Errorf("empty profile, mementos section: %q", pg.Sections[1].Text)
	}
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
}

// The mean-children chart draws both reference cutoffs of Table 8, host and
// path, and the written page names both.
func TestMeanChildrenReferences(t *testing.T) {
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 5000, Seed: 2}).Write(&b); err != nil {
		t.Fatal(err)
	}
	p, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("gen", &b, nil)}, &mementomap.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := MeanChildrenChart(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]func(x float64) float64{
		// X is the children's depth d: level i = d−2 (hosts), d−1 (paths).
		"hosts, reference 16.33·(i+1)^−0.71": func(d float64) float64 { return 16.329 * math.Pow(d-1, -0.714) },
		"paths, reference 24.55·(i+1)^−1.43": func(d float64) float64 { return 24.546 * math.Pow(d, -1.429) },
	}
	for _, s := range c.Series {
		f, ok := want[s.Name]
		if !ok {
			continue
		}
		delete(want, s.Name)
		if len(s.Points) == 0 {
			t.Errorf("%s: no points", s.Name)
		}
		for _, q := range s.Points {
			if math.Abs(q.Y-f(q.X)) > 1e-9 {
				t.Errorf("%s at %v: %v, want %v", s.Name, q.X, q.Y, f(q.X))
			}
		}
	}
	if len(want) != 0 {
		t.Errorf("series missing: %v", want)
	}
	pg, err := Report(Input{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"hosts, reference 16.33·(i+1)^−0.71", "paths, reference 24.55·(i+1)^−1.43"} {
		if !strings.Contains(out.String(), name) {
			t.Errorf("page does not name %q", name)
		}
	}
}

// The charts and tables read as they should: a share axis ends at 100 %,
// the memento histogram breaks at counts no URI-R has, Table 6 says what
// γ and γ+ are, the footer explains only the controls the page has, and
// an empty index has no first or last capture.
func TestReportReadings(t *testing.T) {
	// Shares of 28 captures: 9/28 + 18/28 + 1/28 comes to more than 1 in
	// floating point.
	y := mementomap.YearStats{Year: 2010, URIRs: 28, New: 28, URIMs: 28, Status: [6]int64{2: 9, 3: 18, 4: 1}}
	if a, b, c := 9/28.0, 18/28.0, 1/28.0; a+b+c <= 1 {
		t.Fatal("the shares sum to no more than 1: the test needs others")
	}
	p := &mementomap.ArchiveProfile{Years: []mementomap.YearStats{y}}
	st, err := StatusChart(p)
	if err != nil {
		t.Fatal(err)
	}
	if st.Y.Max != 1 {
		t.Errorf("status shares axis ends at %g, want 1 (100 %%)", st.Y.Max)
	}

	p.Mementos.Histogram = []mementomap.CountFrequency{{Count: 1, Items: 7}, {Count: 2, Items: 3}, {Count: 5, Items: 1}, {Count: 40, Items: 1}, {Count: 41, Items: 2}}
	h, err := MementoHistogram(p)
	if err != nil {
		t.Fatal(err)
	}
	var runs []int
	for _, seg := range chart.Segments(h.Series[0].Points, h.Gap) {
		runs = append(runs, len(seg))
	}
	if !slices.Equal(runs, []int{2, 1, 2}) {
		t.Errorf("histogram drawn in runs of %v points, want [2 1 2] (broken at the missing counts)", runs)
	}

	note := yearTable(p).Note
	for _, want := range []string{"γ is the year's mementos per URI-R", "γ+", "URI-M+ ÷ URI-R+"} {
		if !strings.Contains(note, want) {
			t.Errorf("Table 6 note lacks %q: %q", want, note)
		}
	}

	e, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("empty", strings.NewReader(""), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, r := range indexTable(e).Rows {
		rows[r[0]] = r[1]
	}
	if rows["first capture"] != "—" || rows["last capture"] != "—" {
		t.Errorf("empty index: first %q, last %q; want —", rows["first capture"], rows["last capture"])
	}

	// The profile report has line charts (zoom) but no date axis.
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 2000, Seed: 3}).Write(&b); err != nil {
		t.Fatal(err)
	}
	full, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream("gen", &b, nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := Report(Input{Profile: full})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := report.Write(&out, pg); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if strings.Contains(page, "date axis") || !strings.Contains(page, "zoom along its X axis") {
		t.Error("the footer does not describe the page's zoom: it names a date axis or leaves the line charts' zoom out")
	}
}

// TestMeanChildrenChartDepths: the mean-children chart's X is the
// children's depth, the JSON's "depth" of host_depth, path_depth and the
// fit's points; its axis covers the depths drawn with whole-number ticks
// only. Shipped real indexes: cdxjindexer_example-warc_all-records.cdxj
// has one host depth to draw (H2), ipwb_sample-1.cdxj host and path depths
// 1 to 3; and a cdxgen index of 20,000 lines, with a fit.
func TestMeanChildrenChartDepths(t *testing.T) {
	profile := func(name string, data []byte) *mementomap.ArchiveProfile {
		p, err := mementomap.Profile(context.Background(), []cdxj.Searcher{cdxj.NewStream(name, bytes.NewReader(data), nil)}, &mementomap.ProfileOptions{NoCompaction: true})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	var gen bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 20000, Seed: 9}).Write(&gen); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		data      []byte
		min, max  float64
		wantTicks []float64
	}{
		{"cdxjindexer_example-warc_all-records.cdxj", nil, 1.5, 2.5, []float64{2}},
		{"ipwb_sample-1.cdxj", nil, 1, 3, []float64{1, 2, 3}},
		{"cdxgen", gen.Bytes(), 1, 0, nil},
	} {
		if c.data == nil {
			b, err := sampledata.ReadFile("real/" + c.name)
			if err != nil {
				t.Fatal(err)
			}
			c.data = b
		}
		p := profile(c.name, c.data)
		ch, err := MeanChildrenChart(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		// The observed points are the JSON's rows, by depth.
		for i, l := range []struct {
			rows []mementomap.DepthStats
			from int
		}{{p.HostDepth, 2}, {p.PathDepth, 1}} {
			var want []chart.Point
			for _, r := range l.rows {
				if r.Depth >= l.from && r.MeanChildren > 0 {
					want = append(want, chart.Point{X: float64(r.Depth), Y: r.MeanChildren})
				}
			}
			var got []chart.Point
			for _, s := range ch.Series {
				if strings.HasSuffix(s.Name, ", observed") && strings.HasPrefix(s.Name, []string{"hosts", "paths"}[i]) {
					got = s.Points
				}
			}
			if len(want) > 0 && !slices.Equal(got, want) {
				t.Errorf("%s layer %d: observed %v, want the rows' depths and mean children %v", c.name, i, got, want)
			}
		}
		if f := p.Fit; f != nil {
			for _, s := range ch.Series {
				if !strings.Contains(s.Name, ", fit ") {
					continue
				}
				pl := f.Host
				if strings.HasPrefix(s.Name, "paths") {
					pl = f.Path
				}
				for _, q := range pl.Points {
					i := slices.IndexFunc(s.Points, func(x chart.Point) bool { return x.X == float64(q.Depth) })
					if i < 0 || math.Abs(s.Points[i].Y-q.Fitted) > 1e-9*q.Fitted {
						t.Errorf("%s: %s has no point at the fit's depth %d of %v", c.name, s.Name, q.Depth, q.Fitted)
					}
				}
			}
		} else if c.name == "cdxgen" {
			t.Errorf("cdxgen: no fit (%s)", p.FitError)
		}
		if c.name == "cdxgen" {
			// 20,000 lines (seed 9) give a host fit with k < 0, which
			// compact -fit refuses: the legend, the section and the fit
			// table say so; the path fit is taken.
			var names []string
			for _, s := range ch.Series {
				names = append(names, s.Name)
			}
			if p.Fit == nil || p.Fit.Host.K >= 0 || !slices.ContainsFunc(names, func(n string) bool {
				return strings.HasPrefix(n, "hosts, fit ") && strings.HasSuffix(n, " (refused by compact -fit)")
			}) || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "paths, fit ") && strings.Contains(n, "refused") }) {
				t.Errorf("cdxgen: series %q, fit %+v", names, p.Fit)
			}
			pg, err := Report(Input{Profile: p})
			if err != nil {
				t.Fatal(err)
			}
			for _, sec := range pg.Sections {
				if sec.ID != "cutoffs" {
					continue
				}
				if !strings.Contains(sec.Text, "This profile's layers: hosts: refused (k = -") || !strings.Contains(sec.Text, "cutoffs would not shrink with depth); with -fit-fallback, fallback to the reference's a 16.329, k 0.714; paths: fitted, a ") {
					t.Errorf("cutoffs section: %q", sec.Text)
				}
				var use []string
				for _, r := range sec.Tables[0].Rows {
					use = append(use, r[len(r)-1])
				}
				if len(use) != 4 || !strings.HasPrefix(use[0], "refuses it: k = -") || !strings.HasSuffix(use[0], ": cutoffs would not shrink with depth; -fit-fallback takes the reference's a and k") ||
					!slices.Equal(use[1:], []string{"takes it", "not used (comparison)", "not used (comparison)"}) {
					t.Errorf("fit table, compact -fit column: %q", use)
				}
			}
		}
		if ch.X.Unit != chart.Whole || ch.X.Min < 0 {
			t.Errorf("%s: X axis %+v", c.name, ch.X)
		}
		var ticks []float64
		for _, tk := range ch.X.Ticks {
			if tk.Value != math.Round(tk.Value) {
				t.Errorf("%s: tick at %v", c.name, tk.Value)
			}
			if tk.Label != "" {
				ticks = append(ticks, tk.Value)
			}
		}
		if c.wantTicks != nil && (ch.X.Min != c.min || ch.X.Max != c.max || !slices.Equal(ticks, c.wantTicks)) {
			t.Errorf("%s: X axis %v to %v, labelled ticks %v; want %v to %v, %v", c.name, ch.X.Min, ch.X.Max, ticks, c.min, c.max, c.wantTicks)
		}
		if len(ticks) == 0 || ticks[0] < ch.X.Min || ticks[len(ticks)-1] > ch.X.Max {
			t.Errorf("%s: labelled ticks %v on %v to %v", c.name, ticks, ch.X.Min, ch.X.Max)
		}
	}
}

// TestFitStatusReasons: the fit table and the cutoffs section name each
// layer's real status: fitted, refused for too few depths (not fitted at
// all), refused for an R² below mementomap.MinFitR2, each refusal with the
// fallback -fit-fallback takes.
func TestFitStatusReasons(t *testing.T) {
	f := &mementomap.CutoffFit{
		Host:       mementomap.PowerLawFit{Unfitted: "1 depths between 3 and 8 with 1 or more parents"},
		HostLinear: mementomap.PowerLawFit{Unfitted: "1 depths between 3 and 8 with 1 or more parents"},
		Path:       mementomap.PowerLawFit{A: 20, K: 1.1, R2: 0.3},
		PathLinear: mementomap.PowerLawFit{A: 25, K: 1.4, R2: 0.3},
	}
	var use []string
	for _, r := range fitTable(f).Rows {
		use = append(use, r[len(r)-1])
	}
	want := []string{
		"refuses it: not fitted: too few depths to fit a power law: 1 depths between 3 and 8 with 1 or more parents; -fit-fallback takes the reference's a and k",
		"refuses it: R² = 0.300 (k = 1.100), below 0.50: the depths do not follow a power law closely enough; -fit-fallback takes the reference's a and k",
		"not fitted: 1 depths between 3 and 8 with 1 or more parents",
		"not used (comparison)",
	}
	if !slices.Equal(use, want) {
		t.Errorf("compact -fit column:\n%q\nwant\n%q", use, want)
	}
	if got := layerStatus("hosts", f.Host, 16.329, 0.714); !strings.HasPrefix(got, "hosts: refused (not fitted: ") || !strings.HasSuffix(got, "; with -fit-fallback, fallback to the reference's a 16.329, k 0.714") {
		t.Errorf("host status %q", got)
	}
	if got := layerStatus("paths", mementomap.PowerLawFit{A: 20, K: 1.1, R2: 0.9}, 24.546, 1.429); got != "paths: fitted, a 20.000, k 1.100, R² 0.900" {
		t.Errorf("path status %q", got)
	}
}
