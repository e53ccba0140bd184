package aggregator

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestArchivesFormats: /archives answers the Time Travel archive-list XML
// when the query asks for it (?format=xml) or the Accept header prefers
// XML, JSON otherwise; the XML read back by ParseArchivesXML gives the
// registry's archives (every field the XML holds); a format the query
// names that is neither, or that the path contradicts, is 400.
func TestArchivesFormats(t *testing.T) {
	archives := []Archive{
		{ID: "ia", Name: "Internet Archive", TimeMap: "http://127.0.0.1:1/web/timemap/link/", TimeGate: "http://127.0.0.1:1/web/", MementoCompliant: true, PagingStatus: 2, Redirect: "yes", Type: "snapshot"},
		{ID: "wiki", Name: "A & B <Wiki>", TimeMap: "http://127.0.0.1:2/tm/a&b=\"2\"/", TimeGate: "http://127.0.0.1:2/tg/", Type: "cms"},
		{ID: "tmonly", Name: "TimeMap only", TimeMap: "http://127.0.0.1:3/timemap/"},
	}
	ag := newAggregator(t, Options{Archives: archives})
	h := ag.Handler()
	// An empty Redirect is the default, "no", as ParseArchivesXML reads it.
	want := ag.Archives()
	for i := range want {
		if want[i].Redirect == "" {
			want[i].Redirect = "no"
		}
	}
	xmlFields := cmpopts.IgnoreFields(Archive{}, "Probability", "Timeout", "Map")
	readXML := func(what, body string) {
		t.Helper()
		got, err := ParseArchivesXML(strings.NewReader(body))
		if err != nil {
			t.Fatalf("%s: our XML does not read back: %v\n%s", what, err, body)
		}
		if d := cmp.Diff(want, got, xmlFields); d != "" {
			t.Errorf("%s: XML read back (-registry +read):\n%s\n%s", what, d, body)
		}
	}
	_, body := do(t, h, "GET", "/archives/xml")
	readXML("/archives/xml", body)

	for _, c := range []struct {
		target, accept, want string
	}{
		{"/archives?format=xml", "", "xml"},
		{"/archives?format=json", "application/xml", "json"},
		{"/archives/?format=xml", "", "xml"},
		{"/archives/xml?format=xml", "", "xml"},
		{"/archives", "", "json"},
		{"/archives", "application/xml", "xml"},
		{"/archives", "text/xml", "xml"},
		{"/archives", "application/json", "json"},
		{"/archives", "*/*", "json"},
		{"/archives", "application/json;q=0.5, application/xml", "xml"},
		{"/archives", "application/xml;q=0.5, application/json", "json"},
		{"/archives", "application/json;q=0, */*", "xml"},
		{"/archives", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "xml"},
		{"/archives", "application/*", "json"},
		{"/archives", "Application/XML", "xml"},
		{"/archives", "text/html", "json"},
	} {
		var hdr []string
		if c.accept != "" {
			hdr = []string{"Accept", c.accept}
		}
		resp, body := do(t, h, "GET", c.target, hdr...)
		ct := resp.Header.Get("Content-Type")
		switch {
		case resp.StatusCode != http.StatusOK:
			t.Errorf("%s Accept %q: status %d %s", c.target, c.accept, resp.StatusCode, body)
		case c.want == "xml" && !strings.HasPrefix(ct, "application/xml"):
			t.Errorf("%s Accept %q: Content-Type %q, want the archive-list XML", c.target, c.accept, ct)
		case c.want == "xml":
			readXML(c.target+" Accept "+c.accept, body)
		case ct != ctJSON:
			t.Errorf("%s Accept %q: Content-Type %q, want JSON", c.target, c.accept, ct)
		default:
			got, err := ParseArchivesJSON(strings.NewReader(body))
			if err != nil || len(got) != len(want) || got[1].Name != want[1].Name {
				t.Errorf("%s Accept %q: JSON read back %v %+v", c.target, c.accept, err, got)
			}
		}
		if negotiated := !strings.Contains(c.target, "xml") && !strings.Contains(c.target, "json"); negotiated && resp.Header.Get("Vary") != "Accept" {
			t.Errorf("%s: Vary %q, want Accept", c.target, resp.Header.Get("Vary"))
		}
	}
	for _, target := range []string{"/archives?format=yaml", "/archives?format=", "/archives/json?format=xml"} {
		if resp, body := do(t, h, "GET", target); resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, "Bad format") {
			t.Errorf("%s: %d %q, want 400 Bad format", target, resp.StatusCode, body)
		}
	}
}
