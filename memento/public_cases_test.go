package memento

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
)

type publicCase struct{ id, input, expected, source string }

// memCases returns the rows of cases/public_cases.tsv for package memento,
// with "\n" in the input column turned into line feeds.
func memCases(t *testing.T) []publicCase {
	t.Helper()
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var out []publicCase
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 5 || f[1] != "memento" {
			continue
		}
		out = append(out, publicCase{f[0], strings.ReplaceAll(f[2], `\n`, "\n"), f[3], f[4]})
	}
	if len(out) == 0 {
		t.Fatal("no memento rows")
	}
	return out
}

// memChecks holds one check per memento row of public_cases.tsv; the
// expected column is prose, restated here as assertions.
var memChecks = map[string]func(t *testing.T, c publicCase){
	"MEM-01": func(t *testing.T, c publicCase) {
		for _, strict := range []bool{true, false} {
			tm, err := ReadTimeMap(strings.NewReader(c.input), &ParseOptions{Strict: strict})
			if err != nil {
				t.Fatal(err)
			}
			if tm.Original != "https://en.example.org/w/index.php?title=COVID-19_pandemic&amp;oldid=934259284" {
				t.Errorf("original %q", tm.Original)
			}
			var got []string
			for _, m := range tm.Mementos {
				got = append(got, m.URIM)
			}
			want := []string{
				"http://arch.example.net/web/20071213021252/http://www.example.com/",
				"http://arch.example.net/web/20071213220957/http://www.example.com/#garage=&showroom=new=0,1&open=",
				"http://arch.example.net/web/20071223171907/http://www.example.com/#h=1063,k=active,s=y",
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("strict=%v mementos (-want +got):\n%s", strict, diff)
			}
		}
	},
	"MEM-03": func(t *testing.T, c publicCase) {
		headers := strings.Split(c.input, "\n---second header---\n")
		if len(headers) != 2 {
			t.Fatalf("input layout changed: %d parts", len(headers))
		}
		rest := strings.Split(headers[1], "\n---third header---\n")
		headers = append(headers[:1], rest...)
		if len(headers) != 3 {
			t.Fatalf("input layout changed: %d parts", len(headers))
		}
		dt := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
		type summary struct {
			Original, TimeGate string
			Mementos           []time.Time
			First, Last        time.Time
			TimeMapType        string
		}
		want := []summary{
			{Original: "http://example.com", Mementos: []time.Time{dt("2006-05-14T12:35:11Z"), dt("2016-03-13T13:58:37Z")},
				First: dt("2006-05-14T12:35:11Z"), Last: dt("2016-03-13T13:58:37Z"), TimeMapType: "application/link-format"},
			{Original: "http://example.com", TimeGate: "https://perma.example/warc/http://example.com", Mementos: []time.Time{dt("2016-05-09T20:00:05Z")},
				First: dt("2016-05-09T20:00:05Z"), Last: dt("2016-05-09T20:00:05Z"), TimeMapType: "application/link-format"},
			{Original: "https://wiki.example.org/wiki/Main_Page", Mementos: []time.Time{dt("1970-01-01T00:00:00Z")},
				First: dt("1970-01-01T00:00:00Z"), Last: dt("1970-01-01T00:00:00Z")},
		}
		for i, h := range headers {
			links, err := ParseLinkFormat(h, nil)
			if err != nil {
				t.Fatalf("header %d: %v", i+1, err)
			}
			tm, err := NewTimeMap(links, nil)
			if err != nil {
				t.Fatalf("header %d: %v", i+1, err)
			}
			var got summary
			got.Original, got.TimeGate = tm.Original, tm.TimeGate
			for _, m := range tm.Mementos {
				got.Mementos = append(got.Mementos, m.Datetime)
			}
			f, _ := tm.First()
			l, _ := tm.Last()
			got.First, got.Last = f.Datetime, l.Datetime
			if len(tm.Pages) > 0 {
				got.TimeMapType = tm.Pages[0].Type
			}
			// "first" and "last" come from the rel set in any order.
			for _, lk := range links {
				if lk.IsMemento() && lk.HasRel("first") {
					v, _ := lk.Param("datetime")
					if d, _ := ParseHTTPDate(v); !d.Equal(got.First) {
						t.Errorf("header %d: rel first on %v, earliest is %v", i+1, d, got.First)
					}
				}
			}
			if diff := cmp.Diff(want[i], got); diff != "" {
				t.Errorf("header %d (-want +got):\n%s", i+1, diff)
			}
			if i == 2 && !links[0].HasRel("latest-version") {
				t.Errorf("header 3: original lost latest-version: %v", links[0].Rel)
			}
		}
	},
	"MEM-05": func(t *testing.T, c publicCase) {
		parent, _, ok := strings.Cut(c.input, "\n(a1 lists")
		if !ok {
			t.Fatal("input layout changed")
		}
		parent = strings.ReplaceAll(parent, "http://agg.example.net", "{base}")
		a := newArchive(t, map[string]http.HandlerFunc{
			"/timemap/link/http://example.com/": serve(200, parent),
			"/a1/timemap/link/http://example.com/": serve(200, `<http://example.com/>; rel="original",
<http://a1.example/web/20100101000000/http://example.com/>; rel="first memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT",
<http://a1.example/web/20000101000000/http://example.com/>; rel="last memento"; datetime="Sat, 01 Jan 2000 00:00:00 GMT"`),
			"/a2/timemap/link/http://example.com/": serve(200, `<http://example.com/>; rel="original",
<{base}/timemap/link/http://example.com/>; rel="timemap"; type="application/link-format",
<http://a2.example/web/20050101000000/http://example.com/>; rel="memento"; datetime="Sat, 01 Jan 2005 00:00:00 GMT"`),
		})
		tm, err := (&Client{}).FetchTimeMap(context.Background(), a.URL+"/timemap/link/http://example.com/")
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range tm.Mementos {
			got = append(got, m.URIM)
		}
		want := []string{
			"http://a1.example/web/20000101000000/http://example.com/",
			"http://a2.example/web/20050101000000/http://example.com/",
			"http://a1.example/web/20100101000000/http://example.com/",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("mementos (-want +got):\n%s", diff)
		}
		for _, p := range []string{"/timemap/link/http://example.com/", "/a1/timemap/link/http://example.com/", "/a2/timemap/link/http://example.com/"} {
			if n := a.hitsOf(p); n != 1 {
				t.Errorf("%s fetched %d times, want once", p, n)
			}
		}
		if n := len(a.requests()); n != 3 {
			t.Errorf("%d requests, want 3: %v", n, a.requests())
		}
	},
}

// TestPublicCases runs the memento rows of internal/sampledata's
// cases/public_cases.tsv. A row without a check fails.
func TestPublicCases(t *testing.T) {
	for _, c := range memCases(t) {
		t.Run(c.id, func(t *testing.T) {
			check := memChecks[c.id]
			if check == nil {
				t.Fatalf("no check for %s (%s)", c.id, c.expected)
			}
			check(t, c)
		})
	}
}
