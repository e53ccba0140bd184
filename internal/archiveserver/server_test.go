package archiveserver

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/timestamp"
)

// testIndex is a small index with a tie, a duplicate line, two URLs of one
// URI-R, a non-HTTP record and an unsorted order.
const testIndex = `com,example)/ 20100101000000 {"url": "http://example.com/"}
com,example)/ 20100103000000 {"url": "http://www.example.com/"}
com,example)/ 20100102000000 {"url": "http://example.com/"}
com,example)/ 20100102000000 {"url": "http://example.com/"}
com,example)/a?b=1 20200101000000 {"url": "http://example.com/a?b=1"}
- 20170306040353 {"mime": "application/warc-fields", "filename": "example.warc.gz"}
org,example)/only 20050505050505 {"url": "https://example.org/only"}
`

func mustServer(t testing.TB, o Options, index string) *Server {
	t.Helper()
	idx, _, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("test", strings.NewReader(index), nil)},
		&LoadOptions{Map: &mementomap.BuildOptions{ArchiveID: o.ID, Name: o.ID}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(context.Background(), idx, &o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestLoadIndexStats(t *testing.T) {
	_, st, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("test", strings.NewReader(testIndex), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The TimeMaps hold 5 distinct mementos; the MementoMap counts the 6
	// HTTP records, the duplicate included, as mementomap.Build does.
	want := LoadStats{Records: 7, Captures: 5, URIRs: 3, NonHTTP: 1, Duplicates: 1,
		Map: mementomap.BuildStats{Records: 7, Used: 6, NonHTTP: 1, Keys: 3, URIRs: 3, Checked: 6}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("LoadStats (-want +got):\n%s", diff)
	}
}

func TestLoadIndexErrors(t *testing.T) {
	tests := []struct {
		name, index string
		skipBad     bool
		wantLine    string // substring of the error; "" for no error
		wantBad     int64
	}{
		{"bad timestamp", "com,example)/ 2010xx {\"url\": \"http://example.com/\"}\n", false, "line 1", 0},
		{"bad line skipped", "com,example)/ 2010xx {\"url\": \"http://example.com/\"}\ncom,example)/ 20100101000000 {\"url\": \"http://example.com/\"}\n", true, "", 1},
		{"unparsable URL", "http://exa mple.com:99999/ 20100101000000 http://exa\tmple.com:99999/ text/html 200 X - 1\n", false, "line 1", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, st, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("in", strings.NewReader(tc.index), nil)}, &LoadOptions{SkipBad: tc.skipBad})
			switch {
			case tc.wantLine == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantLine != "" && (err == nil || !strings.Contains(err.Error(), tc.wantLine) || !strings.Contains(err.Error(), "in:")):
				t.Fatalf("error %v, want one naming input and %s", err, tc.wantLine)
			}
			if st.Bad != tc.wantBad {
				t.Errorf("Bad = %d, want %d", st.Bad, tc.wantBad)
			}
		})
	}
}

// TestLoadIndexReadError: a truncated gzip index stops the load with an
// error naming the input, the last good line and the byte offset.
func TestLoadIndexReadError(t *testing.T) {
	var plain bytes.Buffer
	for i := range 3000 {
		fmt.Fprintf(&plain, "com,example)/p%05d 20100101000000 {\"url\": \"http://example.com/p%05d\"}\n", i, i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	for _, skipBad := range []bool{false, true} {
		zr, err := gzip.NewReader(bytes.NewReader(gz.Bytes()[:gz.Len()/2]))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("cut.cdxj.gz", zr, nil)}, &LoadOptions{SkipBad: skipBad})
		if err == nil || !strings.Contains(err.Error(), "cut.cdxj.gz: after line ") || !strings.Contains(err.Error(), "of the decompressed input") ||
			!errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("SkipBad %v: LoadIndex = %v, want an unexpected EOF naming the input, line and offset", skipBad, err)
		}
	}
}

func TestLoadIndexParseErrorWrapped(t *testing.T) {
	in := "com,example)/ 20100101000000 {\"url\": \"http://example.com/\"}\nthree fields only\n"
	_, _, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("in", strings.NewReader(in), nil)}, nil)
	var pe *cdxj.ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v is not a *cdxj.ParseError", err)
	}
	if pe.Line != 2 {
		t.Errorf("ParseError.Line = %d, want 2", pe.Line)
	}
}

func TestLookup(t *testing.T) {
	s := mustServer(t, Options{}, testIndex)
	day := func(d int) time.Time { return time.Date(2010, 1, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name, uriR string
		want       []Capture
	}{
		{"exact", "http://example.com/", []Capture{{day(1), "http://example.com/"}, {day(2), "http://example.com/"}, {day(3), "http://www.example.com/"}}},
		{"www, port and https agree", "https://WWW.Example.com:443/", []Capture{{day(1), "http://example.com/"}, {day(2), "http://example.com/"}, {day(3), "http://www.example.com/"}}},
		{"SURT key", "com,example)/a?b=1", []Capture{{time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), "http://example.com/a?b=1"}}},
		{"query differs", "http://example.com/a?b=2", nil},
		{"absent", "http://example.net/", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Index().Lookup(tc.uriR)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Lookup(%q) (-want +got):\n%s", tc.uriR, diff)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	d := func(h int) time.Time { return time.Date(2010, 1, 1, h, 0, 0, 0, time.UTC) }
	caps := []Capture{{d(2), "a"}, {d(4), "a"}, {d(4), "b"}, {d(10), "a"}}
	tests := []struct {
		name string
		at   time.Time
		want int
	}{
		{"before first", d(0), 0},
		{"after last", d(20), 3},
		{"tie goes later", d(3), 1},
		{"nearer floor", d(5), 1},
		{"nearer ceiling", d(9), 3},
		{"exact", d(10), 3},
		{"tie between 4 and 10", d(7), 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := closest(caps, tc.at); got != tc.want {
				t.Errorf("closest(%v) = %d, want %d", tc.at, got, tc.want)
			}
		})
	}
}

func TestEndpoints(t *testing.T) {
	s := mustServer(t, Options{ID: "test"}, testIndex)
	ts := httptest.NewServer(s)
	defer ts.Close()
	base := ts.URL
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name, method, path, acceptDT string
		wantStatus                   int
		wantHeaders                  map[string]string // exact values; "*" means present
		wantBody                     string            // substring
	}{
		{"timemap", "GET", "/timemap/link/http://example.com/", "", 200,
			map[string]string{"Content-Type": "application/link-format", "Link": "<" + base + "/.well-known/mementomap>; rel=\"mementomap\""},
			`<` + base + `/20100103000000/http://www.example.com/>; rel="last memento"; datetime="Sun, 03 Jan 2010 00:00:00 GMT"`},
		{"timemap without scheme", "GET", "/timemap/link/example.com/", "", 200, nil, `<http://example.com/>; rel="original"`},
		{"timemap encoded URI-R", "GET", "/timemap/link/http%3A%2F%2Fexample.com%2F", "", 200, nil, `rel="first memento"`},
		{"timemap HEAD", "HEAD", "/timemap/link/http://example.com/", "", 200, map[string]string{"Content-Type": "application/link-format"}, ""},
		{"timemap absent", "GET", "/timemap/link/http://example.net/", "", 404, map[string]string{"Link": `<http://example.net/>; rel="original"`}, "no memento"},
		{"timemap bad URI-R", "GET", "/timemap/link/ftp://example.com/", "", 400, nil, "bad URI-R"},
		{"timegate latest", "GET", "/timegate/http://example.com/", "", 302,
			map[string]string{"Vary": "accept-datetime", "Location": base + "/20100103000000/http://www.example.com/"}, ""},
		{"timegate closest", "GET", "/timegate/http://example.com/", "Fri, 01 Jan 2010 13:00:00 GMT", 302,
			map[string]string{"Location": base + "/20100102000000/http://example.com/",
				"Link": `<http://example.com/>; rel="original", <` + base + `/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format", ` +
					`<` + base + `/20100101000000/http://example.com/>; rel="first prev memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT", ` +
					`<` + base + `/20100102000000/http://example.com/>; rel="memento"; datetime="Sat, 02 Jan 2010 00:00:00 GMT", ` +
					`<` + base + `/20100103000000/http://www.example.com/>; rel="next last memento"; datetime="Sun, 03 Jan 2010 00:00:00 GMT"`}, ""},
		{"timegate no GMT", "GET", "/timegate/http://example.com/", "Thu, 20 Mar 2003 19:54:39", 400, map[string]string{"Vary": "accept-datetime"}, "Accept-Datetime"},
		{"timegate ISO date", "GET", "/timegate/http://example.com/", "2010-04-01T12:00:00Z", 400, nil, ""},
		{"timegate one-digit day", "GET", "/timegate/http://example.com/", "Thu, 1 Apr 2010 12:00:00 GMT", 400, nil, ""},
		{"timegate absent", "GET", "/timegate/http://example.net/", "", 404,
			map[string]string{"Vary": "accept-datetime", "Link": `<http://example.net/>; rel="original"`}, ""},
		{"memento", "GET", "/20100102000000/http://example.com/", "", 200,
			map[string]string{"Memento-Datetime": "Sat, 02 Jan 2010 00:00:00 GMT",
				"Link": `<http://example.com/>; rel="original", <` + base + `/timegate/http://example.com/>; rel="timegate", <` + base + `/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format"`},
			"Placeholder"},
		{"memento id_", "GET", "/20100102000000id_/http://example.com/", "", 200,
			map[string]string{"Memento-Datetime": "Sat, 02 Jan 2010 00:00:00 GMT",
				"Link": `<http://example.com/>; rel="original", <` + base + `/timegate/http://example.com/>; rel="timegate", <` + base + `/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format"`},
			"Placeholder for the memento of <code>http://example.com/</code> captured Sat, 02 Jan 2010 00:00:00 GMT"},
		{"memento id_ HEAD", "HEAD", "/20100102000000id_/http://example.com/", "", 200, map[string]string{"Memento-Datetime": "Sat, 02 Jan 2010 00:00:00 GMT"}, ""},
		{"memento id_ wrong second", "GET", "/20100102000001id_/http://example.com/", "", 404, nil, "no memento"},
		{"memento other modifier", "GET", "/20100102000000im_/http://example.com/", "", 404, nil, "not found"},
		{"memento id_ without URI-R", "GET", "/20100102000000id_/", "", 404, nil, "not found"},
		{"memento wrong second", "GET", "/20100102000001/http://example.com/", "", 404, nil, "no memento"},
		{"memento bad date", "GET", "/20101302000000/http://example.com/", "", 400, nil, ""},
		{"mementomap", "GET", "/.well-known/mementomap", "", 200, map[string]string{"Content-Type": MementoMapType}, "!meta"},
		{"mementomap HEAD", "HEAD", "/.well-known/mementomap", "", 200, nil, ""},
		{"root", "GET", "/", "", 200, nil, "3 URI-Rs, 5 mementos"},
		{"unknown path", "GET", "/nothing", "", 404, nil, ""},
		{"POST", "POST", "/timemap/link/http://example.com/", "", 405, map[string]string{"Allow": "GET, HEAD"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, base+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.acceptDT != "" {
				req.Header.Set("Accept-Datetime", tc.acceptDT)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("status %d, want %d; body %q", resp.StatusCode, tc.wantStatus, body)
			}
			for k, v := range tc.wantHeaders {
				got := resp.Header.Get(k)
				if v == "*" && got == "" || v != "*" && got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
			if !strings.Contains(string(body), tc.wantBody) {
				t.Errorf("body %q lacks %q", body, tc.wantBody)
			}
			if tc.method == "HEAD" && len(body) != 0 {
				t.Errorf("HEAD body %q", body)
			}
		})
	}
	st := s.Stats()
	if st.TimeMap != 6 || st.TimeGate != 6 || st.Memento != 6 || st.MementoMap != 2 || st.BadRequest != 5 {
		t.Errorf("Stats = %+v", st)
	}
}

// The TimeMap reads back with the memento package: every capture once, in
// order, with the original and the timegate.
func TestTimeMapRoundTrip(t *testing.T) {
	s := mustServer(t, Options{}, testIndex)
	ts := httptest.NewServer(s)
	defer ts.Close()
	resp, err := http.Get(ts.URL + "/timemap/link/http://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	tm, err := memento.ReadTimeMap(resp.Body, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range tm.Mementos {
		got = append(got, m.URIM+" "+timestamp.Format(m.Datetime))
	}
	want := []string{
		ts.URL + "/20100101000000/http://example.com/ 20100101000000",
		ts.URL + "/20100102000000/http://example.com/ 20100102000000",
		ts.URL + "/20100103000000/http://www.example.com/ 20100103000000",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("mementos (-want +got):\n%s", diff)
	}
	if tm.Original != "http://example.com/" || tm.TimeGate != ts.URL+"/timegate/http://example.com/" || len(tm.Pages) != 0 {
		t.Errorf("TimeMap original %q, timegate %q, pages %v", tm.Original, tm.TimeGate, tm.Pages)
	}
}

func TestFaultsAndLatency(t *testing.T) {
	s := mustServer(t, Options{FaultRate: 1, FaultStatus: 500, Latency: 20 * time.Millisecond}, testIndex)
	ts := httptest.NewServer(s)
	defer ts.Close()
	start := time.Now()
	resp, err := http.Get(ts.URL + "/timemap/link/http://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 500 {
		t.Errorf("status %d, want the injected 500", resp.StatusCode)
	}
	if d := time.Since(start); d < 20*time.Millisecond {
		t.Errorf("answered in %v, before the added latency", d)
	}
	// mementos and the map are never faulted
	resp, err = http.Get(ts.URL + "/20100101000000/http://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("memento status %d under faults", resp.StatusCode)
	}
	if st := s.Stats(); st.Faults != 1 {
		t.Errorf("Faults = %d, want 1", st.Faults)
	}
	if _, err := New(context.Background(), s.Index(), &Options{FaultRate: 1.5}); err == nil {
		t.Error("fault rate 1.5 accepted")
	}
}

func TestFaultShare(t *testing.T) {
	s := mustServer(t, Options{FaultRate: 0.25, Seed: 7}, testIndex)
	const n = 2000
	for i := 0; i < n; i++ {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/http://example.com/", nil))
	}
	share := float64(s.Stats().Faults) / n
	if share < 0.2 || share > 0.3 {
		t.Errorf("fault share %.3f, want about 0.25", share)
	}
}

func TestSlowBody(t *testing.T) {
	s := mustServer(t, Options{SlowBody: 50 * time.Millisecond}, testIndex)
	ts := httptest.NewServer(s)
	defer ts.Close()
	start := time.Now()
	resp, err := http.Get(ts.URL + "/timemap/link/http://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Errorf("slow body done in %v", d)
	}
	if _, err := memento.ReadTimeMap(bytes.NewReader(b), nil); err != nil {
		t.Errorf("slow body is not a TimeMap: %v", err)
	}
}

// Every URI-R of every real index is found by its URL, and its archive's
// MementoMap says present for it (no false negatives).
func TestRealIndexes(t *testing.T) {
	for _, name := range sampledata.IndexFiles() {
		if strings.Contains(name, "5mementos-timemap") {
			continue // a TimeMap with invalid JSON, not an index
		}
		t.Run(name, func(t *testing.T) {
			b, err := sampledata.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			idx, st, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream(name, bytes.NewReader(b), nil)}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.URIRs == 0 {
				t.Fatal("no URI-R loaded")
			}
			s, err := New(context.Background(), idx, &Options{ID: name})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for u := range idx.All() {
				if u.URL == "" {
					t.Errorf("%s: no URL reaches it", u.Key)
					continue
				}
				caps, err := idx.Lookup(u.URL)
				if err != nil || len(caps) != u.Captures {
					t.Errorf("Lookup(%q) = %d captures, %v; want %d", u.URL, len(caps), err, u.Captures)
				}
				m, err := s.Map().Lookup(u.URL)
				if err != nil || !m.Present() {
					t.Errorf("MementoMap says absent for held %q (%v)", u.URL, err)
				}
				n++
			}
			if int64(n) != st.URIRs {
				t.Errorf("All yielded %d, LoadStats.URIRs %d", n, st.URIRs)
			}
		})
	}
}

func TestURLFromSURT(t *testing.T) {
	tests := []struct{ key, want string }{
		{"com,example)/", "http://example.com/"},
		{"com,example,www)/a/b?c=d", "http://www.example.com/a/b?c=d"},
		{"com,example:8080)/x", "http://example.com:8080/x"},
		{"-", ""},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			if got := urlFromSURT(tc.key); got != tc.want {
				t.Errorf("urlFromSURT(%q) = %q, want %q", tc.key, got, tc.want)
			}
		})
	}
}

// ServeHTTP never panics and always answers a status on any request target.
func FuzzServeHTTP(f *testing.F) {
	for _, seed := range []string{"/timemap/link/http://example.com/", "/timegate/example.com", "/20100101000000/http://example.com/",
		"/timemap/link/http%3A%2F%2F", "/timemap/link/", "/99999999999999/x", "/.well-known/mementomap"} {
		f.Add(seed, "Fri, 01 Jan 2010 13:00:00 GMT")
	}
	s := mustServer(f, Options{}, testIndex)
	f.Fuzz(func(t *testing.T, target, acceptDT string) {
		req := httptest.NewRequest("GET", "/", nil)
		req.RequestURI = target
		req.Header.Set("Accept-Datetime", acceptDT)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d for %q", rec.Code, target)
		}
	})
}

func TestTimeMapCache(t *testing.T) {
	cached := mustServer(t, Options{TimeMapCache: 2}, testIndex)
	plain := mustServer(t, Options{}, testIndex)
	for _, path := range []string{"/timemap/link/http://example.com/", "/timemap/link/http://example.com/", "/timemap/link/example.org/only", "/timemap/link/http://example.net/"} {
		var bodies []string
		var codes []int
		for _, s := range []*Server{cached, plain, cached} {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
			bodies = append(bodies, rec.Body.String())
			codes = append(codes, rec.Code)
		}
		if bodies[0] != bodies[1] || bodies[1] != bodies[2] || codes[0] != codes[1] || codes[1] != codes[2] {
			t.Errorf("%s: cached and rendered answers differ: %v %q", path, codes, bodies)
		}
	}
	if n := cached.bodies.Len(); n != 2 {
		t.Errorf("cache holds %d bodies, want 2 (404s are not kept)", n)
	}
	if _, err := New(context.Background(), cached.Index(), &Options{TimeMapCache: -1}); err == nil {
		t.Error("negative cache size accepted")
	}
}

// TestOddURIRs sends the request targets real clients produce: slashes
// merged by a proxy, scheme-relative URI-Rs, no host, an unclosed IPv6
// bracket, and a query on the MementoMap and root paths.
func TestOddURIRs(t *testing.T) {
	s := mustServer(t, Options{ID: "test"}, testIndex)
	ts := httptest.NewServer(s)
	defer ts.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	const orig = `<http://example.com/>; rel="original"`
	tests := []struct {
		name, path string
		wantStatus int
		wantBody   string // substring
	}{
		{"slashes merged by a proxy", "/timemap/link/http:/example.com/", 200, orig},
		{"https, slashes merged", "/timemap/link/https:/example.org/only", 200, `<https://example.org/only>; rel="original"`},
		{"three slashes", "/timemap/link/http:///example.com/", 200, orig},
		{"scheme-relative", "/timemap/link//example.com/", 200, orig},
		{"scheme-relative timegate", "/timegate//example.com/", 302, ""},
		{"scheme-relative memento", "/20100102000000//example.com/", 200, "Placeholder"},
		{"no host", "/timemap/link/http://", 400, "no host"},
		{"encoded, no host", "/timemap/link/http%3A%2F%2F", 400, "no host"},
		{"port only", "/timegate/http://:80/", 400, "no host"},
		{"userinfo only", "/timemap/link/http://user@/", 400, "no host"},
		{"unclosed IPv6 bracket", "/timemap/link/http://[::1/a", 400, "']'"},
		{"IPv6 host absent", "/timemap/link/http://[2001:db8::1]:8080/a", 404, "no memento"},
		{"mementomap with a query", "/.well-known/mementomap?t=1", 200, "!meta"},
		{"root with a query", "/?x=1", 200, "3 URI-Rs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("GET", ts.URL, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.URL.Opaque = tc.path // sent as is, not cleaned
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.wantStatus {
				t.Errorf("GET %s: status %d, want %d; body %q", tc.path, resp.StatusCode, tc.wantStatus, body)
			}
			if !strings.Contains(string(body), tc.wantBody) {
				t.Errorf("GET %s: body %q lacks %q", tc.path, body, tc.wantBody)
			}
		})
	}
}

// TestHTTP10WithoutHost: an HTTP/1.0 request carries no Host; the links of
// the answer still name a host (the local address), never "http:///".
func TestHTTP10WithoutHost(t *testing.T) {
	s := mustServer(t, Options{ID: "test"}, testIndex)
	ts := httptest.NewServer(s)
	defer ts.Close()
	for _, path := range []string{"/timemap/link/http://example.com/", "/timegate/http://example.com/", "/20100102000000/http://example.com/"} {
		t.Run(path, func(t *testing.T) {
			conn, err := net.DialTimeout("tcp", ts.Listener.Addr().String(), 5*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.0\r\n\r\n"); err != nil {
				t.Fatal(err)
			}
			resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			all := resp.Header.Get("Link") + resp.Header.Get("Location") + string(body)
			if resp.StatusCode >= 400 || strings.Contains(all, "http:///") || !strings.Contains(all, "http://"+ts.Listener.Addr().String()+"/") {
				t.Errorf("status %d, links and body %q: want links on http://%s/", resp.StatusCode, all, ts.Listener.Addr())
			}
		})
	}
}

func TestNewOptionErrors(t *testing.T) {
	idx, _, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("test", strings.NewReader(testIndex), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    Options
		want string // substring of the error; "" for none
	}{
		{"defaults", Options{}, ""},
		{"fault rate above 1", Options{FaultRate: 1.5}, "fault rate"},
		{"negative fault rate", Options{FaultRate: -0.1}, "fault rate"},
		{"interim fault status", Options{FaultRate: 0.5, FaultStatus: 100}, "fault status 100"},
		{"fault status below 100", Options{FaultStatus: 42}, "fault status 42"},
		{"fault status above 999", Options{FaultStatus: 1000}, "fault status 1000"},
		{"fault status 200", Options{FaultStatus: 200}, ""},
		{"negative cache", Options{TimeMapCache: -1}, "cache size"},
	}
	// nil options are the defaults.
	if s, err := New(context.Background(), idx, nil); err != nil || s.o.FaultStatus != http.StatusServiceUnavailable {
		t.Errorf("New(nil options) = %v; want the defaults (fault status 503)", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(context.Background(), idx, &tc.o)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("New: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("New = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestLocationEscaped: an index may record an original URL with a space, a
// line break or '>'; the TimeGate's Location must still be one URI, the same
// as the memento's target in its Link header.
func TestLocationEscaped(t *testing.T) {
	const index = `com,example)/a%20b 20200101000000 {"url": "http://example.com/a b"}
com,example)/nl 20200101000000 {"url": "http://example.com/n\nl"}
com,example)/gt 20200101000000 {"url": "http://example.com/a>b"}
`
	s := mustServer(t, Options{ID: "test"}, index)
	ts := httptest.NewServer(s)
	defer ts.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct{ name, uriR, want string }{
		{"space", "http://example.com/a%20b", "/20200101000000/http://example.com/a%20b"},
		{"line break", "http://example.com/nl", "/20200101000000/http://example.com/n%0Al"},
		{"greater-than", "http://example.com/gt", "/20200101000000/http://example.com/a%3Eb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := client.Get(ts.URL + "/timegate/" + tc.uriR)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusFound {
				t.Fatalf("status %d, want 302", resp.StatusCode)
			}
			loc := resp.Header.Get("Location")
			if loc != ts.URL+tc.want {
				t.Errorf("Location %q, want %q", loc, ts.URL+tc.want)
			}
			if !strings.Contains(resp.Header.Get("Link"), "<"+loc+">") {
				t.Errorf("Link %q does not name the Location %q", resp.Header.Get("Link"), loc)
			}
		})
	}
}

// TestLoadIndexManyURLsOneKey: a key whose captures have many distinct
// original URLs (past the linear search, into the map) keeps each capture's
// own URL and counts repeats as duplicates.
func TestLoadIndexManyURLsOneKey(t *testing.T) {
	const n = 3 * urlScanMax
	in := sessionIndex(n)
	in = append(in, in...) // every capture twice
	idx, st, err := LoadIndex(context.Background(), []cdxj.Searcher{cdxj.NewStream("s", bytes.NewReader(in), nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Map.Used != 2*n {
		t.Errorf("the MementoMap counts %d records, want %d (duplicates included)", st.Map.Used, 2*n)
	}
	st.Map = mementomap.BuildStats{}
	if want := (LoadStats{Records: 2 * n, Captures: n, URIRs: 1, Duplicates: n}); !cmp.Equal(st, want) {
		t.Errorf("LoadStats %+v, want %+v", st, want)
	}
	caps, err := idx.Lookup("http://example.com/page")
	if err != nil {
		t.Fatal(err)
	}
	if len(caps) != n {
		t.Fatalf("%d captures, want %d", len(caps), n)
	}
	for i, c := range caps {
		if want := fmt.Sprintf("http://example.com/page?sid=%d", i); c.URL != want {
			t.Errorf("capture %d: URL %q, want %q", i, c.URL, want)
		}
	}
}
