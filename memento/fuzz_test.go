package memento

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// addLinkSeeds adds every testdata/linkformat input and a few edge cases.
func addLinkSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/linkformat/*.txt")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		s := string(b)
		i := strings.Index(s, "=== input\n")
		j := strings.Index(s, "\n=== expect")
		if i >= 0 && j > i {
			f.Add(s[i+len("=== input\n") : j])
		}
	}
	for _, s := range []string{
		"", ",", " , ,", "<", "<>", "<a>", "<a>;", "<a>; rel", "<a>; rel=", `<a>; rel="`, `<a>; rel="\`,
		`<a>; rel=""; rel="x"`, `<a>; t="\"\\"`, "<a>b>; rel=x", "a;rel=x", "a, <b>; rel=x", "<a>;;rel=x;,",
		"<a>\r\n ; rel\t=\t\"x y  Z\"", `<a>; rel=memento; datetime="Mon, 01 Jan 2001 00:00:00 GMT"`,
		// Missing ',' between links and a byte order mark (adversarial_link_test.go).
		"<a>; rel=x\n<b>; rel=y", `<a>; rel="x" <b>; rel="y"`, "<a>; t=v <b>", "<a>; datetime=Mon, 01 Jan 2001 00:00:00 GMT\n<b>",
		"\xef\xbb\xbf<a>; rel=x", "\xef\xbb", "\xef\xbb\xbf",
	} {
		f.Add(s)
	}
}

// FuzzParseLinkFormat checks that parsing never panics, never yields an
// empty target, that the streamed parse (one byte per Read) agrees with the
// one-shot parse, and that a strict parse survives writing: the lenient
// (and strict) parse of FormatLinks(strict result) is the strict result.
func FuzzParseLinkFormat(f *testing.F) {
	addLinkSeeds(f)
	f.Fuzz(checkLinkRoundTrip)
}

func checkLinkRoundTrip(t *testing.T, in string) {
	for _, strict := range []bool{true, false} {
		opts := &ParseOptions{Strict: strict}
		links, err := ParseLinkFormat(in, opts)
		for _, l := range links {
			if l.Target == "" || l.RawTarget == "" {
				t.Fatalf("strict=%v: empty target in %q", strict, in)
			}
		}
		streamed, serr := NewReader(iotest.OneByteReader(strings.NewReader(in)), &ParseOptions{Strict: strict, MaxLinkBytes: len(in) + 1}).ReadAll()
		if !cmp.Equal(links, streamed) || (err == nil) != (serr == nil) || err != nil && err.Error() != serr.Error() {
			t.Fatalf("strict=%v: Reader %v %v, ParseLinkFormat %v %v", strict, streamed, serr, links, err)
		}
		if !strict || err != nil {
			continue
		}
		out := FormatLinks(links)
		for _, again := range []bool{false, true} {
			back, err := ParseLinkFormat(out, &ParseOptions{Strict: again})
			if err != nil {
				t.Fatalf("re-parse (strict=%v) of %q: %v", again, out, err)
			}
			if diff := cmp.Diff(stripOffsets(links), stripOffsets(back)); diff != "" {
				t.Fatalf("re-parse (strict=%v) of %q from %q:\n%s", again, out, in, diff)
			}
		}
	}
}

// FuzzReadTimeMap checks the TimeMap invariants on any input: no panic,
// mementos sorted with no identical pairs, no empty URI-M, no zero
// datetime, and that link-format output reads back to the same mementos
// when every URI-M is a clean URI.
func FuzzReadTimeMap(f *testing.F) {
	addLinkSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		tm, _ := ReadTimeMap(strings.NewReader(in), nil)
		if tm == nil {
			t.Fatal("nil TimeMap")
		}
		for i, m := range tm.Mementos {
			if m.URIM == "" || m.Datetime.IsZero() {
				t.Fatalf("memento %d: %+v", i, m)
			}
			if i > 0 && compareMementos(tm.Mementos[i-1], m) >= 0 {
				t.Fatalf("not sorted/unique at %d", i)
			}
		}
		// Bytes a URI or quoted-string cannot hold are encoded on output.
		unclean := func(s string) bool {
			return strings.ContainsAny(s, "<>\x7f") || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' })
		}
		for _, m := range tm.Mementos {
			if unclean(m.URIM) {
				return
			}
			for _, p := range m.Extra {
				if strings.ContainsFunc(p.Value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
					return
				}
			}
		}
		var b bytes.Buffer
		if err := WriteLinkFormat(&b, &TimeMap{Mementos: tm.Mementos}); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTimeMap(&b, &ParseOptions{Strict: true})
		if err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		if diff := cmp.Diff(tm.Mementos, back.Mementos, ignoreRel); diff != "" {
			t.Fatalf("round trip:\n%s", diff)
		}
	})
}

// FuzzParseHTTPDate checks that the strict parser accepts a subset of what
// time.Parse(http.TimeFormat) accepts, with the same instant, that the
// lenient parser accepts everything the strict one does, and that a strict
// date is written back unchanged (apart from a wrong weekday).
func FuzzParseHTTPDate(f *testing.F) {
	for _, s := range []string{"Sun, 06 Nov 1994 08:49:37 GMT", "Tue, 29 Feb 2000 23:59:59 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
		"sun, 06 nov 1994 08:49:37 gmt", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "2018-07-04T12:00:00Z", "Mon, 31 Apr 2000 00:00:00 GMT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseHTTPDate(s)
		lgot, lerr := ParseHTTPDateLenient(s)
		if err != nil {
			return
		}
		want, werr := time.Parse(http.TimeFormat, s)
		if werr != nil || !want.Equal(got) {
			t.Fatalf("%q: ours %v, time.Parse %v %v", s, got, want, werr)
		}
		if lerr != nil || !lgot.Equal(got) {
			t.Fatalf("%q: lenient %v %v, strict %v", s, lgot, lerr, got)
		}
		if out := FormatHTTPDate(got); out[3:] != s[3:] {
			t.Fatalf("%q written as %q", s, out)
		}
	})
}

// FuzzReadCDXJ and FuzzReadJSON check that the readers never panic and
// return sorted mementos.
func FuzzReadCDXJ(f *testing.F) {
	var b bytes.Buffer
	WriteCDXJ(&b, roundTripTimeMap())
	f.Add(b.String())
	f.Add("!meta {\"original_uri\": 1}\n2001 {\"uri\": \"x\"}\n")
	f.Fuzz(func(t *testing.T, in string) {
		tm, err := ReadCDXJ(strings.NewReader(in))
		if err == nil && !slices.IsSortedFunc(tm.Mementos, compareMementos) {
			t.Fatal("not sorted")
		}
	})
}

func FuzzReadJSON(f *testing.F) {
	var b bytes.Buffer
	WriteJSON(&b, roundTripTimeMap())
	f.Add(b.String())
	f.Add(`{"mementos": {"list": [{"datetime": "2001-01-01T00:00:00+02:00", "uri": "x"}]}}`)
	f.Fuzz(func(t *testing.T, in string) {
		tm, err := ReadJSON(strings.NewReader(in))
		if err == nil && !slices.IsSortedFunc(tm.Mementos, compareMementos) {
			t.Fatal("not sorted")
		}
	})
}
