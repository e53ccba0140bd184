package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/chart"
	"github.com/mementokit/mementokit/internal/chromiumtest"
)

// screenshotDir, when set, also receives the report's screenshots.
const screenshotEnv = "MEMENTOKIT_SCREENSHOTS"

// specRE finds the chart models in a report.
var specRE = regexp.MustCompile(`(?s)<figure class="chart-box[^"]*" id="([^"]+)">.*?<script type="application/json" class="chart-spec">(.*?)</script>`)

type spec struct {
	Chart  chart.Chart `json:"chart"`
	Colors []string    `json:"colors"`
}

// TestReportInBrowser writes the report of three real summaries (the
// Internet Archive wayback sample, Common Crawl's and the IA CDX API's)
// with the daily series of the Internet Archive sample, opens it from a
// file URL in headless Chromium with the network off, and checks that every
// chart drew each of its series on a non-blank canvas, that hovering a
// point shows its value as the Go model writes it, that the mouse wheel
// zooms a daily chart, that a table sorts, that the CSV links hold the
// numbers, and that the page asked for nothing but itself. Screenshots go
// to the test's folder, and to $MEMENTOKIT_SCREENSHOTS when it is set.
func TestReportInBrowser(t *testing.T) {
	chromiumtest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 120*time.Second)
	defer cancel()

	dir := t.TempDir()
	var sums []string
	var ia string
	for _, f := range sampleFiles(t) {
		base := filepath.Base(f)
		switch base {
		case "openwayback_archive-org.cdx", "cc_commoncrawl-org_from-cdxapi.cdxj", "ia_cdxapi_from-json.cdx7":
		default:
			continue
		}
		if strings.HasPrefix(base, "openwayback") {
			ia = f
		}
		out, stderr, err := runCmd(t, f)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		p := filepath.Join(dir, strings.TrimSuffix(base, filepath.Ext(base))+".summary")
		if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, p)
	}
	path := filepath.Join(dir, "report.html")
	args := append([]string{"report"}, sums...)
	// Flags after the files, as people type them; the Internet Archive
	// sample holds no .com domain: its line in that chart has no point.
	args = append(args, "-index", ia, "-tld", "org", "-tld", "com", "-o", path)
	if _, stderr, err := runCmd(t, args...); err != nil {
		t.Fatalf("report: %v\n%s", err, stderr)
	}
	page, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
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
	wantIDs := []string{"chart-captures-per-year", "chart-domains-per-year",
		"chart-bytes-per-type", "chart-types-by-captures", "chart-types-by-bytes",
		"chart-bytes-per-type-2", "chart-types-by-captures-2", "chart-types-by-bytes-2",
		"chart-bytes-per-type-3", "chart-types-by-captures-3", "chart-types-by-bytes-3",
		"chart-domains-by-letter", "chart-domains-per-year-org", "chart-domains-per-year-com", "chart-overlap",
		"chart-daily-captures", "chart-daily-bytes", "chart-daily-2xx"}
	if d := cmp.Diff(wantIDs, ids); d != "" {
		t.Fatalf("charts in the report (-want +got):\n%s", d)
	}

	b := chromiumtest.Start(t, ctx, &chromiumtest.Options{Width: 1280, Height: 900})
	p := b.OpenOffline(t, ctx, path)
	p.CheckThrown(t)
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	p.WaitFor(t, rctx, `document.body.dataset.ready === "true" && document.querySelectorAll(".chart[data-rendered]").length === `+strconv.Itoa(len(ids)))
	rcancel()

	// Every chart: an ECharts instance with the model's series, drawn on a
	// canvas that is not blank.
	type drawn struct {
		Series  int     `json:"series"`
		Width   int     `json:"width"`
		Height  int     `json:"height"`
		Inked   float64 `json:"inked"`
		Legend  int     `json:"legend"`
		Rendred string  `json:"rendered"`
	}
	for _, id := range ids {
		var got drawn
		p.Eval(t, ctx, `(() => {
			const el = document.querySelector("#`+id+` .chart");
			const inst = echarts.getInstanceByDom(el);
			const opt = inst.getOption();
			const cv = el.querySelector("canvas");
			const g = cv.getContext("2d").getImageData(0, 0, cv.width, cv.height).data;
			let ink = 0;
			for (let i = 0; i < g.length; i += 4) if (g[i+3] > 0 && (g[i] < 235 || g[i+1] < 235 || g[i+2] < 235)) ink++;
			const legend = opt.legend && opt.legend.length ? opt.legend[0].data.length : 0;
			const series = opt.series[0].type === "treemap" ? opt.series[0].data.length : opt.series.length;
			return {series: series, width: cv.width, height: cv.height, inked: ink / (g.length / 4), legend: legend, rendered: el.dataset.rendered};
		})()`, &got)
		m := models[id]
		want := len(m.Chart.Series)
		if m.Chart.Kind == chart.Treemap {
			want = len(m.Chart.Categories)
		}
		if got.Series != want || got.Width < 300 || got.Height < 200 || got.Inked < 0.01 {
			t.Errorf("%s: drew %d series (model %d) on %dx%d, %.1f%% inked", id, got.Series, want, got.Width, got.Height, 100*got.Inked)
		}
		if len(m.Chart.Series) > 1 && m.Chart.Kind != chart.Treemap && got.Legend != len(m.Chart.Series) {
			t.Errorf("%s: legend of %d entries for %d series", id, got.Legend, len(m.Chart.Series))
		}
	}

	// Hovering a point shows its date and value, written as the Go model writes them.
	daily := models["chart-daily-captures"].Chart
	top := daily.Series[0]
	best := top.Points[0]
	for _, pt := range top.Points {
		if pt.Y > best.Y {
			best = pt
		}
	}
	wantDay := time.Unix(int64(best.X), 0).UTC().Format("2006-01-02")
	tip := p.HoverChart(t, ctx, "chart-daily-captures", fmt.Sprintf("[%g, %g]", best.X*1000, best.Y))
	for _, want := range []string{wantDay, top.Name, chart.Exact(best.Y, chart.Count)} {
		if !strings.Contains(tip, want) {
			t.Errorf("tooltip over %s %s = %q, lacks %q", top.Name, wantDay, tip, want)
		}
	}
	bytesChart := models["chart-bytes-per-type"].Chart
	cat := 1 // 2013, the largest year of the sample
	tip = p.HoverChart(t, ctx, "chart-bytes-per-type", fmt.Sprintf("[%d, %g]", cat, bytesChart.Series[0].Values[cat]/2))
	for _, want := range []string{bytesChart.Categories[cat], bytesChart.Series[0].Name, chart.Human(bytesChart.Series[0].Values[cat], chart.Bytes)} {
		if !strings.Contains(tip, want) {
			t.Errorf("tooltip over the %s bar = %q, lacks %q", bytesChart.Categories[cat], tip, want)
		}
	}

	// The mouse wheel over a daily chart zooms into its dates.
	p.Eval(t, ctx, `(document.querySelector("#chart-daily-bytes .chart").scrollIntoView({block: "center"}), true)`, new(bool))
	x, y := p.Center(t, ctx, "#chart-daily-bytes .chart")
	p.Call(t, ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseWheel", "x": x, "y": y, "deltaX": 0, "deltaY": -600}, nil)
	var zoom struct{ Start, End float64 }
	wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
	p.WaitFor(t, wctx, `(() => { const z = echarts.getInstanceByDom(document.querySelector("#chart-daily-bytes .chart")).getOption().dataZoom[0]; return z.end - z.start < 100; })()`)
	wcancel()
	p.Eval(t, ctx, `(() => { const z = echarts.getInstanceByDom(document.querySelector("#chart-daily-bytes .chart")).getOption().dataZoom[0]; return {Start: z.start, End: z.end}; })()`, &zoom)
	if zoom.End-zoom.Start >= 100 {
		t.Errorf("the wheel did not zoom: %+v", zoom)
	}

	// A table sorts by a numeric column, both ways.
	var order [2][]string
	for i := range order {
		p.Click(t, ctx, `#table-holdings th:nth-child(3) button`)
		p.Eval(t, ctx, `Array.from(document.querySelectorAll("#table-holdings tbody tr td:first-child")).map(td => td.textContent)`, &order[i])
	}
	if d := cmp.Diff([]string{"ia_cdxapi_from-json", "cc_commoncrawl-org_from-cdxapi", "openwayback_archive-org"}, order[0]); d != "" {
		t.Errorf("holdings sorted by captures, ascending (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"openwayback_archive-org", "cc_commoncrawl-org_from-cdxapi", "ia_cdxapi_from-json"}, order[1]); d != "" {
		t.Errorf("holdings sorted by captures, descending (-want +got):\n%s", d)
	}

	// The CSV behind a chart is in its link.
	var href string
	p.Eval(t, ctx, `document.querySelector("#chart-daily-captures a.csv").href`, &href)
	csv, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(href, "data:text/csv;charset=utf-8;base64,"))
	if err != nil || !strings.HasPrefix(string(csv), "day (UTC),top_domains,ARCHIVEIT,") || !strings.Contains(string(csv), "\n"+wantDay+",") {
		t.Errorf("daily CSV link: %v %.200q", err, csv)
	}

	p.CheckThrown(t)
	p.CheckLocal(t)

	shots := []string{t.TempDir()}
	if d := os.Getenv(screenshotEnv); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		shots = append(shots, d)
	}
	for _, d := range shots {
		p.Call(t, ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": 1, "y": 1}, nil)
		p.Eval(t, ctx, `(window.scrollTo(0, 0), true)`, new(bool))
		p.Screenshot(t, ctx, filepath.Join(d, "report-top.png"), false)
		for _, id := range []string{"holdings", "types-openwayback-archive-org", "domains", "overlap", "daily"} {
			p.Eval(t, ctx, `(document.getElementById("`+id+`").scrollIntoView(), true)`, new(bool))
			time.Sleep(100 * time.Millisecond)
			p.Screenshot(t, ctx, filepath.Join(d, "report-"+id+".png"), false)
		}
		p.HoverChart(t, ctx, "chart-daily-captures", fmt.Sprintf("[%g, %g]", best.X*1000, best.Y))
		p.Screenshot(t, ctx, filepath.Join(d, "report-hover.png"), false)
	}
}
