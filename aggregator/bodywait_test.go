package aggregator

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// sizedArchive serves, on 127.0.0.1, for every URI-R a link-format
// TimeMap of about size bytes with its Content-Length, mementos a second
// apart.
func sizedArchive(t *testing.T, size int) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		urir := strings.TrimPrefix(r.RequestURI, "/tm/")
		b := fmt.Appendf(nil, "<%s>; rel=\"original\",\n", urir)
		t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; len(b) < size; i++ {
			d := t0.Add(time.Duration(i) * time.Second)
			b = fmt.Appendf(b, "<%s/web/%s/%s>; rel=\"memento\"; datetime=\"%s\",\n", srv.URL, d.Format("20060102150405"), urir, d.Format(http.TimeFormat))
		}
		w.Header().Set("Content-Type", "application/link-format")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		_, _ = w.Write(b)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestBodyMemoryTakesTurns: with a body memory budget of 4 MiB, six
// requests sent at once for URI-Rs whose 127.0.0.1 archive answers 3 MiB
// each (chunked, of unknown length; and with a Content-Length) cannot be
// read together: each waits for its share and all six get their whole
// TimeMap (200, no Archive-Failures, over 25,000 mementos), no
// reservation is refused, the budget's peak stays within its limit, and
// every byte is given back.
func TestBodyMemoryTakesTurns(t *testing.T) {
	const limit = 4 << 20
	for _, tc := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"chunked", func(t *testing.T) string { return newGatedArchive(t, 3<<20, 0).URL }},
		{"content-length", func(t *testing.T) string { return sizedArchive(t, 3<<20).URL }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "big", TimeMap: tc.url(t) + "/tm/"}},
				BodyMemory: limit, BodyMemoryWait: 5 * time.Minute, MaxBodyBytes: 8 << 20, Tolerance: 1,
				RequestTimeout: 10 * time.Minute, DynamicBudget: 10 * time.Minute, ThoroughBudget: 10 * time.Minute})
			srv := httptest.NewServer(ag.Handler())
			t.Cleanup(srv.Close)
			var wg sync.WaitGroup
			for i := range 6 {
				wg.Go(func() {
					resp, err := http.Get(fmt.Sprintf("%s/timemap/link/http://turn%d.example/", srv.URL, i))
					if err != nil {
						t.Error(err)
						return
					}
					defer resp.Body.Close()
					_, err = io.Copy(io.Discard, resp.Body)
					n, _ := strconv.Atoi(resp.Header.Get("X-Memento-Count"))
					if err != nil || resp.StatusCode != 200 || resp.Header.Get("Archive-Failures") != "" || n < 25000 {
						t.Errorf("request %d: %d, Archive-Failures %q, %d mementos, %v; want 200, none, over 25,000",
							i, resp.StatusCode, resp.Header.Get("Archive-Failures"), n, err)
					}
				})
			}
			wg.Wait()
			// A client has its answer a moment before the Handler that wrote
			// it returns and lets its bytes go.
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			waitReleased(t, ctx, ag)
			m := ag.BodyMemory()
			if m.Peak > limit || m.Peak < 3<<20 || m.Held != 0 || m.Busy != 0 || m.OverBudget != 0 {
				t.Errorf("body memory %+v: want a peak of 3 MiB to the limit of %d, nothing held, no refusal", m, limit)
			}
		})
	}
}

// waitReleased waits until ag's searches hold no body bytes, failing the
// test if ctx ends first.
func waitReleased(t *testing.T, ctx context.Context, ag *Aggregator) {
	t.Helper()
	for ag.BodyMemory().Held != 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("the searches still hold %d body bytes", ag.BodyMemory().Held)
		case <-time.After(time.Millisecond):
		}
	}
}

// blockedWriter is an http.ResponseWriter whose first Write reports on
// writing and then waits until release is closed.
type blockedWriter struct {
	h                http.Header
	code             int
	once             sync.Once
	writing, release chan struct{}
}

func (w *blockedWriter) Header() http.Header { return w.h }
func (w *blockedWriter) WriteHeader(c int)   { w.code = c }
func (w *blockedWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.writing); <-w.release })
	return len(p), nil
}

// TestBodyMemoryHeldWhileWriting: the body bytes of a search stay held
// while the Handler writes its answer (the TimeMap, which holds the
// body's URI-Ms), and go back once the answer is written.
func TestBodyMemoryHeldWhileWriting(t *testing.T) {
	a := sizedArchive(t, 2<<20)
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "big", TimeMap: a.URL + "/tm/"}}, BodyMemory: 8 << 20})
	w := &blockedWriter{h: http.Header{}, writing: make(chan struct{}), release: make(chan struct{})}
	served := make(chan struct{})
	go func() {
		defer close(served)
		ag.Handler().ServeHTTP(w, httptest.NewRequest("GET", "/timemap/link/http://held.example/", nil))
	}()
	select {
	case <-w.writing:
	case <-time.After(time.Minute):
		t.Fatal("no answer written within a minute")
	}
	if held := ag.BodyMemory().Held; held < 2<<20 {
		t.Errorf("while the answer is written the search holds %d body bytes, want its body's 2 MiB", held)
	}
	close(w.release)
	<-served
	if m := ag.BodyMemory(); w.code != 200 || m.Held != 0 {
		t.Errorf("answer %d, body memory %+v after it: want 200 and nothing held", w.code, m)
	}
}

// TestBodyMemoryBodyOverBudget: a body whose Content-Length (3 MiB) is
// more than the whole budget (2 MiB) is not read: the sole archive's
// answer fails with over-memory-budget, the request is a 502 whose
// Archive-Failures and headline name the archive, nothing is held after.
func TestBodyMemoryBodyOverBudget(t *testing.T) {
	a := sizedArchive(t, 3<<20)
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "huge", TimeMap: a.URL + "/tm/"}}, BodyMemory: 2 << 20, Tolerance: 1})
	srv := httptest.NewServer(ag.Handler())
	t.Cleanup(srv.Close)
	resp, err := http.Get(srv.URL + "/timemap/link/http://over.example/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "Every asked archive failed for http://over.example/ (1 archive failed: huge=over-memory-budget)\n"
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Archive-Failures") != "huge=over-memory-budget" || string(b) != want {
		t.Errorf("%d, Archive-Failures %q, %q; want 502, huge=over-memory-budget, %q", resp.StatusCode, resp.Header.Get("Archive-Failures"), b, want)
	}
	res, err := ag.Search(context.Background(), TimeMapCache, "http://over2.example/", time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if f := res.Failures(); len(f) != 1 || f[0].Archive != "huge" || !strings.Contains(f[0].Err.Error(), "huge") || !strings.Contains(f[0].Err.Error(), "memory budget") {
		t.Errorf("Search failures %+v: want one of archive huge whose error names it and the memory budget", f)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	waitReleased(t, ctx, ag)
	if m := ag.BodyMemory(); m.Held != 0 || m.Peak != 0 || m.OverBudget != 2 {
		t.Errorf("body memory %+v: want nothing held, nothing ever held, 2 over budget", m)
	}
}
