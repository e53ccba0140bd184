package cachetest_test

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/cachetest"
	"github.com/mementokit/mementokit/cache/memorycache"
)

// flawed wraps the in-memory store and breaks one thing, named by defect.
type flawed struct {
	cache.Cache
	defect string
	mu     sync.Mutex
	n      int
	last   *cache.Job
}

func (f *flawed) Get(ctx context.Context, k cache.URIRKey) (cache.Entry, error) {
	e, err := f.Cache.Get(ctx, k)
	switch f.defect {
	case "drops_last_memento":
		if len(e.Mementos) > 1 {
			e.Mementos = e.Mementos[:len(e.Mementos)-1]
		}
	case "local_time":
		e.Updated = e.Updated.In(time.FixedZone("X", 0))
	}
	return e, err
}

func (f *flawed) RecordRequest(ctx context.Context, u string, at time.Time) error {
	f.mu.Lock()
	f.n++
	drop := f.defect == "loses_requests" && f.n%10 == 0
	f.mu.Unlock()
	if drop {
		return nil
	}
	return f.Cache.RecordRequest(ctx, u, at)
}

func (f *flawed) Claim(ctx context.Context, w string, at time.Time) (cache.Job, error) {
	if f.defect == "claims_twice" {
		f.mu.Lock()
		if f.last != nil {
			j := *f.last
			f.last = nil
			f.mu.Unlock()
			return j, nil
		}
		f.mu.Unlock()
	}
	j, err := f.Cache.Claim(ctx, w, at)
	if err == nil && f.defect == "claims_twice" {
		f.mu.Lock()
		f.last = &j
		f.mu.Unlock()
	}
	return j, err
}

func (f *flawed) Stale(ctx context.Context, before time.Time, limit int) ([]cache.Info, error) {
	infos, err := f.Cache.Stale(ctx, before, limit)
	if f.defect == "stale_unsorted" {
		slices.Reverse(infos)
	}
	return infos, err
}

func (f *flawed) Put(ctx context.Context, u string, r cache.Result) error {
	if f.defect == "ignores_context" {
		ctx = context.Background()
	}
	return f.Cache.Put(ctx, u, r)
}

// TestFlawed runs the suite on the store broken as CACHETEST_DEFECT says;
// TestSuiteCatchesDefects runs it in a child process and expects failures.
func TestFlawed(t *testing.T) {
	defect := os.Getenv("CACHETEST_DEFECT")
	if defect == "" {
		t.Skip("run by TestSuiteCatchesDefects")
	}
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		m, err := memorycache.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: &flawed{Cache: m, defect: defect}}
	})
}

// TestSuiteCatchesDefects checks that the suite is not a rubber stamp: each
// defect must make the named subtest fail.
func TestSuiteCatchesDefects(t *testing.T) {
	cases := []struct{ defect, failing string }{
		{"drops_last_memento", "RoundTrip"},
		{"local_time", "RoundTrip"},
		{"loses_requests", "ConcurrentRequests"},
		{"claims_twice", "ConcurrentClaim"},
		{"stale_unsorted", "Stale"},
		{"ignores_context", "Canceled"},
	}
	for _, tc := range cases {
		t.Run(tc.defect, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestFlawed$", "-test.count=1")
			cmd.Env = append(os.Environ(), "CACHETEST_DEFECT="+tc.defect)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed a store that has defect %s", tc.defect)
			}
			if !strings.Contains(string(out), "--- FAIL: TestFlawed/"+tc.failing) {
				t.Errorf("defect %s: subtest %s did not fail; output:\n%s", tc.defect, tc.failing, out)
			}
		})
	}
}

// The suite passes the unbroken store, so the failures above are the defects'.
func TestMemoryPasses(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		m, err := memorycache.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: &flawed{Cache: m}}
	})
}
