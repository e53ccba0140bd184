package aggregator

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// TestUpstreamsKeepMementosBeforeBadBody: a 127.0.0.1 TimeMap whose link
// format cannot be read on after three well-formed memento links and one
// without a datetime (an unterminated '<' at its end) gives, through
// HTTPUpstream and ClientUpstream alike, the three mementos with a
// bad-body failure: 200, Archive-Failures "a=bad-body", X-Memento-Count
// 3, and an Outcome that keeps 3 and counts the undated link as dropped.
func TestUpstreamsKeepMementosBeforeBadBody(t *testing.T) {
	body := func(w http.ResponseWriter, r *http.Request, urir string) {
		w.Header().Set("Content-Type", "application/link-format")
		fmt.Fprintf(w, "<%s>; rel=\"original\",\n", urir)
		for i := range 3 {
			fmt.Fprintf(w, "<http://%s/web/2001010%d000000/%s>; rel=\"memento\"; datetime=\"Mon, 0%d Jan 2001 00:00:00 GMT\",\n", r.Host, i+1, urir, i+1)
		}
		fmt.Fprintf(w, "<http://%s/web/undated/%s>; rel=\"memento\",\n", r.Host, urir)
		fmt.Fprintf(w, "<http://%s/web/20010105000000/%s; rel=\"memento\"; datetime=\"Fri, 05 Jan 2001 00:00:00 GMT\"", r.Host, urir)
	}
	for name, up := range map[string]Upstream{"HTTPUpstream": nil, "ClientUpstream": &ClientUpstream{Client: &memento.Client{}}} {
		t.Run(name, func(t *testing.T) {
			a := newAnsweringArchive(t, body)
			ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, Upstream: up, Tolerance: 2})
			resp, text := do(t, ag.Handler(), http.MethodGet, "/timemap/link/http://r.example/")
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Archive-Failures") != "a=bad-body" || resp.Header.Get("X-Memento-Count") != "3" {
				t.Errorf("%d, Archive-Failures %q, X-Memento-Count %q; want 200, a=bad-body, 3\n%s",
					resp.StatusCode, resp.Header.Get("Archive-Failures"), resp.Header.Get("X-Memento-Count"), text)
			}
			res, err := ag.Search(t.Context(), TimeMapCache, "http://s.example/", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			o := res.Outcomes[0]
			if len(res.Mementos) != 3 || o.Status != StatusFailed || o.Reason != ReasonBadBody || o.Mementos != 3 || o.Dropped != 1 || res.Complete() {
				t.Errorf("Search: %d mementos, outcome %+v, complete %v; want 3, failed bad-body keeping 3 with 1 dropped, not complete", len(res.Mementos), o, res.Complete())
			}
		})
	}
}
