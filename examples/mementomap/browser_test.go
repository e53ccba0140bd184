package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/chromiumtest"
)

// specRE finds the chart models in a report.
var specRE = regexp.MustCompile(`(?s)<figure class="chart-box[^"]*" id="([^"]+)">.*?<script type="application/json" class="chart-spec">(.*?)</script>`)

// TestProfileReportInBrowser writes the profile report of a cdxgen index
// (40,000 lines) with "mementomap profile -html", opens it from a file URL
// in headless Chromium with the network off, and checks that every chart
// drew each of its series on a non-blank canvas with its legend, that
// hovering a point of the compaction run shows its value as the Go model
// writes it, that Table 8 sorts by a column, that nothing was thrown and
// nothing asked of the network. Screenshots go to the test's folder, and
// to $MEMENTOKIT_SCREENSHOTS when it is set.
func TestProfileReportInBrowser(t *testing.T) {
	chromiumtest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 180*time.Second)
	defer cancel()
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	var b bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 40000, Seed: 4}).Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b.Bytes(), 0o644)
	path := filepath.Join(dir, "profile.html")
	if _, stderr, err := runCmd(t, "", "profile", "-q", "-o", filepath.Join(dir, "profile.json"), "-html", path, idx); err != nil {
		t.Fatalf("profile: %v\n%s", err, stderr)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type spec struct {
		Chart chart.Chart `json:"chart"`
	}
	models := map[string]spec{}
	var ids []string
	for _, m := range specRE.FindAllSubmatch(page, -1) {
		var s spec
		if err := json.Unmarshal(m[2], &s); err != nil {
			t.Fatalf("chart %s: %v", m[1], err)
		}
		ids = append(ids, string(m[1]))
		models[string(m[1])] = s
	}
	wantIDs := []string{"chart-tld-shares", "chart-lorenz", "chart-mementos-per-urir", "chart-per-year", "chart-status-per-year",
		"chart-prefixes-per-depth", "chart-mean-children",
		"chart-reduction-global-h", "chart-reduction-incremental-h", "chart-reduction-global-p", "chart-reduction-incremental-p",
		"chart-compaction"}
	if d := cmp.Diff(wantIDs, ids); d != "" {
		t.Fatalf("charts in the report (-want +got):\n%s", d)
	}

	br := chromiumtest.Start(t, ctx, &chromiumtest.Options{Width: 1280, Height: 900})
	p := br.OpenOffline(t, ctx, path)
	rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
	p.WaitFor(t, rctx, `document.body.dataset.ready === "true" && document.querySelectorAll(".chart[data-rendered]").length === `+strconv.Itoa(len(ids)))
	rcancel()

	type drawn struct {
		Series int     `json:"series"`
		Width  int     `json:"width"`
		Height int     `json:"height"`
		Inked  float64 `json:"inked"`
		Legend int     `json:"legend"`
	}
	for _, id := range ids {
		var got drawn
		p.Eval(t, ctx, `(() => {
			const el = document.querySelector("#`+id+` .chart");
			const opt = echarts.getInstanceByDom(el).getOption();
			const cv = el.querySelector("canvas");
			const g = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
			let ink = 0;
			for (let i = 0; i < g.length; i += 4) if (g[i+3] > 0 && (g[i] < 235 || g[i+1] < 235 || g[i+2] < 235)) ink++;
			const legend = opt.legend && opt.legend.length ? opt.legend[0].data.length : 0;
			return {series: opt.series.length, width: cv.width, height: cv.height, inked: ink / (g.length / 4), legend: legend};
		})()`, &got)
		m := models[id].Chart
		if got.Series != len(m.Series) || got.Width < 300 || got.Height < 200 || got.Inked < 0.01 {
			t.Errorf("%s: drew %d series (model %d) on %dx%d, %.1f%% inked", id, got.Series, len(m.Series), got.Width, got.Height, 100*got.Inked)
		}
		if len(m.Series) > 1 && got.Legend != len(m.Series) {
			t.Errorf("%s: legend of %d entries for %d series", id, got.Legend, len(m.Series))
		}
		if len(m.Series) > chart.MaxSeries {
			t.Errorf("%s: %d series, more than %d", id, len(m.Series), chart.MaxSeries)
		}
	}

	// A share axis or a few levels are read whole: the Lorenz curve, the
	// reduction curves and the mean children per level have no zoom; the
	// memento counts and the compaction run keep theirs.
	for _, id := range ids {
		var zooms int
		p.Eval(t, ctx, `(echarts.getInstanceByDom(document.querySelector("#`+id+` .chart")).getOption().dataZoom || []).length`, &zooms)
		want := 0
		if id == "chart-mementos-per-urir" || id == "chart-compaction" {
			want = 2
		}
		if zooms != want {
			t.Errorf("%s: %d zoom controls, want %d", id, zooms, want)
		}
	}
	// In the memento counts, every point alone or in a run too short to
	// read as a line is drawn with a marker of 6 px, and no other point.
	hm := models["chart-mementos-per-urir"].Chart
	var wantX, gotX []float64
	for j, ok := range hm.PointMarks(0) {
		if ok {
			wantX = append(wantX, hm.Series[0].Points[j].X)
		}
	}
	p.Eval(t, ctx, `(() => {
		const o = echarts.getInstanceByDom(document.querySelector("#chart-mementos-per-urir .chart")).getOption();
		return o.series[0].data.filter(d => d && d.symbolSize >= 6).map(d => d.value[0]);
	})()`, &gotX)
	if len(wantX) == 0 || len(wantX) == len(hm.Series[0].Points) {
		t.Errorf("mementos per URI-R: %d of %d points marked; want the tail's only", len(wantX), len(hm.Series[0].Points))
	}
	if d := cmp.Diff(wantX, gotX); d != "" {
		t.Errorf("mementos per URI-R: X of the points drawn with a marker (-model +drawn):\n%s", d)
	}

	// Hovering the last point of the compaction run shows the output size
	// as the model writes it.
	cm := models["chart-compaction"].Chart
	last := cm.Series[0].Points[len(cm.Series[0].Points)-1]
	tip := p.HoverChart(t, ctx, "chart-compaction", fmt.Sprintf("[%g, %g]", last.X, last.Y))
	if want := chart.Exact(last.Y, chart.Bytes); !strings.Contains(tip, chart.Human(last.Y, chart.Bytes)) && !strings.Contains(tip, want) {
		t.Errorf("tooltip over the last compaction point = %q, lacks %q", tip, want)
	}

	// Table 8 (paths) sorts by Count, both ways: the first row is then the
	// smallest count, then the largest.
	var first [2]string
	for i := range first {
		p.Click(t, ctx, `#table-8-paths th:nth-child(2) button`)
		p.Eval(t, ctx, `document.querySelector("#table-8-paths tbody tr td:nth-child(2)").textContent`, &first[i])
	}
	n0, _ := strconv.ParseInt(strings.ReplaceAll(first[0], ",", ""), 10, 64)
	n1, _ := strconv.ParseInt(strings.ReplaceAll(first[1], ",", ""), 10, 64)
	if !(n0 < n1) {
		t.Errorf("Table 8 sorted by Count: first rows %q then %q", first[0], first[1])
	}

	p.CheckThrown(t)
	p.CheckLocal(t)

	shots := []string{t.TempDir()}
	if d := os.Getenv("MEMENTOKIT_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		shots = append(shots, d)
	}
	checkDepthAxis(t, ctx, p, models["chart-mean-children"].Chart, "cdxgen")
	for _, d := range shots {
		p.Call(t, ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": 1, "y": 1}, nil)
		for _, id := range []string{"index", "mementos", "years", "depths", "chart-mean-children", "cutoffs", "reduction", "chart-compaction"} {
			p.Eval(t, ctx, `(document.getElementById("`+id+`").scrollIntoView(), true)`, new(bool))
			time.Sleep(100 * time.Millisecond)
			p.Screenshot(t, ctx, filepath.Join(d, "profile-"+id+".png"), false)
		}
	}

	// The report of a tiny real index (internal/sampledata: six records
	// on one host, so one depth, H2, with mean children): its mean-children
	// chart's X axis is that depth alone, labelled "2", not −1 to 1.
	tiny := filepath.Join(dir, "tiny.html")
	if _, stderr, err := runCmd(t, "", "profile", "-q", "-o", filepath.Join(dir, "tiny.json"), "-html", tiny,
		filepath.Join("..", "..", "internal", "sampledata", "real", "cdxjindexer_example-warc_all-records.cdxj")); err != nil {
		t.Fatalf("profile of the tiny index: %v\n%s", err, stderr)
	}
	page, err = os.ReadFile(tiny)
	if err != nil {
		t.Fatal(err)
	}
	var mc chart.Chart
	n := 0
	for _, m := range specRE.FindAllSubmatch(page, -1) {
		n++
		if string(m[1]) == "chart-mean-children" {
			var s spec
			if err := json.Unmarshal(m[2], &s); err != nil {
				t.Fatal(err)
			}
			mc = s.Chart
		}
	}
	if len(mc.Series) == 0 {
		t.Fatal("the tiny index's report has no mean-children chart")
	}
	tp := br.OpenOffline(t, ctx, tiny)
	rctx, rcancel = context.WithTimeout(ctx, 60*time.Second)
	tp.WaitFor(t, rctx, `document.body.dataset.ready === "true" && document.querySelectorAll(".chart[data-rendered]").length === `+strconv.Itoa(n))
	rcancel()
	if labels := checkDepthAxis(t, ctx, tp, mc, "tiny"); !slices.Equal(labels, []string{"2"}) {
		t.Errorf("tiny index: mean-children X labels %q, want [2] (H2 alone)", labels)
	}
	tp.CheckThrown(t)
	tp.CheckLocal(t)
	for _, d := range shots {
		tp.Eval(t, ctx, `(document.getElementById("chart-mean-children").scrollIntoView(), true)`, new(bool))
		time.Sleep(100 * time.Millisecond)
		tp.Screenshot(t, ctx, filepath.Join(d, "profile-tiny-chart-mean-children.png"), false)
	}
}

// checkDepthAxis checks the X axis of a mean-children chart as drawn: its
// labels are the model's labelled ticks, whole depths within the depths
// drawn. It returns the labels.
func checkDepthAxis(t *testing.T, ctx context.Context, p *chromiumtest.OfflinePage, m chart.Chart, name string) []string {
	t.Helper()
	var got struct {
		Labels   []string
		Min, Max float64
	}
	p.Eval(t, ctx, `(() => {
		const c = echarts.getInstanceByDom(document.querySelector("#chart-mean-children .chart"));
		const ax = c.getModel().getComponent("xAxis", 0).axis;
		const [min, max] = ax.scale.getExtent();
		return {Labels: ax.getViewLabels().map(l => l.formattedLabel).filter(l => l !== ""), Min: min, Max: max};
	})()`, &got)
	var want []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range m.Series {
		for _, q := range s.Points {
			lo, hi = min(lo, q.X), max(hi, q.X)
		}
	}
	for _, tk := range m.X.Ticks {
		if tk.Label != "" {
			want = append(want, tk.Label)
		}
	}
	if !slices.Equal(got.Labels, want) || got.Min != m.X.Min || got.Max != m.X.Max {
		t.Errorf("%s: mean-children X axis drawn %v to %v labelled %q; model %v to %v labelled %q", name, got.Min, got.Max, got.Labels, m.X.Min, m.X.Max, want)
	}
	for _, l := range got.Labels {
		d, err := strconv.Atoi(l)
		if err != nil || float64(d) < lo || float64(d) > hi {
			t.Errorf("%s: mean-children X label %q: want a whole depth from %v to %v", name, l, lo, hi)
		}
	}
	return got.Labels
}

// TestLogsReportInBrowser writes the report of an aggregator log (lookups
// of a cdxgen index, some asked many times, with per-archive outcomes)
// with "mementomap logs -html", opens it in headless Chromium with the
// network off, and checks that both charts (Table 3, Figure 4) drew each
// of their series with a legend, that nothing was thrown and nothing asked
// of the network. Screenshots go to the test's folder, and to
// $MEMENTOKIT_SCREENSHOTS when it is set.
func TestLogsReportInBrowser(t *testing.T) {
	chromiumtest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	cfg := cdxgen.Config{Lines: 20000, Seed: 4}
	var b bytes.Buffer
	if _, err := cdxgen.New(cfg).Write(&b); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(idx, b.Bytes(), 0o644)
	b.Reset()
	if _, err := cdxgen.WriteLookups(&b, cfg, cdxgen.LookupConfig{N: 3000, Held: 0.2}); err != nil {
		t.Fatal(err)
	}
	var lg strings.Builder
	outcomes := []string{"ia=found:3, arquivo=none, bl=failed:timeout, ukwa=skipped-by-map",
		"ia=none, arquivo=none, bl=dormant, ukwa=none", "ia=found:1, arquivo=found:2, bl=none, ukwa=skipped-by-map"}
	for i, u := range strings.Fields(b.String()) {
		n := 1 + i%3 // asked 1 to 3 times, every 50th 40 to 42 times, every 997th 400 times
		if i%50 == 0 {
			n += 40
		}
		if i%997 == 0 {
			n = 400
		}
		for j := 0; j < n; j++ {
			fmt.Fprintf(&lg, `{"time":"2026-04-01T10:00:00Z","level":"INFO","msg":"access","method":"GET","target":"/timemap/link/%s","status":200,"urir":%q,"from_cache":false,"archives":%q}`+"\n",
				u, u, outcomes[(i+j)%len(outcomes)])
		}
	}
	logPath := filepath.Join(dir, "aggregator.log")
	os.WriteFile(logPath, []byte(lg.String()), 0o644)
	path := filepath.Join(dir, "logs.html")
	if _, stderr, err := runCmd(t, "", "logs", "-q", "-o", filepath.Join(dir, "logs.txt"), "-index", idx, "-html", path, logPath); err != nil {
		t.Fatalf("logs: %v\n%s", err, stderr)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	models := map[string]chart.Chart{}
	var ids []string
	for _, m := range specRE.FindAllSubmatch(page, -1) {
		var s struct {
			Chart chart.Chart `json:"chart"`
		}
		if err := json.Unmarshal(m[2], &s); err != nil {
			t.Fatalf("chart %s: %v", m[1], err)
		}
		ids = append(ids, string(m[1]))
		models[string(m[1])] = s.Chart
	}
	if d := cmp.Diff([]string{"chart-archive-outcomes", "chart-archived-vs-accessed"}, ids); d != "" {
		t.Fatalf("charts in the report (-want +got):\n%s", d)
	}
	if ov := models["chart-archived-vs-accessed"]; len(ov.Categories) != 4 || ov.Categories[0] != "never asked" || ov.Series[0].Name != "not archived" {
		t.Errorf("Figure 4 model: categories %q, series %d", ov.Categories, len(ov.Series))
	}
	br := chromiumtest.Start(t, ctx, &chromiumtest.Options{Width: 1280, Height: 900})
	p := br.OpenOffline(t, ctx, path)
	rctx, rcancel := context.WithTimeout(ctx, 60*time.Second)
	p.WaitFor(t, rctx, `document.body.dataset.ready === "true" && document.querySelectorAll(".chart[data-rendered]").length === 2`)
	rcancel()
	for _, id := range ids {
		var got struct {
			Series, Legend int
			Inked          float64
		}
		p.Eval(t, ctx, `(() => {
			const el = document.querySelector("#`+id+` .chart");
			const opt = echarts.getInstanceByDom(el).getOption();
			const cv = el.querySelector("canvas");
			const g = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
			let ink = 0;
			for (let i = 0; i < g.length; i += 4) if (g[i+3] > 0 && (g[i] < 235 || g[i+1] < 235 || g[i+2] < 235)) ink++;
			return {Series: opt.series.length, Inked: ink / (g.length / 4), Legend: opt.legend && opt.legend.length ? opt.legend[0].data.length : 0};
		})()`, &got)
		m := models[id]
		if got.Series != len(m.Series) || got.Inked < 0.01 || got.Legend != len(m.Series) {
			t.Errorf("%s: drew %d series (model %d), legend %d, %.1f%% inked", id, got.Series, len(m.Series), got.Legend, 100*got.Inked)
		}
	}
	p.CheckThrown(t)
	p.CheckLocal(t)
	shots := []string{t.TempDir()}
	if d := os.Getenv("MEMENTOKIT_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		shots = append(shots, d)
	}
	for _, d := range shots {
		for _, id := range ids {
			p.Eval(t, ctx, `(document.getElementById("`+id+`").scrollIntoView(), true)`, new(bool))
			time.Sleep(100 * time.Millisecond)
			p.Screenshot(t, ctx, filepath.Join(d, "logs-"+id+".png"), false)
		}
	}
}
