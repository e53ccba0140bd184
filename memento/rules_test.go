package memento

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/timestamp"
)

// rules holds one test per numbered rule of testdata/rfc7089_rules.md
// (RFC 7089 / RFC 8288 restated as testable statements; provenance in
// testdata/README.md). TestRFC7089Rules fails when a rule has no test.
var rules = map[int]func(t *testing.T){
	1:  rule01RFC1123Only,
	2:  rule02BadAcceptDatetime,
	3:  rule03NotRFC1123Layout,
	4:  rule04OutOfRange,
	5:  rule05TimeGateHeaders,
	6:  rule06RedirectCodes,
	7:  rule07NotFoundVsFailure,
	8:  rule08MementoHeaders,
	9:  rule09MementoDatetimeWins,
	10: rule10Patterns,
	11: rule11TargetsHoldDelimiters,
	12: rule12BWSAndCase,
	13: rule13QuotedString,
	14: rule14RelSet,
	15: rule15MementoIffRel,
	16: rule16MementoDatetimeRequired,
	17: rule17LineBreaks,
	18: rule18Resolution,
	19: rule19UnknownParams,
	20: rule20TimeMapContents,
	21: rule21Paging,
	22: rule22Walker,
	23: rule23NoAcceptDatetimeForTimeMaps,
	24: rule24Duplicates,
	25: rule25Lenient,
	26: rule26ByteOffsets,
}

func TestRFC7089Rules(t *testing.T) {
	doc := string(mustRead(t, "testdata/rfc7089_rules.md"))
	var nums []int
	for _, m := range regexp.MustCompile(`(?m)^(\d+)\. `).FindAllStringSubmatch(doc, -1) {
		n, _ := strconv.Atoi(m[1])
		nums = append(nums, n)
	}
	if len(nums) != 26 {
		t.Fatalf("found %d rules in the rules file, want 26", len(nums))
	}
	for _, n := range nums {
		t.Run(fmt.Sprintf("rule%02d", n), func(t *testing.T) {
			f := rules[n]
			if f == nil {
				t.Fatalf("rule %d has no test", n)
			}
			f(t)
		})
	}
}

func mustHTTPDate(t *testing.T, s string) time.Time {
	t.Helper()
	v, err := ParseHTTPDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func rule01RFC1123Only(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"Sun, 06 Nov 1994 08:49:37 GMT", true},
		{"Tue, 29 Feb 2000 23:59:59 GMT", true},
		{"sun, 06 Nov 1994 08:49:37 GMT", false}, // names are case-sensitive
		{"Sun, 06 nov 1994 08:49:37 GMT", false},
		{"Sun, 06 Nov 1994 08:49:37 gmt", false},
		{"Sun, 06 Nov 1994 08:49:37 UTC", false}, // GMT only
		{"Sun, 06 Nov 1994 08:49:37 +0000", false},
		{"Sun, 06 Nov 94 08:49:37 GMT", false},
		{"Sun,06 Nov 1994 08:49:37 GMT", false},
		{"Tue, 30 Feb 2001 00:00:00 GMT", false},
		{"Sun, 06 Nov 1994 24:00:00 GMT", false},
	} {
		_, err := ParseHTTPDate(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseHTTPDate(%q) err = %v, want ok=%v", tc.in, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrHTTPDate) {
			t.Errorf("%q: err %v does not wrap ErrHTTPDate", tc.in, err)
		}
	}
	// The same rule for datetime, from and until in a strict TimeMap read.
	_, err := ReadTimeMap(strings.NewReader(`<http://a/1>; rel="memento"; datetime="Sun, 06 Nov 1994 08:49:37 UTC"`), &ParseOptions{Strict: true})
	if !errors.Is(err, ErrMementoDatetime) {
		t.Errorf("strict read of a UTC datetime: %v", err)
	}
	tm, err := ReadTimeMap(strings.NewReader(`<http://a/tm>; rel="self"; from="Sun, 06 Nov 1994 08:49:37 PST"; until="Sun, 06 Nov 1994 08:49:37 GMT"`), &ParseOptions{Strict: true})
	if err != nil || !tm.Self.From.IsZero() || tm.Self.Until.IsZero() {
		t.Errorf("strict self: from %v until %v err %v", tm.Self.From, tm.Self.Until, err)
	}
}

func rule02BadAcceptDatetime(t *testing.T) {
	// What a TimeGate must answer 400 to, and what it must not.
	for _, bad := range []string{"Thu, 20 Mar 2003 19:54:39", "Sun", "2010-04-01T12:00:00Z", "Thu, 1 Apr 2010 12:00:00 GMT"} {
		if _, err := ParseHTTPDate(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if got, err := ParseHTTPDate("Sun, 01 Apr 2010 12:00:00 GMT"); err != nil || !got.Equal(time.Date(2010, 4, 1, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("wrong weekday is syntactically valid: %v %v", got, err)
	}
	// The server side: AcceptDatetime tells absent from malformed.
	for _, tc := range []struct {
		values  []string
		present bool
		bad     bool
	}{
		{nil, false, false},
		{[]string{"Sun, 01 Apr 2010 12:00:00 GMT"}, true, false},
		{[]string{" Thu, 01 Apr 2010 12:00:00 GMT "}, true, false},
		{[]string{"Thu, 20 Mar 2003 19:54:39"}, true, true},
		{[]string{"2010-04-01T12:00:00Z"}, true, true},
		{[]string{"Thu, 01 Apr 2010 12:00:00 GMT", "Thu, 01 Apr 2010 12:00:00 GMT"}, true, true},
	} {
		h := http.Header{"Accept-Datetime": tc.values}
		_, present, err := AcceptDatetime(h)
		if present != tc.present || (err != nil) != tc.bad || err != nil && !errors.Is(err, ErrHTTPDate) {
			t.Errorf("AcceptDatetime(%q) = present %v, err %v", tc.values, present, err)
		}
	}
	// A TimeGate's 400 is a failure of our request, not "no mementos".
	a := newArchive(t, map[string]http.HandlerFunc{"/tg/x": serve(400, "Malformed Accept-Datetime")})
	_, err := (&Client{}).TimeGate(context.Background(), a.URL+"/tg/x", time.Now())
	wantErr(t, err, "timegate", ErrStatus, false)
}

func rule03NotRFC1123Layout(t *testing.T) {
	// time.RFC1123 silently accepts other zones; ParseHTTPDate does not.
	if _, err := time.Parse(time.RFC1123, "Sun, 06 Nov 1994 08:49:37 PST"); err != nil {
		t.Fatalf("time.RFC1123 refused PST (the trap this rule is about is gone?): %v", err)
	}
	if _, err := ParseHTTPDate("Sun, 06 Nov 1994 08:49:37 PST"); err == nil {
		t.Error("PST accepted")
	}
	// Writing converts to UTC and says GMT.
	zone := time.FixedZone("CEST", 2*3600)
	in := time.Date(2010, 5, 15, 1, 18, 57, 0, zone)
	if got, want := FormatHTTPDate(in), in.UTC().Format(http.TimeFormat); got != want || got != "Fri, 14 May 2010 23:18:57 GMT" {
		t.Errorf("FormatHTTPDate = %q, want %q", got, want)
	}
	// The weekday is spell-checked only, as time.Parse(http.TimeFormat)
	// does; where the RFC grammar is stricter than time.Parse (name case,
	// two-digit hour) ParseHTTPDate follows the grammar.
	for _, tc := range []struct {
		in        string
		sameAsStd bool
	}{
		{"Fri, 15 Sep 2000 11:28:26 GMT", true},
		{"Tue, 15 Sep 2000 11:28:26 GMT", true},
		{"Tue, 15 Sep 2000 11:28:26 CET", true},
		{"Sun, 06 Nov 1994 8:49:37 GMT", false},
		{"SUN, 06 NOV 1994 08:49:37 GMT", false},
	} {
		want, werr := time.Parse(http.TimeFormat, tc.in)
		got, err := ParseHTTPDate(tc.in)
		same := (err == nil) == (werr == nil) && got.Equal(want)
		if same != tc.sameAsStd {
			t.Errorf("%q: got %v %v, time.Parse gives %v %v; want same=%v", tc.in, got, err, want, werr, tc.sameAsStd)
		}
	}
}

func rule04OutOfRange(t *testing.T) {
	tm := &TimeMap{}
	for _, ts := range []string{"2001", "2005", "2010"} {
		d, _ := timestamp.Parse(ts)
		tm.Mementos = append(tm.Mementos, Memento{URIM: "http://a/" + ts, Datetime: d})
	}
	if m, _ := tm.Closest(time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC)); m.URIM != "http://a/2001" {
		t.Errorf("before the first: %s", m.URIM)
	}
	if m, _ := tm.Closest(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)); m.URIM != "http://a/2010" {
		t.Errorf("after the last: %s", m.URIM)
	}
	// No datetime: no Accept-Datetime header (the TimeGate answers "now");
	// 406 is treated like 404.
	a := newArchive(t, map[string]http.HandlerFunc{
		"/tg/x":   serve(302, "", "Location", "/web/2010/x", "Vary", "accept-datetime"),
		"/tg406/": serve(406, ""),
	})
	c := &Client{}
	if _, err := c.TimeGate(context.Background(), a.URL+"/tg/x", time.Time{}); err != nil {
		t.Fatal(err)
	}
	if got := a.requests()[0]; got != "HEAD /tg/x " {
		t.Errorf("request %q sent an Accept-Datetime", got)
	}
	_, err := c.TimeGate(context.Background(), a.URL+"/tg406/", time.Now())
	wantErr(t, err, "timegate", ErrNotFound, true)
}

func rule05TimeGateHeaders(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{
		"/302":          serve(302, "", "Location", "{base}/m/1", "Vary", "Accept-Encoding, Accept-Datetime", "Link", `<http://r/>; rel="original"`),
		"/302-no-vary":  serve(302, "", "Location", "{base}/m/1", "Link", `<http://r/>; rel="original"`),
		"/302-no-loc":   serve(302, "", "Vary", "accept-datetime"),
		"/302-with-md":  serve(302, "", "Location", "{base}/m/1", "Memento-Datetime", "Sat, 01 Jan 2000 00:00:00 GMT"),
		"/200":          serve(200, "", "Vary", "accept-datetime", "Memento-Datetime", "Sat, 01 Jan 2000 00:00:00 GMT", "Content-Location", "/m/1"),
		"/200-no-md":    serve(200, "", "Vary", "accept-datetime"),
		"/invalid-vary": serve(302, "", "Location", "{base}/m/1", "Vary", "accept-dt", "Link", `<http://r/>; rel="original"`),
	})
	c := &Client{}
	ctx := context.Background()
	res, err := c.TimeGate(ctx, a.URL+"/302", time.Now())
	if err != nil || !res.Vary || res.URIM != a.URL+"/m/1" || res.Original != "http://r/" {
		t.Errorf("302: %+v %v", res, err)
	}
	// Without Vary the answer is still read (its Link says it is Memento)
	// but Vary reports the missing header, for callers that insist.
	for _, p := range []string{"/302-no-vary", "/invalid-vary"} {
		res, err = c.TimeGate(ctx, a.URL+p, time.Now())
		if err != nil || res.Vary || res.URIM != a.URL+"/m/1" {
			t.Errorf("%s: %+v %v", p, res, err)
		}
	}
	res, err = c.TimeGate(ctx, a.URL+"/200", time.Now())
	if err != nil || !res.Vary || res.URIM != a.URL+"/m/1" || res.Datetime.Year() != 2000 {
		t.Errorf("200: %+v %v", res, err)
	}
	for _, p := range []string{"/302-no-loc", "/302-with-md", "/200-no-md"} {
		_, err = c.TimeGate(ctx, a.URL+p, time.Now())
		wantErr(t, err, "timegate", ErrNotTimeGate, false)
	}
}

func rule06RedirectCodes(t *testing.T) {
	routes := map[string]http.HandlerFunc{}
	for _, code := range []int{302, 303, 307} {
		routes[fmt.Sprintf("/a/b/tg%d", code)] = serve(code, "", "Location", "../web/20010101000000/x", "Vary", "accept-datetime")
	}
	a := newArchive(t, routes)
	for _, code := range []int{302, 303, 307} {
		res, err := (&Client{}).TimeGate(context.Background(), fmt.Sprintf("%s/a/b/tg%d", a.URL, code), time.Now())
		if err != nil || res.StatusCode != code || res.URIM != a.URL+"/a/web/20010101000000/x" {
			t.Errorf("%d: %+v %v", code, res, err)
		}
	}
}

func rule07NotFoundVsFailure(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{
		"/tg/miss": serve(404, "", "Link", `<http://r/>; rel="original"`),
		"/tg/5xx":  serve(502, ""),
		"/tm/miss": serve(404, ""),
		"/tm/5xx":  serve(500, ""),
	})
	c := &Client{}
	ctx := context.Background()
	_, err := c.TimeGate(ctx, a.URL+"/tg/miss", time.Now())
	wantErr(t, err, "timegate", ErrNotFound, true)
	_, err = c.TimeGate(ctx, a.URL+"/tg/5xx", time.Now())
	wantErr(t, err, "timegate", ErrStatus, false)
	_, err = c.FetchTimeMap(ctx, a.URL+"/tm/miss")
	wantErr(t, err, "timemap", ErrNotFound, true)
	_, err = c.FetchTimeMap(ctx, a.URL+"/tm/5xx")
	wantErr(t, err, "timemap", ErrStatus, false)
	if IsNotFound(nil) || IsNotFound(context.DeadlineExceeded) {
		t.Error("IsNotFound true for nil or a timeout")
	}
}

func rule08MementoHeaders(t *testing.T) {
	md := "Sat, 01 Jan 2000 00:00:00 GMT"
	a := newArchive(t, map[string]http.HandlerFunc{
		"/m/1":     serve(200, "", "Memento-Datetime", md, "Link", `<http://r/>; rel="original", <{base}/tg/http://r/>; rel="timegate", <{base}/tm/http://r/>; rel="timemap"`),
		"/m/redir": serve(301, "", "Memento-Datetime", md, "Location", "/m/elsewhere", "Link", `<http://r/>; rel="original"`),
		"/tg":      serve(302, "", "Memento-Datetime", "Mon, 01 Jan 2001 00:00:00 GMT", "Vary", "accept-datetime", "Location", "/m/1"),
	})
	c := &Client{}
	info, err := c.Memento(context.Background(), a.URL+"/m/1")
	if err != nil || info.Original != "http://r/" || info.TimeGate == "" || info.TimeMapURI == "" {
		t.Errorf("%+v %v", info, err)
	}
	info, err = c.Memento(context.Background(), a.URL+"/m/redir")
	if err != nil || info.StatusCode != 301 || info.Datetime.Year() != 2000 {
		t.Errorf("3xx memento: %+v %v", info, err)
	}
	// 302 + Memento-Datetime + Vary is a TimeGate: followed to the memento.
	info, err = c.Memento(context.Background(), a.URL+"/tg")
	if err != nil || info.URIM != a.URL+"/m/1" || info.Datetime.Year() != 2000 {
		t.Errorf("TimeGate-like 302: %+v %v", info, err)
	}
}

func rule09MementoDatetimeWins(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{
		// The TimeMap advertises 2001; the archive redirects to the 2003
		// capture, whose Memento-Datetime is the truth.
		"/web/20010101000000/x": serve(302, "", "Location", "/web/20030101000000/x"),
		"/web/20030101000000/x": serve(200, "", "Memento-Datetime", "Wed, 01 Jan 2003 00:00:00 GMT"),
	})
	tm, err := ReadTimeMap(strings.NewReader(`<`+a.URL+`/web/20010101000000/x>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, err := (&Client{}).Memento(context.Background(), tm.Mementos[0].URIM)
	if err != nil {
		t.Fatal(err)
	}
	if info.Datetime.Year() != 2003 || tm.Mementos[0].Datetime.Year() != 2001 {
		t.Errorf("Memento-Datetime %v, advertised %v", info.Datetime, tm.Mementos[0].Datetime)
	}
}

func rule10Patterns(t *testing.T) {
	// Pattern 1.1: the original is its own TimeGate.
	links, err := ParseLinkFormat(`<http://a.example.org/>; rel="original timegate"`, &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	tm, _ := NewTimeMap(links, nil)
	if tm.Original != "http://a.example.org/" || tm.TimeGate != tm.Original {
		t.Errorf("original %q timegate %q", tm.Original, tm.TimeGate)
	}
	// Pattern 2.3: the TimeGate answers 200 and is the memento.
	a := newArchive(t, map[string]http.HandlerFunc{"/g": serve(200, "", "Vary", "accept-datetime", "Memento-Datetime", "Mon, 01 Jan 2001 00:00:00 GMT")})
	res, err := (&Client{}).TimeGate(context.Background(), a.URL+"/g", time.Now())
	if err != nil || res.URIM != res.URIG || res.URIG != a.URL+"/g" {
		t.Errorf("%+v %v", res, err)
	}
}

func rule11TargetsHoldDelimiters(t *testing.T) {
	in := `<http://x.example/a,b;c=d&e=f?q=1,2;3>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT", <http://x.example/,>; rel="original"`
	for _, strict := range []bool{true, false} {
		links, err := ParseLinkFormat(in, &ParseOptions{Strict: strict})
		if err != nil {
			t.Fatal(err)
		}
		got := []string{links[0].Target, links[1].Target}
		if diff := cmp.Diff([]string{"http://x.example/a,b;c=d&e=f?q=1,2;3", "http://x.example/,"}, got); diff != "" {
			t.Errorf("strict=%v:\n%s", strict, diff)
		}
	}
}

func rule12BWSAndCase(t *testing.T) {
	links, err := ParseLinkFormat("<http://t/1>; REL = \"timemap\" ; From =\t\"Tue, 20 Jun 2000 18:02:59 GMT\";until= \"Sat, 05 Aug 2000 07:12:33 GMT\"", &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	l := links[0]
	want := []Param{{Name: "from", Value: "Tue, 20 Jun 2000 18:02:59 GMT"}, {Name: "until", Value: "Sat, 05 Aug 2000 07:12:33 GMT"}}
	if diff := cmp.Diff(want, l.Params); diff != "" || !l.HasRel("timemap") {
		t.Errorf("rel %v params:\n%s", l.Rel, diff)
	}
}

func rule13QuotedString(t *testing.T) {
	links, err := ParseLinkFormat(`<http://t/1>; rel="self"; title="a \"b\", c; d\\e", <http://t/2>; rel="original"`, &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 2 {
		t.Fatalf("%d links", len(links))
	}
	if v, _ := links[0].Param("title"); v != `a "b", c; d\e` {
		t.Errorf("title %q", v)
	}
	// Written back, the value survives.
	back, err := ParseLinkFormat(FormatLinks(links), &ParseOptions{Strict: true})
	if err != nil || !cmp.Equal(stripOffsets(links), stripOffsets(back)) {
		t.Errorf("round trip: %v %v", back, err)
	}
}

func stripOffsets(ls []Link) []Link {
	out := make([]Link, len(ls))
	for i, l := range ls {
		l.Offset = 0
		out[i] = l
	}
	return out
}

func rule14RelSet(t *testing.T) {
	links, err := ParseLinkFormat(`<http://m/1>; rel="first memento", <http://m/2>; rel="Memento  First", <http://m/3>; rel="prev first memento", <http://m/4>; rel=memento, <http://m/5>; rel="original"; rel="memento"`, &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range links {
		got = append(got, strings.Join(l.Rel, " "))
	}
	want := []string{"first memento", "memento first", "prev first memento", "memento", "original"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rels:\n%s", diff)
	}
	if !links[0].HasRel("first") || !links[1].HasRel("FIRST") || links[4].IsMemento() {
		t.Error("set semantics broken")
	}
	// The ignored second rel is kept as a parameter.
	if v, ok := links[4].Param("rel"); !ok || v != "memento" {
		t.Errorf("second rel param: %q %v", v, ok)
	}
}

func rule15MementoIffRel(t *testing.T) {
	tm, err := ReadTimeMap(strings.NewReader(`<http://m/1>; rel="first"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",
<http://m/2>; rel="timemap"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",
<http://m/3>; rel="last memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tm.Mementos) != 1 || tm.Mementos[0].URIM != "http://m/3" {
		t.Errorf("mementos %v", tm.Mementos)
	}
}

func rule16MementoDatetimeRequired(t *testing.T) {
	in := `<http://m/1>; rel="memento", <http://m/2>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"; license="http://creativecommons.org/publicdomain/zero/1.0/", <http://t/1>; rel="timemap"; until="Mon, 01 Jan 2001 00:00:00 GMT"`
	_, err := ReadTimeMap(strings.NewReader(in), &ParseOptions{Strict: true})
	var pe *ParseError
	if !errors.Is(err, ErrMementoDatetime) || !errors.As(err, &pe) || pe.Offset != 0 {
		t.Errorf("strict: %v", err)
	}
	tm, err := ReadTimeMap(strings.NewReader(in), nil)
	if err != nil || tm.Invalid != 1 || len(tm.Mementos) != 1 {
		t.Fatalf("lenient: %+v %v", tm, err)
	}
	if diff := cmp.Diff([]Param{{Name: "license", Value: "http://creativecommons.org/publicdomain/zero/1.0/"}}, tm.Mementos[0].Extra); diff != "" {
		t.Errorf("license:\n%s", diff)
	}
	if p := tm.Pages[0]; !p.From.IsZero() || p.Until.IsZero() {
		t.Errorf("until-only page: %+v", p)
	}
}

func rule17LineBreaks(t *testing.T) {
	// LANL's TimeGate header: a bare LF after the original link.
	lanl := "<http://r/>;rel=\"original\"\n,<http://agg/timemap/link/http://r/>;rel=\"timemap\"; type=\"application/link-format\"\n,<http://m/1>;rel=\"memento first last\"; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\""
	folded := "<http://r/>\r\n  ;\r\n rel\r\n =\r\n \"original\"\r\n ,\r\n\t<http://m/1>\n ; rel=\"memento\"\n ; datetime=\"Mon, 01 Jan 2001 00:00:00 GMT\"\r\n"
	for name, in := range map[string]string{"lanl": lanl, "folded": folded} {
		tm, err := ReadTimeMap(strings.NewReader(in), &ParseOptions{Strict: true})
		if err != nil || tm.Original != "http://r/" || len(tm.Mementos) != 1 {
			t.Errorf("%s: %+v %v", name, tm, err)
		}
	}
}

func rule18Resolution(t *testing.T) {
	links, err := ParseLinkFormat(`<//b.example/web/1/x>; rel="memento", <memento.us/>; rel="memento", </web/2/x>; rel="memento", <http://c.example/%7Ex?a=1&amp;b>; rel="original"`,
		&ParseOptions{Base: "https://a.example/timemap/link/x", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	type tr struct{ Target, Raw string }
	var got []tr
	for _, l := range links {
		got = append(got, tr{l.Target, l.RawTarget})
	}
	want := []tr{
		{"https://b.example/web/1/x", "//b.example/web/1/x"},
		{"https://a.example/timemap/link/memento.us/", "memento.us/"},
		{"https://a.example/web/2/x", "/web/2/x"},
		{"http://c.example/%7Ex?a=1&amp;b", "http://c.example/%7Ex?a=1&amp;b"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func rule19UnknownParams(t *testing.T) {
	links, err := ParseLinkFormat(`<http://m/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT"; collection="pywb"; anchor="http://r/"; title="x"; type="text/html"; crossorigin`, &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []Param{{"datetime", "Mon, 01 Jan 2001 00:00:00 GMT", false}, {"collection", "pywb", false}, {"anchor", "http://r/", false}, {"title", "x", false}, {"type", "text/html", false}, {"crossorigin", "", true}}
	if diff := cmp.Diff(want, links[0].Params); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func rule20TimeMapContents(t *testing.T) {
	in := `<http://m/3>; rel="memento"; datetime="Wed, 01 Jan 2003 00:00:00 GMT",
<http://r/>; rel="original",
<http://m/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",
<http://other/>; rel="original",
<http://tg/>; rel="timegate",
<http://tm/>; rel="self"; type="application/link-format",
<http://m/2>; rel="memento"; datetime="Tue, 01 Jan 2002 00:00:00 GMT"`
	tm, err := ReadTimeMap(strings.NewReader(in), &ParseOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"20010101000000", "20020101000000", "20030101000000"}, timestamps(tm)); diff != "" {
		t.Errorf("order:\n%s", diff)
	}
	if tm.Original != "http://r/" || tm.TimeGate != "http://tg/" || tm.Self.URI != "http://tm/" || tm.Self.Type != MediaTypeLinkFormat {
		t.Errorf("%+v", tm)
	}
}

func rule21Paging(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{
		"/tm/1": serve(200, `<{base}/tm/2>; rel="timemap"; type="application/link-format"; from="Tue, 01 Jan 2002 00:00:00 GMT",
<{base}/tm/next>; rel="next", <{base}/tm/index>; rel="index", <{base}/tm/prev>; rel="prev",
`+mementoLines("{base}", "2001")[:len(mementoLines("{base}", "2001"))-2]),
		"/tm/2": serve(200, `<{base}/tm/1>; rel="timemap", `+strings.TrimSuffix(mementoLines("{base}", "2002"), ",\n")),
	})
	tm, err := (&Client{}).FetchTimeMap(context.Background(), a.URL+"/tm/1")
	if err != nil || tm.Len() != 2 {
		t.Fatalf("%v %v", tm, err)
	}
	for _, p := range []string{"/tm/next", "/tm/index", "/tm/prev"} {
		if a.hitsOf(p) != 0 {
			t.Errorf("%s followed: only rel=timemap pages are", p)
		}
	}
}

func rule22Walker(t *testing.T) {
	big := strings.Repeat(mementoLines("http://a", "2001"), 300) // ~32 kB a page
	a := newArchive(t, map[string]http.HandlerFunc{
		"/p/1": serve(200, `<{base}/p/1>; rel="self", <{base}/p/2>; rel="timemap", `+big+`<{base}/p/1#x>; rel="timemap"`),
		"/p/2": serve(200, `<{base}/p/1>; rel="timemap", <{base}/p/3>; rel="timemap", `+big+`<{base}/p/2>; rel="self"`),
		"/p/3": serve(200, `<{base}/p/1>; rel="timemap", `+big+`<{base}/p/3>; rel="self"`),
	})
	tm, err := (&Client{}).FetchTimeMap(context.Background(), a.URL+"/p/1")
	if err != nil || tm.Len() != 1 || tm.Duplicates != 899 {
		t.Errorf("%d mementos, %d duplicates, %v", tm.Len(), tm.Duplicates, err)
	}
	for _, p := range []string{"/p/1", "/p/2", "/p/3"} {
		if a.hitsOf(p) != 1 {
			t.Errorf("%s fetched %d times", p, a.hitsOf(p))
		}
	}
	// Total bytes are capped across pages: each page fits, all three do not.
	_, err = (&Client{MaxBodyBytes: 80 << 10}).FetchTimeMap(context.Background(), a.URL+"/p/1")
	wantErr(t, err, "timemap", ErrBodyTooLarge, false)
	// And pages are capped.
	_, err = (&Client{MaxPages: 2}).FetchTimeMap(context.Background(), a.URL+"/p/1")
	wantErr(t, err, "timemap", ErrTooManyPages, false)
}

func rule23NoAcceptDatetimeForTimeMaps(t *testing.T) {
	a := newArchive(t, map[string]http.HandlerFunc{"/tm": serve(200, `<http://r/>; rel="original"`)})
	if _, err := (&Client{}).FetchTimeMap(context.Background(), a.URL+"/tm"); err != nil {
		t.Fatal(err)
	}
	if got := a.requests(); len(got) != 1 || got[0] != "GET /tm " {
		t.Errorf("requests %q: a TimeMap request carries no Accept-Datetime", got)
	}
}

func rule24Duplicates(t *testing.T) {
	in := `<http://a/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",
<http://b/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",
<http://a/1>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",
<http://a/1>; rel="memento"; datetime="Tue, 01 Jan 2002 00:00:00 GMT"`
	tm, err := ReadTimeMap(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	type md struct{ URIM, TS string }
	var got []md
	for _, m := range tm.Mementos {
		got = append(got, md{m.URIM, timestamp.Format(m.Datetime)})
	}
	want := []md{{"http://a/1", "20010101000000"}, {"http://b/1", "20010101000000"}, {"http://a/1", "20020101000000"}}
	if diff := cmp.Diff(want, got); diff != "" || tm.Duplicates != 1 {
		t.Errorf("duplicates %d:\n%s", tm.Duplicates, diff)
	}
}

func rule25Lenient(t *testing.T) {
	in := "http://r.example/a;rel=\"original\", " +
		"<http://m/a>b>; rel=memento; datetime=\"Sunday, 06-Nov-94 08:49:37 GMT\", " +
		"<http://m/2>; rel=memento; datetime=\"Sun Nov  6 08:49:38 1994\"; type=text/html, " +
		"<http://m/3>; rel=memento; datetime=\"Sun, 06 Nov 1994 08:49:39 UTC\", " +
		"<http://m/4>; rel=memento; datetime=\"yesterday\", " +
		"<http://tm/>; type=application/link-format; rel=timemap"
	if _, err := ParseLinkFormat(in, &ParseOptions{Strict: true}); err == nil {
		t.Error("strict accepted it")
	}
	tm, err := ReadTimeMap(strings.NewReader(in), nil)
	if err != nil {
		t.Fatal(err)
	}
	type md struct{ URIM, TS string }
	var got []md
	for _, m := range tm.Mementos {
		got = append(got, md{m.URIM, timestamp.Format(m.Datetime)})
	}
	want := []md{{"http://m/a>b", "19941106084937"}, {"http://m/2", "19941106084938"}, {"http://m/3", "19941106084939"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if tm.Original != "http://r.example/a" || tm.Invalid != 1 || len(tm.Pages) != 1 || tm.Pages[0].Type != MediaTypeLinkFormat {
		t.Errorf("original %q invalid %d pages %+v", tm.Original, tm.Invalid, tm.Pages)
	}
	// Never an empty or truncated target.
	for _, bad := range []string{`<>; rel="memento"`, `; rel="memento"`, `<http://x/a; rel="memento"`, `http://x/a`, `http://x/a, <http://y>; rel="original"`} {
		links, err := ParseLinkFormat(bad, nil)
		if err == nil {
			t.Errorf("%q: no error, links %v", bad, links)
		}
		for _, l := range links {
			if l.Target == "" {
				t.Errorf("%q: empty target", bad)
			}
		}
	}
}

func rule26ByteOffsets(t *testing.T) {
	var b bytes.Buffer
	body := mementoLines("http://a", "2001")
	for range 1000 {
		b.WriteString(body)
	}
	at := b.Len()
	b.WriteString(`<http://a/x>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT" junk`)
	for _, strict := range []bool{true} {
		r := NewReader(bytes.NewReader(b.Bytes()), &ParseOptions{Strict: strict})
		links, err := r.ReadAll()
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("err %v", err)
		}
		wantOff := int64(at + strings.Index(`<http://a/x>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT" junk`, "junk"))
		if pe.Offset != wantOff || pe.Link != 1001 || len(links) != 1000 {
			t.Errorf("error at byte %d link %d after %d links, want byte %d link 1001", pe.Offset, pe.Link, len(links), wantOff)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("byte %d", wantOff)) {
			t.Errorf("message %q does not name the offset", err)
		}
	}
}
