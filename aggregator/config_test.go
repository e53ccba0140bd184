package aggregator

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseArchivesJSONPublicList(t *testing.T) {
	f, err := os.Open("testdata/archives.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	as, err := ParseArchivesJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	// internal/spec/TIMETRAVEL.md §3.2 says 8 are ignored; its table marks 7.
	if len(as) != 13 {
		t.Fatalf("%d archives, want 20 - 7 ignored = 13", len(as))
	}
	if as[0].ID != "archive.today" || as[0].TimeMap != "http://archive.today/timemap/" {
		t.Errorf("first archive %+v", as[0])
	}
	for _, a := range as {
		if a.Ignore || strings.Contains(a.ID, "proni") {
			t.Errorf("ignored archive kept: %s", a.ID)
		}
	}
}

func TestParseArchivesJSON(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    []Archive
		wantErr error
		offset  int64
	}{
		{"memgator transcript list", `[
  {"id": "arc3.local", "name": "Fake Archive Three", "timemap": "http://127.0.0.1:19003/timemap/link", "timegate": "http://127.0.0.1:19003/timegate", "probability": 0.2},
  {"id": "ignored.local", "name": "Ignored", "timemap": "http://127.0.0.1:19009/timemap/link/", "timegate": "http://127.0.0.1:19009/timegate/", "ignore": true}
]`, []Archive{{ID: "arc3.local", Name: "Fake Archive Three", TimeMap: "http://127.0.0.1:19003/timemap/link/", TimeGate: "http://127.0.0.1:19003/timegate/", Probability: 0.2, PagingStatus: -1, MementoCompliant: true}}, nil, 0},
		{"empty array", `[]`, nil, nil, 0},
		{"limits", `[{"id":"a","timemap":"http://a/","timeout":"2.5s","rate":4,"burst":2,"max_concurrent":3,"mementomap":"https://a/map.ukvs","mementomap_refresh":"24h"},
		  {"id":"b","timegate":"http://b/","mementomap":"discover"},{"id":"c","timegate":"http://c/","mementomap":"maps/c.ukvs"}]`, []Archive{
			{ID: "a", Name: "a", TimeMap: "http://a/", Timeout: 2500 * time.Millisecond, Rate: 4, Burst: 2, MaxConcurrent: 3, Map: MapSource{URL: "https://a/map.ukvs", Refresh: 24 * time.Hour}, PagingStatus: -1, MementoCompliant: true},
			{ID: "b", Name: "b", TimeGate: "http://b/", Map: MapSource{Discover: true}, PagingStatus: -1, MementoCompliant: true},
			{ID: "c", Name: "c", TimeGate: "http://c/", Map: MapSource{File: "maps/c.ukvs"}, PagingStatus: -1, MementoCompliant: true},
		}, nil, 0},
		{"bad timeout", `[{"id":"a","timemap":"http://a/","timeout":"soon"}]`, nil, ErrUnknownValue, 1},
		{"negative rate", `[{"id":"a","timemap":"http://a/","rate":-1}]`, nil, ErrUnknownValue, 1},
		{"name defaults to id", `[{"id":"a","timemap":"http://a/tm/"}]`, []Archive{{ID: "a", Name: "a", TimeMap: "http://a/tm/", PagingStatus: -1, MementoCompliant: true}}, nil, 0},
		{"not compliant", `[{"id":"a","timemap":"http://a/tm/","memento_compliant":false,"type":"cms"}]`, []Archive{{ID: "a", Name: "a", TimeMap: "http://a/tm/", PagingStatus: -1, Type: "cms"}}, nil, 0},
		{"no id", `[{"id":"a","timemap":"http://a/"}, {"timemap":"http://b/"}]`, nil, ErrNoID, 33},
		{"duplicate id", `[{"id":"a","timemap":"http://a/"},{"id":"a","timemap":"http://b/"}]`, nil, ErrDuplicateID, 33},
		{"no endpoint", `[{"id":"a"}]`, nil, ErrNoEndpoint, 1},
		{"id with quote", `[{"id":"a","timemap":"http://a/"},{"id":"<x&y>\"'","timemap":"http://b/"}]`, nil, ErrBadID, 33},
		{"id with CR LF", `[{"id":"a\r\nX: y","timemap":"http://a/"}]`, nil, ErrBadID, 1},
		{"id with space", `[{"id":"a b","timemap":"http://a/"}]`, nil, ErrBadID, 1},
		{"id with comma", `[{"id":"a,b","timemap":"http://a/"}]`, nil, ErrBadID, 1},
		{"id with equals", `[{"id":"a=b","timemap":"http://a/"}]`, nil, ErrBadID, 1},
		{"relative endpoint", `[{"id":"a","timemap":"/tm/"}]`, nil, ErrBadEndpoint, 1},
		{"ftp endpoint", `[{"id":"a","timegate":"ftp://a/"}]`, nil, ErrBadEndpoint, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArchivesJSON(strings.NewReader(tc.in))
			if tc.wantErr != nil {
				var le *ListError
				if !errors.Is(err, tc.wantErr) || !errors.As(err, &le) {
					t.Fatalf("err %v, want %v in a *ListError", err, tc.wantErr)
				}
				if le.Offset != tc.offset {
					t.Errorf("offset %d, want %d (%v)", le.Offset, tc.offset, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{``, `{}`, `[{"id":`, `[{"id":"a","timemap":"http://a/"}`, `[1]`} {
		if _, err := ParseArchivesJSON(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseArchivesJSON(%q): no error", bad)
		}
	}
}

func TestParseArchivesXML(t *testing.T) {
	f, err := os.Open("testdata/archivelist.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ParseArchivesXML(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Archive{
		{ID: "ia", Name: "Internet Archive", TimeGate: "https://web.archive.org/web/", TimeMap: "https://web.archive.org/web/timemap/link/", PagingStatus: 2, Redirect: "no", MementoCompliant: true, Type: "snapshot"},
		{ID: "webcite", Name: "WebCite", TimeGate: "http://timetravel.mementoweb.org/webcite/timegate/", TimeMap: "http://timetravel.mementoweb.org/webcite/timemap/link/", PagingStatus: 0, Redirect: "no", Type: "on-demand"},
		{ID: "wikipedia", Name: "Wikipedia", TimeGate: "http://mementoweb.org/proxy/wiki/timegate/", TimeMap: "http://mementoweb.org/proxy/wiki/timemap/link/", PagingStatus: 1, Redirect: "yes", Type: "cms"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		name, in string
		line     int
		wantErr  error
	}{
		{"bad redirect", "<links>\n<link id=\"a\">\n<timegate uri=\"http://a/\" redirect=\"maybe\"/></link></links>", 2, ErrUnknownValue},
		{"bad paging", "<links>\n\n<link id=\"a\"><timemap uri=\"http://a/\" paging-status=\"7\"/></link></links>", 3, ErrUnknownValue},
		{"duplicate", "<links><link id=\"a\"><timemap uri=\"http://a/\"/></link>\n<link id=\"a\"><timemap uri=\"http://b/\"/></link></links>", 2, ErrDuplicateID},
		{"no id", "<links><link><timemap uri=\"http://a/\"/></link></links>", 1, ErrNoID},
		{"id with quote", "<links>\n<link id=\"&lt;x&amp;y&gt;&quot;'\"><timemap uri=\"http://a/\"/></link></links>", 2, ErrBadID},
		{"id with CR LF", "<links><link id=\"a&#13;&#10;X: y\"><timemap uri=\"http://a/\"/></link></links>", 1, ErrBadID},
		{"id with comma", "<links><link id=\"a,b\"><timemap uri=\"http://a/\"/></link></links>", 1, ErrBadID},
		{"wrong root", "<archives/>", 1, nil},
		{"unclosed", "<links><link id=\"a\">", 1, nil},
		{"empty", "", 1, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseArchivesXML(strings.NewReader(tc.in))
			var le *ListError
			if !errors.As(err, &le) {
				t.Fatalf("err %v, want a *ListError", err)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("err %v, want %v", err, tc.wantErr)
			}
			if le.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", le.Line, tc.line, err)
			}
		})
	}
}

func loadRules(t *testing.T, known []string) *Rules {
	t.Helper()
	f, err := os.Open("testdata/rules.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ParseRules(f, func(id string) bool { return slices.Contains(known, id) })
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRules(t *testing.T) {
	known := []string{"ia", "archive.today", "arquivo.pt", "archive-it", "ukwa", "loc", "perma", "github", "wikipedia"}
	r := loadRules(t, known)
	if d := cmp.Diff([]string{"cms1", "ukgwa"}, r.Unknown()); d != "" {
		t.Errorf("unknown ids (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		name string
		svc  Service
		urir string
		want []string
	}{
		{"default", TimeGateDynamic, "http://example.com/", []string{"ia", "archive.today", "arquivo.pt"}},
		{"uk rule, https, unanchored", TimeGateDynamic, "https://www.bl.uk/x", []string{"ia", "archive.today", "arquivo.pt", "ukwa"}},
		{"uk rule drops unknown ukgwa", Batch, "http://www.bl.uk/", []string{"ia", "archive.today", "arquivo.pt", "archive-it", "ukwa", "loc", "perma"}},
		{"github", TimeMapCache, "https://github.com/x/y", []string{"github"}},
		{"github with default token", TimeTravelDynamic, "https://github.com/x/y", []string{"ia", "archive.today", "arquivo.pt", "github"}},
		{"wikipedia over http", TimeGateCache, "http://en.wikipedia.org/wiki/X", []string{"wikipedia"}},
		{"wikipedia over https does not match the http:// regex", TimeGateCache, "https://en.wikipedia.org/wiki/X", []string{"ia", "archive.today", "arquivo.pt", "archive-it", "ukwa", "loc", "perma"}},
		{"api rule keeps its url pattern, its only archive unknown", TimeGateDynamic, "http://fixed-list-placeholder/a", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r.Archives(tc.svc, tc.urir)
			if got == nil {
				got = []string{}
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func TestRulesFileOrderAndErrors(t *testing.T) {
	in := `{"batchdefault": "a , b",
	  "timegate_dynamicdefault": "batchdefault,c",
	  "rules": [
	    {"url": "example\\.com/", "batch": "c"},
	    {"url": "example\\.com/special", "batch": "b"},
	    {"url": "other\\.org/", "timegate_dynamic": "a"}]}`
	r, err := ParseRules(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		svc  Service
		urir string
		want []string
	}{
		{Batch, "http://example.com/special", []string{"c"}}, // the first matching rule wins
		{Batch, "http://x.org/", []string{"a", "b"}},
		{TimeGateDynamic, "http://x.org/", []string{"a", "b", "c"}}, // a default naming another default
		{TimeGateDynamic, "http://example.com/", []string{"a", "b", "c"}},
		{TimeGateDynamic, "http://other.org/", []string{"a"}},
		{TimeMapCache, "http://other.org/", nil},
	} {
		if d := cmp.Diff(tc.want, r.Archives(tc.svc, tc.urir)); d != "" {
			t.Errorf("%s %s (-want +got):\n%s", tc.svc, tc.urir, d)
		}
	}
	for _, bad := range []struct{ name, in, msg string }{
		{"syntax", `{"rules": [}`, "byte"},
		{"rules not array", `{"rules": {}}`, "array"},
		{"no url", `{"rules": [{"batch": "a"}]}`, "rule 0"},
		{"bad regexp", `{"rules": [{"url": "a(", "batch": "a"}]}`, "rule 0"},
		{"list not string", `{"rules": [{"url": "a", "batch": ["a"]}]}`, "rule 0: batch"},
		{"default not string", `{"batchdefault": 1}`, "batchdefault"},
	} {
		_, err := ParseRules(strings.NewReader(bad.in), nil)
		if !errors.Is(err, ErrRules) || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("%s: err %v, want ErrRules naming %q", bad.name, err, bad.msg)
		}
	}
}

func TestBlacklist(t *testing.T) {
	bl, err := ParseBlacklist(strings.NewReader("# adult category\nexample.com\n\n  Bad.Example.ORG.  \n192.0.2.1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if bl.Len() != 3 {
		t.Errorf("Len %d", bl.Len())
	}
	for _, tc := range []struct {
		urir string
		want bool
	}{
		{"http://example.com/", true},
		{"https://www.example.com/a?b", true},
		{"http://a.b.example.com:8080/", true},
		{"http://EXAMPLE.com./", true},
		{"http://notexample.com/", false},
		{"http://example.com.evil.net/", false},
		{"http://bad.example.org/x", true},
		{"http://example.org/", false},
		{"http://192.0.2.1/", true},
		{"not a url %zz", false},
	} {
		if got := bl.Blocks(tc.urir); got != tc.want {
			t.Errorf("Blocks(%q) = %v, want %v", tc.urir, got, tc.want)
		}
	}
	var nilBL *Blacklist
	if nilBL.Blocks("http://example.com/") || nilBL.Len() != 0 {
		t.Error("nil blacklist blocks")
	}
	_, err = ParseBlacklist(strings.NewReader("ok.example\nhttp://bad/\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err %v, want one naming line 2", err)
	}
}

func FuzzParseArchivesJSON(f *testing.F) {
	for _, s := range []string{`[]`, `[{"id":"a","timemap":"http://a/"}]`, `[{"id":"a","ignore":true,"timegate":"https://x/"}]`, `{`, `[{"id":""}]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		as, err := ParseArchivesJSON(strings.NewReader(in))
		if err != nil {
			var le *ListError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is not a *ListError", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, a := range as {
			if a.ID == "" || seen[a.ID] || (a.TimeMap == "" && a.TimeGate == "") {
				t.Fatalf("accepted a bad entry %+v", a)
			}
			seen[a.ID] = true
		}
	})
}

func FuzzParseArchivesXML(f *testing.F) {
	b, err := os.ReadFile("testdata/archivelist.xml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`<links><link id="a"><timemap uri="http://a/" paging-status="-1"/></link></links>`)
	f.Fuzz(func(t *testing.T, in string) {
		as, err := ParseArchivesXML(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, a := range as {
			if a.ID == "" || (a.TimeMap == "" && a.TimeGate == "") {
				t.Fatalf("accepted a bad entry %+v", a)
			}
		}
	})
}

func FuzzParseRules(f *testing.F) {
	b, err := os.ReadFile("testdata/rules.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b), "http://www.bl.uk/")
	f.Add(`{"batchdefault":"a,batchdefault","rules":[{"url":"x","batch":"batchdefault,b"}]}`, "http://x/")
	f.Fuzz(func(t *testing.T, in, urir string) {
		r, err := ParseRules(strings.NewReader(in), nil)
		if err != nil {
			if !errors.Is(err, ErrRules) {
				t.Fatalf("error %v does not wrap ErrRules", err)
			}
			return
		}
		for _, s := range Services {
			ids := r.Archives(s, urir)
			seen := map[string]bool{}
			for _, id := range ids {
				if id == "" || seen[id] || strings.HasSuffix(id, "default") && slices.Contains(Services, Service(strings.TrimSuffix(id, "default"))) {
					t.Fatalf("%s: bad list %q", s, ids)
				}
				seen[id] = true
			}
		}
	})
}

func FuzzParseBlacklist(f *testing.F) {
	f.Add("example.com\n# c\n\nwww.a.b\n", "http://x.www.a.b/")
	f.Fuzz(func(t *testing.T, in, urir string) {
		bl, err := ParseBlacklist(strings.NewReader(in))
		if err != nil {
			if !strings.Contains(err.Error(), "line ") {
				t.Fatalf("error %v names no line", err)
			}
			return
		}
		_ = bl.Blocks(urir) // must not panic
	})
}

// TestNewRefusesBadArchiveID: archives given to New directly obey the
// archive lists' id rule (CheckArchiveID), so no id written into a Link
// parameter or the Archive-Failures header can break its syntax.
func TestNewRefusesBadArchiveID(t *testing.T) {
	for _, id := range []string{`<x&y>"'`, "a\r\nX: y", "a b", "a,b", "a=b", "a;b", `a\b`, "a\x7f"} {
		if _, err := New(&Options{Archives: []Archive{{ID: id, TimeMap: "http://a/"}}}); !errors.Is(err, ErrBadID) {
			t.Errorf("New with archive id %q: err %v, want ErrBadID", id, err)
		}
	}
	ag, err := New(&Options{Archives: []Archive{{ID: "web.archive.org-2_x", TimeMap: "http://a/"}}})
	if err != nil {
		t.Fatalf("New with a good id: %v", err)
	}
	ag.Close()
}
