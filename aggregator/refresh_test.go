package aggregator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

func TestRunOneJobPriorityOrder(t *testing.T) {
	arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{"http://a.example/": times(t, "20100101000000")}})
	c := newMemCache(t)
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}, Cache: c})
	ctx := context.Background()
	now := time.Now()
	for i, p := range []cache.Priority{cache.PriorityRefresh, cache.PriorityRefresh, cache.PriorityLive, cache.PriorityLive} {
		if err := c.Enqueue(ctx, fmt.Sprintf("http://%d.example/", i), p, now.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	var order []string
	for {
		did, err := ag.RunOneJob(ctx, "w")
		if err != nil {
			t.Fatal(err)
		}
		if !did {
			break
		}
		reqs := arc.Requests()
		order = append(order, reqs[len(reqs)-1].RawPath)
	}
	want := []string{"/timemap/link/http://2.example/", "/timemap/link/http://3.example/", "/timemap/link/http://0.example/", "/timemap/link/http://1.example/"}
	if d := cmp.Diff(want, order); d != "" {
		t.Errorf("live jobs first (-want +got):\n%s", d)
	}
	e, err := c.Get(ctx, cache.URIRKeyOf("http://0.example/"))
	if err != nil || e.Status != cache.StatusNone {
		t.Errorf("refreshed none: %v %+v", err, e.Info)
	}
}

// runWorkersUntilDrained runs RunWorkers on each aggregator until every
// urir has a searched entry, then stops them and waits.
func runWorkersUntilDrained(t *testing.T, c cache.Cache, ags []*Aggregator, urirs []string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, ag := range ags {
		wg.Go(func() {
			if err := ag.RunWorkers(ctx, &WorkerOptions{Workers: 3, Name: fmt.Sprintf("node%d", i), Idle: 20 * time.Millisecond}); err != nil {
				t.Error(err)
			}
		})
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, u := range urirs {
		for {
			e, err := c.Get(context.Background(), cache.URIRKeyOf(u))
			if err == nil && e.Status != cache.StatusPending {
				break
			}
			if time.Now().After(deadline) {
				cancel()
				wg.Wait()
				t.Fatalf("%s not refreshed in time (%v, %+v)", u, err, e.Info)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	wg.Wait()
}

// sharedQueueTest: two aggregators (two nodes) share one cache; every job
// is done once.
func sharedQueueTest(t *testing.T, c1, c2 cache.Cache) {
	held := map[string][]time.Time{}
	var urirs []string
	for i := range 30 {
		u := fmt.Sprintf("http://site%d.example/page", i)
		urirs = append(urirs, u)
		if i%3 != 0 {
			held[u] = times(t, "20100101000000", "20200101000000")
		}
	}
	arc := newArchive(t, archivetest.Config{Holdings: held, Latency: 5 * time.Millisecond})
	o := Options{Archives: []Archive{entry("a", arc)}}
	o.Cache = c1
	ag1 := newAggregator(t, o)
	o.Cache = c2
	ag2 := newAggregator(t, o)
	ctx := context.Background()
	for i, u := range urirs {
		p := cache.PriorityRefresh
		if i%2 == 0 {
			p = cache.PriorityLive
		}
		if err := c1.Enqueue(ctx, u, p, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	runWorkersUntilDrained(t, c1, []*Aggregator{ag1, ag2}, urirs)
	seen := map[string]int{}
	for _, r := range arc.Requests() {
		seen[r.RawPath]++
	}
	for i, u := range urirs {
		if n := seen["/timemap/link/"+u]; n != 1 {
			t.Errorf("%s fetched %d times, want 1", u, n)
		}
		e, err := c2.Get(ctx, cache.URIRKeyOf(u))
		want := cache.StatusFound
		if i%3 == 0 {
			want = cache.StatusNone
		}
		if err != nil || e.Status != want {
			t.Errorf("%s: %v, status %v, want %v", u, err, e.Status, want)
		}
	}
	// The stale scanner queues old entries again.
	n, err := ag1.ScanStale(ctx, -time.Hour, 100)
	if err != nil || n != len(urirs) {
		t.Errorf("ScanStale: %d, %v; want %d", n, err, len(urirs))
	}
}

func TestWorkersShareMemoryCache(t *testing.T) {
	c := newMemCache(t)
	sharedQueueTest(t, c, c)
}

func TestRefreshNeverCachesFailureAsNone(t *testing.T) {
	arc := newArchive(t, archivetest.Config{Fault: archivetest.FaultStatus})
	c := newMemCache(t)
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}, Cache: c})
	res, err := ag.Refresh(context.Background(), "http://x.example/")
	if err != nil || !res.AllFailed() {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := c.Get(context.Background(), cache.URIRKeyOf("http://x.example/")); err == nil {
		t.Error("a failed refresh created an entry")
	}
	if _, err := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}}).Refresh(context.Background(), "http://x/"); err != ErrNoCache {
		t.Errorf("no cache: %v", err)
	}
}
