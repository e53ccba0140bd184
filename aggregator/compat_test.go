package aggregator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/sampledata"
)

// transcriptBody returns the response body of the first exchange under
// the heading "### title" of the MemGator transcripts
// (internal/sampledata/cases/memgator_transcripts.md): the lines after the
// headers' blank line up to the closing fence, with the fake archives'
// addresses 127.0.0.1:1900N replaced by the given URLs.
func transcriptBody(t *testing.T, title string, archiveURLs ...string) string {
	t.Helper()
	b, err := sampledata.ReadFile("cases/memgator_transcripts.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### "+title+"\n")
	if i < 0 {
		t.Fatalf("no section %q in the transcripts", title)
	}
	s = s[i:]
	start := strings.Index(s, "```\n") + 4
	s = s[start:]
	s = s[:strings.Index(s, "```\n")]
	if j := strings.Index(s, "\n\n"); strings.HasPrefix(s, "$ curl") && j >= 0 {
		s = s[j+2:]
	}
	for k, u := range archiveURLs {
		s = strings.ReplaceAll(s, "http://127.0.0.1:1900"+string(rune('1'+k)), u)
	}
	return s
}

func memgatorAggregator(t *testing.T, o Options) (*Aggregator, [3]*archivetest.Archive) {
	arc1, arc2, arc3 := memgatorArchives(t)
	o.Archives = []Archive{entry("arc1.local", arc1), entry("arc2.local", arc2), entry("arc3.local", arc3)}
	o.BaseURL = "http://localhost:19208"
	return newAggregator(t, o), [3]*archivetest.Archive{arc1, arc2, arc3}
}

// TestCDXJMatchesMemGatorBytes: the CDXJ TimeMap and a CDXJ memento
// description are MemGator's bytes (its JSON spacing included).
func TestCDXJMatchesMemGatorBytes(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{})
	for _, tc := range []struct{ title, target string }{
		{"TimeMap, CDXJ format", "/timemap/cdxj/http://example.com/"},
		{"Memento description, CDXJ", "/memento/cdxj/2016/http://example.com/"},
	} {
		resp, body := do(t, ag.Handler(), "GET", tc.target)
		want := transcriptBody(t, tc.title, arcs[0].URL, arcs[1].URL, arcs[2].URL)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/cdxj+ors" {
			t.Errorf("%s: %d %s", tc.target, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if d := cmp.Diff(lines(want), lines(body)); d != "" || body != want {
			t.Errorf("%s differs from MemGator's answer (-memgator +ours):\n%s", tc.target, d)
		}
	}
}

// TestMementoDescriptions: /memento/{link|json}/{datetime}/{URI-R} give
// MemGator's description shapes.
func TestMementoDescriptions(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{})
	arc1, arc2, arc3 := arcs[0].URL, arcs[1].URL, arcs[2].URL
	resp, body := do(t, ag.Handler(), "GET", "/memento/link/20160229235959/http://example.com/")
	want := []string{
		`<http://example.com/>; rel="original",`,
		`<` + arc1 + `/web/19990125093000/http://example.com/>; rel="first memento"; datetime="Mon, 25 Jan 1999 09:30:00 GMT",`,
		`<` + arc1 + `/web/20120615080910/http://example.com/>; rel="prev memento"; datetime="Fri, 15 Jun 2012 08:09:10 GMT",`,
		`<` + arc2 + `/web/20160229235959/http://example.com/>; rel="memento"; datetime="Mon, 29 Feb 2016 23:59:59 GMT",`,
		`<` + arc1 + `/web/20200101000000/http://example.com/>; rel="next memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT",`,
		`<` + arc3 + `/web/20230808080808/http://example.com/>; rel="last memento"; datetime="Tue, 08 Aug 2023 08:08:08 GMT",`,
		`<http://localhost:19208/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format",`,
		`<http://localhost:19208/timemap/json/http://example.com/>; rel="timemap"; type="application/json",`,
		`<http://localhost:19208/timemap/cdxj/http://example.com/>; rel="timemap"; type="application/cdxj+ors",`,
		`<http://localhost:19208/timegate/http://example.com/>; rel="timegate"`,
	}
	if d := cmp.Diff(want, lines(body)); resp.StatusCode != 200 || d != "" {
		t.Errorf("link description: %d (-want +got):\n%s", resp.StatusCode, d)
	}
	// The /api alias in MemGator's JSON layout: byte for byte.
	resp, body = do(t, ag.Handler(), "GET", "/memento/json/2016/http://example.com/")
	if want := transcriptBody(t, "/api alias (Time Travel API compatibility)", arc1, arc2, arc3); body != want {
		t.Errorf("JSON description %d (-memgator +ours):\n%s", resp.StatusCode, cmp.Diff(want, body))
	}
	// MemGator's key order (TimeMap order, then first, last, closest,
	// next, prev), byte for byte: a datetime between mementos, after every
	// memento, and a URI-R with a single memento.
	for _, tc := range []struct{ title, target string }{
		{"Memento, datetime after every memento", "/memento/json/2099/http://example.com/"},
		{"Memento description for a URI-R with a single memento", "/memento/json/2013/http://example.com/search?q=a%20b&lang=en"},
	} {
		resp, body := do(t, ag.Handler(), "GET", tc.target)
		if want := transcriptBody(t, tc.title, arc1, arc2, arc3); resp.StatusCode != 200 || body != want {
			t.Errorf("%s: %d (-memgator +ours):\n%s", tc.target, resp.StatusCode, cmp.Diff(want, body))
		}
	}
	// A single memento: first, closest and last are the same; no prev, no next.
	_, body = do(t, ag.Handler(), "GET", "/memento/cdxj/2013/http://example.com/search?q=a%20b&lang=en")
	if got := lines(body); len(got) != 6 || !strings.Contains(got[5], `"rel": "first last closest memento"`) {
		t.Errorf("single-memento CDXJ description:\n%s", body)
	}
	// A miss: 404; an unknown format is read as a datetime: 400.
	if resp, _ := do(t, ag.Handler(), "GET", "/memento/json/2005/http://nothing.example/"); resp.StatusCode != 404 {
		t.Errorf("miss: %d, want 404", resp.StatusCode)
	}
	if resp, _ := do(t, ag.Handler(), "GET", "/memento/xml/2005/http://example.com/"); resp.StatusCode != 400 {
		t.Errorf("/memento/xml/: %d, want 400", resp.StatusCode)
	}

}

// TestPreflight: a browser's CORS preflight for a GET with
// Accept-Datetime gets 204 allowing it.
func TestPreflight(t *testing.T) {
	ag, _ := memgatorAggregator(t, Options{})
	resp, _ := do(t, ag.Handler(), "OPTIONS", "/timegate/http://example.com/",
		"Origin", "https://page.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "accept-datetime")
	if resp.StatusCode != http.StatusNoContent || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "Accept-Datetime") ||
		resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if resp.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" || resp.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD, POST, OPTIONS" {
		t.Errorf("preflight: Allow %q, Access-Control-Allow-Methods %q", resp.Header.Get("Allow"), resp.Header.Get("Access-Control-Allow-Methods"))
	}
	if resp, _ := do(t, ag.Handler(), "PUT", "/timegate/http://example.com/"); resp.StatusCode != 405 || resp.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
		t.Errorf("PUT: %d Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestJSONTimeMapPages: /timemap/json/{N}/{URI-R} is page N, not the URI-R
// "http://N/...".
func TestJSONTimeMapPages(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{PageSize: 3})
	resp, body := do(t, ag.Handler(), "GET", "/timemap/json/3/http://example.com/")
	if resp.StatusCode != 200 || !strings.Contains(body, `"page": 3`) || !strings.Contains(body, `"pages": 3`) ||
		!strings.Contains(body, arcs[0].URL+"/web/20200101000000/") || !strings.Contains(body, arcs[2].URL+"/web/20230808080808/") ||
		strings.Contains(body, "2016") {
		t.Errorf("page 3 of 3: %d\n%s", resp.StatusCode, body)
	}
	if resp, _ := do(t, ag.Handler(), "GET", "/timemap/json/4/http://example.com/"); resp.StatusCode != 404 {
		t.Errorf("page 4 of 3: %d, want 404", resp.StatusCode)
	}
}

// TestSignedTimeMapPage: a signed segment after the format is a page
// number that is refused, never part of the URI-R; a host with a label
// starting or ending with '-' is refused, naming the host; numeric and
// IPv4 hosts still answer.
func TestSignedTimeMapPage(t *testing.T) {
	ag, _ := memgatorAggregator(t, Options{PageSize: 3})
	h := ag.Handler()
	for _, f := range []string{"json", "link"} {
		for _, n := range []string{"-1", "-0", "+1", "0", "99999999999999999999"} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/"+n+"/http://example.com/")
			if resp.StatusCode != 400 || body != "Bad page number: "+n+"\n" {
				t.Errorf("%s page %s: %d %q, want 400 Bad page number", f, n, resp.StatusCode, body)
			}
		}
		for _, host := range []string{"-1", "a-", "x.-b.example", "b-.example"} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/http://"+host+"/")
			if resp.StatusCode != 400 || !strings.Contains(body, `"`+host+`"`) || !strings.Contains(body, "'-'") {
				t.Errorf("%s host %s: %d %q, want 400 naming the host", f, host, resp.StatusCode, body)
			}
		}
		for _, u := range []string{"http://1.2.3.4/", "http://123.com/", "http://a-b.example.com/", "http://example.com/"} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/"+u)
			if resp.StatusCode == 400 {
				t.Errorf("%s %s: 400 %q", f, u, body)
			}
		}
	}
	if resp, body := do(t, h, "GET", "/timemap/json/1/http://example.com/"); resp.StatusCode != 200 || !strings.Contains(body, `"page": 1`) {
		t.Errorf("page 1: %d\n%s", resp.StatusCode, body)
	}
}

// TestTimeMapPageAttempts: a segment after a TimeMap's format that is no
// host, followed by a URI-R, is a page number, refused unless it is 1 or
// more in decimal digits; URI-Rs without a scheme, whose first segment is
// a host, are read whole.
func TestTimeMapPageAttempts(t *testing.T) {
	ag, _ := memgatorAggregator(t, Options{PageSize: 3})
	h := ag.Handler()
	for _, f := range []string{"json", "link", "cdxj"} {
		for _, tc := range []struct{ seg, tail string }{
			{"abc", "http://example.com/"},
			{"abc", "example.com/"},
			{"1.5", "http://example.com/"},
			{"1.5", "example.com/"},
			{"1e3", "example.com/"},
			{"0x10", "https://example.com/"},
			{"one", "//example.com/"},
			{"2,5", "example.com:8080/x"},
			{"--1", "1.2.3.4/"},
		} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/"+tc.seg+"/"+tc.tail)
			if resp.StatusCode != 400 || body != "Bad page number: "+tc.seg+"\n" {
				t.Errorf("%s %s/%s: %d %q, want 400 Bad page number", f, tc.seg, tc.tail, resp.StatusCode, body)
			}
		}
		// Read whole as the URI-R: the answer's original link names it.
		for _, tc := range []struct{ path, urir string }{
			{"example.com/", "http://example.com/"},
			{"example.com/abc", "http://example.com/abc"},
			{"example.com/1.5/http://example.com/", "http://example.com/1.5/http://example.com/"},
			{"abc/def", "http://abc/def"},
			{"1.2.3.4/example.com/", "http://1.2.3.4/example.com/"},
			{"localhost:8080/example.com/", "http://localhost:8080/example.com/"},
			{"http://abc/example.com/", "http://abc/example.com/"},
			{"www.example.co.uk./abc/example.com/", "http://www.example.co.uk/abc/example.com/"},
		} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/"+tc.path)
			if resp.StatusCode == 400 {
				t.Errorf("%s %s: 400 %q, want it read as %s", f, tc.path, body, tc.urir)
				continue
			}
			if resp.StatusCode == 200 {
				if !strings.Contains(body, tc.urir) {
					t.Errorf("%s %s: TimeMap does not name %s:\n%s", f, tc.path, tc.urir, body)
				}
			} else if l := resp.Header.Get("Link"); l != "<"+tc.urir+`>; rel="original"` {
				t.Errorf("%s %s: %d, Link %q, want the original %s", f, tc.path, resp.StatusCode, l, tc.urir)
			}
		}
	}
	// A page past the end is 404, its count in words.
	resp, body := do(t, h, "GET", "/timemap/link/99/http://example.com/")
	if want := regexp.MustCompile(`^No page 99: (1 memento makes|([02-9]|\d\d+) mementos make) (1 page|([02-9]|\d\d+) pages) of 3\n$`); resp.StatusCode != 404 || !want.MatchString(body) {
		t.Errorf("link page 99: %d %q, want 404 matching %s", resp.StatusCode, body, want)
	}
	// cdxj TimeMaps have no pages.
	if resp, body := do(t, h, "GET", "/timemap/cdxj/1/http://example.com/"); resp.StatusCode != 400 || !strings.Contains(body, "no pages") {
		t.Errorf("cdxj page 1: %d %q, want 400", resp.StatusCode, body)
	}
	if resp, body := do(t, h, "GET", "/timemap/link/1/example.com/"); resp.StatusCode != 200 || !strings.Contains(body, `rel="index"`) {
		t.Errorf("link page 1 of a URI-R without scheme: %d\n%s", resp.StatusCode, body)
	}
}

// TestAboutAndArchives: /about lists the archives with their state and the
// configuration; /archives gives the registry as JSON and as an
// archivelist.xml that reads back to the same registry.
func TestAboutAndArchives(t *testing.T) {
	good := newArchive(t, archivetest.Config{})
	bad := newArchive(t, archivetest.Config{Fault: archivetest.FaultReset})
	cms := Archive{ID: "wiki", Name: "A Wiki", TimeMap: good.TimeMapPrefix(), TimeGate: good.TimeGatePrefix(), Type: "cms", Redirect: "yes", PagingStatus: 1}
	ag := newAggregator(t, Options{Archives: []Archive{entry("good", good), entry("bad", bad), cms}, Tolerance: 5, UserAgent: "test-agent <ops@example.org>",
		About: []ConfigLine{{"Archive list", "list.json"}}})
	// Before any request or probe every archive's state is unknown.
	if _, body := do(t, ag.Handler(), "GET", "/about", "Accept", "application/json"); strings.Count(body, `"state": "unknown"`) != 3 {
		t.Errorf("/about JSON before any request: want 3 archives unknown:\n%s", body)
	}
	do(t, ag.Handler(), "GET", "/timemap/link/http://example.com/")
	resp, body := do(t, ag.Handler(), "GET", "/about")
	for _, want := range []string{"1. [Fake good](good)\n", "2. [Fake bad](bad) - (Consecutive failures: 1)\n", "3. [A Wiki](wiki)\n",
		"User-agent:             test-agent <ops@example.org>\n", "Archive list:           list.json\n", "/timemap/index[/json]/{URI-R}", "/api/{link|cdxj|proxy}/{DATETIME}/{URI-R}"} {
		if !strings.Contains(body, want) {
			t.Errorf("/about lacks %q:\n%s", want, body)
		}
	}
	if resp.Header.Get("Content-Type") != ctText {
		t.Errorf("/about Content-Type %q", resp.Header.Get("Content-Type"))
	}
	resp, body = do(t, ag.Handler(), "GET", "/about", "Accept", "application/json")
	var doc struct {
		Archives []struct{ ID, State, Detail string }
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.Header.Get("Content-Type") != ctJSON {
		t.Fatalf("/about JSON: %v %s", err, body)
	}
	wantStates := []struct{ ID, State, Detail string }{{"good", "ok", ""}, {"bad", "failing", "Consecutive failures: 1"}, {"wiki", "ok", ""}}
	if d := cmp.Diff(wantStates, doc.Archives); d != "" {
		t.Errorf("/about JSON archives (-want +got):\n%s", d)
	}
	_, body = do(t, ag.Handler(), "GET", "/archives")
	got, err := ParseArchivesJSON(strings.NewReader(body))
	if err != nil || len(got) != 3 || got[2].Type != "cms" || got[0].TimeGate != good.TimeGatePrefix() {
		t.Errorf("/archives JSON read back: %v %+v\n%s", err, got, body)
	}
	resp, body = do(t, ag.Handler(), "GET", "/archives/xml")
	gotX, err := ParseArchivesXML(strings.NewReader(body))
	if err != nil || len(gotX) != 3 || gotX[2].Type != "cms" || gotX[2].Redirect != "yes" || gotX[2].PagingStatus != 1 || gotX[1].TimeMap != bad.TimeMapPrefix() {
		t.Errorf("/archives/xml read back: %v %+v\n%s", err, gotX, body)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/xml") {
		t.Errorf("/archives/xml Content-Type %q", resp.Header.Get("Content-Type"))
	}
	// The DIY index: one rel="timemap" per archive with a TimeMap.
	_, body = do(t, ag.Handler(), "GET", "/timemap/index/http://example.com/")
	if !strings.Contains(body, "<"+bad.TimeMapPrefix()+`http://example.com/>; rel="timemap"; type="application/link-format"; title="memento_compliant:no|archive_id:bad"`) ||
		strings.Count(body, `rel="timemap"`) != 3 || !strings.Contains(body, `<http://localhost:1208/timemap/index/http://example.com/>; rel="self"`) {
		t.Errorf("DIY index:\n%s", body)
	}
}

// TestCMSFloor: an archive of type "cms" gives the version in force at
// the datetime (latest not after it), even when a later one is closer:
// at /memento/{datetime} and at /timegate with Accept-Datetime (its
// Location and its rel="memento" link).
func TestCMSFloor(t *testing.T) {
	urir := "http://wiki.example/Page"
	w := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20100101000000", "20100301000000")}})
	for _, typ := range []string{"cms", "snapshot"} {
		a := entry("w", w)
		a.Type = typ
		ag := newAggregator(t, Options{Archives: []Archive{a}})
		// 2010-02-25 is nearer 2010-03-01 than 2010-01-01.
		resp, _ := do(t, ag.Handler(), "GET", "/memento/20100225/"+urir)
		want := w.URIM(urir, ts(t, "20100101000000"))
		if typ != "cms" {
			want = w.URIM(urir, ts(t, "20100301000000"))
		}
		if got := resp.Header.Get("Location"); resp.StatusCode != 302 || got != want {
			t.Errorf("type %s: %d Location %q, want %q", typ, resp.StatusCode, got, want)
		}
		resp, _ = do(t, ag.Handler(), "GET", "/timegate/"+urir, "Accept-Datetime", "Thu, 25 Feb 2010 00:00:00 GMT")
		if got := resp.Header.Get("Location"); resp.StatusCode != 302 || got != want {
			t.Errorf("type %s: /timegate %d Location %q, want %q", typ, resp.StatusCode, got, want)
		}
		if link := resp.Header.Get("Link"); !regexp.MustCompile(`<` + regexp.QuoteMeta(want) + `>; rel="[a-z ]*memento"`).MatchString(link) {
			t.Errorf("type %s: /timegate Link lacks %s as the memento:\n%s", typ, want, link)
		}
	}
}

// TestTopK: only the K archives of highest probability are asked; the
// others are counted and listed as left out by top-k, apart from the
// archives the rules leave out.
func TestTopK(t *testing.T) {
	arc1, arc2, arc3 := memgatorArchives(t)
	p := func(a Archive, v float64) Archive { a.Probability = v; return a }
	ag := newAggregator(t, Options{TopK: 1, Archives: []Archive{p(entry("arc3", arc3), 0.2), p(entry("arc1", arc1), 0.9), p(entry("arc2", arc2), 0.5)}})
	resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://example.com/")
	if resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != "4" || arc2.Count("timemap")+arc3.Count("timemap") != 0 || arc1.Count("timemap") != 1 {
		t.Errorf("topk 1: %d count %s, asked arc1 %d arc2 %d arc3 %d\n%s", resp.StatusCode, resp.Header.Get("X-Memento-Count"),
			arc1.Count("timemap"), arc2.Count("timemap"), arc3.Count("timemap"), body)
	}
	res, err := ag.Search(t.Context(), TimeMapDynamic, "http://example.com/", time.Time{})
	if err != nil || res.Counts() != (Counts{Found: 1, SkippedByTopK: 2}) {
		t.Fatalf("topk counts: %v %+v", err, res.Counts())
	}
	want := []Decision{{"arc3", StatusSkippedByTopK}, {"arc2", StatusSkippedByTopK}}
	if !slices.Equal(res.NotAsked, want) || !slices.Equal(ag.NotAsked(TimeMapDynamic, "http://example.com/"), want) {
		t.Errorf("NotAsked %v / %v, want %v", res.NotAsked, ag.NotAsked(TimeMapDynamic, "http://example.com/"), want)
	}
	if got := res.Counts().String(); got != "1 archive with mementos, 2 left out by top-k" {
		t.Errorf("counts %q", got)
	}
	// With a rule listing arc3 and arc2 only, arc1 is skipped by rule and
	// top-k keeps arc2 (0.5 over 0.2).
	rules, err := ParseRules(strings.NewReader(`{"timemap_dynamicdefault": "arc3,arc2"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ag = newAggregator(t, Options{TopK: 1, Rules: rules, Archives: []Archive{p(entry("arc3", arc3), 0.2), p(entry("arc1", arc1), 0.9), p(entry("arc2", arc2), 0.5)}})
	res, err = ag.Search(t.Context(), TimeMapDynamic, "http://example.com/", time.Time{})
	want = []Decision{{"arc3", StatusSkippedByTopK}, {"arc1", StatusSkippedByRule}}
	if err != nil || res.Counts() != (Counts{Found: 1, SkippedByRule: 1, SkippedByTopK: 1}) || !slices.Equal(res.NotAsked, want) {
		t.Errorf("rule and topk: %v %+v %v, want %v", err, res.Counts(), res.NotAsked, want)
	}
}

// TestMissToList: with MissToList a browser's miss of /memento or
// /api/json is a 302 to /list; a script's stays a 404.
func TestMissToList(t *testing.T) {
	ag, _ := memgatorAggregator(t, Options{MissToList: true})
	for _, p := range []string{"/memento/2005/http://nothing.example/", "/api/json/2005/http://nothing.example/"} {
		resp, _ := do(t, ag.Handler(), "GET", p, "Accept", "text/html,application/xhtml+xml")
		if want := "http://localhost:19208/list/20050101000000/http://nothing.example/"; resp.StatusCode != 302 || resp.Header.Get("Location") != want {
			t.Errorf("browser %s: %d Location %q, want 302 %s", p, resp.StatusCode, resp.Header.Get("Location"), want)
		}
		resp, body := do(t, ag.Handler(), "GET", p)
		if resp.StatusCode != 404 || !strings.Contains(body, "No mementos found") {
			t.Errorf("script %s: %d %q", p, resp.StatusCode, body)
		}
	}
	// A hit is not redirected.
	if resp, _ := do(t, ag.Handler(), "GET", "/memento/2005/http://example.com/", "Accept", "text/html"); resp.StatusCode != 302 ||
		strings.Contains(resp.Header.Get("Location"), "/list/") {
		t.Errorf("hit: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
}

func TestWriteMGJSON(t *testing.T) {
	var b bytes.Buffer
	writeMGJSON(&b, []mgField{{key: "a", val: `x"<y>&`}, {key: "n", obj: []mgField{{key: "b", val: "é"}, {key: "c", val: "http://a/b?c=d&e"}, {key: "d", val: "t\tab\\"}}}})
	if got, want := b.String(), `{"a": "x\"<y>&", "n": {"b": "é", "c": "http://a/b?c=d&e", "d": "t\tab\\"}}`; got != want {
		t.Errorf("writeMGJSON = %s, want %s", got, want)
	}
}

// TestArchivesXMLRoundTrip: /archives/xml writes the attributes of Time
// Travel's archivelist.xml (testdata/archivelist.xml, internal/spec/
// TIMETRAVEL.md §3.1) that the registry keeps, with the list's values and
// never an empty one; a MemGator JSON list's archives are
// memento-status="yes" with paging-status -1 (unknown) and no type.
func TestArchivesXMLRoundTrip(t *testing.T) {
	src, err := os.ReadFile("testdata/archivelist.xml")
	if err != nil {
		t.Fatal(err)
	}
	as, err := ParseArchivesXML(bytes.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	ag := newAggregator(t, Options{Archives: as})
	_, body := do(t, ag.Handler(), "GET", "/archives/xml")
	want := []string{
		`  <link id="ia" longname="Internet Archive">`,
		`    <timegate uri="https://web.archive.org/web/" redirect="no"/>`,
		`    <timemap uri="https://web.archive.org/web/timemap/link/" paging-status="2"/>`,
		`    <archive type="snapshot" memento-status="yes"/>`,
		`  </link>`,
		`  <link id="webcite" longname="WebCite">`,
		`    <timegate uri="http://timetravel.mementoweb.org/webcite/timegate/" redirect="no"/>`,
		`    <timemap uri="http://timetravel.mementoweb.org/webcite/timemap/link/" paging-status="0"/>`,
		`    <archive type="on-demand" memento-status="no"/>`,
		`  </link>`,
		`  <link id="wikipedia" longname="Wikipedia">`,
		`    <timegate uri="http://mementoweb.org/proxy/wiki/timegate/" redirect="yes"/>`,
		`    <timemap uri="http://mementoweb.org/proxy/wiki/timemap/link/" paging-status="1"/>`,
		`    <archive type="cms" memento-status="no"/>`,
		`  </link>`,
	}
	got := lines(body)
	if len(got) < 2 || got[1] != "<links>" || got[len(got)-1] != "</links>" {
		t.Fatalf("/archives/xml:\n%s", body)
	}
	if d := cmp.Diff(want, got[2:len(got)-1]); d != "" {
		t.Errorf("/archives/xml (-want +got):\n%s", d)
	}
	back, err := ParseArchivesXML(strings.NewReader(body))
	if err != nil || cmp.Diff(as, back) != "" {
		t.Errorf("read back: %v (-list +read back):\n%s", err, cmp.Diff(as, back))
	}

	js, err := ParseArchivesJSON(strings.NewReader(`[{"id": "arc1.local", "timemap": "http://127.0.0.1:19001/timemap/link/", "timegate": "http://127.0.0.1:19001/timegate/"},
 {"id": "proxied", "name": "Proxied", "timegate": "http://127.0.0.1:19002/timegate/", "memento_compliant": false}]`))
	if err != nil {
		t.Fatal(err)
	}
	ag = newAggregator(t, Options{Archives: js})
	_, body = do(t, ag.Handler(), "GET", "/archives/xml")
	want = []string{
		`  <link id="arc1.local" longname="arc1.local">`,
		`    <timegate uri="http://127.0.0.1:19001/timegate/" redirect="no"/>`,
		`    <timemap uri="http://127.0.0.1:19001/timemap/link/" paging-status="-1"/>`,
		`    <archive memento-status="yes"/>`,
		`  </link>`,
		`  <link id="proxied" longname="Proxied">`,
		`    <timegate uri="http://127.0.0.1:19002/timegate/" redirect="no"/>`,
		`    <archive memento-status="no"/>`,
		`  </link>`,
	}
	if got := lines(body); len(got) < 3 || cmp.Diff(want, got[2:len(got)-1]) != "" || strings.Contains(body, `=""`) {
		t.Errorf("/archives/xml of a JSON list (-want +got):\n%s", cmp.Diff(want, got[2:max(2, len(got)-1)]))
	}
	// The JSON registry says memento_compliant either way, so that it
	// reads back the same.
	_, body = do(t, ag.Handler(), "GET", "/archives")
	back, err = ParseArchivesJSON(strings.NewReader(body))
	if err != nil || len(back) != 2 || !back[0].MementoCompliant || back[1].MementoCompliant {
		t.Errorf("/archives read back: %v %+v\n%s", err, back, body)
	}
}

// transcriptHeader returns the value of header name in the first
// exchange under "### title" of the MemGator transcripts, with the fake
// archives' addresses replaced as transcriptBody does.
func transcriptHeader(t *testing.T, title, name string, archiveURLs ...string) string {
	t.Helper()
	b, err := sampledata.ReadFile("cases/memgator_transcripts.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "### "+title+"\n")
	if i < 0 {
		t.Fatalf("no section %q in the transcripts", title)
	}
	s = s[i:]
	j := strings.Index(s, "\n"+name+": ")
	if j < 0 || j > strings.Index(s[4:], "\n### ")+4 {
		t.Fatalf("no %s header under %q", name, title)
	}
	v := s[j+len(name)+3:]
	v = v[:strings.Index(v, "\n")]
	for k, u := range archiveURLs {
		v = strings.ReplaceAll(v, "http://127.0.0.1:1900"+string(rune('1'+k)), u)
	}
	return v
}

// TestSelectedMementoRels: in link format (the TimeGate's Link header and
// /memento/link/...) the selected memento carries rel="memento" merged
// with its place: "last memento" when it is the last, "first memento"
// when it is the first (RFC 7089 §5 has no "closest" rel, and MemGator's
// link format writes none; its CDXJ writes "closest memento"). The Link
// header of a TimeGate asked without Accept-Datetime is MemGator's, byte
// for byte.
func TestSelectedMementoRels(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{})
	arc1, arc2, arc3 := arcs[0].URL, arcs[1].URL, arcs[2].URL
	resp, _ := do(t, ag.Handler(), "GET", "/timegate/http://example.com/")
	if want := transcriptHeader(t, "TimeGate without Accept-Datetime (defaults to now)", "Link", arc1, arc2, arc3); resp.Header.Get("Link") != want {
		t.Errorf("TimeGate Link (-memgator +ours):\n%s", cmp.Diff(want, resp.Header.Get("Link")))
	}
	for _, tc := range []struct {
		target, line string
	}{
		{"/memento/link/2099/http://example.com/", `<` + arc3 + `/web/20230808080808/http://example.com/>; rel="last memento"; datetime="Tue, 08 Aug 2023 08:08:08 GMT",`},
		{"/memento/link/20230808080808/http://example.com/", `<` + arc3 + `/web/20230808080808/http://example.com/>; rel="last memento"; datetime="Tue, 08 Aug 2023 08:08:08 GMT",`},
		{"/memento/link/1990/http://example.com/", `<` + arc1 + `/web/19990125093000/http://example.com/>; rel="first memento"; datetime="Mon, 25 Jan 1999 09:30:00 GMT",`},
		{"/memento/link/2013/http://example.com/search?q=a%20b&lang=en", `<` + arc1 + `/web/20130303030303/http://example.com/search?q=a%20b&lang=en>; rel="first last memento"; datetime="Sun, 03 Mar 2013 03:03:03 GMT",`},
	} {
		resp, body := do(t, ag.Handler(), "GET", tc.target)
		got := lines(body)
		if resp.StatusCode != 200 || !slices.Contains(got, tc.line) || strings.Contains(body, "closest") {
			t.Errorf("%s: %d, want the line\n%s\n(and no \"closest\") in:\n%s", tc.target, resp.StatusCode, tc.line, body)
		}
		n := 0
		for _, l := range got {
			if strings.Contains(l, `memento"; datetime=`) {
				n++
			}
		}
		if want := map[bool]int{true: 1, false: 3}[strings.Contains(tc.target, "search")]; n != want {
			t.Errorf("%s: %d memento links, want %d (first, prev or next, last; merged when they coincide):\n%s", tc.target, n, want, body)
		}
	}
	// The TimeGate's Link header for a datetime after every memento
	// marks the selected one "last memento" (and the Location is it).
	resp, _ = do(t, ag.Handler(), "GET", "/timegate/http://example.com/", "Accept-Datetime", "Thu, 01 Jan 2099 00:00:00 GMT")
	if l := resp.Header.Get("Link"); resp.Header.Get("Location") != arc3+"/web/20230808080808/http://example.com/" ||
		!strings.Contains(l, `<`+arc3+`/web/20230808080808/http://example.com/>; rel="last memento"`) || strings.Contains(l, `rel="memento"`) {
		t.Errorf("TimeGate after every memento: Location %q Link %s", resp.Header.Get("Location"), l)
	}
}

// TestMementoProxy: /memento/proxy/{datetime}/{URI-R} streams the closest
// memento's unrewritten bytes ("id_" after the timestamp) from its
// archive, with Memento-Datetime and Link (original, the archive's
// TimeGate), as MemGator's answer in the transcripts ("Memento proxy");
// a URI-R found nowhere is 404, a bad datetime 400.
func TestMementoProxy(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{UserAgent: "test-agent <ops@example.org>"})
	arc1 := arcs[0]
	before := len(arc1.Requests())
	resp, body := do(t, ag.Handler(), "GET", "/memento/proxy/2012/http://example.com/")
	want := transcriptHeader(t, "Memento proxy (streams the closest memento, id_ inserted after the timestamp)", "Link", arc1.URL, arcs[1].URL, arcs[2].URL)
	if resp.StatusCode != 200 || resp.Header.Get("Link") != want ||
		resp.Header.Get("Memento-Datetime") != "Fri, 15 Jun 2012 08:09:10 GMT" || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		body != "<html><body>memento of http://example.com/ at 20120615080910 (mode \"id_\")</body></html>\n" {
		t.Errorf("proxy: %d Link %q (want %q) Memento-Datetime %q\n%s", resp.StatusCode, resp.Header.Get("Link"), want, resp.Header.Get("Memento-Datetime"), body)
	}
	var fetched []archivetest.Request
	for _, r := range arc1.Requests()[before:] {
		if r.Endpoint == "memento" {
			fetched = append(fetched, r)
		}
	}
	if len(fetched) != 1 || fetched[0].RawPath != "/web/20120615080910id_/http://example.com/" || fetched[0].UserAgent != "test-agent <ops@example.org>" {
		t.Errorf("memento requests seen by arc1: %+v", fetched)
	}
	if resp, _ := do(t, ag.Handler(), "GET", "/memento/proxy/2005/http://nothing.example/"); resp.StatusCode != 404 {
		t.Errorf("proxy of a URI-R found nowhere: %d, want 404", resp.StatusCode)
	}
	if resp, _ := do(t, ag.Handler(), "GET", "/memento/proxy/20051/http://example.com/"); resp.StatusCode != 400 {
		t.Errorf("proxy with a bad datetime: %d, want 400", resp.StatusCode)
	}
	for _, tc := range [][2]string{
		{"http://a.example/web/20120615080910/http://example.com/", "http://a.example/web/20120615080910id_/http://example.com/"},
		{"http://a.example/wayback/20120615080910/http://example.com/20010101000000/", "http://a.example/wayback/20120615080910id_/http://example.com/20010101000000/"},
		{"http://a.example/memento/abc", "http://a.example/memento/abc"},
	} {
		if got := rawURIM(tc[0]); got != tc[1] {
			t.Errorf("rawURIM(%q) = %q, want %q", tc[0], got, tc[1])
		}
	}
}

// TestDIYIndexJSON: /timemap/index/json/{URI-R} is Time Travel's JSON
// TimeMap index (internal/spec/TIMETRAVEL.md §1.3): one timemap_index
// entry per archive with a TimeMap, memento_compliant as "yes" or "no".
func TestDIYIndexJSON(t *testing.T) {
	good := newArchive(t, archivetest.Config{})
	proxied := Archive{ID: "proxied", TimeMap: good.TimeMapPrefix(), TimeGate: good.TimeGatePrefix(), MementoCompliant: false}
	gateOnly := Archive{ID: "gate-only", TimeGate: good.TimeGatePrefix(), MementoCompliant: true}
	compliant := entry("good", good)
	compliant.MementoCompliant = true
	ag := newAggregator(t, Options{Archives: []Archive{compliant, proxied, gateOnly}})
	resp, body := do(t, ag.Handler(), "GET", "/timemap/index/json/http://example.com/")
	var doc struct {
		OriginalURI  string `json:"original_uri"`
		TimeGateURI  string `json:"timegate_uri"`
		TimeMapIndex []struct {
			URI              string `json:"uri"`
			MementoCompliant string `json:"memento_compliant"`
			ArchiveID        string `json:"archive_id"`
		} `json:"timemap_index"`
		TimeMapURI map[string]string `json:"timemap_uri"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctJSON {
		t.Fatalf("%d %v\n%s", resp.StatusCode, err, body)
	}
	if doc.OriginalURI != "http://example.com/" || doc.TimeGateURI != "http://localhost:1208/timegate/http://example.com/" || len(doc.TimeMapIndex) != 2 ||
		doc.TimeMapIndex[0].ArchiveID != "good" || doc.TimeMapIndex[0].MementoCompliant != "yes" || doc.TimeMapIndex[0].URI != good.TimeMapPrefix()+"http://example.com/" ||
		doc.TimeMapIndex[1].ArchiveID != "proxied" || doc.TimeMapIndex[1].MementoCompliant != "no" ||
		doc.TimeMapURI["link_format"] != "http://localhost:1208/timemap/index/http://example.com/" || doc.TimeMapURI["json_format"] != "http://localhost:1208/timemap/index/json/http://example.com/" {
		t.Errorf("JSON index:\n%s", body)
	}
	if n := len(good.Requests()); n != 0 {
		t.Errorf("the index asked the archive %d times", n)
	}
}

// TestIndexHasNoPages: a page number after /timemap/index/ or
// /timemap/index/json/ is refused (an index has no pages), never read as
// the URI-R "http://0.0.0.N/..."; a page number with nothing after it is
// refused as an empty URI-R, not read as the host "N". A URI-R whose
// first segment is a host still gets its index.
func TestIndexHasNoPages(t *testing.T) {
	ag, _ := memgatorAggregator(t, Options{PageSize: 3})
	h := ag.Handler()
	for _, p := range []string{"/timemap/index/", "/timemap/index/json/"} {
		for _, tail := range []string{"1/http://example.com/", "2/example.com/", "-1/http://example.com/", "abc/http://example.com/", "1/"} {
			n, _, _ := strings.Cut(tail, "/")
			resp, body := do(t, h, "GET", p+tail)
			if resp.StatusCode != 400 || !strings.HasPrefix(body, "Bad page number: "+n+" (a TimeMap index has no pages") {
				t.Errorf("%s%s: %d %q, want 400 Bad page number", p, tail, resp.StatusCode, body)
			}
		}
		if resp, body := do(t, h, "GET", p+"example.com/1/http://example.com/"); resp.StatusCode != 200 || !strings.Contains(body, "http://example.com/1/http://example.com/") {
			t.Errorf("%sexample.com/1/...: %d %q", p, resp.StatusCode, body)
		}
	}
	for _, f := range []string{"link", "json"} {
		for _, n := range []string{"1", "2", "+3"} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/"+n+"/")
			if resp.StatusCode != 400 || body != "Bad request: empty URI-R after page "+n+"\n" {
				t.Errorf("/timemap/%s/%s/: %d %q, want 400 empty URI-R", f, n, resp.StatusCode, body)
			}
		}
	}
}

// TestLeadingZeroPage: a page number with a leading zero is refused with
// 400 naming the page it spells (one spelling per page, as "+1" is
// refused), for link and json, never read as page 1 or as part of the
// URI-R.
func TestLeadingZeroPage(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{PageSize: 3})
	h := ag.Handler()
	for _, f := range []string{"json", "link"} {
		for _, tc := range []struct{ seg, page string }{{"01", "1"}, {"007", "7"}, {"010", "10"}} {
			resp, body := do(t, h, "GET", "/timemap/"+f+"/"+tc.seg+"/http://example.com/")
			want := "Bad page number: " + tc.seg + " (a page number has no leading zero: " + tc.page + ")\n"
			if resp.StatusCode != 400 || body != want {
				t.Errorf("%s page %s: %d %q, want 400 %q", f, tc.seg, resp.StatusCode, body, want)
			}
		}
	}
	for _, a := range arcs {
		if n := a.Count(""); n != 0 {
			t.Errorf("a refused page number sent %d upstream requests", n)
		}
	}
	if resp, body := do(t, h, "GET", "/timemap/link/1/http://example.com/"); resp.StatusCode != 200 || !strings.Contains(body, `rel="original"`) {
		t.Errorf("page 1: %d\n%s", resp.StatusCode, body)
	}
}

// TestTwoAcceptDatetimes: a request with two Accept-Datetime headers
// (sent as two header lines to a real server) is refused with 400 naming
// the header and both values (RFC 7089 §2.1.1 allows one datetime),
// before any archive is asked; one header still answers 302. MemGator
// reads the first header and ignores the second.
func TestTwoAcceptDatetimes(t *testing.T) {
	ag, arcs := memgatorAggregator(t, Options{})
	srv := httptest.NewServer(ag.Handler())
	t.Cleanup(srv.Close)
	get := func(values ...string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest("GET", srv.URL+"/timegate/http://example.com/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header["Accept-Datetime"] = values
		c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, string(b)
	}
	a, b := "Tue, 01 Mar 2005 12:00:00 GMT", "Wed, 01 Jan 2020 00:00:00 GMT"
	resp, body := get(a, b)
	if resp.StatusCode != 400 || !strings.HasPrefix(body, "Bad request: 2 Accept-Datetime headers ("+a+" | "+b+")\n") || !strings.Contains(body, "RFC 7089 section 2.1.1") {
		t.Errorf("two Accept-Datetime headers: %d %q, want 400 naming the header and both values", resp.StatusCode, body)
	}
	if resp.Header.Get("Vary") != "accept-datetime" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("400 headers: %v", resp.Header)
	}
	for _, arc := range arcs {
		if n := arc.Count(""); n != 0 {
			t.Errorf("a refused request sent %d upstream requests", n)
		}
	}
	if resp, body := get(a); resp.StatusCode != 302 || !strings.Contains(resp.Header.Get("Location"), "20050301120000") {
		t.Errorf("one Accept-Datetime: %d Location %q %q", resp.StatusCode, resp.Header.Get("Location"), body)
	}
}

// TestAboutCountsFailedProbes: /about's "Consecutive failures" counts
// every failed contact since the last answer: a search's 500 and each
// failed probe (the probes ask one URI-R, which the dormancy run counts
// once), until an answer ends the count.
func TestAboutCountsFailedProbes(t *testing.T) {
	a := newAnsweringArchive(t, nil)
	var down atomic.Bool
	down.Store(true)
	ok := wellBehaved(a.URL)
	a.set(func(w http.ResponseWriter, r *http.Request, urir string) {
		if down.Load() {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		ok(w, r, urir)
	})
	ag := newAggregator(t, Options{Archives: []Archive{a.entry("a")}, Tolerance: 10, DormantFor: time.Hour})
	h := ag.Handler()
	if res, err := ag.Search(t.Context(), TimeMapDynamic, "http://page.example/", time.Time{}); err != nil || res.Outcomes[0].Reason != "status-503" {
		t.Fatalf("search: %v %+v", err, res)
	}
	for i := 1; i <= 3; i++ {
		if o := ag.Probe(t.Context(), time.Minute)[0]; o.Reason != "status-503" {
			t.Fatalf("probe %d: %+v", i, o)
		}
		want := "(Consecutive failures: " + strconv.Itoa(1+i) + "; last probe "
		if _, body := do(t, h, "GET", "/about"); !strings.Contains(body, want) {
			t.Errorf("after a failed search and %d failed probes /about lacks %q:\n%s", i, want, body)
		}
	}
	_, body := do(t, h, "GET", "/about", "Accept", "application/json")
	var doc struct {
		Archives []struct {
			State    string
			Failures int `json:"consecutive_failures"`
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || len(doc.Archives) != 1 || doc.Archives[0].Failures != 4 || doc.Archives[0].State != "failing" {
		t.Errorf("/about JSON: %v %+v, want 4 consecutive failures, failing", err, doc.Archives)
	}
	down.Store(false)
	if o := ag.Probe(t.Context(), time.Minute)[0]; o.Status == StatusFailed {
		t.Fatalf("probe of an answering archive: %+v", o)
	}
	if st := ag.Stats()[0]; st.ConsecutiveFailures != 0 || st.State() != StateOK {
		t.Errorf("after an answered probe: %+v, want no failures, ok", st)
	}
}
