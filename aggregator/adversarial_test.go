package aggregator

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/memento"
)

// A MementoMap file changed under the aggregator: replaced by a rename
// (the open map keeps the old file), or truncated in place, which made the
// next lookup touch an unmapped page (SIGBUS ended the process). A damaged
// map must fail its lookups, so that the archive is asked.
func TestMementoMapFileChangedWhileOpen(t *testing.T) {
	lines := map[string]string{}
	for k := range 20000 {
		lines[fmt.Sprintf("com,site%05d)/page", k)] = "3"
	}
	held, absent := "http://www.site19999.com/page", "http://www.nothing.com/page"
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
		// want: the decisions for held and absent after the change
		want    []Status
		damaged bool
	}{
		{"unchanged", func(*testing.T, string) {}, []Status{0, StatusSkippedByMap}, false},
		{"replaced-by-rename", func(t *testing.T, p string) {
			q := writeMap(t, filepath.Dir(p), "new.map", map[string]string{"com,other)/": "1"})
			if err := os.Rename(q, p); err != nil {
				t.Fatal(err)
			}
		}, []Status{0, StatusSkippedByMap}, false},
		{"truncated-to-zero", func(t *testing.T, p string) {
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}, []Status{0, 0}, true},
		{"rewritten-shorter-in-place", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\ncom,other)/ 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []Status{0, 0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeMap(t, t.TempDir(), "a.map", lines)
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://a/", Map: MapSource{File: p}}}, Upstream: newFake()})
			if err := ag.LoadMaps(t.Context()); err != nil {
				t.Fatal(err)
			}
			tc.change(t, p)
			var got []Status
			for _, u := range []string{held, absent} {
				got = append(got, ag.Route(TimeMapCache, u)[0].Status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decisions for %s, %s (-want +got):\n%s", held, absent, diff)
			}
			_, err := ag.byID["a"].profile.Load().lookup.Frequency(absent)
			if errors.Is(err, ErrMapDamaged) != tc.damaged {
				t.Errorf("Frequency error %v, want damaged=%v", err, tc.damaged)
			}
		})
	}
}

// URI-Rs over MaxURIRLen (1024 bytes, as the Time Travel service) are a
// 400 on every endpoint, and no archive is asked; 8 KiB ones were sent to
// every archive.
func TestLongURIR(t *testing.T) {
	a := newArchive(t, archivetest.Config{})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}})
	h := ag.Handler()
	at := func(n int) string { // an URI-R of exactly n bytes
		u := "http://example.com/"
		return u + strings.Repeat("a", n-len(u))
	}
	for _, tc := range []struct {
		name, target string
		want         int
	}{
		{"timemap-1024", "/timemap/link/" + at(1024), 404},
		{"timemap-1025", "/timemap/link/" + at(1025), 400},
		{"timegate-1025", "/timegate/" + at(1025), 400},
		{"memento-1025", "/memento/2010/" + at(1025), 400},
		{"no-scheme-1025-once-normalized", "/timemap/link/" + strings.TrimPrefix(at(1025), "http://"), 400},
		{"escaped-to-over-1024", "/timemap/link/" + at(1000) + strings.Repeat("é", 10), 400},
		{"timemap-8k", "/timemap/link/" + at(8<<10), 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.ResetLog()
			resp, body := do(t, h, "GET", tc.target)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %.200s", resp.StatusCode, tc.want, body)
			}
			if n := a.Count(""); tc.want == 400 && n != 0 {
				t.Errorf("%d upstream requests for a rejected URI-R", n)
			}
		})
	}
}

// An archive's TimeMap may list URI-Ms that the lenient reader accepts
// but that must not reach our answers as they are: '>' inside a target
// broke the link-format TimeMap we wrote, non-ASCII broke Location
// headers, and a "javascript:" URI-M became a link on the /list page and
// a redirect target. A target with a space, '"' or '<' is a bad body
// (memento.ErrTargetByte): its link is not listed.
func TestHostileURIMs(t *testing.T) {
	const dt = `; rel="memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT"`
	for _, tc := range []struct {
		name, target string
		want         string // the URI-M we list; "" for dropped
	}{
		{"gt-inside-target", `<http://arc/web/1/http://ex.com/a>b>`, "http://arc/web/1/http://ex.com/a%3Eb"},
		{"quote-and-space", `<http://arc/web/1/http://ex.com/a b">`, ""},
		{"non-ascii", `<http://arc/web/1/http://ex.com/é>`, "http://arc/web/1/http://ex.com/%C3%A9"},
		{"comma-semicolon-kept", `<http://arc/web/1/http://ex.com/a,b;c=d>`, "http://arc/web/1/http://ex.com/a,b;c=d"},
		{"escapes-kept", `<http://arc/web/1/http://ex.com/?q=%26>`, "http://arc/web/1/http://ex.com/?q=%26"},
		{"javascript-dropped", `<javascript:alert(1)>`, ""},
		{"data-dropped", `<data:text/html,<script>alert(1)</script>>`, ""},
		{"no-host-dropped", `<http://>`, ""},
		{"upper-case-scheme-kept", `<HTTPS://arc/web/1/x>`, "HTTPS://arc/web/1/x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/link-format")
				fmt.Fprint(w, "<http://ex.com/>; rel=\"original\",\n"+tc.target+dt+"\n")
			}))
			t.Cleanup(srv.Close)
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: srv.URL + "/tm/"}}})
			r, err := ag.Search(t.Context(), TimeMapCache, "http://ex.com/", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range r.Mementos {
				got = append(got, m.URIM)
			}
			var want []string
			if tc.want != "" {
				want = []string{tc.want}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("URI-Ms (-want +got):\n%s", diff)
			}
			if tc.want == "" {
				return
			}
			// Our own link-format TimeMap reads back strictly.
			resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://ex.com/")
			if resp.StatusCode != 200 {
				t.Fatalf("timemap: %d", resp.StatusCode)
			}
			tm, err := memento.ReadTimeMap(strings.NewReader(body), &memento.ParseOptions{Strict: true})
			if err != nil {
				t.Fatalf("our TimeMap does not parse strictly: %v\n%s", err, body)
			}
			if len(tm.Mementos) != 1 || tm.Mementos[0].URIM != tc.want {
				t.Errorf("our TimeMap lists %+v, want %q", tm.Mementos, tc.want)
			}
		})
	}
}

// When every archive fails, they fall dormant; a search that then asks
// no archive at all found "nothing" with no failure, so it was answered
// 404 and cached as "none" for NegativeFor, although no archive had been
// asked. Dormant archives make a result incomplete, and 502 when nothing
// else answered.
func TestAllArchivesDormantIsNotNone(t *testing.T) {
	hold := map[string][]time.Time{"http://example.com/": times(t, "20100101000000")}
	down1 := newArchive(t, archivetest.Config{Holdings: hold, Fault: archivetest.FaultStatus})
	down2 := newArchive(t, archivetest.Config{Holdings: hold, Fault: archivetest.FaultReset})
	ag := newAggregator(t, Options{Archives: []Archive{entry("d1", down1), entry("d2", down2)},
		Cache: newMemCache(t), Tolerance: 1, DormantFor: time.Hour})
	h := ag.Handler()
	for _, step := range []struct {
		name     string
		header   []string
		status   int
		failures string
		asked    bool
	}{
		{"all fail: 502", nil, 502, "d1=status-503, d2=reset", true},
		{"all dormant: 502, not asked", nil, 502, "d1=dormant, d2=dormant", false},
		{"nothing cached: only-if-cached misses", []string{"Cache-Control", "only-if-cached"}, 504, "", false},
		{"still 502 while dormant", nil, 502, "d1=dormant, d2=dormant", false},
	} {
		down1.ResetLog()
		down2.ResetLog()
		resp, body := do(t, h, "GET", "/timemap/link/http://example.com/", step.header...)
		if resp.StatusCode != step.status || resp.Header.Get("Archive-Failures") != step.failures {
			t.Errorf("%s: %d, Archive-Failures %q; want %d, %q (%s)", step.name, resp.StatusCode, resp.Header.Get("Archive-Failures"), step.status, step.failures, strings.TrimSpace(body))
		}
		if asked := down1.Count("")+down2.Count("") > 0; asked != step.asked {
			t.Errorf("%s: archives asked %v, want %v", step.name, asked, step.asked)
		}
	}
}

// An internationalized host is listed in one spelling and requested in the
// other (Unicode or punycode): it was not blocked, and the archives were
// asked about it.
func TestBlacklistIDNSpellings(t *testing.T) {
	bl, err := ParseBlacklist(strings.NewReader("xn--blcked-xxa.example\növerall.example\nplain.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	a := newArchive(t, archivetest.Config{})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Blacklist: bl})
	for _, tc := range []struct {
		name, urir string
		want       int
	}{
		{"listed-punycode-requested-unicode", "http://blöcked.example/", 403},
		{"listed-punycode-requested-upper-unicode", "http://BLÖCKED.example/", 403},
		{"listed-punycode-requested-punycode", "http://xn--blcked-xxa.example/", 403},
		{"listed-punycode-subdomain-unicode", "http://www.blöcked.example/", 403},
		{"listed-unicode-requested-unicode", "http://överall.example/", 403},
		{"listed-unicode-requested-punycode", "http://xn--verall-vxa.example/", 403},
		{"listed-unicode-requested-escaped", "http://%C3%B6verall.example/", 403},
		{"ascii-still-blocked", "http://PLAIN.example./", 403},
		{"other-unicode-host-allowed", "http://blücked.example/", 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, ag.Handler(), "GET", "/timemap/link/"+tc.urir)
			if resp.StatusCode != tc.want {
				t.Errorf("status %d, want %d: %s", resp.StatusCode, tc.want, strings.TrimSpace(body))
			}
		})
	}
	if n := a.Count(""); n != 1 {
		t.Errorf("archive asked %d times, want once (the allowed host)", n)
	}
}

// An archive that answers /.well-known/mementomap with 200 and a page
// that is not a map (a "soft 404", an empty body): the page was loaded as
// a map that says "absent" for every URI-R, so that the archive was never
// asked again. Such a map is refused and the archive keeps being asked.
func TestNotAMementoMapIsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Status // the routing decision for a URI-R the archive may hold
		refused    bool
	}{
		{"soft-404-html", "<!doctype html><html><body>Page not found</body></html>\n", 0, true},
		{"empty-body", "", 0, true},
		{"plain-text", "404 page not found\n", 0, true},
		{"headers-only", "!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\n", 0, true},
		{"cut-short", "!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\norg,other)/ 3\norg,zz)/ 1", 0, true},
		{"doubled-fields", "!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\n!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\norg,other)/ 3\n", 0, true},
		{"valid-map", "!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\norg,other)/ 3\n", StatusSkippedByMap, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: srv.URL + "/tm/", Map: MapSource{Discover: true}}}, MapDir: t.TempDir()})
			err := ag.LoadMaps(t.Context())
			if refused := errors.Is(err, ErrNotAMap); refused != tc.refused {
				t.Errorf("LoadMaps: %v, want refused=%v", err, tc.refused)
			}
			if got := ag.Route(TimeMapCache, "http://example.com/")[0].Status; got != tc.want {
				t.Errorf("decision %v, want %v", got, tc.want)
			}
		})
	}
}

// An archive whose map URL streams without end: the download was not
// bounded and filled MapDir for up to a minute.
func TestMapDownloadIsBounded(t *testing.T) {
	line := []byte("com,example)/ 3\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: srv.URL + "/tm/", Map: MapSource{URL: srv.URL + "/map"}}},
		MapDir: dir, MaxMapBytes: 1 << 20})
	err := ag.LoadMaps(t.Context())
	if !errors.Is(err, errTooLarge) {
		t.Errorf("LoadMaps: %v, want a too-large error", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("MapDir holds %d files after a refused download, want none", len(left))
	}
	if got := ag.Route(TimeMapCache, "http://example.com/")[0].Status; got != 0 {
		t.Errorf("decision %v, want the archive asked", got)
	}
}

// Held under attack (no defect found): 40 concurrent identical requests
// that all say Cache-Control: no-cache share one upstream fan-out, per
// endpoint family.
func TestNoCacheStormSharesOneFanOut(t *testing.T) {
	hold := map[string][]time.Time{"http://example.com/": times(t, "20100101000000")}
	a := newArchive(t, archivetest.Config{Holdings: hold, Latency: 100 * time.Millisecond})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Cache: newMemCache(t), NoCacheAfter: time.Nanosecond})
	h := ag.Handler()
	do(t, h, "GET", "/timemap/link/http://example.com/") // cached, then stale for no-cache
	for _, tc := range []struct{ name, path string }{
		{"timemap", "/timemap/link/http://example.com/"},
		{"timegate", "/timegate/http://example.com/"},
		{"memento", "/memento/2010/http://example.com/"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.ResetLog()
			var wg sync.WaitGroup
			for range 40 {
				wg.Go(func() {
					if resp, _ := do(t, h, "GET", tc.path, "Cache-Control", "no-cache"); resp.StatusCode >= 400 {
						t.Errorf("status %d", resp.StatusCode)
					}
				})
			}
			wg.Wait()
			if n := a.Count(""); n != 1 {
				t.Errorf("40 concurrent no-cache requests sent %d upstream requests, want 1", n)
			}
		})
	}
}

// Held (no defect found): clients that hang up while every archive hangs
// leave no goroutine behind once the archives' timeout has passed.
func TestClientDisconnectLeavesNoGoroutines(t *testing.T) {
	hang := newArchive(t, archivetest.Config{Fault: archivetest.FaultHang})
	e := entry("hang", hang)
	e.Timeout = 300 * time.Millisecond
	ag := newAggregator(t, Options{Archives: []Archive{e}})
	srv := httptest.NewServer(ag.Handler())
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{}}
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, "GET", fmt.Sprintf("%s/timemap/link/http://x%d.example/", srv.URL, i), nil)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
				t.Errorf("request %d answered %d before the client gave up", i, resp.StatusCode)
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	// The searches run to their archive timeout; then everything ends.
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before+2 {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines, %d before the requests:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// URI-Rs as real clients send them: a stray '%' in the path was a 400
// (only in the path: "?q=50%" passed), and "http:example.com" or a
// scheme-relative "//example.com/" were mangled into a 400.
func TestNormalizeURIRRealWorld(t *testing.T) {
	for _, tc := range []struct{ name, in, want, err string }{
		{"stray-percent-in-path", "http://example.com/100%.html", "http://example.com/100%25.html", ""},
		{"stray-percent-at-end", "example.com/100%", "http://example.com/100%25", ""},
		{"stray-percent-in-query", "http://example.com/?q=50%", "http://example.com/?q=50%25", ""},
		{"iis-unicode-escape", "http://example.com/%u00e9", "http://example.com/%25u00e9", ""},
		{"half-escape", "http://example.com/a%2", "http://example.com/a%252", ""},
		{"escapes-kept", "http://example.com/a%20b%2Fc%26d", "http://example.com/a%20b%2Fc%26d", ""},
		{"lower-hex-escape-kept", "http://example.com/%c3%a9", "http://example.com/%c3%a9", ""},
		{"no-slashes", "http:example.com/a", "http://example.com/a", ""},
		{"no-slashes-https", "HTTPS:example.com", "https://example.com", ""},
		{"scheme-relative", "//example.com/a", "http://example.com/a", ""},
		{"percent-in-host", "http://exa%mple.com/", "", "host"},
		{"empty-host-scheme-relative", "///a", "", "host"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeURIR(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("NormalizeURIR(%q) = %q, %v; want an error about %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("NormalizeURIR(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}
