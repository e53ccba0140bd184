package webui

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/net/html"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

func ts(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse("20060102150405", s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// fixture is a UI over four fake archives: a and b hold example.com, c has
// a MementoMap that says it holds nothing, d answers 503 to everything.
type fixture struct {
	srv        *httptest.Server
	a, b, c, d *archivetest.Archive
}

const held = "http://example.com/"

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{
		a: archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
			held: {ts(t, "19990125093000"), ts(t, "20050301120000"), ts(t, "20200101000000")},
		}}),
		b: archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{
			held: {ts(t, "20050301120000"), ts(t, "20100101000000")},
		}}),
		c: archivetest.New(archivetest.Config{}),
		d: archivetest.New(archivetest.Config{Fault: archivetest.FaultStatus}),
	}
	for _, a := range []*archivetest.Archive{f.a, f.b, f.c, f.d} {
		t.Cleanup(a.Close)
	}
	entry := func(id, name string, a *archivetest.Archive) aggregator.Archive {
		return aggregator.Archive{ID: id, Name: name, TimeMap: a.TimeMapPrefix(), TimeGate: a.TimeGatePrefix()}
	}
	bl, err := aggregator.ParseBlacklist(strings.NewReader("blocked.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	ag, err := aggregator.New(&aggregator.Options{
		Archives:  []aggregator.Archive{entry("a", "Archive A", f.a), entry("b", "Archive B", f.b), entry("c", "Archive C", f.c), entry("d", "Archive D", f.d)},
		Blacklist: bl, Tolerance: -1, RequestTimeout: 5 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	absent := aggregator.MapLookupFunc(func(string) (int64, error) { return 0, nil })
	if err := ag.SetMap("c", absent, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	ui, err := New(&Options{Aggregator: ag, Blacklist: bl,
		Now: func() time.Time { return ts(t, "20240606060606").Add(300 * time.Millisecond) }})
	if err != nil {
		t.Fatal(err)
	}
	f.srv = httptest.NewServer(ui)
	t.Cleanup(f.srv.Close)
	return f
}

// get fetches path without following redirects.
func get(t *testing.T, srv *httptest.Server, method, path string, hdr map[string]string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 20 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// rows reads the per-archive table: archive id → its row's class (state).
func rows(t *testing.T, body string) map[string]string {
	t.Helper()
	doc, err := html.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "tr" {
			var id, class string
			for _, a := range n.Attr {
				switch a.Key {
				case "data-archive":
					id = a.Val
				case "class":
					class = a.Val
				}
			}
			if id != "" {
				out[id] = class
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func TestPages(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name     string
		method   string
		path     string
		hdr      map[string]string
		status   int
		location string
		contains []string
		absent   []string
		rows     map[string]string // nil: not checked
		header   map[string]string
	}{
		{name: "form", path: "/", status: 200,
			contains: []string{`<form id="search" method="get" action="/search">`, `name="url"`, `name="date"`, "Archive A", "Archive D"}},
		{name: "head form", method: "HEAD", path: "/", status: 200},
		{name: "search with date", path: "/search?url=example.com/&date=2005-03-01", status: 303,
			location: "/list/20050301000000/http://example.com/"},
		{name: "search with date and time", path: "/search?url=http://example.com/a%3Fb&date=2005-03-01T12:30", status: 303,
			location: "/list/20050301123000/http://example.com/a?b"},
		{name: "search without date is now", path: "/search?url=https://example.com/x%23frag", status: 303,
			location: "/list/20240606060606/https://example.com/x"},
		{name: "search without url", path: "/search?url=&date=2005", status: 400, contains: []string{"Give the URL of a web page."}},
		{name: "search bad date", path: "/search?url=example.com&date=2005-13-01", status: 400,
			contains: []string{"is not valid", `value="example.com"`}},
		{name: "search bad url", path: "/search?url=ftp://example.com/", status: 400, contains: []string{"cannot be looked up"}},
		{name: "search echoes markup escaped", path: "/search?url=%3Cscript%3Ealert(1)%3C/script%3E&date=%22%3E%3Cb%3E", status: 400,
			contains: []string{`value="&lt;script&gt;alert(1)&lt;/script&gt;"`}, absent: []string{"<script>", "<b>"}},
		{name: "found", path: "/list/20050301/" + held, status: 200,
			contains: []string{"Mementos of http://example.com/",
				`href="` + f.a.URIM(held, ts(t, "20050301120000")) + `"`, // closest, archive a ranks first in its second
				`href="/timemap/link/http://example.com/"`, `href="/timemap/json/http://example.com/"`,
				`href="/timemap/cdxj/http://example.com/"`, `href="/timegate/http://example.com/"`,
				`href="/api/json/20050301000000/http://example.com/"`, "failed: status-503", "+1 of the same second"},
			rows:   map[string]string{"a": "found", "b": "found", "c": "skipped", "d": "failed"},
			header: map[string]string{"Archive-Failures": "d=status-503", "Link": `<http://example.com/>; rel="original"`}},
		{name: "nothing found", path: "/list/2005/http://nothing.example/", status: 404,
			contains: []string{"No mementos of http://nothing.example/", "No memento found"},
			rows:     map[string]string{"a": "none", "b": "none", "c": "skipped", "d": "failed"}},
		{name: "blacklisted", path: "/list/2005/http://www.blocked.example/page", status: 403,
			contains: []string{"block list"}},
		{name: "bad datetime", path: "/list/2005x/" + held, status: 400, contains: []string{"is not valid"}},
		{name: "month 13", path: "/list/200513/" + held, status: 400, contains: []string{"is not valid"}},
		{name: "bad uri-r", path: "/list/2005/ftp://example.com/", status: 400, contains: []string{"cannot be looked up"}},
		{name: "no uri-r", path: "/list/2005", status: 400, contains: []string{"Expected /list/{DATETIME}/{URL}"}},
		{name: "only-if-cached without cache", path: "/list/2005/" + held, hdr: map[string]string{"Cache-Control": "only-if-cached"},
			status: 504, contains: []string{"Not cached: http://example.com/"}},
		{name: "post", method: "POST", path: "/", status: 405, header: map[string]string{"Allow": "GET, HEAD"}},
		{name: "style", path: "/static/style.css", status: 200, contains: []string{"table.archives"},
			header: map[string]string{"Content-Type": "text/css; charset=utf-8"}},
		{name: "unknown page", path: "/nope", status: 404, contains: []string{"There is no page at /nope."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.method
			if m == "" {
				m = "GET"
			}
			resp, body := get(t, f.srv, m, tc.path, tc.hdr)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d; body:\n%s", resp.StatusCode, tc.status, body)
			}
			if got := resp.Header.Get("Location"); got != tc.location {
				t.Errorf("Location %q, want %q", got, tc.location)
			}
			for _, s := range tc.contains {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q:\n%s", s, body)
				}
			}
			for _, s := range tc.absent {
				if strings.Contains(body, s) {
					t.Errorf("body contains %q:\n%s", s, body)
				}
			}
			if tc.rows != nil {
				if d := cmp.Diff(tc.rows, rows(t, body)); d != "" {
					t.Errorf("per-archive rows (-want +got):\n%s", d)
				}
			}
			for k, v := range tc.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			if m == "HEAD" && body != "" {
				t.Errorf("HEAD answer has a body of %d bytes", len(body))
			}
		})
	}
	if n := f.a.Count("") + f.b.Count(""); n == 0 {
		t.Error("archives a and b were never asked")
	}
	if n := f.c.Count(""); n != 0 {
		t.Errorf("archive c, whose map says absent, got %d requests", n)
	}
}

// TestBlacklistAsksNobody checks that a blocked host costs no upstream
// request.
func TestBlacklistAsksNobody(t *testing.T) {
	f := newFixture(t)
	resp, _ := get(t, f.srv, "GET", "/list/2005/http://blocked.example/", nil)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d, want 403", resp.StatusCode)
	}
	for name, a := range map[string]*archivetest.Archive{"a": f.a, "b": f.b, "c": f.c, "d": f.d} {
		if n := a.Count(""); n != 0 {
			t.Errorf("archive %s got %d requests", name, n)
		}
	}
}

// TestAllFailed checks 502 (every archive failed) and 504 (every archive
// timed out) pages.
func TestAllFailed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fault  archivetest.Fault
		status int
		state  string
	}{
		{"status 503", archivetest.FaultStatus, http.StatusBadGateway, "failed: status-503"},
		{"hang", archivetest.FaultHang, http.StatusGatewayTimeout, "failed: timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := archivetest.New(archivetest.Config{Fault: tc.fault})
			t.Cleanup(a.Close)
			ag, err := aggregator.New(&aggregator.Options{
				Archives:       []aggregator.Archive{{ID: "x", TimeMap: a.TimeMapPrefix(), TimeGate: a.TimeGatePrefix()}},
				RequestTimeout: 200 * time.Millisecond, Tolerance: -1,
			})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ag.Close() })
			ui, err := New(&Options{Aggregator: ag})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(ui)
			t.Cleanup(srv.Close)
			resp, body := get(t, srv, "GET", "/list/2010/"+held, nil)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d:\n%s", resp.StatusCode, tc.status, body)
			}
			if !strings.Contains(body, tc.state) {
				t.Errorf("body lacks %q:\n%s", tc.state, body)
			}
			if d := cmp.Diff(map[string]string{"x": "failed"}, rows(t, body)); d != "" {
				t.Errorf("rows (-want +got):\n%s", d)
			}
		})
	}
}

// TestNewNeedsAggregator: New refuses options without an Aggregator, nil
// options too, with an error instead of a panic.
func TestNewNeedsAggregator(t *testing.T) {
	for _, o := range []*Options{{}, nil} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%v) without an aggregator succeeded", o)
		}
	}
}

func TestHandles(t *testing.T) {
	for path, want := range map[string]bool{
		"/": true, "/search": true, "/static/style.css": true, "/list/2005/http://a.example/": true,
		"/timemap/link/http://a.example/": false, "/metrics": false, "/list": false, "/static/x.js": false,
	} {
		if got := Handles(path); got != want {
			t.Errorf("Handles(%q) = %v, want %v", path, got, want)
		}
	}
}

// TestFromCache checks the page of an answer served from the cache: the
// archives that listed mementos are found, the map still skips c, and the
// page says when the data was searched.
func TestFromCache(t *testing.T) {
	a := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: {ts(t, "20050301120000"), ts(t, "20100101000000")}}})
	t.Cleanup(a.Close)
	b := archivetest.New(archivetest.Config{})
	t.Cleanup(b.Close)
	c := archivetest.New(archivetest.Config{})
	t.Cleanup(c.Close)
	store, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	ag, err := aggregator.New(&aggregator.Options{Cache: store, Archives: []aggregator.Archive{
		{ID: "a", TimeMap: a.TimeMapPrefix(), TimeGate: a.TimeGatePrefix()},
		{ID: "b", TimeMap: b.TimeMapPrefix(), TimeGate: b.TimeGatePrefix()},
		{ID: "c", TimeMap: c.TimeMapPrefix(), TimeGate: c.TimeGatePrefix()},
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	if err := ag.SetMap("c", aggregator.MapLookupFunc(func(string) (int64, error) { return 0, nil }), nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := ag.Refresh(t.Context(), held); err != nil { // a thorough search, stored
		t.Fatal(err)
	}
	ui, err := New(&Options{Aggregator: ag})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	a.ResetLog()
	resp, body := get(t, srv, "GET", "/list/2009/"+held, nil)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d:\n%s", resp.StatusCode, body)
	}
	if d := cmp.Diff(map[string]string{"a": "found", "b": "none", "c": "skipped"}, rows(t, body)); d != "" {
		t.Errorf("rows (-want +got):\n%s", d)
	}
	for _, s := range []string{"from the cache (searched ", "found (cached)", "no mementos (cached)", `href="` + a.URIM(held, ts(t, "20100101000000")) + `"`} {
		if !strings.Contains(body, s) {
			t.Errorf("body lacks %q", s)
		}
	}
	if n := a.Count(""); n != 0 {
		t.Errorf("a cached answer asked archive a %d times", n)
	}
	if resp.Header.Get("Last-Modified") == "" {
		t.Error("no Last-Modified on a cached answer")
	}
}

// TestNotAskedRows: the archives a search did not ask have rows saying
// why: left out by top-k, not listed by the rules, next to one skipped by
// its MementoMap; searched and, the second time, from the cache.
func TestNotAskedRows(t *testing.T) {
	a := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: {ts(t, "20050301120000")}}})
	t.Cleanup(a.Close)
	other := archivetest.New(archivetest.Config{})
	t.Cleanup(other.Close)
	rules, err := aggregator.ParseRules(strings.NewReader(`{"timetravel_dynamicdefault": "a,b,c,m", "timetravel_cachedefault": "a,b,c,m", "batchdefault": "a,b,c,m"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	store, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	arc := func(id string, p float64, x *archivetest.Archive) aggregator.Archive {
		return aggregator.Archive{ID: id, TimeMap: x.TimeMapPrefix(), TimeGate: x.TimeGatePrefix(), Probability: p}
	}
	ag, err := aggregator.New(&aggregator.Options{Cache: store, Rules: rules, TopK: 1, Tolerance: -1, Archives: []aggregator.Archive{
		arc("a", 0.9, a), arc("b", 0.5, other), arc("c", 0.2, other), arc("m", 0.95, other), arc("e", 0.99, other)}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ag.Close() })
	if err := ag.SetMap("m", aggregator.MapLookupFunc(func(string) (int64, error) { return 0, nil }), nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	ui, err := New(&Options{Aggregator: ag})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(ui)
	t.Cleanup(srv.Close)
	for _, pass := range []string{"searched", "from the cache"} {
		resp, body := get(t, srv, "GET", "/list/2009/"+held, nil)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d:\n%s", pass, resp.StatusCode, body)
		}
		if pass == "searched" {
			if _, err := ag.Refresh(t.Context(), held); err != nil { // a thorough search, stored
				t.Fatal(err)
			}
		} else if !strings.Contains(body, "from the cache (searched ") {
			t.Errorf("second answer not from the cache:\n%s", body)
		}
		if d := cmp.Diff(map[string]string{"a": "found", "m": "skipped", "b": "skipped", "c": "skipped", "e": "skipped"}, rows(t, body)); d != "" {
			t.Errorf("%s: rows (-want +got):\n%s", pass, d)
		}
		for id, label := range map[string]string{
			"m": "skipped: its MementoMap says it holds nothing",
			"b": "not asked: left out by top-k", "c": "not asked: left out by top-k",
			"e": "not asked: the rules do not list it for this service",
		} {
			if !regexp.MustCompile(`data-archive="` + id + `">\s*<td[^>]*>[^<]*</td>\s*<td class="state">` + regexp.QuoteMeta(label)).MatchString(body) {
				t.Errorf("%s: row %s does not say %q:\n%s", pass, id, label, body)
			}
		}
	}
	if n := other.Count(""); n != 0 {
		t.Errorf("archives left out were asked %d times", n)
	}
}
