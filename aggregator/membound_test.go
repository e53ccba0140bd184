package aggregator

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// bigArchive serves, on 127.0.0.1, TimeMaps generated while they are
// written (never held in memory): for every URI-R a TimeMap of pages
// pages, each pageBytes long (a line past it), page k linking to page
// k+1 with rel="timemap"; every memento has a datetime of its own, so
// that none is merged away. It counts the body bytes it wrote.
type bigArchive struct {
	*httptest.Server
	pages     int
	pageBytes int64

	mu      sync.Mutex
	written int64
}

func newBigArchive(t *testing.T, pages int, pageBytes int64) *bigArchive {
	t.Helper()
	a := &bigArchive{pages: pages, pageBytes: pageBytes}
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *bigArchive) serve(w http.ResponseWriter, r *http.Request) {
	// /tm/{URI-R} is page 1, /pg/{k}/{URI-R} page k.
	page, urir := 1, strings.TrimPrefix(r.RequestURI, "/tm/")
	if rest, ok := strings.CutPrefix(r.RequestURI, "/pg/"); ok {
		k, u, _ := strings.Cut(rest, "/")
		page, _ = strconv.Atoi(k)
		urir = u
	}
	w.Header().Set("Content-Type", "application/link-format")
	buf := make([]byte, 0, 64<<10)
	buf = fmt.Appendf(buf, "<%s>; rel=\"original\",\n", urir)
	if page < a.pages {
		buf = fmt.Appendf(buf, "<%s/pg/%d/%s>; rel=\"timemap\"; type=\"application/link-format\",\n", a.URL, page+1, urir)
	}
	prefix := "<" + a.URL + "/web/"
	t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(page) * 1000 * time.Hour)
	var n int64
	for i := 0; n < a.pageBytes; i++ {
		d := t0.Add(time.Duration(i) * time.Second)
		start := len(buf)
		buf = append(buf, prefix...)
		buf = d.AppendFormat(buf, "20060102150405")
		buf = append(buf, '/')
		buf = append(buf, urir...)
		buf = append(buf, `>; rel="memento"; datetime="`...)
		buf = d.AppendFormat(buf, http.TimeFormat)
		buf = append(buf, "\",\n"...)
		n += int64(len(buf) - start)
		if len(buf) > 60<<10 {
			if !a.write(w, buf) {
				return
			}
			buf = buf[:0]
		}
	}
	a.write(w, buf)
}

func (a *bigArchive) write(w io.Writer, b []byte) bool {
	k, err := w.Write(b)
	a.mu.Lock()
	a.written += int64(k)
	a.mu.Unlock()
	return err == nil
}

// heapInUse is the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestBodyCapBoundsMemory: upstream TimeMaps far larger than
// MaxBodyBytes (1 MiB), one body of 256 MiB, or 100 pages each under the
// cap (75 caps in all), are read only up to MaxBodyBytes per archive answer
// (all pages together), refused past it (too-large in Archive-Failures,
// the mementos read before the cut kept), and what a request allocates,
// and what stays in the heap after it, is bounded by a multiple of
// MaxBodyBytes, not by the upstream's size. Four requests run at once
// through a real server, over a memory cache, each asked twice (the
// second from the cache).
func TestBodyCapBoundsMemory(t *testing.T) {
	const maxBody = 1 << 20
	const clients = 4
	for _, tc := range []struct {
		name      string
		pages     int
		pageBytes int64
	}{
		{"one 256 MiB body", 1, 256 << 20},
		{"100 pages of 768 KiB", 100, 768 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newBigArchive(t, tc.pages, tc.pageBytes)
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "big", TimeMap: a.URL + "/tm/"}}, Cache: newMemCache(t), MaxBodyBytes: maxBody,
				RequestTimeout: 10 * time.Minute, DynamicBudget: 10 * time.Minute, ThoroughBudget: 10 * time.Minute})
			srv := httptest.NewServer(ag.Handler())
			t.Cleanup(srv.Close)
			get := func(i int) (int, string, int, int64) {
				resp, err := http.Get(fmt.Sprintf("%s/timemap/link/http://big%d.example/", srv.URL, i))
				if err != nil {
					t.Error(err)
					return 0, "", 0, 0
				}
				defer resp.Body.Close()
				n, err := io.Copy(io.Discard, resp.Body)
				if err != nil {
					t.Error(err)
				}
				count, _ := strconv.Atoi(resp.Header.Get("X-Memento-Count"))
				return resp.StatusCode, resp.Header.Get("Archive-Failures"), count, n
			}
			base := heapInUse()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			for round := range 2 {
				var wg sync.WaitGroup
				for i := range clients {
					wg.Go(func() {
						code, failures, count, n := get(i)
						// A memento line is over 100 bytes: at most maxBody/100 of them.
						if code != 200 || failures != "big=too-large" || count < 1000 || count > maxBody/100 {
							t.Errorf("round %d, URI-R %d: %d Archive-Failures %q, %d mementos (%d bytes), want 200, big=too-large, 1000 to %d mementos",
								round, i, code, failures, count, n, maxBody/100)
						}
					})
				}
				wg.Wait()
			}
			runtime.ReadMemStats(&m1)
			perRequest := (m1.TotalAlloc - m0.TotalAlloc) / (2 * clients)
			kept := int64(heapInUse()) - int64(base)
			a.mu.Lock()
			written := a.written
			a.mu.Unlock()
			t.Logf("MaxBodyBytes %d: allocated %d MiB per request, %d MiB kept in the heap for %d URI-Rs; the archive wrote %d MiB",
				maxBody, perRequest>>20, kept>>20, clients, written>>20)
			if limit := uint64(24 * maxBody); perRequest > limit {
				t.Errorf("allocated %d bytes per request, over 24 × MaxBodyBytes (%d)", perRequest, limit)
			}
			if limit := int64(clients * 6 * maxBody); kept > limit {
				t.Errorf("%d bytes stay in the heap after %d URI-Rs, over %d × 6 × MaxBodyBytes (%d)", kept, clients, clients, limit)
			}
		})
	}
}
