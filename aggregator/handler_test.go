package aggregator

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTimeMapLinkMatchesMemGator(t *testing.T) {
	arc1, arc2, arc3 := memgatorArchives(t)
	// arc3 first in the list but ranked by position: arc1, arc2, arc3.
	ag := newAggregator(t, Options{Archives: []Archive{entry("arc1.local", arc1), entry("arc2.local", arc2), entry("arc3.local", arc3)}, BaseURL: "http://localhost:19208"})
	resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://example.com/")
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	want := []string{
		`<http://example.com/>; rel="original",`,
		`<http://localhost:19208/timemap/link/http://example.com/>; rel="self"; type="application/link-format"; from="Mon, 25 Jan 1999 09:30:00 GMT"; until="Tue, 08 Aug 2023 08:08:08 GMT",`,
		`<` + arc1.URL + `/web/19990125093000/http://example.com/>; rel="first memento"; datetime="Mon, 25 Jan 1999 09:30:00 GMT",`,
		`<` + arc3.URL + `/web/20010911084600/http://example.com/>; rel="memento"; datetime="Tue, 11 Sep 2001 08:46:00 GMT",`,
		`<` + arc1.URL + `/web/20050301120000/http://example.com/>; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT",`,
		`<` + arc2.URL + `/web/20050301120000/http://example.com/>; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT",`,
		`<` + arc1.URL + `/web/20120615080910/http://example.com/>; rel="memento"; datetime="Fri, 15 Jun 2012 08:09:10 GMT",`,
		`<` + arc2.URL + `/web/20160229235959/http://example.com/>; rel="memento"; datetime="Mon, 29 Feb 2016 23:59:59 GMT",`,
		`<` + arc1.URL + `/web/20200101000000/http://example.com/>; rel="memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT",`,
		`<` + arc3.URL + `/web/20230808080808/http://example.com/>; rel="last memento"; datetime="Tue, 08 Aug 2023 08:08:08 GMT",`,
		`<http://localhost:19208/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format",`,
		`<http://localhost:19208/timemap/json/http://example.com/>; rel="timemap"; type="application/json",`,
		`<http://localhost:19208/timemap/cdxj/http://example.com/>; rel="timemap"; type="application/cdxj+ors",`,
		`<http://localhost:19208/timegate/http://example.com/>; rel="timegate"`,
	}
	if d := cmp.Diff(want, lines(body)); d != "" {
		t.Errorf("TimeMap (-want +got):\n%s", d)
	}
	if got := resp.Header.Get("X-Memento-Count"); got != "8" {
		t.Errorf("X-Memento-Count = %q, want 8", got)
	}
	if got := resp.Header.Get("Content-Type"); got != "application/link-format" {
		t.Errorf("Content-Type = %q", got)
	}
	if got := resp.Header.Get("Archive-Failures"); got != "" {
		t.Errorf("Archive-Failures = %q, want none", got)
	}
}

func TestHandlerStatuses(t *testing.T) {
	arc1, arc2, arc3 := memgatorArchives(t)
	bl, err := ParseBlacklist(strings.NewReader("blocked.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	ag := newAggregator(t, Options{Archives: []Archive{entry("arc1", arc1), entry("arc2", arc2), entry("arc3", arc3)}, Blacklist: bl})
	h := ag.Handler()
	for _, tc := range []struct {
		name, method, target string
		header               []string
		want                 int
		location             string
	}{
		{"post answered as get", "POST", "/memento/2005/http://example.com/", nil, 302, arc1.URL + "/web/20050301120000/http://example.com/"},
		{"delete not allowed", "DELETE", "/timemap/link/http://dup.example.net/", nil, 405, ""},
		{"put not allowed", "PUT", "/timegate/http://example.com/", nil, 405, ""},
		{"format case-sensitive", "GET", "/timemap/LINK/http://example.com/", nil, 400, ""},
		{"unknown format", "GET", "/timemap/xml/http://example.com/", nil, 400, ""},
		{"bad accept-datetime", "GET", "/timegate/http://example.com/", []string{"Accept-Datetime", "2005-03-01T12:00:00Z"}, 400, ""},
		{"accept-datetime without GMT", "GET", "/timegate/http://example.com/", []string{"Accept-Datetime", "Thu, 20 Mar 2003 19:54:39"}, 400, ""},
		{"one-digit day", "GET", "/timegate/http://example.com/", []string{"Accept-Datetime", "Thu, 1 Apr 2010 12:00:00 GMT"}, 400, ""},
		{"wrong weekday is valid", "GET", "/timegate/http://example.com/", []string{"Accept-Datetime", "Sun, 01 Mar 2005 12:00:00 GMT"}, 302, arc1.URL + "/web/20050301120000/http://example.com/"},
		{"odd digits", "GET", "/memento/20051/http://example.com/", nil, 400, ""},
		{"impossible month", "GET", "/memento/200513/http://example.com/", nil, 400, ""},
		{"blacklisted", "GET", "/timemap/link/http://www.blocked.example/page", nil, 403, ""},
		{"blacklisted timegate", "HEAD", "/timegate/http://blocked.example/", nil, 403, ""},
		{"not archived", "GET", "/timemap/link/http://nothing.example/", nil, 404, ""},
		{"not archived timegate", "GET", "/timegate/http://nothing.example/", nil, 404, ""},
		{"unknown path", "GET", "/nothing/here", nil, 404, ""},
		{"memento 4 digits", "GET", "/memento/2005/http://example.com/", nil, 302, arc1.URL + "/web/20050301120000/http://example.com/"},
		{"head timemap", "HEAD", "/timemap/json/http://example.com/", nil, 200, ""},
		{"upper-case scheme", "GET", "/timemap/link/HTTP://example.com/", nil, 200, ""},
		{"encoded as a whole", "GET", "/timemap/link/http%3A%2F%2Fexample.com%2F", nil, 200, ""},
		{"no scheme", "GET", "/timemap/cdxj/example.com", nil, 404, ""},
		{"doubled scheme", "GET", "/timemap/link/http://http://example.com/", nil, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := do(t, h, tc.method, tc.target, tc.header...)
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.want, body)
			}
			if tc.location != "" && resp.Header.Get("Location") != tc.location {
				t.Errorf("Location = %q, want %q", resp.Header.Get("Location"), tc.location)
			}
			if tc.want == 405 && resp.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" {
				t.Errorf("Allow = %q", resp.Header.Get("Allow"))
			}
			if tc.method == "HEAD" && body != "" {
				t.Errorf("HEAD with a body: %q", body)
			}
		})
	}
	// The blacklisted requests reached no archive.
	for _, r := range append(append(arc1.Requests(), arc2.Requests()...), arc3.Requests()...) {
		if strings.Contains(r.RawPath, "blocked.example") {
			t.Errorf("blacklisted URI-R reached an archive: %s", r.RawPath)
		}
	}
}
