package aggregator

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

func benchMementos(n, archives int) []memento.Memento {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := make([]memento.Memento, n)
	for i := range ms {
		dt := time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.IntN(900_000_000)) * time.Second)
		a := fmt.Sprintf("arc%d", rng.IntN(archives))
		ms[i] = memento.Memento{URIM: "http://" + a + ".example/web/" + dt.Format("20060102150405") + "/http://example.com/", Datetime: dt, Archive: a}
	}
	return ms
}

// BenchmarkMerge: sorting and de-duplicating 10,000 mementos from 5 archives.
func BenchmarkMerge(b *testing.B) {
	in := benchMementos(10_000, 5)
	size := 0
	for _, m := range in {
		size += len(m.URIM) + 8
	}
	rank := func(id string) int { return int(id[3] - '0') }
	buf := make([]memento.Memento, len(in))
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		copy(buf, in)
		merge(buf, rank)
	}
}

// BenchmarkHandlerTimeMapFromCache: a 2,000-memento link-format TimeMap
// served from the in-memory cache (no upstream request).
func BenchmarkHandlerTimeMapFromCache(b *testing.B) {
	f := newFake()
	urir := "http://example.com/"
	ms := benchMementos(2000, 1)
	for i := range ms {
		ms[i].Archive = ""
	}
	f.holdings["arc0"] = map[string][]memento.Memento{urir: ms}
	ag := newAggregator(b, Options{Archives: []Archive{{ID: "arc0", TimeMap: "http://arc0/"}}, Upstream: f, Cache: newMemCache(b)})
	h := ag.Handler()
	req := httptest.NewRequest("GET", "/timemap/link/"+urir, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req) // fills the cache
	if rec.Code != 200 {
		b.Fatalf("status %d", rec.Code)
	}
	b.ReportAllocs()
	b.SetBytes(int64(rec.Body.Len()))
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
	if f.count("arc0") != 1 {
		b.Fatalf("%d upstream requests, want 1", f.count("arc0"))
	}
}

// BenchmarkRoute: routing one URI-R over 20 archives with map lookups.
func BenchmarkRoute(b *testing.B) {
	var archives []Archive
	for i := range 20 {
		archives = append(archives, Archive{ID: fmt.Sprintf("a%d", i), TimeMap: "http://a/"})
	}
	ag := newAggregator(b, Options{Archives: archives, Upstream: newFake()})
	for i := range 20 {
		_ = ag.SetMap(fmt.Sprintf("a%d", i), MapLookupFunc(func(string) (int64, error) { return int64(i % 2), nil }), nil, time.Now())
	}
	urir := "http://example.com/some/page.html"
	b.ReportAllocs()
	b.SetBytes(int64(len(urir)))
	for b.Loop() {
		_ = ag.Route(TimeMapCache, urir)
	}
}

// BenchmarkSearchFanOut: one thorough search over 8 in-process archives
// (fake upstream: the aggregator's own overhead).
func BenchmarkSearchFanOut(b *testing.B) {
	f := newFake()
	var archives []Archive
	for i := range 8 {
		id := fmt.Sprintf("arc%d", i)
		archives = append(archives, Archive{ID: id, TimeMap: "http://" + id + "/"})
		f.holdings[id] = map[string][]memento.Memento{"http://example.com/": benchMementos(100, 1)}
	}
	ag := newAggregator(b, Options{Archives: archives, Upstream: f})
	b.ReportAllocs()
	b.SetBytes(800 * 60)
	for b.Loop() {
		if _, err := ag.Search(context.Background(), TimeMapCache, "http://example.com/", time.Time{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRouteMementoMaps: routing one URI-R over 8 archives whose maps
// (5,000 keys each, mmapped) are looked up: canonicalization plus a binary
// search per archive and lookup key.
func BenchmarkRouteMementoMaps(b *testing.B) {
	dir := b.TempDir()
	var archives []Archive
	for i := range 8 {
		archives = append(archives, Archive{ID: fmt.Sprintf("a%d", i), TimeMap: "http://a/"})
	}
	ag := newAggregator(b, Options{Archives: archives, Upstream: newFake()})
	for i := range 8 {
		lines := map[string]string{}
		for k := range 5000 {
			lines[fmt.Sprintf("com,site%05d)/page/%d", (k*7+i)%20000, k%13)] = "3"
		}
		m, closer, err := OpenMementoMap(writeMap(b, dir, fmt.Sprintf("a%d.map", i), lines))
		if err != nil {
			b.Fatal(err)
		}
		if err := ag.SetMap(fmt.Sprintf("a%d", i), m, closer, time.Now()); err != nil {
			b.Fatal(err)
		}
	}
	urir := "http://www.site00042.com/page/3?utm=x"
	b.ReportAllocs()
	b.SetBytes(int64(len(urir)))
	for b.Loop() {
		_ = ag.Route(TimeMapCache, urir)
	}
}

// BenchmarkMergeArchiveLists: merging what a search collects from 3
// archives of 1,000 mementos each, every list sorted by its archive (the
// bench program's large TimeMaps).
func BenchmarkMergeArchiveLists(b *testing.B) {
	var in []memento.Memento
	for a := range 3 {
		ms := benchMementos(1000, 1)
		for i := range ms {
			ms[i].Archive = fmt.Sprintf("arc%d", a)
		}
		slices.SortFunc(ms, func(x, y memento.Memento) int { return x.Datetime.Compare(y.Datetime) })
		in = append(in, ms...)
	}
	size := 0
	for _, m := range in {
		size += len(m.URIM) + 8
	}
	rank := func(id string) int { return int(id[3] - '0') }
	buf := make([]memento.Memento, len(in))
	b.ReportAllocs()
	b.SetBytes(int64(size))
	for b.Loop() {
		copy(buf, in)
		merge(buf, rank)
	}
}

// BenchmarkMergeLists: the merge a search makes of 3 archives' answers
// of 1,000 mementos each, every list sorted (mergeLists, the large
// TimeMaps of the bench program): one pass over the three heads into one
// slice of 3,000.
func BenchmarkMergeLists(b *testing.B) {
	var lists [][]memento.Memento
	size := 0
	for a := range 3 {
		ms := benchMementos(1000, 1)
		for i := range ms {
			ms[i].Archive = fmt.Sprintf("arc%d", a)
			ms[i].URIM = strings.Replace(ms[i].URIM, "arc0", ms[i].Archive, 1)
			ms[i].Datetime = ms[i].Datetime.Add(time.Duration(a) * time.Hour)
			size += len(ms[i].URIM) + 8
		}
		slices.SortFunc(ms, func(x, y memento.Memento) int { return x.Datetime.Compare(y.Datetime) })
		lists = append(lists, ms)
	}
	rank := func(id string) int { return int(id[3] - '0') }
	b.ReportAllocs()
	b.SetBytes(int64(size))
	cpu0 := cpuTime()
	for b.Loop() {
		if out := mergeLists(lists, rank); len(out) != 3000 {
			b.Fatalf("%d mementos", len(out))
		}
	}
	reportCPU(b, cpu0)
}

// reportCPU reports the process's CPU time (user + system, getrusage)
// since cpu0 per operation as cpu-ns/op: on a shared machine the figure
// that other load disturbs least (ns/op is wall time).
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cannedTransport answers every request with 200 and body, without a
// network.
type cannedTransport struct{ body []byte }

func (c cannedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/link-format"}},
		Body: io.NopCloser(bytes.NewReader(c.body)), ContentLength: int64(len(c.body)), Request: req}, nil
}

// cannedTimeMap is a TimeMap of n mementos of urir in the Wayback layout
// of archive host arc, 7 hours apart.
func cannedTimeMap(arc, urir string, n int, offset time.Duration) []byte {
	var body bytes.Buffer
	fmt.Fprintf(&body, "<%s>; rel=\"original\",\n<http://%s/timegate/%s>; rel=\"timegate\",\n<http://%s/timemap/link/%s>; rel=\"self\"; type=\"application/link-format\",\n", urir, arc, urir, arc, urir)
	t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Add(offset)
	for i := range n {
		t := t0.Add(time.Duration(i) * 7 * time.Hour)
		sep := ",\n"
		if i == n-1 {
			sep = "\n"
		}
		fmt.Fprintf(&body, "<http://%s/web/%s/%s>; rel=\"memento\"; datetime=\"%s\"%s", arc, t.Format("20060102150405"), urir, t.Format(http.TimeFormat), sep)
	}
	return body.Bytes()
}

// BenchmarkHTTPUpstreamTimeMap: reading one archive's 1,000-memento
// TimeMap (Wayback layout) from a canned response: link-format parsing
// and datetime reading, no network.
func BenchmarkHTTPUpstreamTimeMap(b *testing.B) {
	urir := "http://www.site042.com/page/42.html"
	body := cannedTimeMap("arc", urir, 1000, 0)
	up := &HTTPUpstream{Client: &http.Client{Transport: cannedTransport{body}}}
	a := &Archive{ID: "arc", TimeMap: "http://arc/timemap/link/"}
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		ms, _, err := up.TimeMap(context.Background(), a, urir)
		if err != nil || len(ms) != 1000 {
			b.Fatalf("%d mementos, %v", len(ms), err)
		}
	}
}

// hostTransport answers each host with its own canned body.
type hostTransport map[string][]byte

func (h hostTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return cannedTransport{h[req.URL.Host]}.RoundTrip(req)
}

// BenchmarkHandlerLargeTimeMapUncached: one uncached link-format TimeMap
// request over 3 archives of 1,000 mementos each (canned responses, no
// network): 3 TimeMaps parsed, merged into 3,000 mementos, written.
func BenchmarkHandlerLargeTimeMapUncached(b *testing.B) {
	urir := "http://www.site042.com/page/42.html"
	tr := hostTransport{}
	var archives []Archive
	for i := range 3 {
		arc := fmt.Sprintf("arc%d", i)
		tr[arc] = cannedTimeMap(arc, urir, 1000, time.Duration(i)*time.Hour)
		archives = append(archives, Archive{ID: arc, TimeMap: "http://" + arc + "/timemap/link/"})
	}
	ag := newAggregator(b, Options{Archives: archives, HTTPClient: &http.Client{Transport: tr}})
	h := ag.Handler()
	req := httptest.NewRequest("GET", "/timemap/link/"+urir, nil)
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
		b.SetBytes(int64(rec.Body.Len()))
	}
	reportCPU(b, cpu0)
}

// statusTransport answers each host with its own status and body.
type statusTransport map[string]struct {
	status int
	body   []byte
}

func (s statusTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	a := s[req.URL.Host]
	return &http.Response{StatusCode: a.status, Header: http.Header{"Content-Type": {"application/link-format"}},
		Body: io.NopCloser(bytes.NewReader(a.body)), ContentLength: int64(len(a.body)), Request: req}, nil
}

// BenchmarkHandlerTimeMapUncached: one uncached link-format TimeMap
// request over 3 archives, one holding the URI-R with 10 mementos, two
// answering 404 (canned responses, no network): the bench program's small
// uncached fan-out, the aggregator's own work per fan-out.
func BenchmarkHandlerTimeMapUncached(b *testing.B) {
	urir := "http://www.site042.com/page/42.html"
	tr := statusTransport{}
	var archives []Archive
	for i := range 3 {
		arc := fmt.Sprintf("arc%d", i)
		if i == 0 {
			tr[arc] = struct {
				status int
				body   []byte
			}{200, cannedTimeMap(arc, urir, 10, 0)}
		} else {
			tr[arc] = struct {
				status int
				body   []byte
			}{404, []byte("Not found\n")}
		}
		archives = append(archives, Archive{ID: arc, TimeMap: "http://" + arc + "/timemap/link/"})
	}
	ag := newAggregator(b, Options{Archives: archives, HTTPClient: &http.Client{Transport: tr}})
	h := ag.Handler()
	req := httptest.NewRequest("GET", "/timemap/link/"+urir, nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
	}
}

// BenchmarkWriteLink: writing a link-format TimeMap of 3,000 mementos,
// 2 hours apart (Wayback layout URI-Ms), into a reused buffer.
func BenchmarkWriteLink(b *testing.B) {
	var ms []memento.Memento
	t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3000 {
		t := t0.Add(time.Duration(i) * 2 * time.Hour)
		ms = append(ms, memento.Memento{URIM: "http://127.0.0.1:34567/web/" + t.Format("20060102150405") + "/http://www.site042.com/page/42.html", Datetime: t, Archive: "a1"})
	}
	h := handler{ag: newAggregator(b, Options{Archives: []Archive{{ID: "a1", TimeMap: "http://a1/"}}})}
	var buf bytes.Buffer
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		buf.Reset()
		h.writeLink(&buf, "http://www.site042.com/page/42.html", ms)
	}
	b.SetBytes(int64(buf.Len()))
	reportCPU(b, cpu0)
}
