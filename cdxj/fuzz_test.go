package cdxj

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// FuzzReader feeds arbitrary input to a Reader and checks that nothing
// panics, that every error is a *ParseError naming a line, that reading one
// byte at a time gives the same result, and that every record written as
// CDXJ reads back with the same values.
func FuzzReader(f *testing.F) {
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("com,example)/ 20150302104601 {\"url\":\"http://example.org/a\"}\nfile:///a b 20150302104602 {\"url\":\"file:///a b\"}\n<urlopen error [Errno -3] x>\n"))
	f.Add([]byte("org,example)/images/off.gif 20170926143801 https://example.org/images/off.gif warc/revisit = BBPX - - 651 250168698 e.warc.gz\n"))
	f.Add([]byte(" CDX a b a m s k r M V g u\nhttp://example.com/ 20240101120000 http://example.com/ text/plain; charset=utf-8 200 XYZ - - 0 x.warc.gz u\n"))
	f.Add([]byte("x 201018122054100 {\"a\": [1, {\"b\": \"\\u00e9\\\"\"}], \"c\": null}\r\ny 20230426095158263 {}"))
	f.Add([]byte("com,example)/  20170306040206  {\"url\": \"http://example.com/\", \"mime\": \"text/html\", \"status\": \"200\"}\na b   2017 {}\n"))
	f.Add([]byte(" CDX A b e a m s c k r V v D d g M n u Q\ncom,example)/ 20240101120000 1.2.3.4 http://example.com/ text/html 200 OLD NEW - 10 20 30 40 f.arc - 99 <urn:uuid:1> \"q\\\"\n"))
	f.Add([]byte(" CDX N b a m s k r M S V g\ncom,example)/c 20170306040208 {\"url\": \"http://example.com/c\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"5\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		read := func(r *Reader) ([]summary, []string, []badLine) {
			r.MaxLineSize = 4096
			var recs []summary
			var lines []string
			var bad []badLine
			for rec, err := range r.All() {
				if err != nil {
					var pe *ParseError
					if !errors.As(err, &pe) || pe.Line < 1 {
						t.Fatalf("error %v is not a *ParseError with a line", err)
					}
					bad = append(bad, badLine{pe.Line, causeOf(err)})
					continue
				}
				s := summarize(rec)
				recs = append(recs, s)
				_, _, _, _ = rec.Original()
				_ = rec.Redirect()
				_ = rec.RobotFlags()
				_, _, _ = rec.Field("url")
				_ = rec.Fields(func(k, raw []byte) bool { return true })
				if c := rec.Clone(); !cmp.Equal(summarize(c), s) {
					t.Fatalf("Clone differs: %v vs %v", summarize(c), s)
				}
				out, err := AppendLine(nil, nil, rec)
				if err != nil {
					if !errors.Is(err, ErrJSON) {
						t.Fatalf("AppendLine: %v", err)
					}
					continue
				}
				lines = append(lines, string(out))
				back, err := ParseLine(bytes.TrimSuffix(out, []byte("\n")), nil)
				if err != nil {
					t.Fatalf("written line %q does not read back: %v", out, err)
				}
				if err := back.CheckJSON(); err != nil {
					t.Fatalf("written line %q: %v", out, err)
				}
				// No column is lost: each other column is a member.
				rec.OtherColumns(func(name string, v []byte) bool {
					if got, ok, err := back.Field(name); err != nil || !ok || got != string(v) {
						t.Fatalf("line %q written as %q: column %s = %q became %q, %v, %v", rec.Line(), out, name, v, got, ok, err)
					}
					return true
				})
				b := summarize(back)
				want := s
				want.Line, want.CDXJ, b.KeySURT, want.KeySURT = 0, true, false, false
				want.Key = string(bytes.ReplaceAll([]byte(want.Key), []byte(" "), []byte("%20")))
				if diff := cmp.Diff(want, b); diff != "" {
					t.Fatalf("line %q written as %q changed (-in +out):\n%s", rec.Line(), out, diff)
				}
			}
			return recs, lines, bad
		}
		recs, lines, bad := read(NewReader(bytes.NewReader(data)))
		r := NewReader(iotest.OneByteReader(bytes.NewReader(data)))
		r.ReuseRecord = true
		recs2, lines2, bad2 := read(r)
		cmpErr := cmp.Comparer(func(a, b error) bool { return a == b })
		if !cmp.Equal(recs, recs2) || !cmp.Equal(lines, lines2) || !cmp.Equal(bad, bad2, cmpErr) {
			t.Fatalf("one-byte reads differ:\n%s\n%s", cmp.Diff(recs, recs2), cmp.Diff(bad, bad2, cmpErr))
		}
	})
}

// FuzzParseLayout: any header either fails with ErrHeader or gives a layout
// whose String parses to the same layout.
func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{" CDX N b a m s k r M S V g", "CDX a b a m s k r M V g u", " CDX A b e a m s c k r V v D d g M n", "CDX", " CDX b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayout(s)
		if err != nil {
			if !errors.Is(err, ErrHeader) {
				t.Fatalf("ParseLayout(%q) = %v, not ErrHeader", s, err)
			}
			return
		}
		l2, err := ParseLayout(l.String())
		if err != nil || l2.idx != l.idx || l2.keyIsURL != l.keyIsURL || l2.Columns() != l.Columns() {
			t.Fatalf("ParseLayout(%q).String() = %q does not parse back the same: %v", s, l.String(), err)
		}
	})
}

// FuzzGzipMembers checks the member-end rule: the lines of data, cut into
// gzip members of every few lines whose last line has no "\n" (as pywb
// writes ZipNum parts), walk to the same records and errors as the plain
// text; and arbitrary bytes, read as a stream, never panic and give only
// errors that name the stream.
func FuzzGzipMembers(f *testing.F) {
	f.Add([]byte("com,example)/ 20140101000000 {}\ncom,example)/a 2015 {\"url\": \"http://example.com/a\"}\nb 20x {}\n"), uint8(1))
	f.Add([]byte("\xef\xbb\xbfa 2014 {}\r\nb 2015 {}\r\n\r\nc 2016 {}"), uint8(2))
	f.Add(gz(f, "a 2014 {}", "b 2015 {}"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, every uint8) {
		walk := func(s Searcher) (recs, errs []string) {
			for rec, err := range s.Records(Query{}) {
				if err != nil {
					var pe *ParseError
					if !errors.As(err, &pe) && !strings.Contains(err.Error(), "cdxj: s: ") {
						t.Fatalf("error %q names no source", err)
					}
					errs = append(errs, err.Error())
					continue
				}
				recs = append(recs, fmt.Sprintf("%d %s", rec.LineNumber(), rec.Line()))
			}
			return recs, errs
		}
		walk(NewStream("s", bytes.NewReader(data), &OpenOptions{MaxLineSize: 4096}))
		if isGzip(data) || every == 0 || bytes.IndexByte(data, 0x1f) >= 0 {
			return
		}
		// Empty lines left out: one at a member's end is no line at all
		// (an empty last line has no end to count), which would shift
		// the line numbers.
		var lines []string
		for _, l := range strings.Split(string(data), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
		var members []string
		for i := 0; i < len(lines); i += int(every) {
			members = append(members, strings.Join(lines[i:min(i+int(every), len(lines))], "\n"))
		}
		plainRecs, plainErrs := walk(NewStream("s", strings.NewReader(strings.Join(lines, "\n")+"\n"), nil))
		gzRecs, gzErrs := walk(NewStream("s", bytes.NewReader(gz(t, members...)), nil))
		if diff := cmp.Diff(plainRecs, gzRecs); diff != "" {
			t.Errorf("records (-plain +gzip members):\n%s", diff)
		}
		if diff := cmp.Diff(plainErrs, gzErrs); diff != "" {
			t.Errorf("errors (-plain +gzip members):\n%s", diff)
		}
	})
}
