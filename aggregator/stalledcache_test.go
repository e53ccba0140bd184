//go:build linux

package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/mysqltest"
)

// A MySQL cache that stops answering (the server frozen with SIGSTOP, as
// a database that hangs) must not hang requests: each one degrades to
// searching within its cache deadline, says so in Cache-Degraded, and the
// cache is used again once the server is back. The server is a private
// mariadbd (never the shared one).
func TestStalledMySQLCacheDegradesToSearching(t *testing.T) {
	srv := mysqltest.NewServer(t)
	octx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mysqlcache.Open(octx, srv.Database("mkagg_"), &mysqlcache.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://cached.example/": times(t, "20010101000000", "20020101000000"),
		"http://fresh.example/":  times(t, "20030101000000"),
	}})
	const cacheTimeout, budget = 500 * time.Millisecond, 2 * time.Second
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Cache: c,
		CacheTimeout: cacheTimeout, DynamicBudget: budget, RequestTimeout: time.Second})
	h := ag.Handler()
	if resp, body := do(t, h, http.MethodGet, "/timemap/link/http://cached.example/"); resp.StatusCode != http.StatusOK {
		t.Fatalf("before the stall: %d\n%s", resp.StatusCode, body)
	}

	srv.Stop()
	stopped := true
	defer func() {
		if stopped {
			srv.Cont()
		}
	}()
	// The bound: one cache deadline for the reads, the search budget, one
	// for the writes, plus slack for a loaded machine.
	bound := budget + 2*cacheTimeout + 3*time.Second
	for _, target := range []string{
		"/timemap/link/http://cached.example/", "/timemap/link/http://fresh.example/",
		"/timegate/http://cached.example/", "/api/json/2002/http://fresh.example/",
	} {
		type result struct {
			resp *http.Response
			body string
		}
		done := make(chan result, 1)
		start := time.Now()
		go func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
			done <- result{rec.Result(), rec.Body.String()}
		}()
		select {
		case r := <-done:
			d := time.Since(start)
			if r.resp.StatusCode != http.StatusOK && r.resp.StatusCode != http.StatusFound {
				t.Errorf("%s with the cache stalled: %d after %v\n%s", target, r.resp.StatusCode, d, r.body)
			}
			if deg := r.resp.Header.Get("Cache-Degraded"); !strings.Contains(deg, "timeout") {
				t.Errorf("%s: Cache-Degraded %q, want the cache's timeout reported", target, deg)
			}
			t.Logf("%s: %d in %v, Cache-Degraded: %s", target, r.resp.StatusCode, d.Round(time.Millisecond), r.resp.Header.Get("Cache-Degraded"))
		case <-time.After(bound):
			t.Fatalf("%s: no answer within %v with the cache stalled", target, bound)
		}
	}
	if n := ag.CacheDegraded(); n == 0 {
		t.Errorf("CacheDegraded() = 0 after requests that degraded")
	}

	srv.Cont()
	stopped = false
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, _ := do(t, h, http.MethodGet, "/timemap/link/http://cached.example/")
		if resp.Header.Get("Cache-Degraded") == "" && resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cache is not used again 20 s after the server resumed (Cache-Degraded %q)", resp.Header.Get("Cache-Degraded"))
		}
		time.Sleep(200 * time.Millisecond)
	}
}
