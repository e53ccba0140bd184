package aggregator

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// fakeUpstream answers from a table, with per-archive behaviour, without a
// network: the timing tests run it under testing/synctest.
type fakeUpstream struct {
	mu       sync.Mutex
	holdings map[string]map[string][]memento.Memento // archive id → URI-R → mementos
	fail     map[string]bool                         // archive id → fail with a reset
	hang     map[string]bool                         // archive id → block until ctx ends
	calls    map[string]int
}

func newFake() *fakeUpstream {
	return &fakeUpstream{holdings: map[string]map[string][]memento.Memento{}, fail: map[string]bool{}, hang: map[string]bool{}, calls: map[string]int{}}
}

func (f *fakeUpstream) answer(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	f.mu.Lock()
	f.calls[a.ID]++
	fail, hang := f.fail[a.ID], f.hang[a.ID]
	ms := append([]memento.Memento(nil), f.holdings[a.ID][urir]...)
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return nil, 1, &UpstreamError{Archive: a.ID, Op: "timemap", Reason: ctxReason(ctx), Err: ctx.Err()}
	}
	if fail {
		return nil, 1, &UpstreamError{Archive: a.ID, Op: "timemap", Reason: ReasonReset, Err: errors.New("connection reset by peer")}
	}
	if len(ms) == 0 {
		return nil, 1, ErrNotFound
	}
	return ms, 1, nil
}

func (f *fakeUpstream) TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	return f.answer(ctx, a, urir)
}

func (f *fakeUpstream) TimeGate(ctx context.Context, a *Archive, urir string, _ time.Time) ([]memento.Memento, int, error) {
	return f.answer(ctx, a, urir)
}

func (f *fakeUpstream) count(id string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[id]
}

func TestDormancy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.holdings["good"] = map[string][]memento.Memento{"http://a.example/": {{URIM: "http://good/1", Datetime: time.Unix(1e9, 0).UTC()}}}
		f.fail["bad"] = true
		ag, err := New(&Options{Archives: []Archive{{ID: "good", TimeMap: "http://good/"}, {ID: "bad", TimeMap: "http://bad/"}},
			Upstream: f, Tolerance: 2, DormantFor: 8 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		search := func() map[string]string {
			t.Helper()
			res, err := ag.Search(context.Background(), TimeMapCache, "http://a.example/", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			return outcomeSummary(res)
		}
		steps := []struct {
			name    string
			wait    time.Duration
			want    string
			asked   int
			dormant bool
		}{
			{"first failure", 0, "failed:reset", 1, false},
			{"second failure reaches tolerance", 0, "failed:reset", 2, true},
			{"skipped while dormant", 0, "dormant", 2, true},
			{"still dormant after 7.9 s", 7900 * time.Millisecond, "dormant", 2, true},
			{"asked again after 8 s, fails, sleeps again at once", 100 * time.Millisecond, "failed:reset", 3, true},
			{"dormant again", time.Second, "dormant", 3, true},
		}
		for _, s := range steps {
			time.Sleep(s.wait)
			got := search()
			if got["bad"] != s.want || got["good"] != "found" {
				t.Errorf("%s: outcomes %v, want bad=%s", s.name, got, s.want)
			}
			if n := f.count("bad"); n != s.asked {
				t.Errorf("%s: bad asked %d times, want %d", s.name, n, s.asked)
			}
			st := ag.Stats()[1]
			if dormant := !st.DormantUntil.IsZero(); dormant != s.dormant {
				t.Errorf("%s: dormant = %v, want %v (stats %+v)", s.name, dormant, s.dormant, st)
			}
		}
		// Recovery: one success ends the run.
		time.Sleep(9 * time.Second)
		f.mu.Lock()
		f.fail["bad"] = false
		f.mu.Unlock()
		if got := search(); got["bad"] != "none" {
			t.Errorf("after recovery: %v", got)
		}
		if st := ag.Stats()[1]; st.ConsecutiveFailures != 0 || !st.DormantUntil.IsZero() {
			t.Errorf("after recovery: %+v", st)
		}
	})
}

func TestBudgetsUnderSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.hang["slow"] = true
		f.holdings["fast"] = map[string][]memento.Memento{"http://a.example/": {{URIM: "http://fast/1", Datetime: time.Unix(1e9, 0).UTC()}}}
		ag, err := New(&Options{Archives: []Archive{{ID: "fast", TimeMap: "http://f/"}, {ID: "slow", TimeMap: "http://s/", Timeout: time.Hour}},
			Upstream: f, DynamicBudget: 3 * time.Second, ThoroughBudget: 40 * time.Second, Tolerance: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		for _, tc := range []struct {
			svc  Service
			want time.Duration
		}{{TimeMapDynamic, 3 * time.Second}, {TimeMapCache, 40 * time.Second}} {
			start := time.Now()
			res, err := ag.Search(context.Background(), tc.svc, "http://a.example/", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el != tc.want {
				t.Errorf("%s: took %v, want the budget %v", tc.svc, el, tc.want)
			}
			if got := outcomeSummary(res); got["slow"] != "failed:timeout" || got["fast"] != "found" {
				t.Errorf("%s: %v", tc.svc, got)
			}
		}
		// A per-archive timeout shorter than the budget wins.
		ag2, err := New(&Options{Archives: []Archive{{ID: "slow", TimeMap: "http://s/", Timeout: 1500 * time.Millisecond}}, Upstream: f})
		if err != nil {
			t.Fatal(err)
		}
		defer ag2.Close()
		start := time.Now()
		res, _ := ag2.Search(context.Background(), TimeMapCache, "http://a.example/", time.Time{})
		if el := time.Since(start); el != 1500*time.Millisecond || !res.AllFailed() || !res.TimedOut() {
			t.Errorf("per-archive timeout: %v, %v", el, outcomeSummary(res))
		}
	})
}

func TestRateAndConcurrencyLimits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		ag, err := New(&Options{Archives: []Archive{{ID: "limited", TimeMap: "http://l/", Rate: 1, Burst: 1}}, Upstream: f})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		start := time.Now()
		var mu sync.Mutex
		var done []time.Duration
		var wg sync.WaitGroup
		for i := range 3 {
			wg.Go(func() {
				_, err := ag.Search(context.Background(), TimeMapCache, "http://"+string(rune('a'+i))+".example/", time.Time{})
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				done = append(done, time.Since(start))
				mu.Unlock()
			})
		}
		wg.Wait()
		// One request per second: the three searches end at 0, 1 and 2 s.
		if len(done) != 3 || done[2] != 2*time.Second {
			t.Errorf("completion times %v, want [0s 1s 2s]", done)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		f := newFake()
		f.hang["busy"] = true
		ag, err := New(&Options{Archives: []Archive{{ID: "busy", TimeMap: "http://b/", MaxConcurrent: 2, Timeout: time.Second}}, Upstream: f, Tolerance: -1})
		if err != nil {
			t.Fatal(err)
		}
		defer ag.Close()
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() {
				_, _ = ag.Search(context.Background(), TimeMapCache, "http://"+string(rune('a'+i))+".example/", time.Time{})
			})
		}
		synctest.Wait()
		if n := f.count("busy"); n != 2 {
			t.Errorf("%d requests in flight, want the limit 2", n)
		}
		wg.Wait()
		if n := f.count("busy"); n != 4 {
			t.Errorf("%d requests in all, want 4", n)
		}
	})
}
