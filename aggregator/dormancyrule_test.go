package aggregator

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// upstreams are the two Upstreams the aggregator ships, for tests that
// must hold for both.
var upstreams = map[string]func() Upstream{
	"HTTPUpstream":   func() Upstream { return &HTTPUpstream{} },
	"ClientUpstream": func() Upstream { return &ClientUpstream{} },
}

// The dormancy rule: a 5xx for one URI-R, however often it is asked for,
// never puts the archive to sleep; 5xx answers for Tolerance different
// URI-Rs do, and so do failures before the request reached the archive,
// even for one URI-R.
func TestDormancyRule(t *testing.T) {
	for name, up := range upstreams {
		for _, svc := range []Service{TimeMapDynamic, TimeGateDynamic} {
			t.Run(name+"/"+string(svc), func(t *testing.T) {
				a := newAnsweringArchive(t, nil)
				ok := wellBehaved(a.URL)
				a.set(func(w http.ResponseWriter, r *http.Request, urir string) {
					switch {
					case strings.Contains(urir, "broken.example"):
						http.Error(w, "internal error rendering this TimeMap", http.StatusInternalServerError)
					case strings.Contains(urir, "gateway.example"):
						http.Error(w, "upstream timed out", http.StatusGatewayTimeout)
					default:
						ok(w, r, urir)
					}
				})
				ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, Upstream: up(), Tolerance: 3, DormantFor: time.Hour})
				for i := range 8 {
					res, err := ag.Search(t.Context(), svc, "http://broken.example/page", time.Time{})
					if err != nil {
						t.Fatal(err)
					}
					if o := res.Outcomes[0]; o.Status != StatusFailed || o.Reason != "status-500" || o.Class != ClassDown {
						t.Fatalf("request %d: %+v, want a status-500 failure of class down", i, o)
					}
				}
				if st := ag.Stats()[0]; !st.DormantUntil.IsZero() || st.ConsecutiveFailures != 8 {
					t.Fatalf("eight 500s for one URI-R: %+v; want awake, 8 failed contacts (a run of 1)", st)
				}
				// A success ends the run; then 504s for three different
				// URI-Rs put the archive to sleep.
				if res, _ := ag.Search(t.Context(), svc, "http://fine.example/", time.Time{}); res.Outcomes[0].Status != StatusFound {
					t.Fatalf("well-behaved URI-R: %+v", res.Outcomes[0])
				}
				for i := range 3 {
					res, err := ag.Search(t.Context(), svc, fmt.Sprintf("http://gateway.example/%d", i), time.Time{})
					if err != nil {
						t.Fatal(err)
					}
					if o := res.Outcomes[0]; o.Reason != "status-504" {
						t.Fatalf("gateway %d: %+v", i, o)
					}
				}
				if st := ag.Stats()[0]; st.DormantUntil.IsZero() {
					t.Fatalf("504s for three different URI-Rs left the archive awake: %+v", st)
				}
				before := a.requests.Load()
				if res, _ := ag.Search(t.Context(), svc, "http://fine.example/", time.Time{}); res.Outcomes[0].Status != StatusDormant {
					t.Fatalf("dormant archive: %+v, want skipped", res.Outcomes[0])
				}
				if n := a.requests.Load(); n != before {
					t.Fatalf("a dormant archive was asked (%d requests)", n-before)
				}
			})
		}
	}
}

// An archive that refuses connections fails before any URI-R reaches it:
// the same URI-R asked Tolerance times puts it to sleep.
func TestUnreachableArchiveSleepsOnOneURIR(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now: connections are refused
	for name, up := range upstreams {
		t.Run(name, func(t *testing.T) {
			arch := Archive{ID: "gone", TimeMap: "http://" + addr + "/timemap/link/", TimeGate: "http://" + addr + "/timegate/"}
			ag := newAggregator(t, Options{Archives: []Archive{arch}, Upstream: up(), Tolerance: 3, DormantFor: time.Hour})
			for i := range 3 {
				res, err := ag.Search(t.Context(), TimeMapDynamic, "http://example.com/", time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				if o := res.Outcomes[0]; o.Status != StatusFailed || o.Class != ClassDown {
					t.Fatalf("request %d: %+v, want a down failure", i, o)
				}
			}
			if st := ag.Stats()[0]; st.DormantUntil.IsZero() {
				t.Fatalf("three refused connections left the archive awake: %+v", st)
			}
		})
	}
}

// ClientUpstream tells a slow answer from a down archive as HTTPUpstream
// does: a TimeMap whose body is still coming at the timeout is a slow
// answer of that URI-R (the mementos read kept when the memento client
// returns them), and an archive that accepts the connection but sends no
// response is down.
func TestClientUpstreamSlowIsNotDown(t *testing.T) {
	a := newAnsweringArchive(t, func(w http.ResponseWriter, r *http.Request, urir string) {
		if strings.Contains(urir, "silent.example") {
			<-r.Context().Done()
			return
		}
		if strings.HasPrefix(r.RequestURI, "/web/") {
			<-r.Context().Done() // the memento never answers
			return
		}
		if strings.HasPrefix(r.RequestURI, "/timegate/") {
			// The TimeGate answers at once, without the memento's datetime.
			w.Header().Set("Vary", "accept-datetime")
			w.Header().Set("Location", "http://"+r.Host+"/web/20010101000000/"+urir)
			w.WriteHeader(http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/link-format")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "<http://m.example/%d/%s>; rel=\"memento\"; datetime=\"%s\",\n", i, urir,
				time.Unix(1e9+int64(i)*3600, 0).UTC().Format(http.TimeFormat)); err != nil {
				return
			}
			fl.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	arch := a.entry("a")
	arch.Hosts = []string{"127.0.0.1"}
	ag := newAggregator(t, Options{Archives: []Archive{arch}, Upstream: &ClientUpstream{Client: &memento.Client{Timeout: time.Minute}},
		RequestTimeout: 300 * time.Millisecond, Tolerance: 2, DormantFor: time.Hour})
	for i := range 3 {
		for _, svc := range []Service{TimeMapDynamic, TimeGateDynamic} {
			res, err := ag.Search(t.Context(), svc, fmt.Sprintf("http://big%d.example/", i), time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if o := res.Outcomes[0]; o.Reason != ReasonSlowAnswer || o.Class != ClassPerURI {
				t.Errorf("%v, slow answer %d: %+v; want slow-answer, per-URI-R", svc, i, o)
			}
		}
	}
	if st := ag.Stats()[0]; !st.DormantUntil.IsZero() {
		t.Fatalf("slow answers put the archive to sleep: %+v", st)
	}
	for i := range 2 {
		res, err := ag.Search(t.Context(), TimeMapDynamic, fmt.Sprintf("http://%d.silent.example/", i), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if o := res.Outcomes[0]; o.Reason != ReasonTimeout || o.Class != ClassDown {
			t.Errorf("no response: %+v, want timeout, down", o)
		}
	}
	if st := ag.Stats()[0]; st.DormantUntil.IsZero() {
		t.Errorf("an archive that sends no response did not go to sleep: %+v", st)
	}
}
