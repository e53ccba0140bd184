package main

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// The server's archives cannot steer it to another host: a TimeMap that
// redirects to a listener no archive names is refused, the listener is
// never reached, and the refusal is counted per archive.
func TestServerRefusesHostsOutsideTheArchiveList(t *testing.T) {
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer canary.Close()
	steer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, canary.URL+"/internal/admin", http.StatusFound)
	}))
	defer steer.Close()
	dir := t.TempDir()
	list := writeList(t, dir, listEntry{ID: "steer", Name: "Steering", TimeMap: steer.URL + "/timemap/link/", TimeGate: steer.URL + "/timegate/"})
	in := start(t, "-archives", list, "-cache", "memory", "-workers", "0")
	for _, p := range []string{"/timemap/link/http://r.example/", "/timegate/http://r.example/"} {
		if r := do(t, in.URL, "GET", p); r.Status != http.StatusBadGateway || r.Header.Get("Archive-Failures") != "steer=host-not-allowed" {
			t.Errorf("%s: %d, Archive-Failures %q; want 502 and steer=host-not-allowed", p, r.Status, r.Header.Get("Archive-Failures"))
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the listener outside the archive list was contacted %d times", n)
	}
	if v, _ := metric(do(t, in.URL, "GET", "/metrics").Body, `mementokit_upstream_refused_total{archive="steer"}`); v != 2 {
		t.Errorf("mementokit_upstream_refused_total = %v, want 2", v)
	}
}
