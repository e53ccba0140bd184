//go:build linux

package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/mysqltest"
)

// timedGet sends GET path with a client timeout; ok is false when no answer
// came in time.
func timedGet(t *testing.T, base, path string, timeout time.Duration) (resp response, elapsed time.Duration, ok bool) {
	t.Helper()
	c := &http.Client{Timeout: timeout, CheckRedirect: noRedirect.CheckRedirect}
	req, err := http.NewRequest(http.MethodGet, base+"/", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.URL.Opaque = path
	start := time.Now()
	r, err := c.Do(req)
	if err != nil {
		return response{}, time.Since(start), false
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return response{}, time.Since(start), false
	}
	return response{r.StatusCode, r.Header, string(b)}, time.Since(start), true
}

// With the MySQL cache frozen (SIGSTOP on a private mariadbd), /healthz
// answers 503 at once, lookups are answered by searching with
// Cache-Degraded, and the metrics count the degraded calls; after SIGCONT
// all is well again.
func TestStalledMySQLCache(t *testing.T) {
	srv := mysqltest.NewServer(t)
	dsn := srv.Database("mkserver_")
	f := newFederation(t)
	in := start(t, "-archives", f.list, "-cache", dsn, "-data-dir", f.dir, "-workers", "1", "-worker-idle", "50ms",
		"-cache-timeout", "500ms", "-dynamic-budget", "3s", "-request-timeout", "2s")
	if r := do(t, in.URL, "GET", "/timemap/link/"+held); r.Status != 200 {
		t.Fatalf("before the stall: %d %s", r.Status, r.Body)
	}
	srv.Stop()
	stopped := true
	defer func() {
		if stopped {
			srv.Cont()
		}
	}()
	r, d, ok := timedGet(t, in.URL, "/healthz", 5*time.Second)
	if !ok || r.Status != http.StatusServiceUnavailable || !strings.Contains(r.Body, "no answer within") {
		t.Errorf("/healthz with the cache frozen: ok=%v after %v, %d %s; want a 503 naming the cache's timeout at once", ok, d, r.Status, r.Body)
	}
	for _, p := range []string{"/timemap/link/" + held, "/timegate/" + held, "/timemap/json/" + other} {
		r, d, ok := timedGet(t, in.URL, p, 10*time.Second)
		if !ok || r.Status != 200 && r.Status != 302 || !strings.Contains(r.Header.Get("Cache-Degraded"), "timeout") {
			t.Errorf("%s with the cache frozen: ok=%v after %v, %d, Cache-Degraded %q", p, ok, d, r.Status, r.Header.Get("Cache-Degraded"))
		}
	}
	m, _, ok := timedGet(t, in.URL, "/metrics", 5*time.Second)
	if !ok {
		t.Fatal("/metrics does not answer with the cache frozen")
	}
	if v, _ := metric(m.Body, `mementokit_cache_degraded_requests_total`); v < 3 {
		t.Errorf("mementokit_cache_degraded_requests_total = %v, want at least 3", v)
	}
	if v, _ := metric(m.Body, `mementokit_cache_failures_total{op="record-request",reason="timeout"}`); v < 1 {
		t.Errorf(`mementokit_cache_failures_total{op="record-request",reason="timeout"} = %v, want at least 1`, v)
	}
	srv.Cont()
	stopped = false
	waitFor(t, "/healthz 200 after the database resumed", func() bool {
		r, _, ok := timedGet(t, in.URL, "/healthz", 5*time.Second)
		return ok && r.Status == 200
	})
}
