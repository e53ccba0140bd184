package aggregator

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pagedTimeMap is a TimeMap of urir at archive host arc in pages pages of
// perPage mementos each (Wayback layout, 7 hours apart, pages in time
// order), page k linking to page k+1 with rel="timemap"; it returns the
// bodies by URL and the bytes of all pages.
func pagedTimeMap(arc, urir string, pages, perPage int, offset time.Duration) (map[string][]byte, int64) {
	out := map[string][]byte{}
	var total int64
	for p := range pages {
		var b strings.Builder
		fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", urir)
		if p+1 < pages {
			fmt.Fprintf(&b, "<http://%s/page/%d/%s>; rel=\"timemap\"; type=\"application/link-format\",\n", arc, p+2, urir)
		}
		t0 := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Add(offset).Add(time.Duration(p*perPage) * 7 * time.Hour)
		for i := range perPage {
			t := t0.Add(time.Duration(i) * 7 * time.Hour)
			sep := ",\n"
			if i == perPage-1 {
				sep = "\n"
			}
			fmt.Fprintf(&b, "<http://%s/web/%s/%s>; rel=\"memento\"; datetime=\"%s\"%s", arc, t.Format("20060102150405"), urir, t.Format(http.TimeFormat), sep)
		}
		u := fmt.Sprintf("http://%s/page/%d/%s", arc, p+1, urir)
		if p == 0 {
			u = "http://" + arc + "/timemap/link/" + urir
		}
		out[u] = []byte(b.String())
		total += int64(b.Len())
	}
	return out, total
}

// urlTransport answers each URL with its own canned body, 404 for others.
type urlTransport map[string][]byte

func (u urlTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if body, ok := u[req.URL.String()]; ok {
		return cannedTransport{body}.RoundTrip(req)
	}
	return statusTransport{req.URL.Host: {404, []byte("Not found\n")}}.RoundTrip(req)
}

// BenchmarkSearchBodyAlloc: what one uncached TimeMap search allocates per
// upstream body byte (B/body-byte, allocs/body-MiB), canned responses
// without a network, bodies without Content-Length as a chunked answer
// is read: one archive with one 8 MiB page (past the 4 MiB in-memory
// page of the fast path), the same cut by a MaxBodyBytes of 4 MiB (the
// mementos before the cut kept, "too-large"), one archive with 16 pages
// of 512 KiB, and three archives of 8 MiB each (merged).
func BenchmarkSearchBodyAlloc(b *testing.B) {
	urir := "http://www.site042.com/page/42.html"
	for _, tc := range []struct {
		name                     string
		archives, pages, perPage int
		maxBody                  int64
	}{
		{"1x8MiB", 1, 1, 64000, 0},
		{"1x8MiB-cut-at-4MiB", 1, 1, 64000, 4 << 20},
		{"16x512KiB", 1, 16, 4000, 0},
		{"3x8MiB", 3, 1, 64000, 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tr := urlTransport{}
			var archives []Archive
			var body int64
			for i := range tc.archives {
				arc := fmt.Sprintf("arc%d", i)
				pages, n := pagedTimeMap(arc, urir, tc.pages, tc.perPage, time.Duration(i)*time.Hour)
				for u, p := range pages {
					tr[u] = p
				}
				body += n
				archives = append(archives, Archive{ID: arc, TimeMap: "http://" + arc + "/timemap/link/"})
			}
			ag := newAggregator(b, Options{Archives: archives, HTTPClient: &http.Client{Transport: noLength{tr}},
				ThoroughBudget: 10 * time.Minute, RequestTimeout: 10 * time.Minute, MaxBodyBytes: tc.maxBody})
			want := tc.archives * tc.pages * tc.perPage
			if tc.maxBody > 0 {
				want = int(int64(want) * tc.maxBody / body) // about: the mementos before the cut
				body = tc.maxBody
			}
			b.SetBytes(body)
			b.ReportAllocs()
			var m0, m1 runtime.MemStats
			runtime.ReadMemStats(&m0)
			n := 0
			for b.Loop() {
				res, err := ag.Search(context.Background(), TimeMapCache, urir, time.Time{})
				if err != nil || len(res.Mementos) < want*9/10 || len(res.Mementos) > want {
					b.Fatalf("%d mementos (want %d), %v, %s", len(res.Mementos), want, err, res.FailureHeader())
				}
				n++
			}
			runtime.ReadMemStats(&m1)
			b.ReportMetric(float64(m1.TotalAlloc-m0.TotalAlloc)/float64(body)/float64(n), "B/body-byte")
			b.ReportMetric(float64(m1.Mallocs-m0.Mallocs)/(float64(body)/(1<<20))/float64(n), "allocs/body-MiB")
		})
	}
}

// noLength hides the Content-Length of its transport's answers (as a
// chunked answer has none).
type noLength struct{ rt http.RoundTripper }

func (n noLength) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := n.rt.RoundTrip(req)
	if resp != nil {
		resp.ContentLength = -1
	}
	return resp, err
}
