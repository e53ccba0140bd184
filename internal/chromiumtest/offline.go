package chromiumtest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// OfflinePage is a Page opened on a local file with the network off. It
// records the URL of every request the page makes and every exception its
// scripts throw, for CheckThrown and CheckLocal.
type OfflinePage struct {
	*Page

	mu        sync.Mutex
	requested []string // request URLs, in the order they were sent
	thrown    []string // Runtime.exceptionThrown parameters, as JSON
}

// OpenOffline opens a new page of b with the network off
// (Network.emulateNetworkConditions offline), watching its requests and
// exceptions, and navigates it to file://path.
func (b *Browser) OpenOffline(t *testing.T, ctx context.Context, path string) *OfflinePage {
	t.Helper()
	o := &OfflinePage{Page: b.Page(t, ctx)}
	o.Watch("Network.requestWillBeSent", func(params json.RawMessage) {
		var ev struct {
			Request struct {
				URL string `json:"url"`
			} `json:"request"`
		}
		if json.Unmarshal(params, &ev) != nil {
			return
		}
		o.mu.Lock()
		o.requested = append(o.requested, ev.Request.URL)
		o.mu.Unlock()
	})
	o.Watch("Runtime.exceptionThrown", func(params json.RawMessage) {
		o.mu.Lock()
		o.thrown = append(o.thrown, string(params))
		o.mu.Unlock()
	})
	o.Call(t, ctx, "Runtime.enable", nil, nil)
	o.Call(t, ctx, "Network.enable", nil, nil)
	o.Call(t, ctx, "Network.emulateNetworkConditions", map[string]any{"offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}, nil)
	o.Navigate(t, ctx, "file://"+path)
	return o
}

// CheckThrown fails t (without stopping it) for each exception the page
// has thrown so far.
func (o *OfflinePage) CheckThrown(t *testing.T) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, e := range o.thrown {
		t.Errorf("the page threw: %.500s", e)
	}
}

// CheckLocal fails t (without stopping it) for each request so far for a
// URL other than a file:// or data: one: a self-contained page asks the
// network for nothing.
func (o *OfflinePage) CheckLocal(t *testing.T) {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, u := range o.requested {
		if !strings.HasPrefix(u, "file://") && !strings.HasPrefix(u, "data:") {
			t.Errorf("the page asked the network for %q", u)
		}
	}
}

// HoverChart scrolls the ECharts chart in the element with that id into
// view, moves the mouse over the data point (an ECharts [x, y] in the
// first series' coordinates, as JavaScript), and returns the text of the
// chart's tooltip (.mk-tooltip, internal/chart's) once it shows.
func (c *Page) HoverChart(t *testing.T, ctx context.Context, id, point string) string {
	t.Helper()
	sel := `document.querySelector("#` + id + ` .chart")`
	c.Eval(t, ctx, `(`+sel+`.scrollIntoView({block: "center"}), true)`, new(bool))
	var at struct{ X, Y float64 }
	c.Eval(t, ctx, `(() => { const el = `+sel+`; const r = el.getBoundingClientRect();
		const px = echarts.getInstanceByDom(el).convertToPixel({seriesIndex: 0}, `+point+`);
		return {X: r.left + px[0], Y: r.top + px[1]}; })()`, &at)
	c.MoveMouse(t, ctx, at.X-3, at.Y)
	c.MoveMouse(t, ctx, at.X, at.Y)
	c.WaitFor(t, ctx, `(() => { const tip = `+sel+`.querySelector(".mk-tooltip"); return tip && tip.style.display !== "none" && tip.style.opacity !== "0" && tip.textContent.length > 0; })()`)
	var text string
	c.Eval(t, ctx, sel+`.querySelector(".mk-tooltip").innerText`, &text)
	return text
}
