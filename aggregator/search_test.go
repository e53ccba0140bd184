package aggregator

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/memento"
)

func outcomeSummary(r *Result) map[string]string {
	m := map[string]string{}
	for _, o := range r.Outcomes {
		s := o.Status.String()
		if o.Reason != "" {
			s += ":" + o.Reason
		}
		m[o.Archive] = s
	}
	return m
}

func TestSearchFaults(t *testing.T) {
	urir := "http://example.com/"
	hold := map[string][]time.Time{urir: times(t, "20100101000000", "20120101000000")}
	good := newArchive(t, archivetest.Config{Holdings: hold})
	slow := newArchive(t, archivetest.Config{Holdings: hold, Latency: 50 * time.Millisecond})
	empty := newArchive(t, archivetest.Config{})
	mk := func(f archivetest.Fault, status int) *archivetest.Archive {
		return newArchive(t, archivetest.Config{Holdings: hold, Fault: f, Status: status, HugeBytes: 2 << 20})
	}
	archives := []Archive{
		entry("good", good), entry("slow", slow), entry("empty", empty),
		entry("status500", mk(archivetest.FaultStatus, 500)),
		entry("status403", mk(archivetest.FaultStatus, 403)),
		entry("reset", mk(archivetest.FaultReset, 0)),
		entry("huge", mk(archivetest.FaultHugeBody, 0)),
		entry("loop", mk(archivetest.FaultRedirectLoop, 0)),
		entry("html", mk(archivetest.FaultWrongContentType, 0)),
		entry("hang", mk(archivetest.FaultHang, 0)),
	}
	// The hanging archive has its own short timeout; the others get a long
	// one, so that a loaded machine does not turn a slow fault into a
	// timeout.
	archives[len(archives)-1].Timeout = 300 * time.Millisecond
	for _, up := range []struct {
		name string
		up   Upstream
	}{
		{"HTTPUpstream", &HTTPUpstream{MaxBodyBytes: 1 << 20}},
		{"ClientUpstream", &ClientUpstream{Client: &memento.Client{MaxBodyBytes: 1 << 20}}},
	} {
		ag := newAggregator(t, Options{Archives: archives, Upstream: up.up, RequestTimeout: 20 * time.Second, Tolerance: -1})
		for _, svc := range []Service{TimeMapCache, TimeGateDynamic} {
			searchFaults(t, ag, up.name, svc, urir)
		}
	}
}

func searchFaults(t *testing.T, ag *Aggregator, upName string, svc Service, urir string) {
	{
		t.Run(upName+"/"+string(svc), func(t *testing.T) {
			start := time.Now()
			res, err := ag.Search(context.Background(), svc, urir, ts(t, "20110101000000"))
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]string{
				"good": "found", "slow": "found", "empty": "none",
				"status500": "failed:status-500", "status403": "failed:status-403",
				"reset": "failed:reset", "huge": "failed:too-large", "loop": "failed:redirect-loop",
				"html": "failed:wrong-content-type", "hang": "failed:timeout",
			}
			if svc == TimeGateDynamic {
				// A TimeGate answer is its headers: a 200 that names no
				// memento is an unexpected reply, whatever its body.
				want["huge"], want["html"] = "failed:unexpected-reply", "failed:unexpected-reply"
			}
			if upName == "ClientUpstream" && svc == TimeGateDynamic {
				// The memento client reads 403 from a TimeGate as a status
				// failure too, and asks with HEAD, so a huge body is never read.
				want["huge"] = "failed:unexpected-reply"
			}
			got := outcomeSummary(res)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("outcomes (-want +got):\n%s", d)
			}
			if len(res.Mementos) == 0 {
				t.Fatal("no mementos from the good archives")
			}
			if h := res.FailureHeader(); !strings.Contains(h, "hang=timeout") || !strings.Contains(h, "status500=status-500") {
				t.Errorf("Archive-Failures = %q", h)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("search took %v; the hanging archive must be cut at its timeout", el)
			}
		})
	}
}

// AGG-01: 302, 303 and 307 with Location, and 200 with Content-Location,
// are all TimeGate answers; the memento comes from the Link header.
func TestAGG01TimeGateRedirectStyles(t *testing.T) {
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "https://arch.example.net/awa/20190924232650/http://example.org/")
		w.Header().Set("Link", `<http://example.org/>; rel="original", <https://arch.example.net/awa/http://example.org/>; rel="timegate", <https://arch.example.net/awa/timemap/link/http://example.org/>; rel="timemap"; type="application/link-format", <https://arch.example.net/awa/20190924232650mp_/http://example.org/>; rel="memento"; datetime="Tue, 24 Sep 2019 23:26:50 GMT"`)
		w.Header().Set("Vary", "accept-datetime")
		w.WriteHeader(http.StatusTemporaryRedirect)
	}))
	t.Cleanup(first.Close)
	second := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Location", "https://arch2.example.net/20190924000000/http://example.org/")
		w.Header().Set("Memento-Datetime", "Tue, 24 Sep 2019 00:00:00 GMT")
		w.Header().Set("Link", `<http://example.org/>; rel="original", <https://arch2.example.net/20190924000000/http://example.org/>; rel="memento"; datetime="Tue, 24 Sep 2019 00:00:00 GMT"`)
		w.Header().Set("Vary", "accept-datetime")
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(second.Close)
	for _, up := range []Upstream{&HTTPUpstream{}, &ClientUpstream{}} {
		ag := newAggregator(t, Options{Upstream: up, Archives: []Archive{
			{ID: "first", TimeGate: first.URL + "/awa/"},
			{ID: "second", TimeGate: second.URL + "/"},
		}})
		res, err := ag.Search(context.Background(), TimeGateDynamic, "http://example.org/", ts(t, "20190925000000"))
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(map[string]string{"first": "found", "second": "found"}, outcomeSummary(res)); d != "" {
			t.Errorf("outcomes (-want +got):\n%s", d)
		}
		want := []memento.Memento{
			{URIM: "https://arch2.example.net/20190924000000/http://example.org/", Datetime: ts(t, "20190924000000"), Archive: "second"},
			{URIM: "https://arch.example.net/awa/20190924232650mp_/http://example.org/", Datetime: ts(t, "20190924232650"), Archive: "first"},
		}
		if d := cmp.Diff(want, res.Mementos); d != "" {
			t.Errorf("mementos (-want +got):\n%s", d)
		}
	}
	// Every 3xx style counts.
	for _, code := range []int{302, 303, 307} {
		arc := newArchive(t, archivetest.Config{TimeGateStatus: code, Holdings: map[string][]time.Time{"http://example.org/": times(t, "20190924232650")}})
		ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}})
		res, err := ag.Search(context.Background(), TimeGateDynamic, "http://example.org/", time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Mementos) != 1 || res.Outcomes[0].Status != StatusFound {
			t.Errorf("%d: outcomes %v, mementos %v", code, outcomeSummary(res), res.Mementos)
		}
	}
}

// AGG-03: a fast archive, one that never answers and one that answers 500;
// then all failing; then a zero timeout.
func TestAGG03Timeouts(t *testing.T) {
	urir := "http://example.com/"
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20100101000000", "20110101000000")}})
	b := newArchive(t, archivetest.Config{Fault: archivetest.FaultHang})
	c := newArchive(t, archivetest.Config{Fault: archivetest.FaultStatus, Status: 500})
	ag := newAggregator(t, Options{Archives: []Archive{entry("A", a), entry("B", b), entry("C", c)},
		RequestTimeout: 2 * time.Second, Tolerance: 2, DormantFor: time.Hour})
	h := ag.Handler()

	start := time.Now()
	resp, body := do(t, h, "GET", "/timemap/link/"+urir)
	el := time.Since(start)
	if resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != "2" {
		t.Fatalf("status %d count %s: %s", resp.StatusCode, resp.Header.Get("X-Memento-Count"), body)
	}
	if el < 2*time.Second || el > 6*time.Second {
		t.Errorf("first call took %v, want about 2 s (B's timeout)", el)
	}
	if got := resp.Header.Get("Archive-Failures"); got != "B=timeout, C=status-500" {
		t.Errorf("Archive-Failures = %q", got)
	}
	// Second failure in a row, for another URI-R (the dormancy rule counts
	// a failure once per URI-R once the request reached the archive): B
	// and C reach the tolerance and sleep.
	do(t, h, "GET", "/timemap/link/http://example.com/other")
	before := b.Count("timemap")
	resp, _ = do(t, h, "GET", "/timemap/link/"+urir)
	if b.Count("timemap") != before {
		t.Errorf("dormant archive B was asked again")
	}
	// Dormant archives were not asked: the answer says so, so that a
	// client can tell their share is missing (TestAllArchivesDormantIsNotNone).
	if got := resp.Header.Get("Archive-Failures"); got != "B=dormant, C=dormant" {
		t.Errorf("Archive-Failures with dormant archives = %q, want B=dormant, C=dormant", got)
	}

	// Every archive fails: 502, never 404 or an empty 200.
	a.SetFault(archivetest.FaultStatus)
	ag2 := newAggregator(t, Options{Archives: []Archive{entry("A", a), entry("C", c)}})
	resp, body = do(t, ag2.Handler(), "GET", "/timemap/link/"+urir)
	if resp.StatusCode != http.StatusBadGateway {
		t.Errorf("all failed: status %d, want 502: %s", resp.StatusCode, body)
	}
	if got := resp.Header.Get("Archive-Failures"); got != "A=status-503, C=status-500" {
		t.Errorf("Archive-Failures = %q", got)
	}
	// Every archive times out: 504.
	ag3 := newAggregator(t, Options{Archives: []Archive{entry("B", b)}, RequestTimeout: 100 * time.Millisecond})
	resp, _ = do(t, ag3.Handler(), "GET", "/timemap/link/"+urir)
	if resp.StatusCode != http.StatusGatewayTimeout {
		t.Errorf("all timed out: status %d, want 504", resp.StatusCode)
	}

	// Timeout 0 means the default, never "fail at once".
	a.SetFault(archivetest.FaultNone)
	a.SetLatency(20 * time.Millisecond)
	ag4 := newAggregator(t, Options{Archives: []Archive{{ID: "A", TimeMap: a.TimeMapPrefix(), Timeout: 0}}, RequestTimeout: 0})
	resp, _ = do(t, ag4.Handler(), "GET", "/timemap/link/"+urir)
	if resp.StatusCode != 200 {
		t.Errorf("timeout 0: status %d, want 200", resp.StatusCode)
	}
}

// AGG-04: the same datetime in two archives, answering in random order,
// gives the same list and the same TimeGate choice every run; the exact
// same URI-M from two sources is listed once.
func TestAGG04StableOrder(t *testing.T) {
	urir := "http://example.com/"
	dt := ts(t, "20100101000000")
	// Both archives list A's URI-M and their own.
	mk := func(name string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(time.Duration(rand.IntN(5)) * time.Millisecond)
			w.Header().Set("Content-Type", "application/link-format")
			fmt.Fprintf(w, "<%s>; rel=\"original\",\n<http://%s.example.net/20100101000000/%s>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2010 00:00:00 GMT\",\n<http://shared.example.net/20100101000000/%s>; rel=\"memento\"; datetime=\"Fri, 01 Jan 2010 00:00:00 GMT\"\n", urir, name, urir, urir)
		}))
		t.Cleanup(s.Close)
		return s
	}
	b, a := mk("b"), mk("a")
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "B", TimeMap: b.URL + "/tm/"}, {ID: "A", TimeMap: a.URL + "/tm/"}}})
	var first []memento.Memento
	for run := range 20 {
		res, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = res.Mementos
			want := []memento.Memento{
				{URIM: "http://b.example.net/20100101000000/" + urir, Datetime: dt, Archive: "B"},
				{URIM: "http://shared.example.net/20100101000000/" + urir, Datetime: dt, Archive: "B"},
				{URIM: "http://a.example.net/20100101000000/" + urir, Datetime: dt, Archive: "A"},
			}
			if d := cmp.Diff(want, first); d != "" {
				t.Fatalf("run 0 (-want +got):\n%s", d)
			}
			continue
		}
		if d := cmp.Diff(first, res.Mementos); d != "" {
			t.Fatalf("run %d differs (-first +now):\n%s", run, d)
		}
		if got := first[closestIndex(res.Mementos, dt)].URIM; got != first[0].URIM {
			t.Fatalf("run %d: TimeGate picked %s", run, got)
		}
	}
}

func TestSearchCoalescesIdenticalRequests(t *testing.T) {
	urir := "http://example.com/"
	arc := newArchive(t, archivetest.Config{Latency: time.Second, Holdings: map[string][]time.Time{urir: times(t, "20100101000000")}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}})
	var wg sync.WaitGroup
	results := make([]*Result, 10)
	for i := range results {
		wg.Go(func() {
			r, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{})
			if err != nil {
				t.Error(err)
			}
			results[i] = r
		})
	}
	wg.Wait()
	if n := arc.Count("timemap"); n != 1 {
		t.Errorf("10 concurrent identical searches sent %d upstream requests, want 1", n)
	}
	for i, r := range results {
		if r == nil || len(r.Mementos) != 1 {
			t.Errorf("caller %d got %+v", i, r)
		}
	}
}

func TestSearchCallerCancelDoesNotCancelShared(t *testing.T) {
	urir := "http://example.com/"
	arc := newArchive(t, archivetest.Config{Latency: time.Second, Holdings: map[string][]time.Time{urir: times(t, "20100101000000")}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := ag.Search(ctx, TimeMapCache, urir, time.Time{})
		done <- err
	}()
	for arc.Count("timemap") == 0 { // the request is at the archive
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		t.Errorf("cancelled caller got %v", err)
	}
	// A second caller joins the same flight: the first caller's
	// cancellation did not stop the shared search.
	res, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{})
	if err != nil || len(res.Mementos) != 1 || res.Outcomes[0].Status != StatusFound {
		t.Errorf("second caller: %v %+v", err, res)
	}
	if n := arc.Count("timemap"); n != 1 {
		t.Errorf("%d upstream requests, want 1 shared", n)
	}
}

func TestRawURIRReachesArchives(t *testing.T) {
	urir := "http://example.com/search?q=a%26b&lang=en%20gb"
	arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20130303030303")}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}})
	for _, target := range []string{"/timemap/link/" + urir, "/timegate/" + urir, "/api/json/2013/" + urir} {
		resp, body := do(t, ag.Handler(), "GET", target)
		if resp.StatusCode != 200 && resp.StatusCode != 302 {
			t.Errorf("%s: status %d: %s", target, resp.StatusCode, body)
		}
	}
	for _, r := range arc.Requests() {
		if !strings.HasSuffix(r.RawPath, urir) {
			t.Errorf("archive saw %q, want it to end in %q", r.RawPath, urir)
		}
	}
	if arc.Count("") == 0 {
		t.Fatal("no upstream request")
	}
}

func TestTimeMapPagingUpstream(t *testing.T) {
	urir := "http://big.example.com/"
	var hold []time.Time
	base := ts(t, "20000101000000")
	for i := range 2500 {
		hold = append(hold, base.Add(time.Duration(i)*time.Hour))
	}
	arc := newArchive(t, archivetest.Config{PageSize: 1000, Holdings: map[string][]time.Time{urir: hold}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}})
	res, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Mementos) != 2500 || res.Outcomes[0].Requests != 3 {
		t.Errorf("%d mementos in %d requests, want 2500 in 3", len(res.Mementos), res.Outcomes[0].Requests)
	}
}

func TestSearchAfterClose(t *testing.T) {
	arc := newArchive(t, archivetest.Config{})
	ag, err := New(&Options{Archives: []Archive{entry("a", arc)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ag.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ag.Search(context.Background(), TimeMapCache, "http://x/", time.Time{}); err != ErrClosed {
		t.Errorf("Search after Close: %v, want ErrClosed", err)
	}
	if arc.Count("") != 0 {
		t.Error("a closed aggregator asked an archive")
	}
}
