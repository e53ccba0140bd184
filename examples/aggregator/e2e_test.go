package main

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

const (
	held  = "http://example.com/"
	other = "http://other.example.org/"
)

// federation is three fake archives: a1 and a2 hold example.com (a2 also
// other.example.org) and a3 holds nothing; a2's MementoMap is a file, a3's
// is discovered at its /.well-known/mementomap. Both maps say their archive
// holds nothing of example.com... except a2's, which lists it.
type federation struct {
	a1, a2, a3 *archivetest.Archive
	list       string // archive list file
	dir        string
}

func newFederation(t *testing.T) *federation {
	t.Helper()
	f := &federation{dir: t.TempDir()}
	f.a1 = newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		held: {ts(t, "19990125093000"), ts(t, "20050301120000"), ts(t, "20200101000000")},
	}})
	f.a2 = newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		held:  {ts(t, "20050301120000"), ts(t, "20100101000000")},
		other: {ts(t, "20150505050505")},
	}})
	f.a3 = newArchive(t, archivetest.Config{MementoMap: []byte("org,nothing)/* 1\n")})
	mapFile := writeFile(t, f.dir, "a2.mementomap", []byte("com,example)/ 2\norg,example,other)/ 1\n"))
	e2 := entryOf("a2", f.a2)
	e2.MementoMap = mapFile
	e3 := entryOf("a3", f.a3)
	e3.MementoMap = "discover"
	f.list = writeList(t, f.dir, entryOf("a1", f.a1), e2, e3)
	return f
}

// startFederation runs the server over f with a blacklist, a bolt cache,
// one refresh worker, and waits until both MementoMaps are loaded.
func startFederation(t *testing.T, f *federation, extra ...string) *instance {
	t.Helper()
	bl := writeFile(t, f.dir, "blacklist.txt", []byte("# test\nblocked.example\n"))
	args := append([]string{"-archives", f.list, "-blacklist", bl, "-data-dir", filepath.Join(f.dir, "data"),
		"-workers", "1", "-worker-idle", "20ms", "-request-timeout", "5s"}, extra...)
	in := start(t, args...)
	waitFor(t, "MementoMaps loaded", func() bool {
		var h struct {
			Archives struct {
				Loaded int `json:"mementomaps_loaded"`
			} `json:"archives"`
			Loading bool `json:"mementomaps_loading"`
		}
		r := do(t, in.URL, "GET", "/healthz")
		return json.Unmarshal([]byte(r.Body), &h) == nil && !h.Loading && h.Archives.Loaded == 2
	})
	return in
}

// TestEndpoints checks the answer of every endpoint of the running binary,
// error statuses included, then the metrics those requests left.
func TestEndpoints(t *testing.T) {
	f := newFederation(t)
	in := startFederation(t, f)
	u := in.URL
	adt := "Sat, 01 Jan 2005 00:00:00 GMT"
	tests := []struct {
		name     string
		method   string
		path     string
		hdr      []string
		status   int
		ctype    string // prefix of Content-Type
		contains []string
		header   map[string]string // exact values
	}{
		{name: "home", path: "/", status: 200, ctype: "text/html", contains: []string{`action="/search"`, "Fake a3"}},
		{name: "style", path: "/static/style.css", status: 200, ctype: "text/css"},
		{name: "search", path: "/search?url=example.com/&date=2005-03-01", status: 303,
			header: map[string]string{"Location": "/list/20050301000000/http://example.com/"}},
		{name: "search bad date", path: "/search?url=example.com/&date=13/13/13", status: 400, ctype: "text/html"},
		{name: "list", path: "/list/20050301/" + held, status: 200, ctype: "text/html",
			contains: []string{f.a1.URIM(held, ts(t, "20050301120000")), `data-archive="a3"`, "skipped: its MementoMap says it holds nothing"}},
		{name: "list none", path: "/list/2005/http://nothing.example.net/", status: 404, ctype: "text/html"},
		{name: "list blacklisted", path: "/list/2005/http://www.blocked.example/", status: 403, ctype: "text/html"},
		{name: "timemap link", path: "/timemap/link/" + held, status: 200, ctype: "application/link-format",
			contains: []string{`<http://example.com/>; rel="original"`, f.a1.URIM(held, ts(t, "19990125093000")), f.a2.URIM(held, ts(t, "20100101000000")),
				`<` + u + `/timemap/link/http://example.com/>; rel="self"`},
			header: map[string]string{"X-Memento-Count": "5"}},
		{name: "timemap link again, from the cache", path: "/timemap/link/" + held, status: 200, ctype: "application/link-format",
			header: map[string]string{"X-Memento-Count": "5"}},
		{name: "timemap json", path: "/timemap/json/" + held, status: 200, ctype: "application/json", contains: []string{`"original_uri": "http://example.com/"`}},
		{name: "timemap cdxj", path: "/timemap/cdxj/" + held, status: 200, ctype: "application/cdxj+ors", contains: []string{"19990125093000 {"}},
		{name: "timemap page", path: "/timemap/link/1/" + held, status: 200, ctype: "application/link-format", contains: []string{`rel="index"`}},
		{name: "timemap page past the end", path: "/timemap/link/9/" + held, status: 404},
		{name: "timemap bad format", path: "/timemap/xml/" + held, status: 400},
		{name: "timemap none", path: "/timemap/link/http://nothing.example.net/", status: 404},
		{name: "timemap blacklisted", path: "/timemap/link/http://blocked.example/a", status: 403},
		{name: "timemap bad uri-r", path: "/timemap/link/ftp://example.com/", status: 400},
		{name: "timegate", path: "/timegate/" + held, hdr: []string{"Accept-Datetime", adt}, status: 302,
			header: map[string]string{"Location": f.a1.URIM(held, ts(t, "20050301120000")), "Vary": "accept-datetime"}},
		{name: "timegate bad accept-datetime", path: "/timegate/" + held, hdr: []string{"Accept-Datetime", "2005-01-01"}, status: 400},
		{name: "memento", path: "/memento/2010/" + held, status: 302, header: map[string]string{"Location": f.a2.URIM(held, ts(t, "20100101000000"))}},
		{name: "memento bad datetime", path: "/memento/20x0/" + held, status: 400},
		{name: "api json", path: "/api/json/2005/" + held, status: 200, ctype: "application/json", contains: []string{`"closest"`}},
		{name: "api json none", path: "/api/json/2005/http://nothing.example.net/", status: 404},
		{name: "timemap json page", path: "/timemap/json/1/" + held, status: 200, ctype: "application/json", contains: []string{`"page": 1`, `"pages": 1`}},
		{name: "timemap index (DIY)", path: "/timemap/index/" + held, status: 200, ctype: "application/link-format", contains: []string{`title="memento_compliant:yes|archive_id:a1"`}},
		{name: "memento cdxj description", path: "/memento/cdxj/2010/" + held, status: 200, ctype: "application/cdxj+ors", contains: []string{`"rel": "closest memento"`}},
		{name: "memento json description", path: "/memento/json/2010/" + held, status: 200, ctype: "application/json", contains: []string{`"closest": {`}},
		{name: "memento link description", path: "/memento/link/2010/" + held, status: 200, ctype: "application/link-format", contains: []string{`rel="first memento"`}},
		{name: "about", path: "/about", status: 200, ctype: "text/plain", contains: []string{"## Upstream Archives", "Cache store:"}},
		{name: "archives json", path: "/archives", status: 200, ctype: "application/json", contains: []string{`"id": "a1"`}},
		{name: "archives xml", path: "/archives/xml", status: 200, ctype: "application/xml", contains: []string{`<link id="a1"`}},
		{name: "preflight", method: "OPTIONS", path: "/timegate/" + held, hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Headers", "accept-datetime"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "*"}},
		{name: "post timemap", method: "POST", path: "/timemap/link/" + held, status: 200, ctype: "application/link-format",
			contains: []string{f.a1.URIM(held, ts(t, "19990125093000"))}, header: map[string]string{"X-Memento-Count": "5"}},
		{name: "delete timemap", method: "DELETE", path: "/timemap/link/" + held, status: 405, header: map[string]string{"Allow": "GET, HEAD, POST, OPTIONS"}},
		{name: "monitor", path: "/monitor", status: 501, ctype: "text/plain", contains: []string{"/metrics"}},
		{name: "put page", method: "PUT", path: "/", status: 405, header: map[string]string{"Allow": "GET, HEAD"}},
		{name: "delete metrics", method: "DELETE", path: "/metrics", status: 405, header: map[string]string{"Allow": "GET, HEAD, OPTIONS", "Access-Control-Allow-Origin": "*"}},
		{name: "post healthz", method: "POST", path: "/healthz", status: 405, header: map[string]string{"Allow": "GET, HEAD, OPTIONS", "Access-Control-Allow-Origin": "*"}},
		{name: "preflight healthz", method: "OPTIONS", path: "/healthz", hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Method", "GET"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS", "Allow": "GET, HEAD, OPTIONS"}},
		{name: "preflight metrics", method: "OPTIONS", path: "/metrics", hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Method", "GET"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS"}},
		{name: "preflight about", method: "OPTIONS", path: "/about", hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Method", "GET"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS"}},
		{name: "preflight page", method: "OPTIONS", path: "/list/2005/" + held, hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Method", "GET"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Origin": "*"}},
		{name: "healthz is readable from any origin", path: "/healthz", hdr: []string{"Origin", "https://page.example"}, status: 200, header: map[string]string{"Access-Control-Allow-Origin": "*"}},
		{name: "head timemap", method: "HEAD", path: "/timemap/link/" + held, status: 200, header: map[string]string{"X-Memento-Count": "5"}},
		{name: "unknown path", path: "/favicon.ico", status: 404},
		{name: "preflight unknown path", method: "OPTIONS", path: "/favicon.ico", hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Method", "GET"}, status: 404,
			header: map[string]string{"Access-Control-Allow-Methods": ""}},
		{name: "preflight unknown api-like path", method: "OPTIONS", path: "/timemapx/link/" + held, status: 404, header: map[string]string{"Access-Control-Allow-Methods": ""}},
		{name: "preflight home", method: "OPTIONS", path: "/", hdr: []string{"Origin", "https://page.example", "Access-Control-Request-Method", "GET"}, status: 204,
			header: map[string]string{"Access-Control-Allow-Methods": "GET, HEAD, OPTIONS"}},
		{name: "preflight archives", method: "OPTIONS", path: "/archives?format=json", status: 204, header: map[string]string{"Access-Control-Allow-Methods": "GET, HEAD, POST, OPTIONS"}},
		{name: "healthz", path: "/healthz", status: 200, ctype: "application/json", contains: []string{`"status": "ok"`, `"mementomaps_loaded": 2`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.method
			if m == "" {
				m = "GET"
			}
			r := do(t, u, m, tc.path, tc.hdr...)
			if r.Status != tc.status {
				t.Fatalf("%s %s: status %d, want %d; body:\n%s", m, tc.path, r.Status, tc.status, r.Body)
			}
			if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, tc.ctype) {
				t.Errorf("Content-Type %q, want %q...", ct, tc.ctype)
			}
			for _, s := range tc.contains {
				if !strings.Contains(r.Body, s) {
					t.Errorf("body lacks %q:\n%s", s, r.Body)
				}
			}
			for k, v := range tc.header {
				if got := r.Header.Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}

	// only-if-cached: an unknown URI-R is a 504 without any archive asked.
	// Only requests for that URI-R count: the refresh worker may still be
	// working through jobs queued by the requests above.
	askedForNever := func() int {
		n := 0
		for _, a := range []*archivetest.Archive{f.a1, f.a2, f.a3} {
			for _, req := range a.Requests() {
				if strings.Contains(req.RawPath, "never.example.net") {
					n++
				}
			}
		}
		return n
	}
	if r := do(t, u, "GET", "/timemap/link/http://never.example.net/", "Cache-Control", "only-if-cached"); r.Status != http.StatusGatewayTimeout {
		t.Errorf("only-if-cached miss: status %d, want 504", r.Status)
	}
	if r := do(t, u, "GET", "/list/2005/http://never.example.net/", "Cache-Control", "only-if-cached"); r.Status != http.StatusGatewayTimeout {
		t.Errorf("only-if-cached miss on /list: status %d, want 504", r.Status)
	}
	if n := askedForNever(); n != 0 {
		t.Errorf("only-if-cached asked the archives %d times", n)
	}
	// Routing: a3's map says it holds nothing of example.com; it got no
	// TimeMap or TimeGate request, only the map's discovery.
	for _, ep := range []string{"timemap", "tmpage", "timegate"} {
		if n := f.a3.Count(ep); n != 0 {
			t.Errorf("a3 got %d %s requests despite its MementoMap", n, ep)
		}
	}
	// a2's map does not list nothing.example.net: only a1 was asked.
	for _, r := range f.a2.Requests() {
		if strings.Contains(r.RawPath, "nothing.example.net") {
			t.Errorf("a2 asked about %s despite its MementoMap", r.RawPath)
		}
	}

	// The refresh job queued by the /list and /api/json lookups is run by
	// the worker.
	waitFor(t, "a refresh job done", func() bool {
		v, _ := metric(do(t, u, "GET", "/metrics").Body, `mementokit_refresh_jobs_total{result="done"}`)
		return v >= 1
	})

	body := do(t, u, "GET", "/metrics").Body
	atLeast := map[string]float64{
		`mementokit_http_requests_total{code="200",endpoint="timemap"}`:                            5,
		`mementokit_http_requests_total{code="403",endpoint="timemap"}`:                            1,
		`mementokit_http_requests_total{code="403",endpoint="list"}`:                               1,
		`mementokit_http_requests_total{code="404",endpoint="timemap"}`:                            2,
		`mementokit_http_requests_total{code="405",endpoint="timemap"}`:                            1,
		`mementokit_http_requests_total{code="504",endpoint="timemap"}`:                            1,
		`mementokit_http_requests_total{code="302",endpoint="timegate"}`:                           1,
		`mementokit_http_requests_total{code="400",endpoint="timegate"}`:                           1,
		`mementokit_http_requests_total{code="303",endpoint="search"}`:                             1,
		`mementokit_http_request_duration_seconds_count{endpoint="timemap"}`:                       10,
		`mementokit_upstream_requests_total{archive="a1"}`:                                         3,
		`mementokit_upstream_requests_saved_total{archive="a3"}`:                                   4,
		`mementokit_upstream_requests_saved_total{archive="a2"}`:                                   2,
		`mementokit_upstream_answers_total{archive="a1",outcome="found"}`:                          2,
		`mementokit_upstream_answers_total{archive="a1",outcome="none"}`:                           1,
		`mementokit_upstream_duration_seconds_count{archive="a1",op="timemap",result="ok"}`:        1,
		`mementokit_upstream_duration_seconds_count{archive="a1",op="timegate",result="ok"}`:       1,
		`mementokit_upstream_duration_seconds_count{archive="a1",op="timemap",result="not_found"}`: 1,
		`mementokit_cache_lookups_total{result="fresh"}`:                                           2,
		`mementokit_cache_lookups_total{result="miss"}`:                                            2,
		`mementokit_refresh_jobs_total{result="done"}`:                                             1,
		`mementokit_mementomap_loaded_timestamp_seconds{archive="a3"}`:                             float64(time.Now().Add(-time.Hour).Unix()),
	}
	for series, min := range atLeast {
		v, ok := metric(body, series)
		if !ok {
			t.Errorf("/metrics lacks %s", series)
		} else if v < min {
			t.Errorf("%s = %v, want at least %v", series, v, min)
		}
	}
	exact := map[string]float64{
		`mementokit_upstream_requests_total{archive="a3"}`:             0,
		`mementokit_mementomap_loaded_timestamp_seconds{archive="a1"}`: 0,
		`mementokit_archive_dormant{archive="a1"}`:                     0,
		`mementokit_refresh_queue_depth`:                               0,
		`mementokit_http_requests_in_flight`:                           1, // this scrape
	}
	for series, want := range exact {
		if v, ok := metric(body, series); !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
	for _, s := range []string{"go_goroutines ", "process_cpu_seconds_total "} {
		if !strings.Contains(body, s) {
			t.Errorf("/metrics lacks the runtime series %q", s)
		}
	}

	// The access log has one structured record per request.
	var forbidden int
	for _, rec := range in.Stderr.records(t, "access") {
		for _, k := range []string{"method", "target", "endpoint", "status", "bytes", "duration", "remote"} {
			if _, ok := rec[k]; !ok {
				t.Fatalf("access log record lacks %q: %v", k, rec)
			}
		}
		if rec["status"] == float64(403) && rec["endpoint"] == "timemap" && rec["target"] == "/timemap/link/http://blocked.example/a" {
			forbidden++
		}
	}
	if forbidden != 1 {
		t.Errorf("access log has %d records of the blacklisted TimeMap request, want 1", forbidden)
	}
}

// TestUpstreamFailures checks 502 (every archive failed) and 504 (every
// archive timed out) through the binary.
func TestUpstreamFailures(t *testing.T) {
	for _, tc := range []struct {
		name     string
		fault    archivetest.Fault
		status   int
		failures string
	}{
		{"every archive answers 503", archivetest.FaultStatus, http.StatusBadGateway, "f1=status-503, f2=status-503"},
		{"every archive hangs", archivetest.FaultHang, http.StatusGatewayTimeout, "f1=timeout, f2=timeout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			f1 := newArchive(t, archivetest.Config{Fault: tc.fault})
			f2 := newArchive(t, archivetest.Config{Fault: tc.fault})
			in := start(t, "-archives", writeList(t, dir, entryOf("f1", f1), entryOf("f2", f2)), "-cache", "memory",
				"-data-dir", dir, "-request-timeout", "300ms", "-workers", "0", "-tolerance", "-1")
			for _, path := range []string{"/timemap/link/" + held, "/timegate/" + held, "/api/json/2005/" + held, "/memento/2005/" + held, "/list/2005/" + held} {
				r := do(t, in.URL, "GET", path)
				if r.Status != tc.status {
					t.Errorf("%s: status %d, want %d; body:\n%s", path, r.Status, tc.status, r.Body)
				}
				if got := r.Header.Get("Archive-Failures"); got != tc.failures {
					t.Errorf("%s: Archive-Failures %q, want %q", path, got, tc.failures)
				}
			}
			body := do(t, in.URL, "GET", "/metrics").Body
			if v, _ := metric(body, `mementokit_upstream_answers_total{archive="f1",outcome="failed"}`); v != 5 {
				t.Errorf("f1 failed %v times, want 5", v)
			}
		})
	}
}

// TestGracefulShutdown cancels run's context (what SIGTERM does) while a
// client request and a refresh job are running: both finish, run returns
// nil, and the listener is closed.
func TestGracefulShutdown(t *testing.T) {
	dir := t.TempDir()
	const second = "http://example.com/b"
	slow := newArchive(t, archivetest.Config{Latency: 600 * time.Millisecond, Holdings: map[string][]time.Time{
		held:   {ts(t, "20050301120000")},
		second: {ts(t, "20060301120000")},
	}})
	dbPath := filepath.Join(dir, "cache.db")
	in := start(t, "-archives", writeList(t, dir, entryOf("slow", slow)), "-cache", "bolt:"+dbPath,
		"-data-dir", dir, "-workers", "1", "-worker-idle", "10ms")

	// /api/json asks the TimeGate (600 ms) and queues a thorough refresh,
	// which the worker claims at once and runs (another 600 ms).
	if r := do(t, in.URL, "GET", "/api/json/2005/"+held); r.Status != http.StatusOK {
		t.Fatalf("api/json: status %d: %s", r.Status, r.Body)
	}
	waitFor(t, "the refresh job to run", func() bool {
		v, _ := metric(do(t, in.URL, "GET", "/metrics").Body, "mementokit_refresh_jobs_running")
		return v == 1
	})
	// A client request in flight at shutdown, for a URI-R nothing has
	// cached yet.
	var wg sync.WaitGroup
	var inflight response
	wg.Go(func() { inflight = do(t, in.URL, "GET", "/timegate/"+second) })
	waitFor(t, "the client request to be in flight", func() bool {
		v, _ := metric(do(t, in.URL, "GET", "/metrics").Body, "mementokit_http_requests_in_flight")
		return v >= 2 // the TimeGate request and this scrape
	})
	start := time.Now()
	if err := in.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	wg.Wait()
	if inflight.Status != http.StatusFound {
		t.Errorf("request in flight at shutdown: status %d, want 302; body:\n%s", inflight.Status, inflight.Body)
	}
	if d := time.Since(start); d > 8*time.Second { // the drain needs about 0.6 s; the timeout is 10 s
		t.Errorf("shutdown took %v", d)
	}
	host := strings.TrimPrefix(in.URL, "http://")
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still accepts connections after shutdown", host)
	}
	stopped := in.Stderr.records(t, "stopped")
	if len(stopped) != 1 {
		t.Fatalf("%d \"stopped\" log records, want 1:\n%s", len(stopped), in.Stderr)
	}
	got := map[string]any{"done": stopped[0]["refresh_jobs_done"], "failed": stopped[0]["refresh_jobs_failed"]}
	if d := cmp.Diff(map[string]any{"done": float64(1), "failed": float64(0)}, got); d != "" {
		t.Errorf("refresh jobs at shutdown (-want +got):\n%s", d)
	}
	// The drained job stored the archive's whole TimeMap in the bolt file.
	c, err := boltcache.Open(dbPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e, err := c.Get(t.Context(), cache.URIRKeyOf(held))
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != cache.StatusFound || len(e.Mementos) != 1 {
		t.Errorf("cached entry after shutdown: %v with %d mementos, want found with 1", e.Status, len(e.Mementos))
	}
}

// TestRecoversDeadWorkersJobs starts the server on a bolt file holding a
// job claimed two hours ago by a process that died: the start-up cleanup
// releases it and a worker runs it.
func TestRecoversDeadWorkersJobs(t *testing.T) {
	f := newFederation(t)
	db := filepath.Join(f.dir, "crashed.db")
	c, err := boltcache.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-2 * time.Hour)
	if err := c.Enqueue(t.Context(), held, cache.PriorityLive, then); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Claim(t.Context(), "dead/0", then); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	in := start(t, "-archives", f.list, "-cache", "bolt:"+db, "-data-dir", f.dir, "-workers", "1", "-worker-idle", "20ms")
	waitFor(t, "the released job to be run", func() bool {
		v, _ := metric(do(t, in.URL, "GET", "/metrics").Body, `mementokit_refresh_jobs_total{result="done"}`)
		return v == 1
	})
	if recs := in.Stderr.records(t, "cache cleanup"); len(recs) != 1 || recs[0]["jobs_released"] != float64(1) {
		t.Errorf("cleanup records %v, want one with jobs_released 1", recs)
	}
	r := do(t, in.URL, "GET", "/timemap/link/"+held, "Cache-Control", "only-if-cached")
	if r.Status != http.StatusOK || r.Header.Get("X-Memento-Count") != "5" {
		t.Errorf("after the refresh, only-if-cached: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
}

// TestMemoryCacheLeavesNothingOnDisk checks that -cache memory without
// -data-dir keeps fetched MementoMaps in a temporary folder that shutdown
// removes, and never creates the default data folder.
func TestMemoryCacheLeavesNothingOnDisk(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	f := newFederation(t)
	in := start(t, "-archives", f.list, "-cache", "memory", "-workers", "0")
	waitFor(t, "MementoMaps loaded", func() bool {
		var h struct {
			Archives struct {
				Loaded int `json:"mementomaps_loaded"`
			} `json:"archives"`
			Loading bool `json:"mementomaps_loading"`
		}
		r := do(t, in.URL, "GET", "/healthz")
		return json.Unmarshal([]byte(r.Body), &h) == nil && !h.Loading && h.Archives.Loaded == 2
	})
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Errorf("while running, TMPDIR holds %d entries, want the one temporary data folder", len(entries))
	}
	if err := in.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Errorf("after shutdown, TMPDIR still holds %v", entries)
	}
	if _, err := os.Stat(filepath.Join(home, "cache", "mementokit-aggregator")); !os.IsNotExist(err) {
		t.Errorf("the default data folder was created (stat error %v)", err)
	}
}

// TestMethodsLikeMemGator: MemGator answers every method on its paths as
// GET; here POST on each read-only endpoint of the API gets the answer of
// GET (status, Content-Type, X-Memento-Count, Location, body), other
// methods that ask for a change get 405 naming the allowed ones, and
// /monitor (MemGator's SSE stream, 501 when not enabled) is 501 for every
// method, pointing at /metrics.
func TestMethodsLikeMemGator(t *testing.T) {
	f := newFederation(t)
	in := startFederation(t, f)
	u := in.URL
	for _, path := range []string{
		"/timemap/link/" + held, "/timemap/json/" + held, "/timemap/cdxj/" + held,
		"/timemap/link/1/" + held, "/timemap/json/1/" + held, "/timemap/index/" + held, "/timemap/index/json/" + held,
		"/timegate/" + held, "/memento/2005/" + held, "/memento/link/2005/" + held, "/memento/json/2005/" + held,
		"/memento/cdxj/2005/" + held, "/api/json/2005/" + held, "/api/link/2005/" + held, "/api/cdxj/2005/" + held,
		"/api/proxy/2005/" + held, "/memento/proxy/2005/" + held, "/api/xml/2005/" + held, "/timemap/link/http://nothing.example.net/", "/timemap/link/abc/" + held,
		"/about", "/archives", "/archives/xml",
	} {
		do(t, u, "GET", path) // the first answer is searched, the next ones cached: compare two cached ones
		get := do(t, u, "GET", path)
		post := do(t, u, "POST", path)
		if get.Status == 0 || post.Status != get.Status || post.Body != get.Body {
			t.Errorf("POST %s: %d %q, GET: %d %q", path, post.Status, post.Body, get.Status, get.Body)
		}
		for _, h := range []string{"Content-Type", "X-Memento-Count", "Location", "Link"} {
			if post.Header.Get(h) != get.Header.Get(h) {
				t.Errorf("POST %s: %s %q, GET: %q", path, h, post.Header.Get(h), get.Header.Get(h))
			}
		}
		for _, m := range []string{"PUT", "DELETE", "PATCH", "PROPFIND"} {
			if r := do(t, u, m, path); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
				t.Errorf("%s %s: %d Allow %q, want 405 Allow GET, HEAD, POST, OPTIONS", m, path, r.Status, r.Header.Get("Allow"))
			}
		}
	}
	for _, m := range []string{"GET", "POST", "HEAD", "DELETE"} {
		for _, p := range []string{"/monitor", "/monitor/", "/monitor/events?x=1"} {
			r := do(t, u, m, p)
			if r.Status != http.StatusNotImplemented || m != "HEAD" && !strings.Contains(r.Body, "/metrics") {
				t.Errorf("%s %s: %d %q, want 501 naming /metrics", m, p, r.Status, r.Body)
			}
		}
	}
	if r := do(t, u, "GET", "/metrics"); !strings.Contains(r.Body, `endpoint="monitor"`) {
		t.Errorf("/metrics does not count /monitor under its own label")
	}
}
