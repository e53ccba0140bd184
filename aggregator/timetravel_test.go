package aggregator

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// The Time Travel service's own test requests, against local archives,
// with GET and HEAD; the archives are asked about the normalized URI-R
// (lower-case host).
func TestTimeTravelTestRequests(t *testing.T) {
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://greensboro.com":     times(t, "20140101000000", "20150601120000", "20160101000000"),
		"http://poppys-style.com":   times(t, "20120101000000", "20130101000000"),
		"http://www.mementoweb.org": times(t, "20150101000000", "20160306011912", "20170101000000"),
	}})
	b := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://greensboro.com": times(t, "20150601120000"),
	}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a), entry("b", b)}, Cache: newMemCache(t)})
	h := ag.Handler()
	for _, tc := range []struct {
		name, target string
		header       []string
		status       int
		ctype        string
		location     string
	}{
		{"api json", "/api/json/2015/http://Greensboro.com", nil, 200, "application/json", ""},
		{"timegate no-cache", "/timegate/http://poppys-style.com", []string{"Cache-Control", "no-cache"}, 302, "", a.URL + "/web/20130101000000/http://poppys-style.com"},
		{"paged timemap", "/timemap/link/1/http://poppys-style.com", nil, 200, "application/link-format", ""},
		{"list page", "/list/2015/http://Greensboro.com", nil, 200, "text/html; charset=utf-8", ""},
		{"timegate accept-datetime", "/timegate/http://www.mementoweb.org", []string{"Accept-Datetime", "Sun, 06 Mar 2016 01:19:12 GMT"}, 302, "", a.URL + "/web/20160306011912/http://www.mementoweb.org"},
	} {
		for _, method := range []string{"GET", "HEAD"} {
			t.Run(tc.name+" "+method, func(t *testing.T) {
				resp, body := do(t, h, method, tc.target, tc.header...)
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
				}
				if tc.ctype != "" && resp.Header.Get("Content-Type") != tc.ctype {
					t.Errorf("Content-Type %q, want %q", resp.Header.Get("Content-Type"), tc.ctype)
				}
				if tc.location != "" && resp.Header.Get("Location") != tc.location {
					t.Errorf("Location %q, want %q", resp.Header.Get("Location"), tc.location)
				}
				if method == "HEAD" && body != "" {
					t.Errorf("HEAD body %q", body)
				}
				if method == "GET" && resp.Header.Get("Content-Length") == "" {
					t.Error("no Content-Length")
				}
			})
		}
	}
}

func TestAPIJSONShape(t *testing.T) {
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": times(t, "20020120142510", "20100513224108", "20100514231857", "20100527090513", "20161108144631"),
	}})
	b := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": times(t, "20100514231857"),
	}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("ia", a), entry("ait", b)}, BaseURL: "http://tt.example"})
	resp, body := do(t, ag.Handler(), "GET", "/api/json/20100515/http://example.com/")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	m := func(dt string, uris ...string) map[string]any {
		u := make([]any, len(uris))
		for i, s := range uris {
			u[i] = s
		}
		return map[string]any{"datetime": dt, "uri": u}
	}
	want := map[string]any{
		"original_uri": "http://example.com/",
		"timegate_uri": "http://tt.example/timegate/http://example.com/",
		"timemap_uri": map[string]any{
			"link_format": "http://tt.example/timemap/link/http://example.com/",
			"json_format": "http://tt.example/timemap/json/http://example.com/",
		},
		"mementos": map[string]any{
			"first":   m("2002-01-20T14:25:10Z", a.URL+"/web/20020120142510/http://example.com/"),
			"prev":    m("2010-05-13T22:41:08Z", a.URL+"/web/20100513224108/http://example.com/"),
			"closest": m("2010-05-14T23:18:57Z", a.URL+"/web/20100514231857/http://example.com/", b.URL+"/web/20100514231857/http://example.com/"),
			"next":    m("2010-05-27T09:05:13Z", a.URL+"/web/20100527090513/http://example.com/"),
			"last":    m("2016-11-08T14:46:31Z", a.URL+"/web/20161108144631/http://example.com/"),
		},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("/api/json (-want +got):\n%s", d)
	}
	// prev omitted when it is first, next when it is last.
	_, body = do(t, ag.Handler(), "GET", "/api/json/2002/http://example.com/")
	if strings.Contains(body, `"prev"`) {
		t.Errorf("prev present at the first memento:\n%s", body)
	}
	_, body = do(t, ag.Handler(), "GET", "/api/json/20161108144631/http://example.com/")
	if strings.Contains(body, `"next"`) {
		t.Errorf("next present at the last memento:\n%s", body)
	}
}

func TestTimeGateLinkHeader(t *testing.T) {
	arc1, arc2, arc3 := memgatorArchives(t)
	ag := newAggregator(t, Options{Archives: []Archive{entry("arc1", arc1), entry("arc2", arc2), entry("arc3", arc3)}, BaseURL: "http://localhost:19208"})
	// Exactly between 1999-01-25 09:30 and 2001-09-11 08:46 (479 days
	// 23:38 from each; the MemGator transcript's "midpoint" 21:08 is not
	// one): the later one wins.
	resp, _ := do(t, ag.Handler(), "GET", "/timegate/http://example.com/", "Accept-Datetime", "Fri, 19 May 2000 09:08:00 GMT")
	if resp.StatusCode != http.StatusFound {
		t.Fatalf("status %d", resp.StatusCode)
	}
	want := `<http://example.com/>; rel="original", ` +
		`<` + arc1.URL + `/web/19990125093000/http://example.com/>; rel="first prev memento"; datetime="Mon, 25 Jan 1999 09:30:00 GMT", ` +
		`<` + arc3.URL + `/web/20010911084600/http://example.com/>; rel="memento"; datetime="Tue, 11 Sep 2001 08:46:00 GMT", ` +
		`<` + arc1.URL + `/web/20050301120000/http://example.com/>; rel="next memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT", ` +
		`<` + arc3.URL + `/web/20230808080808/http://example.com/>; rel="last memento"; datetime="Tue, 08 Aug 2023 08:08:08 GMT", ` +
		`<http://localhost:19208/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format", ` +
		`<http://localhost:19208/timemap/json/http://example.com/>; rel="timemap"; type="application/json", ` +
		`<http://localhost:19208/timemap/cdxj/http://example.com/>; rel="timemap"; type="application/cdxj+ors", ` +
		`<http://localhost:19208/timegate/http://example.com/>; rel="timegate"`
	if d := cmp.Diff(want, resp.Header.Get("Link")); d != "" {
		t.Errorf("Link (-want +got):\n%s", d)
	}
	if resp.Header.Get("Location") != arc3.URL+"/web/20010911084600/http://example.com/" {
		t.Errorf("Location %q", resp.Header.Get("Location"))
	}
	if v := resp.Header.Get("Vary"); !strings.EqualFold(v, "accept-datetime") {
		t.Errorf("Vary %q", v)
	}
	if resp.Header.Get("Memento-Datetime") != "" {
		t.Error("a 302 TimeGate must not send Memento-Datetime (RFC 7089 §4.2.1)")
	}
	// Single memento: one link "first last memento".
	resp, _ = do(t, ag.Handler(), "GET", "/timegate/http://example.com/search?q=a%20b&lang=en")
	if l := resp.Header.Get("Link"); !strings.Contains(l, `rel="first last memento"`) || strings.Count(l, "/web/") != 1 {
		t.Errorf("single memento Link: %s", l)
	}
}

func TestPagedTimeMap(t *testing.T) {
	urir := "http://big.example.com/"
	var hold []time.Time
	base := ts(t, "20000101000000")
	for i := range 1201 {
		hold = append(hold, base.Add(time.Duration(i)*time.Minute))
	}
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: hold}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, BaseURL: "http://agg"})
	count := func(body, sub string) int { return strings.Count(body, sub) }
	for _, tc := range []struct {
		page, mementos, timemaps int
		self                     string
	}{
		{1, 500, 2, `<http://agg/timemap/link/1/http://big.example.com/>; rel="self"; type="application/link-format"; from="Sat, 01 Jan 2000 00:00:00 GMT"; until="Sat, 01 Jan 2000 08:19:00 GMT"`},
		{2, 500, 2, `<http://agg/timemap/link/2/http://big.example.com/>; rel="self"; type="application/link-format"; from="Sat, 01 Jan 2000 08:20:00 GMT"; until="Sat, 01 Jan 2000 16:39:00 GMT"`},
		{3, 201, 2, `<http://agg/timemap/link/3/http://big.example.com/>; rel="self"; type="application/link-format"; from="Sat, 01 Jan 2000 16:40:00 GMT"; until="Sat, 01 Jan 2000 20:00:00 GMT"`},
	} {
		resp, body := do(t, ag.Handler(), "GET", "/timemap/link/"+strconv.Itoa(tc.page)+"/"+urir)
		if resp.StatusCode != 200 {
			t.Fatalf("page %d: status %d", tc.page, resp.StatusCode)
		}
		if n := count(body, "datetime="); n != tc.mementos {
			t.Errorf("page %d: %d mementos, want %d", tc.page, n, tc.mementos)
		}
		// Other pages are rel="timemap" with from/until, plus the three formats.
		if n := count(body, `rel="timemap"; type="application/link-format"; from=`); n != tc.timemaps {
			t.Errorf("page %d: %d page links, want %d", tc.page, n, tc.timemaps)
		}
		if !strings.Contains(body, tc.self+",\n") {
			t.Errorf("page %d: no self link %s", tc.page, tc.self)
		}
	}
	resp, _ := do(t, ag.Handler(), "GET", "/timemap/link/4/"+urir)
	if resp.StatusCode != 404 {
		t.Errorf("page 4: status %d, want 404", resp.StatusCode)
	}
	// The unpaged TimeMap stays whole.
	_, body := do(t, ag.Handler(), "GET", "/timemap/link/"+urir)
	if n := count(body, "datetime="); n != 1201 {
		t.Errorf("whole TimeMap: %d mementos", n)
	}
}
