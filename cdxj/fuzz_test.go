package cdxj

import (
	"bytes"
	"errors"
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
