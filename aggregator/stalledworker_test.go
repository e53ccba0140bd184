package aggregator

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/memento"
)

// stallingCache is a memory cache whose chosen operations never return
// until release is closed, whatever their context says.
type stallingCache struct {
	cache.Cache
	mu      sync.Mutex
	stall   map[string]bool
	release chan struct{}
}

func (c *stallingCache) set(ops ...string) {
	c.mu.Lock()
	c.stall = map[string]bool{}
	for _, op := range ops {
		c.stall[op] = true
	}
	c.mu.Unlock()
}

func (c *stallingCache) wait(op string) {
	c.mu.Lock()
	s := c.stall[op]
	c.mu.Unlock()
	if s {
		<-c.release
	}
}

func (c *stallingCache) Put(ctx context.Context, u string, r cache.Result) error {
	c.wait("put")
	return c.Cache.Put(ctx, u, r)
}

func (c *stallingCache) Claim(ctx context.Context, w string, at time.Time) (cache.Job, error) {
	c.wait("claim")
	return c.Cache.Claim(ctx, w, at)
}

func (c *stallingCache) Complete(ctx context.Context, j cache.Job, at time.Time) error {
	c.wait("complete")
	return c.Cache.Complete(ctx, j, at)
}

func (c *stallingCache) Stale(ctx context.Context, before time.Time, limit int) ([]cache.Info, error) {
	c.wait("stale")
	return c.Cache.Stale(ctx, before, limit)
}

func (c *stallingCache) Enqueue(ctx context.Context, u string, p cache.Priority, at time.Time) error {
	c.wait("enqueue")
	return c.Cache.Enqueue(ctx, u, p, at)
}

// A store that stops answering (and ignores its deadlines) cannot hang a
// refresh worker or the stale scan: each of their cache calls gives up at
// BackgroundCacheTimeout, is counted, and the worker goes on; RunWorkers
// returns when its context ends even while the store still hangs.
func TestStalledCacheDoesNotHangWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem, err := memorycache.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		sc := &stallingCache{Cache: mem, release: make(chan struct{})}
		f := newFake()
		f.holdings["a"] = map[string][]memento.Memento{"http://a.example/": {{URIM: "http://a/1", Datetime: time.Unix(1e9, 0).UTC()}}}
		ag, err := New(&Options{Archives: []Archive{{ID: "a", TimeMap: "http://a.example/tm/"}}, Upstream: f, Cache: sc})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		defer close(sc.release)
		bound := BackgroundCacheTimeout + time.Second
		for _, tc := range []struct {
			name   string
			stall  []string
			run    func() error
			bounds int // cache deadlines the run may take
			op     string
		}{
			{"claim", []string{"claim"}, func() error { _, err := ag.RunOneJob(t.Context(), "w"); return err }, 1, "claim"},
			{"put and complete", []string{"put", "complete"}, func() error { _, err := ag.RunOneJob(t.Context(), "w"); return err }, 2, "put"},
			{"stale", []string{"stale"}, func() error { _, err := ag.ScanStale(t.Context(), 0, 10); return err }, 1, "stale"},
			{"enqueue", []string{"enqueue"}, func() error { _, err := ag.ScanStale(t.Context(), -time.Hour, 10); return err }, 1, "enqueue"},
		} {
			sc.set()
			if err := mem.Enqueue(t.Context(), "http://a.example/", cache.PriorityLive, time.Now()); err != nil {
				t.Fatal(err)
			}
			if err := mem.Put(t.Context(), "http://a.example/", cache.Result{Status: cache.StatusNone, Updated: time.Now().Add(-time.Hour).UTC()}); err != nil {
				t.Fatal(err)
			}
			sc.set(tc.stall...)
			start := time.Now()
			err := tc.run()
			if d := time.Since(start); d > time.Duration(tc.bounds)*bound {
				t.Errorf("%s: the call took %v with the store stalled, more than %d cache deadlines", tc.name, d, tc.bounds)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: err = %v, want a deadline error", tc.name, err)
			}
			found := false
			for _, cf := range ag.CacheFailures() {
				if cf.Op == tc.op && cf.Reason == CacheReasonTimeout {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no %s=timeout in CacheFailures %v", tc.name, tc.op, ag.CacheFailures())
			}
		}
		// Workers: every call stalls; cancelling the context stops them
		// at once.
		sc.set("claim", "put", "complete", "stale", "enqueue")
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- ag.RunWorkers(ctx, &WorkerOptions{Workers: 2, Idle: time.Second}) }()
		time.Sleep(3 * BackgroundCacheTimeout)
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(time.Second):
			t.Fatal("RunWorkers did not return after its context ended while the store hangs")
		}
	})
}
