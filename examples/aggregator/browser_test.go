package main

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/chromiumtest"
)

// TestBrowser drives the web page in headless Chromium through the
// DevTools protocol: it loads the form, types a URL and a date into it,
// clicks the button, follows the 303 to the result page, reads the
// per-archive table from the DOM, and saves a screenshot. With CI=true a
// missing Chromium fails the test (.ci/setup-extra installs it); otherwise
// it skips.
func TestBrowser(t *testing.T) {
	chromiumtest.Require(t)
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()

	f := newFederation(t)
	in := startFederation(t, f)
	page := chromiumtest.Start(t, ctx, nil).Page(t, ctx)

	// 1. A real page load of the form.
	page.Navigate(t, ctx, in.URL+"/")
	var home struct {
		Title    string `json:"title"`
		Form     bool   `json:"form"`
		Archives int    `json:"archives"`
		CSS      string `json:"css"`
	}
	page.Eval(t, ctx, `({title: document.title, form: document.querySelector("form#search[action='/search']") !== null,
		archives: document.querySelectorAll("#archives li").length,
		css: getComputedStyle(document.querySelector("header")).backgroundColor})`, &home)
	if d := cmp.Diff(struct {
		Title    string `json:"title"`
		Form     bool   `json:"form"`
		Archives int    `json:"archives"`
		CSS      string `json:"css"`
	}{"mementokit aggregator", true, 3, "rgb(36, 52, 77)"}, home); d != "" {
		t.Errorf("home page (-want +got):\n%s", d)
	}

	// 2. A form submission: type into the fields, click the button.
	page.TypeInto(t, ctx, "#url", "example.com/")
	page.TypeInto(t, ctx, "#date", "2005-03-01")
	loaded := page.Expect("Page.loadEventFired")
	page.Click(t, ctx, "#go")
	page.Wait(t, ctx, loaded)

	var result struct {
		Path    string     `json:"path"`
		Heading string     `json:"heading"`
		Closest string     `json:"closest"`
		Rows    [][]string `json:"rows"`
		Formats []string   `json:"formats"`
	}
	page.Eval(t, ctx, `({path: location.pathname, heading: document.querySelector("#summary h2").textContent,
		closest: document.querySelector("table.nav td.closest a").href,
		rows: Array.from(document.querySelectorAll("tr[data-archive]")).map(r => [r.dataset.archive, r.className]),
		formats: Array.from(document.querySelectorAll("#formats a")).map(a => a.id)})`, &result)
	want := struct {
		Path    string     `json:"path"`
		Heading string     `json:"heading"`
		Closest string     `json:"closest"`
		Rows    [][]string `json:"rows"`
		Formats []string   `json:"formats"`
	}{
		Path:    "/list/20050301000000/http://example.com/",
		Heading: "Mementos of http://example.com/",
		Closest: f.a1.URIM(held, ts(t, "20050301120000")),
		Rows:    [][]string{{"a1", "found"}, {"a2", "found"}, {"a3", "skipped"}},
		Formats: []string{"timemap-link", "timemap-json", "timemap-cdxj", "timegate", "api-json", "memento-redirect"},
	}
	if d := cmp.Diff(want, result); d != "" {
		t.Errorf("result page after the form (-want +got):\n%s", d)
	}

	// 3. A screenshot of the result page.
	page.Screenshot(t, ctx, filepath.Join(t.TempDir(), "list.png"), false)

	// 4. The 404 page, loaded by the browser.
	page.Navigate(t, ctx, in.URL+"/list/2005/http://nothing.example.net/")
	var missing string
	page.Eval(t, ctx, `document.querySelector("#summary h2").textContent`, &missing)
	if missing != "No mementos of http://nothing.example.net/" {
		t.Errorf("404 page heading %q", missing)
	}
}
