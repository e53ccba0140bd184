package memento

import (
	"bytes"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/timestamp"
)

// transcriptBody returns the response body of the first exchange under the
// "### <heading>" section of cases/memgator_transcripts.md (recorded from
// MemGator 1.0-rc9; provenance in that file).
func transcriptBody(t *testing.T, heading string) string {
	t.Helper()
	b, err := sampledata.ReadFile("cases/memgator_transcripts.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n### "+heading)
	if i < 0 {
		t.Fatalf("no section %q", heading)
	}
	s = s[i:]
	j := strings.Index(s, "```\n")
	k := strings.Index(s[j+4:], "```\n")
	block := s[j+4 : j+4+k]
	if strings.HasPrefix(block, "$ curl") {
		_, body, ok := strings.Cut(block, "\n\n")
		if !ok {
			t.Fatalf("section %q: no body", heading)
		}
		return body
	}
	// CLI transcript: drop the command line.
	_, body, _ := strings.Cut(block, "\n")
	return body
}

// memgatorTimeMap parses MemGator's link-format TimeMap of
// http://example.com/ (8 mementos from 3 archives, two in the same second).
func memgatorTimeMap(t *testing.T, heading string) (*TimeMap, string) {
	t.Helper()
	body := transcriptBody(t, heading)
	tm, err := ReadTimeMap(strings.NewReader(body), &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	return tm, body
}

var ignoreRel = cmpopts.IgnoreFields(Memento{}, "Rel")

func TestWritersMatchMemGator(t *testing.T) {
	// MemGator orders mementos of the same second by arrival (its JSON and
	// link answers to the same request differ); ours are byte-wise. exact
	// cases happen to agree and must match byte for byte; the others must
	// have the same lines in another order, except where a tie sits at the
	// first position ("first memento" then goes to another URI-M): there
	// only the TimeMaps read back are compared.
	const (
		exact = iota
		sameLines
		sameTimeMap
	)
	for _, c := range []struct {
		name, link, json, cdxj string
		mementos               int
		linkCmp, jsonCmp       int
	}{
		{"example.com", "TimeMap, link format (URI-R in 3 of 3 archives", "TimeMap, JSON format", "TimeMap, CDXJ format", 8, exact, sameLines},
		{"dup.example.net", "TimeMap, method is not checked", "TimeMap, same datetime in two archives", "", 3, sameTimeMap, sameTimeMap},
		{"query string", "TimeMap, URI-R with a query string", "", "", 1, exact, 0},
		{"https and www", "TimeMap, https scheme and www", "", "", 8, sameLines, 0},
		{"no scheme", "TimeMap, URI-R without scheme", "", "", 8, exact, 0},
		{"root and proxy", "`--root=/mg --proxy=https://aggregator.example.org/mg/`", "", "", 3, sameTimeMap, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tm, linkBody := memgatorTimeMap(t, c.link)
			if len(tm.Mementos) != c.mementos {
				t.Fatalf("%d mementos, want %d", len(tm.Mementos), c.mementos)
			}
			// Link format: byte for byte, except that MemGator's order of
			// mementos in the same second is its arrival order (its JSON and
			// link answers for the same request differ); ours is byte-wise.
			var b bytes.Buffer
			if err := WriteLinkFormat(&b, tm); err != nil {
				t.Fatal(err)
			}
			switch c.linkCmp {
			case exact:
				if b.String() != linkBody {
					t.Errorf("link format differs:\n%s\nwant\n%s", b.String(), linkBody)
				}
			case sameLines:
				if diff := cmp.Diff(sortedLines(linkBody), sortedLines(b.String())); diff != "" {
					t.Errorf("link format lines (-memgator +ours):\n%s", diff)
				}
			}
			back, err := ReadTimeMap(bytes.NewReader(b.Bytes()), &ParseOptions{Strict: true})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tm, back, ignoreRel, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("link format read back (-memgator +ours):\n%s", diff)
			}
			if c.json != "" {
				want := transcriptBody(t, c.json)
				b.Reset()
				if err := WriteJSON(&b, tm); err != nil {
					t.Fatal(err)
				}
				// Same lines (layout, keys, indentation), and the same
				// TimeMap when read back.
				if c.jsonCmp == sameLines {
					if diff := cmp.Diff(sortedLines(want), sortedLines(b.String())); diff != "" {
						t.Errorf("JSON lines (-memgator +ours):\n%s", diff)
					}
				}
				theirs, err := ReadJSON(strings.NewReader(want))
				if err != nil {
					t.Fatal(err)
				}
				ours, err := ReadJSON(&b)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(theirs, ours); diff != "" {
					t.Errorf("JSON TimeMap (-memgator +ours):\n%s", diff)
				}
			}
			if c.cdxj != "" {
				want := transcriptBody(t, c.cdxj)
				b.Reset()
				if err := WriteCDXJ(&b, tm); err != nil {
					t.Fatal(err)
				}
				if b.String() != want {
					t.Errorf("CDXJ differs:\n%s\nwant\n%s", b.String(), want)
				}
				theirs, err := ReadCDXJ(strings.NewReader(want))
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tm.Mementos, theirs.Mementos, ignoreRel, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("CDXJ mementos:\n%s", diff)
				}
			}
		})
	}
}

func sortedLines(s string) []string {
	l := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i := range l {
		l[i] = strings.TrimSuffix(l[i], ",")
	}
	slices.Sort(l)
	return l
}

// roundTripTimeMap has what each format can carry: mementos with Extra
// parameters (link format only), a self page with from/until, pages of the
// three media types and an extra page with a title, and two URI-Ms in one
// second.
func roundTripTimeMap() *TimeMap {
	d := func(s string) time.Time { t, _ := timestamp.Parse(s); return t }
	tm := &TimeMap{
		Original: "http://example.com/a,b;c=d?x=\"y\"",
		TimeGate: "http://agg.example/timegate/http://example.com/",
		Self:     Page{URI: "http://agg.example/timemap/link/http://example.com/", Type: MediaTypeLinkFormat, From: d("1999"), Until: d("2023")},
		Pages: []Page{
			{URI: "http://agg.example/timemap/link/http://example.com/", Type: MediaTypeLinkFormat},
			{URI: "http://agg.example/timemap/json/http://example.com/", Type: MediaTypeJSON},
			{URI: "http://agg.example/timemap/cdxj/http://example.com/", Type: MediaTypeCDXJ},
		},
		Mementos: []Memento{
			{URIM: "http://a.example/web/19990125093000/http://example.com/", Datetime: d("19990125093000"), Extra: []Param{{Name: "license", Value: "http://creativecommons.org/publicdomain/zero/1.0/"}}},
			{URIM: "http://a.example/web/20050301120000/http://example.com/#h=1,k=\\", Datetime: d("20050301120000")},
			{URIM: "http://b.example/web/20050301120000/http://example.com/", Datetime: d("20050301120000"), Extra: []Param{{Name: "collection", Value: "pywb"}, {Name: "crossorigin", NoValue: true}}},
			{URIM: "http://b.example/web/20230808080808/http://example.com/<é>", Datetime: d("20230808080808")},
		},
	}
	tm.Sort()
	return tm
}

func TestRoundTrip(t *testing.T) {
	tm := roundTripTimeMap()
	t.Run("link format", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteLinkFormat(&b, tm); err != nil {
			t.Fatal(err)
		}
		got, err := ReadTimeMap(bytes.NewReader(b.Bytes()), &ParseOptions{Strict: true})
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		want := *tm
		want.RawOriginal = tm.Original
		// '<', '>' and '"' cannot stand in a target; the writer percent-encodes them.
		want.Original = strings.ReplaceAll(tm.Original, `"`, "%22")
		want.RawOriginal = want.Original
		want.Mementos = slices.Clone(tm.Mementos)
		want.Mementos[3].URIM = "http://b.example/web/20230808080808/http://example.com/%3Cé%3E"
		if diff := cmp.Diff(&want, got, ignoreRel, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s\n%s", diff, b.String())
		}
	})
	t.Run("JSON", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteJSON(&b, tm); err != nil {
			t.Fatal(err)
		}
		got, err := ReadJSON(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		want := &TimeMap{Original: tm.Original, RawOriginal: tm.Original, TimeGate: tm.TimeGate, Pages: tm.Pages[:3],
			Self: Page{URI: tm.Pages[1].URI, Type: MediaTypeJSON}}
		for _, m := range tm.Mementos {
			want.Mementos = append(want.Mementos, Memento{URIM: m.URIM, Datetime: m.Datetime})
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		var again bytes.Buffer
		if err := WriteJSON(&again, got); err != nil {
			t.Fatal(err)
		}
		if again.String() != b.String() {
			t.Errorf("second write differs:\n%s\nfirst\n%s", again.String(), b.String())
		}
	})
	t.Run("CDXJ", func(t *testing.T) {
		var b bytes.Buffer
		if err := WriteCDXJ(&b, tm); err != nil {
			t.Fatal(err)
		}
		got, err := ReadCDXJ(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		want := &TimeMap{Original: tm.Original, RawOriginal: tm.Original, TimeGate: tm.TimeGate, Pages: tm.Pages[:3],
			Self: Page{URI: tm.Pages[2].URI, Type: MediaTypeCDXJ}}
		for _, m := range tm.Mementos {
			want.Mementos = append(want.Mementos, Memento{URIM: m.URIM, Datetime: m.Datetime})
		}
		if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		var again bytes.Buffer
		if err := WriteCDXJ(&again, got); err != nil {
			t.Fatal(err)
		}
		if again.String() != b.String() {
			t.Errorf("second write differs")
		}
	})
	t.Run("empty", func(t *testing.T) {
		empty := &TimeMap{Original: "http://example.com/"}
		for name, w := range map[string]func(*bytes.Buffer) error{
			"link": func(b *bytes.Buffer) error { return WriteLinkFormat(b, empty) },
			"json": func(b *bytes.Buffer) error { return WriteJSON(b, empty) },
			"cdxj": func(b *bytes.Buffer) error { return WriteCDXJ(b, empty) },
		} {
			var b bytes.Buffer
			if err := w(&b); err != nil {
				t.Fatal(err)
			}
			var got *TimeMap
			var err error
			switch name {
			case "link":
				got, err = ReadTimeMap(&b, &ParseOptions{Strict: true})
			case "json":
				got, err = ReadJSON(&b)
			case "cdxj":
				got, err = ReadCDXJ(&b)
			}
			if err != nil || got.Original != empty.Original || len(got.Mementos) != 0 {
				t.Errorf("%s: %+v %v", name, got, err)
			}
		}
	})
}

// TestTimeTravelJSON checks NewTimeTravelResult and WriteTimeTravelJSON
// against the /api/json example of the Time Travel documentation
// (testdata/timetravel_api.json, provenance in testdata/README.md): the
// closest second holds two URI-Ms, "uri" is an array.
func TestTimeTravelJSON(t *testing.T) {
	d := func(s string) time.Time { t, _ := timestamp.Parse(s); return t }
	tm := &TimeMap{
		Original: "http://example.com/",
		TimeGate: "http://timetravel.mementoweb.org/timegate/http://example.com/",
		Pages: []Page{
			{URI: "http://timetravel.mementoweb.org/timemap/link/http://example.com/", Type: MediaTypeLinkFormat},
			{URI: "http://timetravel.mementoweb.org/timemap/json/http://example.com/", Type: MediaTypeJSON},
		},
	}
	for _, ts := range []string{"20020120142510", "20100511201151", "20100513224108", "20100514231857", "20100527090513", "20161108144631"} {
		tm.Mementos = append(tm.Mementos, Memento{URIM: "http://web.archive.org/web/" + ts + "/http://example.com/", Datetime: d(ts)})
	}
	tm.Mementos = append(tm.Mementos, Memento{URIM: "http://wayback.archive-it.org/all/20100514231857/http://example.com/", Datetime: d("20100514231857")})
	tm.Sort()

	doc := mustRead(t, "testdata/timetravel_api.json")
	want, err := ReadTimeTravelJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	got := NewTimeTravelResult(tm, d("2010051423"))
	// The example lists IA first; Time Travel's order within a second is
	// its database order, ours byte-wise.
	sortURIs := cmpopts.SortSlices(func(a, b string) bool { return a < b })
	if diff := cmp.Diff(want, got, sortURIs); diff != "" {
		t.Errorf("(-doc +ours):\n%s", diff)
	}
	var b bytes.Buffer
	if err := WriteTimeTravelJSON(&b, got); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTimeTravelJSON(&b)
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if diff := cmp.Diff(got, back); diff != "" {
		t.Errorf("round trip:\n%s", diff)
	}

	// prev is left out when it equals first, next when it equals last.
	r := NewTimeTravelResult(tm, d("2002"))
	if r.Prev != nil || r.Next == nil || r.Closest.Datetime != d("20020120142510") {
		t.Errorf("at 2002: prev %v next %v closest %v", r.Prev, r.Next, r.Closest)
	}
	r = NewTimeTravelResult(tm, d("20100528"))
	if r.Next != nil || r.Prev == nil {
		t.Errorf("at 2010-05-28: prev %v next %v", r.Prev, r.Next)
	}
	if NewTimeTravelResult(&TimeMap{}, d("2002")) != nil {
		t.Error("empty TimeMap gave a result")
	}
}

// TestReadTimeTravelJSONMemGator reads MemGator's emulation of /api/json,
// whose "uri" is a string.
func TestReadTimeTravelJSONMemGator(t *testing.T) {
	res, err := ReadTimeTravelJSON(strings.NewReader(transcriptBody(t, "/api alias (Time Travel API compatibility)")))
	if err != nil {
		t.Fatal(err)
	}
	want := &TimeTravelEntry{Datetime: time.Date(2016, 2, 29, 23, 59, 59, 0, time.UTC), URI: []string{"http://127.0.0.1:19002/web/20160229235959/http://example.com/"}}
	if diff := cmp.Diff(want, res.Closest); diff != "" {
		t.Errorf("closest:\n%s", diff)
	}
	if res.OriginalURI != "http://example.com/" || res.First == nil || res.Last == nil || res.Prev == nil || res.Next == nil {
		t.Errorf("%+v", res)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// transcriptExchange returns the request command line, the response
// headers and the body of the first exchange under "### <heading>".
func transcriptExchange(t *testing.T, heading string) (cmd string, hdr http.Header, body string) {
	t.Helper()
	b, err := sampledata.ReadFile("cases/memgator_transcripts.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n### "+heading)
	if i < 0 {
		t.Fatalf("no section %q", heading)
	}
	s = s[i:]
	j := strings.Index(s, "```\n")
	k := strings.Index(s[j+4:], "```\n")
	block := s[j+4 : j+4+k]
	head, body, _ := strings.Cut(block, "\n\n")
	lines := strings.Split(head, "\n")
	hdr = http.Header{}
	for _, l := range lines[2:] {
		if name, v, ok := strings.Cut(l, ": "); ok {
			hdr.Add(name, v)
		}
	}
	return lines[0], hdr, body
}

// TestNavigationMatchesMemGator checks closest-memento selection (tie →
// later) against the Location of MemGator's TimeGate answers, and
// NavigationLinks against its Link header and memento description where
// no two mementos of one second are involved.
func TestNavigationMatchesMemGator(t *testing.T) {
	tm, _ := memgatorTimeMap(t, "TimeMap, link format (URI-R in 3 of 3 archives")
	for _, tc := range []struct {
		heading, at string // at: the Accept-Datetime MemGator sent upstream
		header      bool   // compare the whole Link header
	}{
		{"TimeGate with Accept-Datetime", "Tue, 01 Mar 2005 12:00:00 GMT", false},
		{"TimeGate without Accept-Datetime (defaults to now)", "Sun, 29 Nov 2026 20:19:08 GMT", true},
		{"TimeGate, Accept-Datetime equidistant between two mementos", "Fri, 19 May 2000 21:08:00 GMT", false},
		{"Memento redirect endpoint, 4-digit datetime", "Sat, 01 Jan 2005 00:00:00 GMT", false},
	} {
		t.Run(tc.heading, func(t *testing.T) {
			_, hdr, _ := transcriptExchange(t, tc.heading)
			i := tm.ClosestIndex(mustHTTPDate(t, tc.at))
			if got, want := tm.Mementos[i].URIM, hdr.Get("Location"); got != want {
				t.Errorf("closest %s, MemGator chose %s", got, want)
			}
			if tc.header {
				if got, want := FormatLinks(NavigationLinks(tm, i)), hdr.Get("Link"); got != want {
					t.Errorf("Link header\n got %s\nwant %s", got, want)
				}
			}
		})
	}
	t.Run("memento description, link format", func(t *testing.T) {
		_, _, body := transcriptExchange(t, "Memento description, link format, 14-digit datetime")
		at, _ := timestamp.Parse("20120615080910")
		var b bytes.Buffer
		if err := WriteLinks(&b, NavigationLinks(tm, tm.ClosestIndex(at))); err != nil {
			t.Fatal(err)
		}
		if b.String() != body {
			t.Errorf("got\n%s\nwant\n%s", b.String(), body)
		}
	})
	t.Run("roles merged", func(t *testing.T) {
		var got []string
		for _, l := range NavigationLinks(&TimeMap{Mementos: tm.Mementos[:1]}, 0) {
			got = append(got, strings.Join(l.Rel, " "))
		}
		if diff := cmp.Diff([]string{"first last memento"}, got); diff != "" {
			t.Errorf("single memento:\n%s", diff)
		}
		got = nil
		for _, l := range NavigationLinks(tm, 1) {
			if l.IsMemento() {
				got = append(got, strings.Join(l.Rel, " "))
			}
		}
		if diff := cmp.Diff([]string{"first prev memento", "memento", "next memento", "last memento"}, got); diff != "" {
			t.Errorf("second memento:\n%s", diff)
		}
		if links := NavigationLinks(&TimeMap{}, 0); len(links) != 0 {
			t.Errorf("empty TimeMap: %v", links)
		}
	})
}
