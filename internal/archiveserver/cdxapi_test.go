package archiveserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
)

// pywbShapeCluster builds the cluster of pywb's ZipNum sample's shape from
// cdxj/testdata/pywbshape/iocom.cdxj (188 lines, 38 blocks of 5; see the
// README there) and returns its lines too.
func pywbShapeCluster(t testing.TB) ([]string, *cdxj.Cluster) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "cdxj", "testdata", "pywbshape", "iocom.cdxj"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return lines, writeClusterOpt(t, lines, &cdxj.ClusterOptions{LinesPerBlock: 5, NoFinalNewline: true})
}

func writeCluster(t testing.TB, lines []string, perBlock int) *cdxj.Cluster {
	return writeClusterOpt(t, lines, &cdxj.ClusterOptions{LinesPerBlock: perBlock})
}

func writeClusterOpt(t testing.TB, lines []string, opt *cdxj.ClusterOptions) *cdxj.Cluster {
	t.Helper()
	dir := t.TempDir()
	w, err := cdxj.CreateCluster(dir, "zipnum", opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := cdxj.OpenCluster(w.IdxPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func writeSorted(t testing.TB, lines []string) *cdxj.Sorted {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.cdx")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return cdxj.NewSorted(f, st.Size())
}

func sampleLines(t testing.TB, name string) []string {
	t.Helper()
	b, err := sampledata.ReadFile("real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if l != "" && l[0] != '!' && !strings.HasPrefix(l, " CDX") {
			out = append(out, l)
		}
	}
	return out
}

type answer struct {
	status int
	ct     string
	body   string
}

func get(t testing.TB, base, target string) answer {
	t.Helper()
	resp, err := http.Get(base + target)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
}

func bodyLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// TestCDXPywbZipNum restates pywb's HTTP answers over its ZipNum sample
// (tests/test_zipnum_auto_dir.py) on a cluster of the same shape served at
// /{collection}/cdx: a prefix query's lines, the page count, the paged
// secondary index in JSON, and the 400 for a page past the last.
func TestCDXPywbZipNum(t *testing.T) {
	lines, c := pywbShapeCluster(t)
	h := NewCDXHandler(c, &CDXOptions{Collection: "testzip"})
	ts := httptest.NewServer(h)
	defer ts.Close()

	a := get(t, ts.URL, "/testzip/cdx?url=io.com/categoria/*")
	var want []string
	for _, l := range lines {
		if strings.HasPrefix(l, "com,io)/categoria/") {
			want = append(want, l)
		}
	}
	if a.status != 200 || a.ct != "text/x-cdxj; charset=utf-8" || !slices.Equal(bodyLines(a.body), want) || len(want) != 56 {
		t.Errorf("prefix query: %d %s, %d lines, want 200 text/x-cdxj with the 56 lines", a.status, a.ct, len(bodyLines(a.body)))
	}

	a = get(t, ts.URL, "/testzip/cdx?url=http://io.com/&matchType=domain&showNumPages=true&pageSize=4")
	if a.status != 200 || strings.TrimSpace(a.body) != `{"pages": 10, "pageSize": 4, "blocks": 38}` {
		t.Errorf("page count: %d %q", a.status, a.body)
	}
	a = get(t, ts.URL, "/cdx?url=*.io.com&showNumPages=true")
	if strings.TrimSpace(a.body) != `{"pages": 4, "pageSize": 10, "blocks": 38}` {
		t.Errorf("page count at the default page size: %q", a.body)
	}

	a = get(t, ts.URL, "/testzip/cdx?url=http://io.com/&matchType=domain&output=json&showPagedIndex=true&pageSize=4&page=1")
	var entries []cdxj.IdxEntry
	for e, err := range c.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, e)
	}
	var got []map[string]any
	for _, l := range bodyLines(a.body) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got = append(got, m)
	}
	var wantIdx []map[string]any
	for _, e := range entries[4:8] {
		wantIdx = append(wantIdx, map[string]any{"urlkey": e.Key, "part": e.Part, "offset": float64(e.Offset), "length": float64(e.Length), "lineno": float64(e.Block)})
	}
	if diff := cmp.Diff(wantIdx, got); diff != "" || a.ct != "text/x-ndjson; charset=utf-8" {
		t.Errorf("paged index, page 1 (%s) (-want +got):\n%s", a.ct, diff)
	}

	a = get(t, ts.URL, "/testzip/cdx?url=http://io.com/&matchType=domain&output=json&showPagedIndex=true&pageSize=4&page=10")
	if a.status != 400 || strings.TrimSpace(a.body) != `{"message": "Page 10 invalid: First Page is 0, Last Page is 9"}` {
		t.Errorf("page 10: %d %q", a.status, a.body)
	}
	a = get(t, ts.URL, "/testzip/cdx?url=http://io.com/&matchType=domain&pageSize=4&page=10")
	if a.status != 400 || !strings.Contains(a.body, "Page 10 invalid") {
		t.Errorf("lines of page 10: %d %q", a.status, a.body)
	}
	// The last page, as pywb's "last page cdx".
	a = get(t, ts.URL, "/testzip/cdx?url=http://io.com/&matchType=domain&pageSize=4&page=9")
	if !slices.Equal(bodyLines(a.body), lines[180:]) {
		t.Errorf("last page: %q", a.body)
	}
	// Another collection's path is not this handler's.
	if h.Handles("/other/cdx?url=x") || !h.Handles("/testzip/cdx") || !h.Handles("/cdx?url=x") {
		t.Error("Handles")
	}
}

// TestCDXPywbApp restates pywb's CDX server app tests
// (tests/test_cdx_server_app.py) over a sorted CDXJ file of real Common
// Crawl lines: exact, JSON and text output, prefix, filters, limit and
// reverse, fields, and the 400s of a bad output or match type.
func TestCDXPywbApp(t *testing.T) {
	lines := sampleLines(t, "cc_commoncrawl-org_from-cdxapi.cdxj")
	h := NewCDXHandler(writeSorted(t, lines), nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	var root []string // the captures of commoncrawl.org/
	for _, l := range lines {
		if strings.HasPrefix(l, "org,commoncrawl)/ ") {
			root = append(root, l)
		}
	}

	a := get(t, ts.URL, "/cdx?url=http://www.commoncrawl.org/")
	if a.status != 200 || !slices.Equal(bodyLines(a.body), root) {
		t.Errorf("exact: %d, %d lines, want %d", a.status, len(bodyLines(a.body)), len(root))
	}
	a = get(t, ts.URL, "/cdx?url=http://www.commoncrawl.org/&output=json")
	if n := len(bodyLines(a.body)); n != len(root) || a.ct != "text/x-ndjson; charset=utf-8" {
		t.Errorf("json: %d lines, %s", n, a.ct)
	}
	for _, l := range bodyLines(a.body) {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil || m["urlkey"] != "org,commoncrawl)/" {
			t.Errorf("json line %q: %v", l, err)
		}
	}
	a = get(t, ts.URL, "/cdx?url=http://www.commoncrawl.org/&output=text")
	if a.ct != "text/plain; charset=utf-8" || strings.Contains(a.body, "{") || len(bodyLines(a.body)) != len(root) {
		t.Errorf("text: %s %q", a.ct, a.body)
	}
	a = get(t, ts.URL, "/cdx?url=http://www.commoncrawl.org/&matchType=prefix")
	sub := 0
	for _, l := range bodyLines(a.body) {
		if k, _, _ := strings.Cut(l, " "); len(k) > len("org,commoncrawl)/") {
			sub++
		}
	}
	if sub == 0 {
		t.Error("prefix: no sub-URL")
	}
	a = get(t, ts.URL, "/cdx?url=commoncrawl.org/*&filter=mime:text/plain&filter=filename:robotstxt")
	for _, l := range bodyLines(a.body) {
		if !strings.Contains(l, `"mime": "text/plain"`) || !strings.Contains(l, "robotstxt") {
			t.Errorf("filter: %q", l)
		}
	}
	if len(bodyLines(a.body)) == 0 {
		t.Error("filters: nothing")
	}
	a = get(t, ts.URL, "/cdx?url=commoncrawl.org/&filter=!status:200&filter=!status:301")
	if a.status != 200 || a.body != "" {
		t.Errorf("filters that match nothing: %d %q, want 200 and an empty body", a.status, a.body)
	}
	a = get(t, ts.URL, "/cdx?url=commoncrawl.org/&limit=1")
	if bl := bodyLines(a.body); len(bl) != 1 || bl[0] != root[0] {
		t.Errorf("limit 1: %q", a.body)
	}
	a = get(t, ts.URL, "/cdx?url=commoncrawl.org/&limit=1&reverse=1")
	if bl := bodyLines(a.body); len(bl) != 1 || bl[0] != root[len(root)-1] {
		t.Errorf("limit 1 reverse: %q", a.body)
	}
	a = get(t, ts.URL, "/cdx?url=commoncrawl.org/&fields=urlkey,timestamp,status&output=json")
	for _, l := range bodyLines(a.body) {
		var m map[string]string
		if err := json.Unmarshal([]byte(l), &m); err != nil || len(m) != 3 || m["status"] == "" {
			t.Errorf("fields: %q", l)
		}
	}
	for _, tc := range []struct{ query, msg string }{
		{"url=commoncrawl.org/&output=foo", "output=foo"},
		{"url=commoncrawl.org/&matchType=foo", "matchType=foo"},
		{"matchType=prefix", "url= parameter is required"},
		{"url=commoncrawl.org/&page=0", "pagination needs a ZipNum cluster"},
		{"url=commoncrawl.org/&showNumPages=true", "pagination needs a ZipNum cluster"},
		{"url=commoncrawl.org/&filter=~url:(", "missing closing )"},
		{"url=http://commoncrawl.org/%zz", `the query string: invalid URL escape "%zz"`},
		{"url=commoncrawl.org/&limit=-9223372036854775808", "too many lines to hold"},
	} {
		a := get(t, ts.URL, "/cdx?"+tc.query)
		var m struct{ Message string }
		if a.status != 400 || json.Unmarshal([]byte(a.body), &m) != nil || !strings.Contains(m.Message, tc.msg) {
			t.Errorf("%s: %d %q, want 400 saying %q", tc.query, a.status, a.body, tc.msg)
		}
	}
	// HEAD and other methods.
	resp, err := http.Head(ts.URL + "/cdx?url=commoncrawl.org/")
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") == "" {
		t.Errorf("HEAD: %v %v", resp, err)
	}
	resp, err = http.Post(ts.URL+"/cdx?url=commoncrawl.org/", "text/plain", nil)
	if err != nil || resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %v %v", resp, err)
	}
	if st := h.Stats(); st.BadRequest != 9 || st.Requests < 17 {
		t.Errorf("stats %+v", st)
	}
}

func fastClient() *cdxj.ServerOptions {
	return &cdxj.ServerOptions{Rate: -1, MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond, Timeout: 5 * time.Second}
}

// recordsOf reads every record of a query, cloned.
func recordsOf(t testing.TB, s cdxj.Searcher, q cdxj.Query) []*cdxj.Record {
	t.Helper()
	var out []*cdxj.Record
	for rec, err := range s.Records(q) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.Clone())
	}
	return out
}

// fields lists what a record says, for comparing records of different
// forms (a classic CDX line read locally, its CDXJ form over the API).
func fields(r *cdxj.Record) map[string]string {
	m := map[string]string{}
	for _, f := range cdxj.FieldNames {
		if v, ok := cdxj.FieldValue(r, f); ok {
			m[f] = v
		}
	}
	m["time"] = r.Time().String()
	return m
}

// TestCDXRoundTrip: the client against the server gives the records of
// reading the index directly, paging over a cluster and in one answer
// over a sorted file, for CDXJ lines (identical lines) and classic CDX
// lines (the same values in CDXJ form).
func TestCDXRoundTrip(t *testing.T) {
	cc := sampleLines(t, "cc_commoncrawl-org_from-cdxapi.cdxj")
	ow := sampleLines(t, "openwayback_archive-org.cdx")
	_, ioc := pywbShapeCluster(t)
	sources := []struct {
		name  string
		idx   cdxj.Searcher
		scope string
		same  bool // identical lines
	}{
		{"pywb-shaped cluster", ioc, "url=*.io.com", true},
		{"Common Crawl cluster", writeCluster(t, cc, 3), "url=commoncrawl.org/*", true},
		{"Common Crawl sorted file", writeSorted(t, cc), "url=*.commoncrawl.org", true},
		{"OpenWayback CDX cluster", writeCluster(t, ow, 100), "url=archive.org/&matchType=host", false},
		{"merged", cdxj.Merge(writeSorted(t, cc[:20]), writeCluster(t, cc[20:], 2)), "url=*.commoncrawl.org", true},
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			h := NewCDXHandler(src.idx, nil)
			ts := httptest.NewServer(h)
			defer ts.Close()
			o := fastClient()
			o.PageSize = 2
			s, err := cdxj.OpenServer(context.Background(), ts.URL+"/cdx?"+src.scope, o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if s.Flavor() != cdxj.FlavorPywb {
				t.Errorf("flavour %v", s.Flavor())
			}
			sc := s.Scope()
			q, err := sc.Query()
			if err != nil {
				t.Fatal(err)
			}
			want := recordsOf(t, src.idx, q)
			got := recordsOf(t, s, cdxj.Query{Match: cdxj.MatchPrefix})
			if len(want) == 0 || len(got) != len(want) {
				t.Fatalf("%d records over the API, %d read directly", len(got), len(want))
			}
			for i := range want {
				if src.same && string(got[i].Line()) != string(want[i].Line()) {
					t.Errorf("record %d:\n got  %s\n want %s", i, got[i].Line(), want[i].Line())
				}
				if diff := cmp.Diff(fields(want[i]), fields(got[i])); diff != "" {
					t.Errorf("record %d (-direct +api):\n%s", i, diff)
				}
			}
			// Key-range queries, by SURT, go through the client too.
			k := string(want[len(want)/2].Key())
			eq := cdxj.Query{Key: k, Match: cdxj.MatchExact}
			if a, b := recordsOf(t, s, eq), recordsOf(t, src.idx, eq); len(a) != len(b) || len(a) == 0 {
				t.Errorf("exact %s: %d over the API, %d directly", k, len(a), len(b))
			}
			if _, paged := src.idx.(cdxj.Pager); paged && h.Stats().Requests < 3 {
				t.Errorf("%d requests to a cluster: it was not read page by page", h.Stats().Requests)
			}
		})
	}
}

// TestCDXBrokenIndex: an index line that does not parse fails the answer
// where it is (a 500 before the first line, a broken connection after),
// so a client never takes a cut answer for a whole one; with SkipBad it is
// passed over and counted.
func TestCDXBrokenIndex(t *testing.T) {
	var lines []string
	for i := range 3000 {
		lines = append(lines, fmt.Sprintf(`com,example)/p%05d 20200101000000 {"url": "http://example.com/p%05d", "mime": "text/html", "status": "200"}`, i, i))
	}
	lines[2500] = `com,example)/p02500 2020-01-01 {"url": "http://example.com/p02500"}`
	first := slices.Clone(lines)
	first[0] = `com,example)/p00000 2020-01-01 {"url": "x"}`
	for _, tc := range []struct {
		name  string
		lines []string
	}{{"mid-answer", lines}, {"first line", first}} {
		t.Run(tc.name, func(t *testing.T) {
			h := NewCDXHandler(writeSorted(t, tc.lines), nil)
			ts := httptest.NewServer(h)
			defer ts.Close()
			o := fastClient()
			o.Attempts = 2
			o.Flavor = cdxj.FlavorPywb
			s, err := cdxj.OpenServer(context.Background(), ts.URL+"/cdx?url=example.com/*", o)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			var err2 error
			n := 0
			for _, err := range s.Lines(cdxj.Query{Match: cdxj.MatchPrefix}) {
				if err != nil {
					err2 = err
					break
				}
				n++
			}
			var se *cdxj.ServerError
			if !errors.As(err2, &se) {
				t.Fatalf("after %d lines: %v, want a *cdxj.ServerError", n, err2)
			}
			if h.Stats().Failed == 0 {
				t.Errorf("stats %+v", h.Stats())
			}
		})
	}
	h := NewCDXHandler(writeSorted(t, lines), &CDXOptions{SkipBad: true})
	ts := httptest.NewServer(h)
	defer ts.Close()
	a := get(t, ts.URL, "/cdx?url=example.com/*")
	if n := len(bodyLines(a.body)); n != 2999 || h.Stats().BadLines != 1 {
		t.Errorf("SkipBad: %d lines, stats %+v", n, h.Stats())
	}
}

// TestWithCDX: the CDX paths reach the CDX handler, everything else the
// archive, URI-Rs unchanged.
func TestWithCDX(t *testing.T) {
	s := mustServer(t, Options{ID: "t"}, testIndex)
	idx := writeSorted(t, []string{`com,example)/ 20100101000000 {"url": "http://example.com/"}`})
	ts := httptest.NewServer(WithCDX(s, NewCDXHandler(idx, &CDXOptions{Collection: "t"})))
	defer ts.Close()
	for _, tc := range []struct{ target, want string }{
		{"/cdx?url=example.com", "com,example)/ 20100101000000"},
		{"/t/cdx?url=example.com&output=json", `"urlkey": "com,example)/"`},
		{"/timemap/link/http://example.com/", "rel=\"original\""},
		{"/20100101000000/http://example.com/", "Placeholder"},
	} {
		a := get(t, ts.URL, tc.target)
		if a.status != 200 || !strings.Contains(a.body, tc.want) {
			t.Errorf("%s: %d %q", tc.target, a.status, a.body)
		}
	}
}

// gated is a Searcher whose first Records call, after its first line (or
// its first after lines), closes entered and waits for open to close: an
// answer in progress, held as long as the test wants. Later calls do not
// wait.
type gated struct {
	cdxj.Searcher
	entered chan struct{}
	open    chan struct{}
	calls   atomic.Int64
	after   int
}

func (g *gated) Records(q cdxj.Query) iter.Seq2[*cdxj.Record, error] {
	first := g.calls.Add(1) == 1
	return func(yield func(*cdxj.Record, error) bool) {
		n := 0
		for rec, err := range g.Searcher.Records(q) {
			if n++; n == max(g.after, 1)+1 && first {
				close(g.entered)
				<-g.open
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

// TestCDXHeldLinesBounded: the memory held for sort=reverse, sort=closest
// and negative limits is bounded over all requests together, not only per
// request. Before the bound, each of 16 parallel limit=-100000 requests
// over a 600,000-line index held its 100,000 lines and the archive
// command died out of memory (4 GB); then the bound was in lines, 400,000
// by default, at 1.3 to 3.5 KB a held line up to 1.4 GB. Now a held line
// costs cdxj.HeldBytes (its length and 88 bytes), the bound is in bytes
// (256 MiB by default), a request that finds it taken is a 503 with
// Retry-After whose message says what to do, one that needs more than all
// of it by itself is a 400, and streaming answers are not held up.
func TestCDXHeldLinesBounded(t *testing.T) {
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf(`com,example)/ 2020010100%04d {"url": "http://example.com/", "status": "200"}`, i))
	}
	per := cdxj.HeldBytes(len(lines[0]))
	// The first request holds 10 lines while it waits at the 11th.
	g := &gated{Searcher: writeSorted(t, lines), entered: make(chan struct{}), open: make(chan struct{}), after: 10}
	h := NewCDXHandler(g, &CDXOptions{Run: cdxj.RunOptions{MaxBuffered: 10}, MaxHeldBytes: 15 * per})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer func() {
		select {
		case <-g.open:
		default:
			close(g.open)
		}
	}()

	first := make(chan answer, 1)
	go func() {
		resp, err := http.Get(ts.URL + "/cdx?url=example.com&limit=-10")
		if err != nil {
			first <- answer{body: err.Error()}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		first <- answer{resp.StatusCode, resp.Header.Get("Content-Type"), string(b)}
	}()
	select {
	case <-g.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the first request never started")
	}
	// 10 of 15 lines' memory is taken: an answer that holds 6 or more is
	// refused, one of 5 fits.
	for _, q := range []string{"limit=-10", "sort=reverse", "closest=2020&limit=6"} {
		resp, err := http.Get(ts.URL + "/cdx?url=example.com&" + q)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := fmt.Sprintf(`"busy: the answers in progress hold the %d of memory that sort=reverse, sort=closest and negative limits may hold at once (-cdx-max-held), and this one held %d of lines when it ran out; retry in a second, or give a smaller limit"`, 15*per, 5*per)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(string(b), want) {
			t.Errorf("%s while 10 of 15 lines' memory is held: %d %s (Retry-After %q), want a 503 with %s", q, resp.StatusCode, b, resp.Header.Get("Retry-After"), want)
		}
	}
	if a := get(t, ts.URL, "/cdx?url=example.com&sort=reverse&limit=5"); a.status != http.StatusOK || len(bodyLines(a.body)) != 5 {
		t.Errorf("an answer that fits: %d, %d lines", a.status, len(bodyLines(a.body)))
	}
	if a := get(t, ts.URL, "/cdx?url=example.com&limit=20"); a.status != http.StatusOK || len(bodyLines(a.body)) != 20 {
		t.Errorf("a streamed answer: %d, %d lines", a.status, len(bodyLines(a.body)))
	}
	// A client of this server is told which server and what to do, after
	// its retries.
	srv, err := cdxj.OpenServer(context.Background(), ts.URL+"/cdx", &cdxj.ServerOptions{Flavor: cdxj.FlavorPywb, Attempts: 2, MinBackoff: time.Millisecond, MaxBackoff: time.Millisecond, Rate: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var cerr error
	for _, err := range srv.Fetch(context.Background(), &cdxj.Request{URL: "example.com", Limit: -10}) {
		if err != nil {
			cerr = err
			break
		}
	}
	for _, want := range []string{"cdxj: CDX server " + ts.URL + "/cdx?", ": HTTP 503: busy: the answers in progress hold", "retry in a second, or give a smaller limit (2 attempts)"} {
		if cerr == nil || !strings.Contains(cerr.Error(), want) {
			t.Errorf("the client's error %v, want it to say %q", cerr, want)
		}
	}
	close(g.open)
	if a := <-first; a.status != http.StatusOK || len(bodyLines(a.body)) != 10 {
		t.Errorf("the first request: %d %q", a.status, a.body)
	}
	// Its memory given back, the same request is answered.
	if a := get(t, ts.URL, "/cdx?url=example.com&limit=-10"); a.status != http.StatusOK || len(bodyLines(a.body)) != 10 {
		t.Errorf("after the first ended: %d %q", a.status, a.body)
	}
	if st := h.Stats(); st.Busy != 5 {
		t.Errorf("stats %+v, want Busy 5 (3, and the client's 2 attempts)", st)
	}
	if got := h.held.TryAcquire(15 * per); !got {
		t.Errorf("after every answer ended, the %d bytes are not all free again", 15*per)
	}

	// An answer that needs more than all of it by itself is a 400.
	small := NewCDXHandler(writeSorted(t, lines), &CDXOptions{Run: cdxj.RunOptions{MaxBuffered: 10}, MaxHeldBytes: 5 * per})
	ts2 := httptest.NewServer(small)
	defer ts2.Close()
	want := fmt.Sprintf("this answer would hold more than %d of lines in memory, all that the server allows its answers at once (-cdx-max-held); give a smaller limit or a narrower url", 5*per)
	if a := get(t, ts2.URL, "/cdx?url=example.com&limit=-10"); a.status != http.StatusBadRequest || !strings.Contains(a.body, want) {
		t.Errorf("an answer larger than the bound: %d %q, want 400 with %q", a.status, a.body, want)
	}
}

// endless is a Searcher with no end: its Records yield the same record
// forever, counting them in read.
type endless struct {
	cdxj.Searcher
	rec  *cdxj.Record
	read atomic.Int64
}

func (e *endless) Records(q cdxj.Query) iter.Seq2[*cdxj.Record, error] {
	return func(yield func(*cdxj.Record, error) bool) {
		for {
			e.read.Add(1)
			if !yield(e.rec, nil) {
				return
			}
		}
	}
}

// TestCDXClientGoneStopsReading: a request whose client goes away stops
// reading the index. Before, the handler read on to the end of the url's
// range for a filter that matched nothing (ten abandoned requests over a
// 600,000-line index each read all 388,000 lines of its domain), and over
// this endless index it never returned.
func TestCDXClientGoneStopsReading(t *testing.T) {
	line := `com,example)/ 20200101000000 {"url": "http://example.com/", "status": "200"}`
	rec, err := cdxj.ParseLine([]byte(line), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &endless{Searcher: writeSorted(t, []string{line}), rec: rec}
	h := NewCDXHandler(e, nil)
	ts := httptest.NewServer(h)
	defer ts.Close()
	for _, q := range []string{"url=example.com&filter=status:404", "url=example.com&sort=reverse&filter=status:404"} {
		ctx, cancel := context.WithCancel(context.Background())
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/cdx?"+q, nil)
		if err != nil {
			t.Fatal(err)
		}
		base := e.read.Load()
		go func() {
			for e.read.Load() < base+10000 {
				time.Sleep(time.Millisecond)
			}
			cancel() // the client goes away while the handler reads
		}()
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			t.Fatalf("%s: answered %d over an endless index", q, resp.StatusCode)
		}
		// The handler notices within 1024 records; give it 10 s.
		deadline := time.Now().Add(10 * time.Second)
		for {
			n := e.read.Load()
			time.Sleep(50 * time.Millisecond)
			if e.read.Load() == n {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still reading the index 10 s after the client went away (%d records)", q, e.read.Load())
			}
		}
	}
	if st := h.Stats(); st.Failed != 0 || st.Requests != 2 {
		t.Errorf("stats %+v: a client gone is no failure", st)
	}
}
