package chart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestTickLabel(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		u    Unit
		step float64
		want string
	}{
		{"zero count", 0, Count, 500, "0"},
		{"zero bytes", 0, Bytes, 500, "0 B"},
		{"hundreds", 950, Count, 50, "950"},
		{"thousands whole", 2000, Count, 1000, "2k"},
		{"thousands half", 1500, Count, 500, "1.5k"},
		{"millions", 2e6, Count, 5e5, "2M"},
		{"millions half", 1.5e6, Count, 5e5, "1.5M"},
		{"billions", 3e9, Count, 1e9, "3G"},
		{"kilobytes", 500e3, Bytes, 100e3, "500 KB"},
		{"megabytes", 1.5e6, Bytes, 5e5, "1.5 MB"},
		{"gigabytes", 2e9, Bytes, 1e9, "2 GB"},
		{"bytes", 200, Bytes, 100, "200 B"},
		{"percent", 0.25, Percent, 0.05, "25%"},
		{"percent fine", 0.025, Percent, 0.005, "2.5%"},
		{"year", 2013, Year, 1, "2013"},
		{"plain fraction", 0.3, Plain, 0.1, "0.3"},
		{"negative", -2000, Count, 1000, "-2k"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := TickLabel(tc.v, tc.u, tc.step); got != tc.want {
				t.Errorf("TickLabel(%g, %s, %g) = %q, want %q", tc.v, tc.u, tc.step, got, tc.want)
			}
		})
	}
}

func TestHumanExactThousands(t *testing.T) {
	tests := []struct {
		name         string
		v            float64
		u            Unit
		human, exact string
	}{
		{"small count", 7, Count, "7", "7"},
		{"count", 1234567, Count, "1.23M", "1,234,567"},
		{"count rounding up", 999999, Count, "1M", "999,999"},
		{"count 12k", 12345, Count, "12.3k", "12,345"},
		{"count 123k", 123456, Count, "123k", "123,456"},
		{"bytes", 1234567, Bytes, "1.23 MB", "1,234,567 bytes"},
		{"one byte", 1, Bytes, "1 B", "1 byte"},
		{"terabytes", 4.5e12, Bytes, "4.5 TB", "4,500,000,000,000 bytes"},
		{"percent", 0.2547, Percent, "25.5%", "25.47%"},
		{"year", 2013, Year, "2013", "2013"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Human(tc.v, tc.u); got != tc.human {
				t.Errorf("Human = %q, want %q", got, tc.human)
			}
			if got := Exact(tc.v, tc.u); got != tc.exact {
				t.Errorf("Exact = %q, want %q", got, tc.exact)
			}
		})
	}
	for in, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 1234.5: "1,234.5", 100000: "100,000"} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%g) = %q, want %q", in, got, want)
		}
	}
}

func labels(ts []Tick) []string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return out
}

func day(s string) float64 {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		panic(err)
	}
	return float64(t.Unix())
}

func TestTimeTicks(t *testing.T) {
	tests := []struct {
		name     string
		min, max string
		want     []string
	}{
		{"three days", "2012-01-01", "2012-01-03", []string{"2012-01-01", "2012-01-02", "2012-01-03"}},
		{"three weeks: every third day", "2013-01-01", "2013-01-20", []string{"2013-01-03", "2013-01-06", "2013-01-09", "2013-01-12", "2013-01-15", "2013-01-18"}},
		{"a month: weeks", "2012-03-01", "2012-03-31", []string{"2012-03-05", "2012-03-12", "2012-03-19", "2012-03-26"}},
		{"three months: half months", "2012-03-01", "2012-05-31", []string{"2012-03-01", "2012-03-15", "2012-04-01", "2012-04-15", "2012-05-01", "2012-05-15"}},
		{"two years: quarters", "2012-01-01", "2014-01-31", []string{"Jan 2012", "Jul", "Jan 2013", "Jul", "Jan 2014"}},
		{"a year: months", "2012-02-10", "2012-08-20", []string{"Mar 2012", "Apr", "May", "Jun", "Jul", "Aug"}},
		{"decades", "1996-05-01", "2025-06-01", []string{"2000", "2005", "2010", "2015", "2020", "2025"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := labels(timeTicks(day(tc.min), day(tc.max)))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestValueTicks(t *testing.T) {
	tests := []struct {
		name string
		a    Axis
		want []string
	}{
		{"bytes", Axis{Type: Linear, Unit: Bytes, Min: 0, Max: 6e6}, []string{"0 B", "2 MB", "4 MB", "6 MB"}},
		{"bytes by one", Axis{Type: Linear, Unit: Bytes, Min: 0, Max: 5e6}, []string{"0 B", "1 MB", "2 MB", "3 MB", "4 MB", "5 MB"}},
		{"counts", Axis{Type: Linear, Unit: Count, Min: 0, Max: 15000}, []string{"0", "5k", "10k", "15k"}},
		{"small counts never fractional", Axis{Type: Linear, Unit: Count, Min: 0, Max: 2}, []string{"0", "1", "2"}},
		{"years aligned", Axis{Type: Linear, Unit: Year, Min: 1996, Max: 2018}, []string{"2000", "2005", "2010", "2015"}},
		{"log counts once per power", Axis{Type: Log, Unit: Count, Min: 1, Max: 1e6}, []string{"1", "10", "100", "1k", "10k", "100k", "1M"}},
		{"log bytes", Axis{Type: Log, Unit: Bytes, Min: 100, Max: 1e9}, []string{"100 B", "1 KB", "10 KB", "100 KB", "1 MB", "10 MB", "100 MB", "1 GB"}},
		{"percent", Axis{Type: Linear, Unit: Percent, Min: 0, Max: 1}, []string{"0%", "20%", "40%", "60%", "80%", "100%"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := labels(valueTicks(tc.a))
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	// A log axis over many powers labels each power once, at most 13 labels.
	many := labels(valueTicks(Axis{Type: Log, Unit: Count, Min: 1, Max: 1e18}))
	seen := map[string]bool{}
	for _, l := range many {
		if seen[l] {
			t.Errorf("log label %q repeated in %q", l, many)
		}
		seen[l] = true
	}
	if len(many) > 13 || len(many) < 5 {
		t.Errorf("log labels over 18 powers: %q", many)
	}
}

func TestCategoryTicks(t *testing.T) {
	var years []string
	for y := 1990; y < 2030; y++ {
		years = append(years, strings.Repeat("", 0)+time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).Format("2006"))
	}
	got := labels(categoryTicks(years))
	want := []string{"1990", "1995", "2000", "2005", "2010", "2015", "2020", "2025", "2029"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("40 years (-want +got):\n%s", d)
	}
	letters := strings.Split("abcdefghijklmnopqrstuvwxyz", "")
	if got := labels(categoryTicks(letters)); len(got) != 26 {
		t.Errorf("26 letters: %d labels", len(got))
	}
}

func TestFold(t *testing.T) {
	var series []Series
	for i := range 12 {
		series = append(series, Series{Name: string(rune('a' + i)), Values: []float64{float64(i), 1}})
	}
	got := Fold(series, 0)
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	// The 7 largest (f to l) in input order, then the 5 smallest summed.
	if d := cmp.Diff([]string{"f", "g", "h", "i", "j", "k", "l", "other (5)"}, names); d != "" {
		t.Errorf("names (-want +got):\n%s", d)
	}
	other := got[len(got)-1]
	if d := cmp.Diff([]float64{0 + 1 + 2 + 3 + 4, 5}, other.Values); d != "" {
		t.Errorf("other values (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a", "b", "c", "d", "e"}, other.Folded); d != "" {
		t.Errorf("folded (-want +got):\n%s", d)
	}
	if series[0].Values[0] != 0 || len(series) != 12 {
		t.Error("Fold modified its input")
	}
	if got := Fold(series[:3], 0); len(got) != 3 {
		t.Errorf("three series folded to %d", len(got))
	}
	lines := []Series{
		{Name: "a", Points: []Point{{1, 1}, {3, 1}}},
		{Name: "b", Points: []Point{{2, 5}, {3, 2}}},
		{Name: "c", Points: []Point{{1, 9}}},
	}
	sum := Sum("s", lines[:2])
	if d := cmp.Diff([]Point{{1, 1}, {2, 5}, {3, 3}}, sum.Points); d != "" {
		t.Errorf("summed points (-want +got):\n%s", d)
	}
}

func TestSegments(t *testing.T) {
	pts := []Point{{0, 1}, {1, 1}, {2, 1}, {10, 1}, {20, 1}, {21, 1}}
	var lens []int
	for _, s := range Segments(pts, 1) {
		lens = append(lens, len(s))
	}
	if d := cmp.Diff([]int{3, 1, 2}, lens); d != "" {
		t.Errorf("segment lengths (-want +got):\n%s", d)
	}
	if got := Segments(pts, 0); len(got) != 1 {
		t.Errorf("gap 0: %d segments", len(got))
	}
	if got := Segments(nil, 1); got != nil {
		t.Errorf("no points: %v", got)
	}
}

func TestSquarify(t *testing.T) {
	values := []float64{6, 6, 4, 3, 2, 2, 1, 0, -1}
	r := Rect{X: 10, Y: 20, W: 600, H: 400}
	rects := Squarify(values, r)
	total := 24.0
	for i, v := range values {
		got := rects[i]
		if v <= 0 {
			if got != (Rect{}) {
				t.Errorf("value %g got %+v", v, got)
			}
			continue
		}
		if want := v / total * r.W * r.H; math.Abs(got.W*got.H-want) > 1e-6*want {
			t.Errorf("value %g: area %g, want %g", v, got.W*got.H, want)
		}
		if got.X < r.X-1e-9 || got.Y < r.Y-1e-9 || got.X+got.W > r.X+r.W+1e-9 || got.Y+got.H > r.Y+r.H+1e-9 {
			t.Errorf("value %g: %+v outside %+v", v, got, r)
		}
		if aspect := math.Max(got.W/got.H, got.H/got.W); aspect > 4 {
			t.Errorf("value %g: aspect ratio %.1f", v, aspect)
		}
	}
	// No two rectangles overlap.
	for i := range rects {
		for j := i + 1; j < len(rects); j++ {
			a, b := rects[i], rects[j]
			if a.W == 0 || b.W == 0 {
				continue
			}
			ox := math.Min(a.X+a.W, b.X+b.W) - math.Max(a.X, b.X)
			oy := math.Min(a.Y+a.H, b.Y+b.H) - math.Max(a.Y, b.Y)
			if ox > 1e-6 && oy > 1e-6 {
				t.Errorf("rects %d and %d overlap: %+v %+v", i, j, a, b)
			}
		}
	}
	// The largest value sits at the top left.
	if rects[0].X != r.X || rects[0].Y+rects[0].H != r.Y+r.H {
		t.Errorf("largest at %+v, want the top left of %+v", rects[0], r)
	}
}

func TestFinish(t *testing.T) {
	tests := []struct {
		name    string
		c       Chart
		wantErr error  // errors.Is
		errText string // or a substring
	}{
		{"no series", Chart{Kind: Line}, ErrNoData, ""},
		{"only zeros", Chart{Kind: Bar, Categories: []string{"a"}, Series: []Series{{Name: "s", Values: []float64{0}}}}, ErrNoData, ""},
		{"log without positive", Chart{Kind: Line, Y: Axis{Type: Log}, Series: []Series{{Name: "s", Points: []Point{{1, 0}}}}}, ErrNoData, ""},
		{"unknown kind", Chart{Kind: "pie"}, nil, "unknown kind"},
		{"values for categories", Chart{Kind: Bar, Categories: []string{"a", "b"}, Series: []Series{{Name: "s", Values: []float64{1}}}}, nil, "1 values for 2 categories"},
		{"NaN", Chart{Kind: Line, Series: []Series{{Name: "s", Points: []Point{{1, math.NaN()}}}}}, nil, "not a finite number"},
		{"order", Chart{Kind: Line, Series: []Series{{Name: "s", Points: []Point{{2, 1}, {1, 1}}}}}, nil, "ascending"},
		{"stacked log", Chart{Kind: StackedBar, Y: Axis{Type: Log}, Categories: []string{"a"}, Series: []Series{{Name: "s", Values: []float64{1}}}}, nil, "log axis"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.c.Finish()
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr):
				t.Errorf("Finish = %v, want %v", err, tc.wantErr)
			case tc.errText != "" && (err == nil || !strings.Contains(err.Error(), tc.errText)):
				t.Errorf("Finish = %v, want an error containing %q", err, tc.errText)
			}
		})
	}
}

// sample is a small chart of every kind.
func sample(kind Kind) *Chart {
	c := &Chart{ID: "t-" + string(kind), Title: "A " + string(kind) + " chart", Kind: kind, Note: "a note",
		X: Axis{Label: "x"}, Y: Axis{Label: "bytes", Unit: Bytes}}
	switch kind {
	case Line:
		c.X.Type, c.Gap = Time, 86400
		for i, n := range []string{"a", "b"} {
			s := Series{Name: n}
			for d := range 20 {
				if d != 7 {
					s.Points = append(s.Points, Point{X: day("2013-01-01") + float64(d*86400), Y: float64((d + i) * 100000)})
				}
			}
			c.Series = append(c.Series, s)
		}
	default:
		c.Categories = []string{"2012", "2013", "2014"}
		c.Series = []Series{{Name: "html", Values: []float64{1e6, 5e6, 2e6}}, {Name: "image", Values: []float64{3e5, 0, 1e6}}}
	}
	return c
}

func TestRender(t *testing.T) {
	dir := t.TempDir()
	for _, kind := range []Kind{Line, Bar, StackedBar, Treemap} {
		c := sample(kind)
		if err := c.Finish(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for _, format := range []string{"svg", "png"} {
			path := filepath.Join(dir, c.ID+"."+format)
			if err := Save(path, c); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if format == "png" {
				cfg, err := png.DecodeConfig(bytes.NewReader(b))
				if err != nil || cfg.Width < 1000 || cfg.Height < 500 {
					t.Errorf("%s: %v %+v", path, err, cfg)
				}
				continue
			}
			for _, want := range []string{"<svg", c.Title, "a note"} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("%s lacks %q", path, want)
				}
			}
			if kind != Treemap && !bytes.Contains(b, []byte("MB")) {
				t.Errorf("%s has no MB tick label", path)
			}
		}
	}
	if err := Save(filepath.Join(dir, "x.gif"), sample(Bar)); err == nil {
		t.Error("Save accepted .gif")
	}
	unfinished := sample(Bar)
	if err := Render(&bytes.Buffer{}, unfinished, "svg"); err == nil {
		t.Error("Render drew a chart before Finish")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestWriteCSV(t *testing.T) {
	c := &Chart{Kind: Line, X: Axis{Type: Time}, Series: []Series{
		{Name: "a", Points: []Point{{day("2013-01-01"), 1}, {day("2013-01-03"), 2.5}}},
		{Name: "b,c", Points: []Point{{day("2013-01-02"), 3e9}, {day("2013-01-03"), 4}}},
	}}
	var b bytes.Buffer
	if err := WriteCSV(&b, c); err != nil {
		t.Fatal(err)
	}
	want := "date,a,\"b,c\"\n2013-01-01,1,\n2013-01-02,,3000000000\n2013-01-03,2.5,4\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("line CSV (-want +got):\n%s", d)
	}
	b.Reset()
	if err := WriteCSV(&b, sample(StackedBar)); err != nil {
		t.Fatal(err)
	}
	want = "x,html,image\n2012,1000000,300000\n2013,5000000,0\n2014,2000000,1000000\n"
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("bar CSV (-want +got):\n%s", d)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	c := sample(Line)
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Chart
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(*c, back); d != "" {
		t.Errorf("JSON round trip (-want +got):\n%s", d)
	}
}

// The archive profile's figures (the MementoMap paper's Figures 5 to 9)
// fit the same model: a Lorenz curve on share axes, bars per path depth on
// a log axis, a reduction curve over cutoffs.
func TestProfileFigures(t *testing.T) {
	lorenz := &Chart{ID: "lorenz", Title: "Mementos per URI-R: Lorenz curve", Kind: Line,
		X: Axis{Label: "share of URI-Rs", Unit: Percent}, Y: Axis{Label: "share of mementos", Unit: Percent},
		Series: []Series{
			{Name: "archive", Points: []Point{{0, 0}, {0.5, 0.1}, {0.9, 0.4}, {1, 1}}},
			{Name: "equality", Points: []Point{{0, 0}, {1, 1}}},
		}}
	depth := &Chart{ID: "depth", Title: "URI-Rs per path depth", Kind: Bar, Categories: []string{"0", "1", "2", "3"},
		X: Axis{Label: "path depth"}, Y: Axis{Label: "URI-Rs", Unit: Count, Type: Log},
		Series: []Series{{Name: "URI-Rs", Values: []float64{12, 3400, 56000, 780000}}}}
	reduction := &Chart{ID: "reduction", Title: "Map size by cutoff", Kind: Line,
		X: Axis{Label: "host cutoff", Unit: Plain, Type: Log}, Y: Axis{Label: "lines kept", Unit: Percent},
		Series: []Series{{Name: "lines", Points: []Point{{1, 1}, {2, 0.6}, {4, 0.35}, {8, 0.2}, {16, 0.12}}}}}
	want := map[string][2][]string{
		"lorenz":    {{"0%", "20%", "40%", "60%", "80%", "100%"}, {"0%", "20%", "40%", "60%", "80%", "100%"}},
		"depth":     {{"0", "1", "2", "3"}, {"10", "100", "1k", "10k", "100k", "1M"}},
		"reduction": {{"1", "10", "100"}, {"0%", "20%", "40%", "60%", "80%", "100%"}},
	}
	for _, c := range []*Chart{lorenz, depth, reduction} {
		if err := c.Finish(); err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		got := [2][]string{labels(c.X.Ticks), labels(c.Y.Ticks)}
		if d := cmp.Diff(want[c.ID], got); d != "" {
			t.Errorf("%s ticks (-want +got):\n%s", c.ID, d)
		}
		if err := Render(&bytes.Buffer{}, c, "png"); err != nil {
			t.Errorf("%s: %v", c.ID, err)
		}
		if dir := os.Getenv("MEMENTOKIT_CHARTS"); dir != "" {
			if err := Save(filepath.Join(dir, c.ID+".png"), c); err != nil {
				t.Error(err)
			}
		}
	}
}

// TestYearTicks: a year axis labels every year when they fit, else the
// multiples of 2 or 5 years, and always the data's first and last year.
func TestYearTicks(t *testing.T) {
	tests := []struct {
		name     string
		min, max float64
		want     []string
	}{
		{"every year", 2012, 2025, []string{"2012", "2013", "2014", "2015", "2016", "2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024", "2025"}},
		// the shipped real files span 2002-2025 (domains-per-year)
		{"every 2nd, last kept, 2024 too close", 2002, 2025, []string{"2002", "2004", "2006", "2008", "2010", "2012", "2014", "2016", "2018", "2020", "2022", "2025"}},
		{"every 2nd from an odd first year", 1995, 2024, []string{"1995", "1998", "2000", "2002", "2004", "2006", "2008", "2010", "2012", "2014", "2016", "2018", "2020", "2022", "2024"}},
		{"every 5th, 1985 too close to the first", 1983, 2025, []string{"1983", "1990", "1995", "2000", "2005", "2010", "2015", "2020", "2025"}},
		{"one point padded", 2012, 2014, []string{"2012", "2013", "2014"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &Chart{ID: "t", Kind: Line, X: Axis{Unit: Year}, Series: []Series{{Name: "a", Points: []Point{{X: tc.min, Y: 1}, {X: tc.max, Y: 2}}}}}
			if tc.name == "one point padded" { // Finish pads one point by a year either side
				c.Series[0].Points = []Point{{X: 2013, Y: 1}}
			}
			if err := c.Finish(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, labels(c.X.Ticks)); d != "" {
				t.Errorf("labels (-want +got):\n%s", d)
			}
			// one tick on every whole year, labelled or not
			if n := len(c.X.Ticks); n != int(tc.max-tc.min)+1 {
				t.Errorf("%d ticks for %g-%g", n, tc.min, tc.max)
			}
		})
	}
	// Year categories (bars) follow the same rule.
	var cats []string
	for y := 2002; y <= 2025; y++ {
		cats = append(cats, strconv.Itoa(y))
	}
	want := []string{"2002", "2004", "2006", "2008", "2010", "2012", "2014", "2016", "2018", "2020", "2022", "2025"}
	if d := cmp.Diff(want, labels(categoryTicks(cats))); d != "" {
		t.Errorf("year categories (-want +got):\n%s", d)
	}
}

// TestSeriesStyle: line series get distinct markers and dash patterns, so a
// series equal to another stays visible; the folded "other" is solid.
func TestSeriesStyle(t *testing.T) {
	c := &Chart{Kind: Line}
	for i := 0; i < MaxSeries; i++ {
		c.Series = append(c.Series, Series{Name: fmt.Sprint("s", i)})
	}
	c.Series = append(c.Series, Series{Name: "other (3)", Folded: []string{"x", "y", "z"}})
	markers := map[string]int{}
	dashes := map[string]int{}
	for i := 0; i < MaxSeries; i++ {
		if m, seen := markers[c.SeriesMarker(i)]; seen {
			t.Errorf("series %d and %d share marker %q", m, i, c.SeriesMarker(i))
		}
		markers[c.SeriesMarker(i)] = i
		d := fmt.Sprint(c.SeriesDash(i))
		if j, seen := dashes[d]; seen {
			t.Errorf("series %d and %d share dash %s", j, i, d)
		}
		dashes[d] = i
		if g, _ := glyphOf(c.SeriesMarker(i)); i > 0 && fmt.Sprintf("%T", g) == "draw.CircleGlyph" {
			t.Errorf("series %d drawn with the first series' dot", i)
		}
	}
	if c.SeriesDash(0) != nil {
		t.Errorf("first series dashed: %v", c.SeriesDash(0))
	}
	if c.SeriesDash(1) == nil {
		t.Error("second series solid: a line equal to the first would hide it")
	}
	if d := c.SeriesDash(MaxSeries); d != nil {
		t.Errorf("other dashed: %v", d)
	}
}

// A log axis under bars starts below the smallest bar when that bar is a
// power of ten, so a bar of 1 (or 10) has height; lines, and bars whose
// smallest value lies above the floor, keep whole powers of ten.
func TestLogBarFloor(t *testing.T) {
	bars := func(vs ...float64) *Chart {
		return &Chart{ID: "b", Title: "t", Kind: Bar, Categories: []string{"a", "b", "c"},
			X: Axis{Label: "depth"}, Y: Axis{Label: "prefixes", Unit: Count, Type: Log},
			Series: []Series{{Name: "n", Values: vs}}}
	}
	for _, tc := range []struct {
		c        *Chart
		min, max float64
	}{
		{bars(1, 40, 7), 0.5, 100},
		{bars(10, 400, 70), 5, 1000},
		{bars(3, 40, 7), 1, 100},
		{&Chart{ID: "l", Title: "t", Kind: Line, X: Axis{Label: "x"}, Y: Axis{Label: "y", Type: Log},
			Series: []Series{{Name: "s", Points: []Point{{0, 1}, {1, 40}}}}}, 1, 100},
	} {
		c := tc.c
		if err := c.Finish(); err != nil {
			t.Fatal(err)
		}
		if c.Y.Min != tc.min || c.Y.Max != tc.max {
			t.Errorf("%s %v: Y from %g to %g, want %g to %g", c.ID, c.Series[0].Values, c.Y.Min, c.Y.Max, tc.min, tc.max)
		}
		// The labelled ticks stay on whole powers of ten inside the axis.
		var got []string
		for _, k := range c.Y.Ticks {
			if k.Value < c.Y.Min || k.Value > c.Y.Max {
				t.Errorf("%s: tick %g outside %g to %g", c.ID, k.Value, c.Y.Min, c.Y.Max)
			}
			if k.Label != "" {
				got = append(got, k.Label)
			}
		}
		if c.ID == "b" && tc.min == 0.5 {
			if d := cmp.Diff([]string{"1", "10", "100"}, got); d != "" {
				t.Errorf("labelled ticks (-want +got):\n%s", d)
			}
			// The bar of 1 takes log(1/0.5)/log(100/0.5) ≈ 13 % of the
			// plot's height.
			if h := math.Log(1/c.Y.Min) / math.Log(c.Y.Max/c.Y.Min); h < 0.1 {
				t.Errorf("bar of 1: %.3f of the height", h)
			}
		}
	}
	c := bars(1, 40, 7)
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "b.png")
	if k := os.Getenv("CHART_KEEP"); k != "" {
		out = k
	}
	if err := Save(out, c); err != nil {
		t.Fatal(err)
	}
}

// TestPointMarks checks which points of a line series get a marker: all of
// a short series; in a long one, a point alone and a run too narrow to read
// as a line (120, 121 on a log axis spanning 1 to 10k), not a long run.
func TestPointMarks(t *testing.T) {
	s := Series{Name: "URI-Rs"}
	for x := 1; x <= 80; x++ {
		s.Points = append(s.Points, Point{X: float64(x), Y: 100})
	}
	s.Points = append(s.Points, Point{X: 120, Y: 2}, Point{X: 121, Y: 2}, Point{X: 5000, Y: 1})
	c := &Chart{ID: "h", Kind: Line, X: Axis{Type: Log, Unit: Count}, Y: Axis{Type: Log, Unit: Count}, Gap: 1, Series: []Series{s}}
	if err := c.Finish(); err != nil {
		t.Fatal(err)
	}
	m := c.PointMarks(0)
	if len(m) != len(s.Points) {
		t.Fatalf("%d marks for %d points", len(m), len(s.Points))
	}
	var marked []float64
	for j, ok := range m {
		if ok {
			marked = append(marked, s.Points[j].X)
		}
	}
	if want := []float64{120, 121, 5000}; !slices.Equal(marked, want) {
		t.Errorf("marked X = %v, want %v", marked, want)
	}
	short := &Chart{ID: "l", Kind: Line, X: Axis{Unit: Percent}, Series: []Series{{Name: "a", Points: []Point{{0, 0}, {0.5, 0.2}, {1, 1}}}}}
	if err := short.Finish(); err != nil {
		t.Fatal(err)
	}
	if m := short.PointMarks(0); !slices.Equal(m, []bool{true, true, true}) {
		t.Errorf("short series marks = %v, want all", m)
	}
	levels := &Chart{Kind: Line, X: Axis{Unit: Plain}}
	days := &Chart{Kind: Line, X: Axis{Type: Time}}
	if short.Zoomable() || levels.Zoomable() || !c.Zoomable() || !days.Zoomable() {
		t.Errorf("Zoomable: share axis %v, levels %v (want false); count axis %v, time axis %v (want true)", short.Zoomable(), levels.Zoomable(), c.Zoomable(), days.Zoomable())
	}
	if bar := (&Chart{Kind: Bar}); bar.Zoomable() || bar.PointMarks(0) != nil {
		t.Error("a bar chart has zoom or point marks")
	}
}

// TestWholeAxis: a Whole X axis has ticks on whole numbers only, written
// without decimals; a line whose points all share one X spans half a unit
// either side, its one labelled tick that X (not X−1 to X+1).
func TestWholeAxis(t *testing.T) {
	for _, c := range []struct {
		name     string
		xs       []float64
		min, max float64
		labels   []string
	}{
		{"one depth", []float64{2}, 1.5, 2.5, []string{"2"}},
		{"depth 0 alone", []float64{0}, -0.5, 0.5, []string{"0"}},
		{"depths 0 and 1", []float64{0, 1}, 0, 1, []string{"0", "1"}},
		{"depths 1 to 10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 1, 10, []string{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}},
	} {
		s := Series{Name: "s"}
		for _, x := range c.xs {
			s.Points = append(s.Points, Point{X: x, Y: 1 + x})
		}
		ch := &Chart{ID: "w", Kind: Line, X: Axis{Unit: Whole}, Y: Axis{Type: Log}, Series: []Series{s}}
		if err := ch.Finish(); err != nil {
			t.Fatal(err)
		}
		var labels []string
		for _, tk := range ch.X.Ticks {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("%s: tick at %v", c.name, tk.Value)
			}
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if ch.X.Min != c.min || ch.X.Max != c.max || !slices.Equal(labels, c.labels) {
			t.Errorf("%s: axis %v to %v labelled %q, want %v to %v labelled %q", c.name, ch.X.Min, ch.X.Max, labels, c.min, c.max, c.labels)
		}
	}
	if got := Human(3, Whole) + " " + Exact(12345, Whole); got != "3 12345" {
		t.Errorf("Human, Exact of Whole: %q", got)
	}
}
