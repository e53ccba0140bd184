package aggregator

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// streamingArchive starts an archive on 127.0.0.1 that answers a TimeMap
// of n mementos of every URI-R at once, then keeps the body open (no
// more bytes) until the client goes away: an answer that the search's
// budget cuts while it streams.
func streamingArchive(t *testing.T, n int) *answeringArchive {
	t.Helper()
	a := newAnsweringArchive(t, nil)
	a.set(func(w http.ResponseWriter, r *http.Request, urir string) {
		w.Header().Set("Content-Type", "application/link-format")
		bw := bufio.NewWriter(w)
		fmt.Fprintf(bw, "<%s>; rel=\"original\",\n", urir)
		for i := range n {
			d := time.Date(2001, 1, 1+i, 0, 0, 0, 0, time.UTC)
			fmt.Fprintf(bw, "<%s/web/%s/%s>; rel=\"memento\"; datetime=\"%s\",\n", a.URL, d.Format("20060102150405"), urir, d.Format(http.TimeFormat))
		}
		_ = bw.Flush()
		w.(http.Flusher).Flush()
		<-r.Context().Done() // streaming on, slower than any budget
	})
	return a
}

// TestBudgetCutWhileStreaming: an archive that is streaming its TimeMap
// when the search budget ends is recorded as cut by the budget
// (ReasonBudgetCut, ClassPerURI), its mementos read before the cut kept
// and served, the archive named in Archive-Failures as budget-cut, and
// the cut never counts toward dormancy (Tolerance 1: one counted failure
// would put it to sleep), for HTTPUpstream and ClientUpstream; the
// latter keeps no memento of a first page cut (memento.Client's
// FetchTimeMap returns none then), so it is checked for the reason and
// dormancy only.
func TestBudgetCutWhileStreaming(t *testing.T) {
	for name, up := range upstreams {
		t.Run(name, func(t *testing.T) {
			want := 3
			if name == "ClientUpstream" {
				want = 0
			}
			a := streamingArchive(t, 3)
			ag := newAggregator(t, Options{Archives: []Archive{a.entry("stream")}, Upstream: up(), Tolerance: 1, DormantFor: time.Hour,
				RequestTimeout: time.Hour, DynamicBudget: 300 * time.Millisecond})
			for i := range 3 {
				urir := fmt.Sprintf("http://page%d.example/", i)
				res, err := ag.Search(t.Context(), TimeMapDynamic, urir, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				o := res.Outcomes[0]
				if o.Status != StatusFailed || o.Reason != ReasonBudgetCut || o.Class != ClassPerURI || o.Mementos != want {
					t.Fatalf("search %d: %+v, want failed, budget-cut, per-uri-r, %d mementos", i, o, want)
				}
				if len(res.Mementos) != want || want > 0 && !strings.HasPrefix(res.Mementos[0].URIM, a.URL+"/web/20010101000000/") {
					t.Fatalf("search %d kept %d mementos %v, want the %d read before the cut", i, len(res.Mementos), res.Mementos, want)
				}
				if h := res.FailureHeader(); h != "stream=budget-cut" {
					t.Errorf("Archive-Failures %q, want stream=budget-cut", h)
				}
				if c := res.Counts(); c.Failed != 1 || c.TimedOut != 1 {
					t.Errorf("counts %+v, want 1 failed, timed out", c)
				}
			}
			st := ag.Stats()[0]
			if !st.DormantUntil.IsZero() || st.ConsecutiveFailures != 0 || st.State() != StateOK {
				t.Errorf("after three budget cuts: %+v, want awake, no failure counted", st)
			}
			if want == 0 {
				return
			}
			// Served: 200 with the mementos read and the header.
			resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://served.example/")
			if resp.StatusCode != 200 || resp.Header.Get("Archive-Failures") != "stream=budget-cut" || strings.Count(body, `datetime="`) != 3 {
				t.Errorf("served: %d Archive-Failures %q\n%s", resp.StatusCode, resp.Header.Get("Archive-Failures"), body)
			}
		})
	}
}

// lateUpstream sends its request through HTTPUpstream (so the client
// trace sees the archive begin answering) and then, ignoring its
// context, does not return until release is closed: a call the search
// stops waiting for.
type lateUpstream struct {
	HTTPUpstream
	release chan struct{}
}

func (u *lateUpstream) TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	ms, n, err := u.HTTPUpstream.TimeMap(ctx, a, urir)
	<-u.release
	return ms, n, err
}

// TestBudgetCutLateCall: when an archive that had begun answering has not
// returned by the end of the budget and its grace, the search records it
// as cut by the budget (ClassPerURI), not as a timeout of the archive;
// an archive that never answered is still a timeout.
func TestBudgetCutLateCall(t *testing.T) {
	a := streamingArchive(t, 2)
	silent := newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) { <-r.Context().Done() })
	up := &lateUpstream{release: make(chan struct{})}
	ag := newAggregator(t, Options{Archives: []Archive{a.entry("stream"), silent.entry("silent")}, Upstream: up, Tolerance: 5,
		RequestTimeout: time.Hour, DynamicBudget: 300 * time.Millisecond})
	t.Cleanup(func() { close(up.release) }) // before the aggregator's Close, which waits for its calls
	res, err := ag.Search(t.Context(), TimeMapDynamic, "http://late.example/", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if o := res.Outcomes[0]; o.Status != StatusFailed || o.Reason != ReasonBudgetCut || o.Class != ClassPerURI {
		t.Errorf("streaming archive: %+v, want budget-cut, per-uri-r", o)
	}
	if o := res.Outcomes[1]; o.Status != StatusFailed || o.Reason != ReasonTimeout || o.Class != ClassDown {
		t.Errorf("silent archive: %+v, want timeout, down", o)
	}
	if h := res.FailureHeader(); h != "stream=budget-cut, silent=timeout" {
		t.Errorf("Archive-Failures %q", h)
	}
}
