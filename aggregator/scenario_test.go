package aggregator

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/memento"
)

type step struct {
	name     string
	wait     time.Duration
	family   Family
	urir     string
	cc       CacheControl
	status   int
	scenario string
	source   Source
	calls    int // upstream calls made by this step (all archives)
}

func runSteps(t *testing.T, ag *Aggregator, f *fakeUpstream, steps []step) {
	t.Helper()
	total := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		n := 0
		for _, c := range f.calls {
			n += c
		}
		return n
	}
	for _, s := range steps {
		time.Sleep(s.wait)
		before := total()
		fam := s.family
		if fam == 0 {
			fam = FamilyTimeMap
		}
		a, err := ag.Lookup(context.Background(), fam, s.urir, time.Time{}, s.cc)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		got := []any{a.Status, a.Scenario, a.Source, total() - before}
		want := []any{s.status, s.scenario, s.source, s.calls}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%s: [status scenario source calls] (-want +got):\n%s", s.name, d)
		}
	}
}

// The Time Travel scenarios and AGG-06, over the in-memory cache.
func TestCacheScenarios(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := []memento.Memento{{URIM: "http://a/2001/x", Datetime: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)}}
		f.holdings["a"] = map[string][]memento.Memento{"http://found.example/": m, "http://partial.example/": m}
		c := newMemCache(t)
		ag, err := New(&Options{Archives: []Archive{{ID: "a", TimeMap: "http://a/", TimeGate: "http://a/tg/"}, {ID: "b", TimeMap: "http://b/", TimeGate: "http://b/tg/"}},
			Upstream: f, Cache: c, Tolerance: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		day := 24 * time.Hour
		runSteps(t, ag, f, []step{
			{name: "unknown: searched", urir: "http://found.example/", status: 200, scenario: "unknown", source: FromSearch, calls: 2},
			{name: "fresh: from cache", urir: "http://found.example/", status: 200, scenario: "fresh", source: FromCache},
			{name: "https is the same entry", urir: "https://found.example/", status: 200, scenario: "fresh", source: FromCache},
			{name: "no-cache within 10 min: cache wins", wait: 5 * time.Minute, urir: "http://found.example/", cc: CacheControl{NoCache: true}, status: 200, scenario: "fresh", source: FromCache},
			{name: "no-cache after 10 min: searched", wait: 6 * time.Minute, urir: "http://found.example/", cc: CacheControl{NoCache: true}, status: 200, scenario: "no-cache", source: FromSearch, calls: 2},
			{name: "fresh for 30 days", wait: 29 * day, urir: "http://found.example/", status: 200, scenario: "fresh", source: FromCache},
			{name: "stale after 30 days: searched", wait: 2 * day, urir: "http://found.example/", status: 200, scenario: "stale", source: FromSearch, calls: 2},
			{name: "only-if-cached, cached", urir: "http://found.example/", cc: CacheControl{OnlyIfCached: true}, status: 200, scenario: "only-if-cached", source: FromCache},

			{name: "none: searched, 404", urir: "http://none.example/", status: 404, scenario: "unknown", source: FromSearch, calls: 2},
			{name: "none within 10 min: 404 from cache", wait: 9 * time.Minute, urir: "http://none.example/", status: 404, scenario: "negative", source: FromCache},
			{name: "only-if-cached, none: 404", urir: "http://none.example/", cc: CacheControl{OnlyIfCached: true}, status: 404, scenario: "only-if-cached", source: FromCache},
			{name: "none after 10 min: searched again", wait: 2 * time.Minute, urir: "http://none.example/", status: 404, scenario: "negative", source: FromSearch, calls: 2},
			{name: "only-if-cached, unknown: 504", urir: "http://never.example/", cc: CacheControl{OnlyIfCached: true}, status: 504, scenario: "only-if-cached"},
		})
		// A failure is never cached as "none": b fails, a has nothing.
		f.mu.Lock()
		f.fail["b"] = true
		f.mu.Unlock()
		runSteps(t, ag, f, []step{
			{name: "half failed, nothing found: 404", urir: "http://down.example/", status: 404, scenario: "unknown", source: FromSearch, calls: 2},
			{name: "not cached as none: searched again", urir: "http://down.example/", status: 404, scenario: "unknown", source: FromSearch, calls: 2},
			{name: "found with a failure: 200", urir: "http://partial.example/", status: 200, scenario: "unknown", source: FromSearch, calls: 2},
			{name: "partial result not served as fresh", urir: "http://partial.example/", status: 200, scenario: "stale", source: FromSearch, calls: 2},
		})
		f.mu.Lock()
		f.fail["a"] = true
		f.mu.Unlock()
		runSteps(t, ag, f, []step{
			{name: "all failed: 502", urir: "http://allfail.example/", status: 502, scenario: "unknown", source: FromSearch, calls: 2},
			{name: "502 not cached", urir: "http://allfail.example/", status: 502, scenario: "unknown", source: FromSearch, calls: 2},
		})
		e, err := c.Get(context.Background(), cache.URIRKeyOf("http://down.example/"))
		if err != nil || e.Status != cache.StatusPending {
			t.Errorf("down.example entry: %v, %+v; want only a pending request record", err, e.Info)
		}
		// Stale with every archive down: the stale mementos are served.
		time.Sleep(31 * day)
		a, err := ag.Lookup(context.Background(), FamilyTimeMap, "http://found.example/", time.Time{}, CacheControl{})
		if err != nil || a.Status != 200 || a.Source != FromCache || a.Failures != "a=reset, b=reset" {
			t.Errorf("stale and down: %+v, %v", a, err)
		}
	})
}

// TimeGate requests search TimeGates (a partial view): they are answered
// and queued for a thorough refresh, live before stale.
func TestTimeGateScenarioQueues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		m := []memento.Memento{{URIM: "http://a/2001/x", Datetime: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)}}
		f.holdings["a"] = map[string][]memento.Memento{"http://old.example/": m, "http://new.example/": m}
		c := newMemCache(t)
		ag, err := New(&Options{Archives: []Archive{{ID: "a", TimeMap: "http://a/", TimeGate: "http://a/tg/"}}, Upstream: f, Cache: c})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		ctx := context.Background()
		// old.example: refreshed 40 days ago.
		if _, err := ag.Refresh(ctx, "http://old.example/"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(40 * 24 * time.Hour)
		a1, err := ag.Lookup(ctx, FamilyTimeGate, "http://old.example/", time.Time{}, CacheControl{})
		if err != nil || a1.Status != 200 || a1.Scenario != "stale" || !a1.Queued {
			t.Fatalf("stale: %+v %v", a1, err)
		}
		time.Sleep(time.Second)
		a2, err := ag.Lookup(ctx, FamilyTimeGate, "http://new.example/", time.Time{}, CacheControl{})
		if err != nil || a2.Status != 200 || a2.Scenario != "unknown" || !a2.Queued {
			t.Fatalf("unknown: %+v %v", a2, err)
		}
		// The live job (new.example, queued later) is claimed first.
		var order []string
		for {
			j, err := c.Claim(ctx, "w", time.Now())
			if err != nil {
				break
			}
			order = append(order, j.URIR)
		}
		if d := cmp.Diff([]string{"http://new.example/", "http://old.example/"}, order); d != "" {
			t.Errorf("claim order (-want +got):\n%s", d)
		}
	})
}

func TestParseCacheControl(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want CacheControl
	}{
		{nil, CacheControl{}},
		{[]string{"no-cache"}, CacheControl{NoCache: true}},
		{[]string{"max-age=0, No-Cache"}, CacheControl{NoCache: true}},
		{[]string{"only-if-cached"}, CacheControl{OnlyIfCached: true}},
		{[]string{"no-store", "only-if-cached , no-cache"}, CacheControl{NoCache: true, OnlyIfCached: true}},
		{[]string{"no-cache=\"set-cookie\""}, CacheControl{NoCache: true}},
	} {
		if got := ParseCacheControl(tc.in); got != tc.want {
			t.Errorf("ParseCacheControl(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// AGG-06 through the HTTP API with real archives: 200 and 404 are served
// from the cache on repeat; 400 and 502 are never cached; a result missing
// a timed-out archive is not served as fresh; no-cache within 10 minutes
// is answered from the cache (the Time Travel rule, see the package doc).
func TestAGG06Sequence(t *testing.T) {
	for _, store := range []struct {
		name string
		open func(t *testing.T) cache.Cache
	}{
		{"memory", func(t *testing.T) cache.Cache { return newMemCache(t) }},
		{"bolt", func(t *testing.T) cache.Cache {
			c, err := boltcache.Open(filepath.Join(t.TempDir(), "cache.db"), nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = c.Close() })
			return c
		}},
		{"mysql", func(t *testing.T) cache.Cache { return openMySQL(t, mysqlDSN(t)) }},
	} {
		t.Run(store.name, func(t *testing.T) { agg06(t, store.open(t)) })
	}
}

func agg06(t *testing.T, c cache.Cache) {
	urir := "http://example.com/"
	good := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20100101000000"), "http://partial.example/": times(t, "20100101000000")}})
	flaky := newArchive(t, archivetest.Config{})
	fl := entry("flaky", flaky)
	fl.Timeout = 500 * time.Millisecond // only the hanging archive times out
	ag := newAggregator(t, Options{Archives: []Archive{entry("good", good), fl}, Cache: c, RequestTimeout: 20 * time.Second, Tolerance: -1})
	h := ag.Handler()
	upstream := func() int { return good.Count("") + flaky.Count("") }
	for _, s := range []struct {
		name   string
		setup  func()
		target string
		header []string
		status int
		asked  bool
	}{
		{"200", nil, "/timemap/link/" + urir, nil, 200, true},
		{"200 again: cache", nil, "/timemap/link/" + urir, nil, 200, false},
		{"404", nil, "/timemap/link/http://none.example/", nil, 404, true},
		{"404 again: cache", nil, "/timemap/link/http://none.example/", nil, 404, false},
		{"400 bad datetime", nil, "/memento/20051/" + urir, nil, 400, false},
		{"502 all failed", func() { good.SetFault(archivetest.FaultStatus); flaky.SetFault(archivetest.FaultStatus) }, "/timemap/link/http://down.example/", nil, 502, true},
		{"502 not cached", nil, "/timemap/link/http://down.example/", nil, 502, true},
		{"200 with a timed-out archive", func() { good.SetFault(archivetest.FaultNone); flaky.SetFault(archivetest.FaultHang) }, "/timemap/link/http://partial.example/", nil, 200, true},
		{"partial result searched again", nil, "/timemap/link/http://partial.example/", nil, 200, true},
		{"no-cache within 10 minutes: cache", nil, "/timemap/link/" + urir, []string{"Cache-Control", "no-cache"}, 200, false},
	} {
		if s.setup != nil {
			s.setup()
		}
		before := upstream()
		resp, body := do(t, h, "GET", s.target, s.header...)
		if resp.StatusCode != s.status {
			t.Errorf("%s: status %d, want %d: %s", s.name, resp.StatusCode, s.status, body)
		}
		if asked := upstream() > before; asked != s.asked {
			t.Errorf("%s: archives asked = %v, want %v", s.name, asked, s.asked)
		}
		if s.name == "200 with a timed-out archive" && resp.Header.Get("Archive-Failures") != "flaky=timeout" {
			t.Errorf("%s: Archive-Failures %q", s.name, resp.Header.Get("Archive-Failures"))
		}
	}
}

// brokenCache fails every call as a store that is down would.
type brokenCache struct{ cache.Cache }

func (brokenCache) fail(op string) error {
	return &cache.Error{Store: "broken", Op: op, Err: errors.New("connection refused")}
}
func (b brokenCache) Get(context.Context, cache.URIRKey) (cache.Entry, error) {
	return cache.Entry{}, b.fail("get")
}
func (b brokenCache) Put(context.Context, string, cache.Result) error { return b.fail("put") }
func (b brokenCache) RecordRequest(context.Context, string, time.Time) error {
	return b.fail("request")
}
func (b brokenCache) Enqueue(context.Context, string, cache.Priority, time.Time) error {
	return b.fail("enqueue")
}

// A cache that is down does not take the aggregator down: requests are
// searched and answered.
func TestLookupWithBrokenCache(t *testing.T) {
	arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{"http://example.com/": times(t, "20100101000000")}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}, Cache: brokenCache{newMemCache(t)}})
	for i := range 2 {
		resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://example.com/")
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d: %s", i, resp.StatusCode, body)
		}
	}
	if n := arc.Count("timemap"); n != 2 {
		t.Errorf("%d upstream requests, want 2 (nothing could be cached)", n)
	}
}
