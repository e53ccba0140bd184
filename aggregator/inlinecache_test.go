package aggregator

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/memento"
)

// panickyMemory is a memorycache.Cache (cache.Nonblocking) whose Get
// panics, and RecordRequestGet (cache.RequestGetter), which reads as Get
// does, too.
type panickyMemory struct{ *memorycache.Cache }

func (panickyMemory) Get(context.Context, cache.URIRKey) (cache.Entry, error) { panic("store bug") }

func (panickyMemory) RecordRequestGet(context.Context, string, time.Time) (cache.Entry, error) {
	panic("store bug")
}

// TestNonblockingCacheInline: a cache.Nonblocking store is called in the
// request's goroutine (it answers with every guard slot taken), and a panic in it is a
// cache failure like any other: the request is answered by searching and
// says so in Cache-Degraded.
func TestNonblockingCacheInline(t *testing.T) {
	m, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	f := newFake()
	f.holdings["a"] = map[string][]memento.Memento{"http://example.com/": {{URIM: "http://a.example/web/20050301120000/http://example.com/", Datetime: time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)}}}
	archives := []Archive{{ID: "a", TimeMap: "http://a.example/timemap/link/"}}

	ag := newAggregator(t, Options{Archives: archives, Upstream: f, Cache: m})
	if !ag.inlineCache {
		t.Fatal("memorycache.Cache is not called inline")
	}
	// Every guard slot taken: a guarded call would answer "busy".
	for range cap(ag.cacheSlots) {
		ag.cacheSlots <- struct{}{}
	}
	for range 2 {
		if resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://example.com/"); resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		} else if d := resp.Header.Get("Cache-Degraded"); d != "" {
			t.Errorf("Cache-Degraded %q with every guard slot taken: the store was not called inline", d)
		}
	}
	if n := f.count("a"); n != 1 {
		t.Errorf("archive asked %d times, want 1 (the second answer from the inline cache)", n)
	}

	bad := newAggregator(t, Options{Archives: archives, Upstream: f, Cache: panickyMemory{m}})
	resp, body := do(t, bad.Handler(), "GET", "/timemap/link/http://example.com/")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Degraded") != "get=error" {
		t.Errorf("panicking Get: %d, Cache-Degraded %q (%s); want 200 and get=error", resp.StatusCode, resp.Header.Get("Cache-Degraded"), body)
	}
}
