package main

import (
	"testing"

	"github.com/mementokit/mementokit/internal/mysqltest"
)

// privateDatabase returns a private database on the test MySQL server
// (internal/mysqltest), dropped when the test ends.
func privateDatabase(t *testing.T) string { return mysqltest.Database(t, "mkserver_") }

// TestMySQLCache runs the server on a MySQL cache: a TimeMap found once is
// served from the database the second time, and a second server sharing the
// database serves it too.
func TestMySQLCache(t *testing.T) {
	dsn := privateDatabase(t)
	f := newFederation(t)
	args := []string{"-archives", f.list, "-cache", dsn, "-data-dir", f.dir, "-workers", "1"}
	one := start(t, args...)
	if r := do(t, one.URL, "GET", "/timemap/link/"+held); r.Status != 200 || r.Header.Get("X-Memento-Count") != "5" {
		t.Fatalf("first lookup: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	// The second server runs no refresh workers: a refresh job queued by
	// the first (its search found a failing archive) would read the entry
	// too, and the count below is of the request's read alone.
	two := start(t, append(args, "-cache", "mysql:"+dsn, "-workers", "0")...)
	r := do(t, two.URL, "GET", "/timemap/link/"+held, "Cache-Control", "only-if-cached")
	if r.Status != 200 || r.Header.Get("X-Memento-Count") != "5" {
		t.Errorf("second server, only-if-cached: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	if v, _ := metric(do(t, two.URL, "GET", "/metrics").Body, `mementokit_cache_lookups_total{result="fresh"}`); v != 1 {
		t.Errorf("second server: %v fresh cache hits, want 1", v)
	}
	if r := do(t, two.URL, "GET", "/healthz"); r.Status != 200 {
		t.Errorf("/healthz on MySQL: %d %s", r.Status, r.Body)
	}
}
