package aggregator

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/flagvalue"
)

// gatedArchive serves, on 127.0.0.1, for every URI-R a TimeMap of
// mementos generated while written (chunked, no Content-Length, every
// memento a second apart), size bytes in all; after the first pause
// bytes of an answer for a URI-R of host "first.example" it flushes and
// waits until gate is closed. With lengths, the answers for other hosts
// are made whole first and sent with their Content-Length. It counts
// the answers it began.
type gatedArchive struct {
	*httptest.Server
	size, pause int64
	gate        chan struct{}
	lengths     bool

	mu    sync.Mutex
	began int
}

func newGatedArchive(t *testing.T, size, pause int64) *gatedArchive {
	t.Helper()
	a := &gatedArchive{size: size, pause: pause, gate: make(chan struct{})}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

// open lets every paused answer go on (once).
func (a *gatedArchive) open() {
	select {
	case <-a.gate:
	default:
		close(a.gate)
	}
}

func (a *gatedArchive) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.began++
	a.mu.Unlock()
	urir := strings.TrimPrefix(r.RequestURI, "/tm/")
	w.Header().Set("Content-Type", "application/link-format")
	buf := fmt.Appendf(nil, "<%s>; rel=\"original\",\n", urir)
	t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	var sent int64
	paused := a.pause <= 0 || !strings.HasPrefix(urir, "http://first.example/")
	whole := a.lengths && !strings.HasPrefix(urir, "http://first.example/")
	for i := 0; sent+int64(len(buf)) < a.size; i++ {
		d := t0.Add(time.Duration(i) * time.Second)
		buf = fmt.Appendf(buf, "<%s/web/%s/%s>; rel=\"memento\"; datetime=\"%s\",\n", a.URL, d.Format("20060102150405"), urir, d.Format(http.TimeFormat))
		if whole {
			continue
		}
		if len(buf) >= 32<<10 {
			if _, err := w.Write(buf); err != nil {
				return
			}
			sent += int64(len(buf))
			buf = buf[:0]
			if !paused && sent >= a.pause {
				paused = true
				w.(http.Flusher).Flush()
				select {
				case <-a.gate:
				case <-r.Context().Done():
					return
				}
			}
		}
	}
	if whole {
		w.Header().Set("Content-Length", strconv.Itoa(len(buf)))
	}
	_, _ = w.Write(buf)
}

// waitHeld waits until ag's searches hold at least n body bytes (the
// budget's own accounting, no clock), failing the test if ctx ends first.
func waitHeld(t *testing.T, ctx context.Context, ag *Aggregator, n int64) {
	t.Helper()
	for ag.BodyMemory().Held < n {
		select {
		case <-ctx.Done():
			t.Fatalf("the searches hold %d body bytes, waited for %d", ag.BodyMemory().Held, n)
		case <-time.After(time.Millisecond):
		}
	}
}

// TestBodyMemoryBusy: with a body memory budget of 4 MiB, a search
// holding 2.5 MiB of an archive's answer of unknown length (paused there
// by the archive, and free to read on to its cap of 8 MiB) leaves too
// little for six more requests sent in parallel for other URI-Rs of the
// same archive on 127.0.0.1, answered with a Content-Length of 3 MiB:
// none can begin, each is answered 503 with Retry-After
// and the headline saying so, Archive-Failures names memory-busy, the
// archive is not counted toward dormancy (tolerance 1), the budget's peak
// never passes its limit; the first search then ends with its whole
// TimeMap, and every byte is given back.
func TestBodyMemoryBusy(t *testing.T) {
	const limit = 4 << 20
	a := newGatedArchive(t, 3<<20, 5<<19) // 3 MiB answers, first.example's paused at 2.5 MiB
	a.lengths = true
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "big", TimeMap: a.URL + "/tm/"}},
		BodyMemory: limit, BodyMemoryWait: 50 * time.Millisecond, MaxBodyBytes: 8 << 20, Tolerance: 1, RequestTimeout: 10 * time.Minute,
		DynamicBudget: 10 * time.Minute, ThoroughBudget: 10 * time.Minute})
	srv := httptest.NewServer(ag.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(a.open) // before srv.Close: no answer left paused
	type reply struct {
		code                         int
		retry, failures, count, body string
	}
	get := func(urir string) reply {
		resp, err := http.Get(srv.URL + "/timemap/link/" + urir)
		if err != nil {
			t.Error(err)
			return reply{}
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Error(err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		return reply{resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("Archive-Failures"), resp.Header.Get("X-Memento-Count"), first}
	}
	firstDone := make(chan reply, 1)
	go func() { firstDone <- get("http://first.example/") }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waitHeld(t, ctx, ag, 5<<19)

	var wg sync.WaitGroup
	for i := range 6 {
		wg.Go(func() {
			r := get(fmt.Sprintf("http://busy%d.example/", i))
			if r.code != http.StatusServiceUnavailable || r.retry != strconv.Itoa(BusyRetryAfter) ||
				!strings.Contains(r.failures, "=memory-busy") || !strings.HasPrefix(r.body, "Busy: the memory budget") {
				t.Errorf("request %d while the budget is held: %d, Retry-After %q, Archive-Failures %q, %q; want 503, Retry-After %d, memory-busy, a busy headline",
					i, r.code, r.retry, r.failures, r.body, BusyRetryAfter)
			}
		})
	}
	wg.Wait()
	a.open()
	r := <-firstDone
	if r.code != 200 || r.failures != "" {
		t.Errorf("the first request: %d, Archive-Failures %q; want 200 and none", r.code, r.failures)
	}
	if n, _ := strconv.Atoi(r.count); n < 20000 {
		t.Errorf("the first request gave %s mementos, want its whole TimeMap (over 20,000)", r.count)
	}
	waitReleased(t, ctx, ag) // the Handler lets go a moment after its client has the answer
	m := ag.BodyMemory()
	if m.Peak > limit || m.Peak < 5<<19 || m.Held != 0 || m.Busy < 6 || m.OverBudget != 0 {
		t.Errorf("body memory %+v: want a peak of 2.5 MiB to the limit of %d, nothing held, 6 or more busy refusals, none over budget", m, limit)
	}
	// /about shows the budget, in its text and its JSON.
	_, text := do(t, ag.Handler(), "GET", "/about")
	wantLine := fmt.Sprintf("Body memory:            limit 4MiB; held 0; peak %s; refused %d memory-busy, 0 over-memory-budget\n", flagvalue.FormatBytes(m.Peak), m.Busy)
	if !strings.Contains(text, wantLine) {
		t.Errorf("/about text lacks %q:\n%s", wantLine, text)
	}
	_, js := do(t, ag.Handler(), "GET", "/about", "Accept", "application/json")
	var doc struct {
		BodyMemory map[string]int64 `json:"body_memory"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatalf("/about JSON: %v\n%s", err, js)
	}
	wantDoc := map[string]int64{"limit": limit, "held": 0, "peak": m.Peak, "refused_memory_busy": m.Busy, "refused_over_memory_budget": 0}
	if d := cmp.Diff(wantDoc, doc.BodyMemory); d != "" {
		t.Errorf("/about JSON body_memory (-want +got):\n%s", d)
	}
	for _, s := range ag.Stats() {
		if s.ConsecutiveFailures != 0 || !s.DormantUntil.IsZero() {
			t.Errorf("archive %s: %d consecutive failures, dormant until %v: a memory-busy refusal counted toward dormancy", s.Archive, s.ConsecutiveFailures, s.DormantUntil)
		}
	}
}

// TestBodyMemoryOverBudget: one request whose two archives (on
// 127.0.0.1) answer 1.5 MiB each, with a body memory budget of 2 MiB,
// gets the documented partial answer: 200 with the mementos read before
// the budget ran out, the archive cut named over-memory-budget in
// Archive-Failures, no Retry-After, a Result that is not complete, no
// dormancy; the budget's peak stays within its limit.
func TestBodyMemoryOverBudget(t *testing.T) {
	const limit = 2 << 20
	x := newGatedArchive(t, 3<<19, 0)
	y := newGatedArchive(t, 3<<19, 0)
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "x", TimeMap: x.URL + "/tm/"}, {ID: "y", TimeMap: y.URL + "/tm/"}},
		BodyMemory: limit, Tolerance: 1, RequestTimeout: 10 * time.Minute, DynamicBudget: 10 * time.Minute, ThoroughBudget: 10 * time.Minute})
	srv := httptest.NewServer(ag.Handler())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/timemap/link/http://two.example/")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	failures := resp.Header.Get("Archive-Failures")
	n, _ := strconv.Atoi(resp.Header.Get("X-Memento-Count"))
	// A memento line is about 110 bytes: 1.5 MiB holds about 14,000.
	if resp.StatusCode != 200 || !strings.Contains(failures, "=over-memory-budget") || resp.Header.Get("Retry-After") != "" || n < 10000 || n > 26000 {
		t.Errorf("%d, Archive-Failures %q, Retry-After %q, %d mementos; want 200, over-memory-budget, none, 10,000 to 26,000",
			resp.StatusCode, failures, resp.Header.Get("Retry-After"), n)
	}
	res, err := ag.Search(context.Background(), TimeMapCache, "http://three.example/", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete() || res.MemoryBusy() || !strings.Contains(res.FailureHeader(), "=over-memory-budget") {
		t.Errorf("Search: complete %v, memory busy %v, failures %q; want an incomplete result over the budget", res.Complete(), res.MemoryBusy(), res.FailureHeader())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waitReleased(t, ctx, ag) // the Handler lets go a moment after its client has the answer
	m := ag.BodyMemory()
	if m.Peak > limit || m.Held != 0 || m.OverBudget < 2 || m.Busy != 0 {
		t.Errorf("body memory %+v: want a peak within %d, nothing held, 2 or more over budget, no busy refusal", m, limit)
	}
	for _, s := range ag.Stats() {
		if s.ConsecutiveFailures != 0 || !s.DormantUntil.IsZero() {
			t.Errorf("archive %s: %d consecutive failures, dormant until %v", s.Archive, s.ConsecutiveFailures, s.DormantUntil)
		}
	}
}
