package aggregator

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// hugeLink is a Link header of n memento links, about 100 bytes each.
func hugeLink(base string, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `<%s/web/%d/http://huge.example/>; rel="memento"; datetime="%s"`, base, i,
			time.Unix(1e9+int64(i), 0).UTC().Format(http.TimeFormat))
	}
	return b.String()
}

// A TimeGate answer's headers are capped as TimeMap bodies are: a Link
// header past DefaultMaxHeaderBytes is a too-large failure of that URI-R
// (never read past the cap by the aggregator's transports, never putting
// the archive to sleep), for both upstreams; and a caller's own client
// with a larger transport limit still gets HTTPUpstream.MaxHeaderBytes.
func TestTimeGateHeadersAreCapped(t *testing.T) {
	a := newAnsweringArchive(t, nil)
	ok := wellBehaved(a.URL)
	huge := hugeLink(a.URL, DefaultMaxHeaderBytes/100+2000) // past 1 MiB
	big := hugeLink(a.URL, 2000)                            // about 200 KiB
	a.set(func(w http.ResponseWriter, r *http.Request, urir string) {
		link := huge
		switch {
		case strings.Contains(urir, "big.example"):
			link = big
		case !strings.Contains(urir, "huge.example"):
			ok(w, r, urir)
			return
		}
		w.Header().Set("Vary", "accept-datetime")
		w.Header().Set("Location", a.URL+"/web/1/http://huge.example/")
		w.Header().Set("Link", link)
		if strings.HasPrefix(r.RequestURI, "/timemap/") {
			w.Header().Set("Content-Type", "application/link-format")
			w.WriteHeader(http.StatusOK)
			return
		}
		w.WriteHeader(http.StatusFound)
	})
	const small = 64 << 10
	cases := []struct {
		name, host string
		o          Options
	}{
		{"default", "huge.example", Options{}},
		{"Options.MaxHeaderBytes", "big.example", Options{MaxHeaderBytes: small}},
		{"ClientUpstream", "big.example", Options{Upstream: &ClientUpstream{Client: &memento.Client{
			HTTP: &http.Client{Transport: &http.Transport{MaxResponseHeaderBytes: small}}}}}},
		// A caller's client whose transport reads up to net/http's 10 MB:
		// the cap is checked on what it read.
		{"own client", "big.example", Options{Upstream: &HTTPUpstream{Client: &http.Client{Transport: &http.Transport{}}, MaxHeaderBytes: small}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			o.Archives = []Archive{a.entry("a")}
			o.Tolerance, o.DormantFor, o.RequestTimeout = 1, time.Hour, time.Minute
			ag := newAggregator(t, o)
			for _, svc := range []Service{TimeGateDynamic, TimeMapDynamic} {
				res, err := ag.Search(t.Context(), svc, "http://"+tc.host+"/"+string(svc), time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				if o := res.Outcomes[0]; o.Status != StatusFailed || o.Reason != ReasonTooLarge || o.Class != ClassPerURI {
					t.Errorf("%s: %+v; want a too-large failure of that URI-R", svc, o)
				}
			}
			res, err := ag.Search(t.Context(), TimeGateDynamic, "http://fine.example/", time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if o := res.Outcomes[0]; o.Status != StatusFound {
				t.Errorf("after the huge headers, a usual URI-R (the archive asleep?): %+v", o)
			}
		})
	}
}
