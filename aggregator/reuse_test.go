package aggregator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// countingClient is an HTTP client whose transport counts the TCP
// connections it opens.
func countingClient(dials *atomic.Int64) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	return &http.Client{Transport: &http.Transport{
		MaxIdleConnsPerHost: 4,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dials.Add(1)
			return d.DialContext(ctx, network, addr)
		},
	}}
}

// A "not found" or a failure status with a short body must leave the
// connection reusable: net/http keeps a connection only when the body was
// read to its end (the bench saw 2 new connections per client request).
func TestUpstreamReusesConnections(t *testing.T) {
	held := "http://example.com/"
	hold := map[string][]time.Time{held: times(t, "20100101000000")}
	for _, tc := range []struct {
		name   string
		cfg    archivetest.Config
		gate   bool
		urir   string
		wantNF bool // ErrNotFound rather than a failure
	}{
		{name: "timemap-404", cfg: archivetest.Config{Holdings: hold}, urir: "http://not.held/", wantNF: true},
		{name: "timegate-404", cfg: archivetest.Config{Holdings: hold}, gate: true, urir: "http://not.held/", wantNF: true},
		{name: "timemap-503", cfg: archivetest.Config{Holdings: hold, Fault: archivetest.FaultStatus}, urir: held},
		{name: "timegate-503", cfg: archivetest.Config{Holdings: hold, Fault: archivetest.FaultStatus}, gate: true, urir: held},
		{name: "timemap-html", cfg: archivetest.Config{Holdings: hold, Fault: archivetest.FaultWrongContentType}, urir: held},
		{name: "timemap-200", cfg: archivetest.Config{Holdings: hold}, urir: held},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newArchive(t, tc.cfg)
			var dials atomic.Int64
			up := &HTTPUpstream{Client: countingClient(&dials)}
			ar := entry("a", a)
			const n = 10
			for range n {
				var err error
				if tc.gate {
					_, _, err = up.TimeGate(t.Context(), &ar, tc.urir, time.Time{})
				} else {
					_, _, err = up.TimeMap(t.Context(), &ar, tc.urir)
				}
				if nf := errors.Is(err, ErrNotFound); nf != tc.wantNF {
					t.Fatalf("err = %v, want not-found %v", err, tc.wantNF)
				}
				if tc.name == "timemap-200" && err != nil {
					t.Fatal(err)
				}
			}
			if got := dials.Load(); got != 1 {
				t.Errorf("%d sequential requests opened %d connections, want 1", n, got)
			}
		})
	}
}

// With Options.HTTPClient nil, the aggregator's own client keeps enough
// idle connections per archive for a concurrent load, and the default
// per-archive limit lets that load through (net/http's default transport
// kept 2 idle connections, and DefaultMaxConcurrent was 8).
func TestDefaultClientUnderConcurrentLoad(t *testing.T) {
	a := newArchive(t, archivetest.Config{Latency: 200 * time.Millisecond})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}})
	const n = 40
	wave := func(w int) {
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				urir := fmt.Sprintf("http://wave%d.example/%d", w, i)
				r, err := ag.Search(t.Context(), TimeMapDynamic, urir, time.Time{})
				if err != nil {
					t.Error(err)
					return
				}
				if got := outcomeSummary(r)["a"]; got != "none" {
					t.Errorf("%s: outcome %s, want none", urir, got)
				}
			})
		}
		wg.Wait()
	}
	wave(1)
	if p := a.PeakInFlight(); p <= 8 {
		t.Errorf("peak requests in flight at the archive = %d, want more than 8 of %d", p, n)
	}
	before := a.Conns()
	wave(2)
	if opened := a.Conns() - before; opened >= 10 {
		t.Errorf("second wave of %d concurrent requests opened %d new connections (first wave: %d)", n, opened, before)
	}
}
