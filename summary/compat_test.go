package summary

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// The inputs in testdata/compat and what the original tool printed for them.
func TestCompatQuirks(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "compat", "*.in"))
	if err != nil || len(ins) == 0 {
		t.Fatalf("no compat inputs: %v", err)
	}
	for _, in := range ins {
		base := strings.TrimSuffix(in, ".in")
		b, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []struct {
			suffix                     string
			monthly, fullhost, compact bool
		}{{".want", false, false, false}, {".want-monthly-fullhost-compact", true, true, true}} {
			t.Run(filepath.Base(base)+m.suffix, func(t *testing.T) {
				want, err := os.ReadFile(base + m.suffix)
				if err != nil {
					t.Fatal(err)
				}
				got := compat(t, string(b), m.monthly, m.fullhost, m.compact)
				if d := cmp.Diff(string(want), got); d != "" {
					t.Errorf("(-original +ours):\n%s", d)
				}
			})
		}
	}
}

func TestCompatErrors(t *testing.T) {
	t.Run("bad utf8 abandons the file", func(t *testing.T) {
		b, err := os.ReadFile(filepath.Join("testdata", "compat", "badutf8.cdxj.in"))
		if err != nil {
			t.Fatal(err)
		}
		c := NewCompat(false, false, nil)
		err = c.ReadFile("badutf8", bytes.NewReader(b))
		if !IsDecodeError(err) {
			t.Fatalf("ReadFile error = %v, want a decode error", err)
		}
		if st := c.Stats(); st.FailedFiles != 1 || st.Files != 1 {
			t.Errorf("stats = %+v", st)
		}
	})
	t.Run("bad first line abandons the file", func(t *testing.T) {
		c := NewCompat(false, false, nil)
		err := c.ReadFile("f", strings.NewReader(`com,a)/ 20200101000000 {"status": 200, "x": "y"}`+"\n"))
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 1 {
			t.Fatalf("error = %v, want a ParseError on line 1", err)
		}
	})
	t.Run("later bad lines are counted", func(t *testing.T) {
		c := NewCompat(false, false, nil)
		in := `com,a)/ 20200101000000 {"status": "200", "x": "y"}` + "\n" + `com,a)/ 20200101000000 {"status": 200, "x": "y"}` + "\n"
		if err := c.ReadFile("f", strings.NewReader(in)); err != nil {
			t.Fatal(err)
		}
		if st := c.Stats(); st.LineErrors != 1 || st.Lines != 2 {
			t.Errorf("stats = %+v, want 1 line error of 2", st)
		}
	})
	t.Run("unsupported format skipped", func(t *testing.T) {
		c := NewCompat(false, false, nil)
		if err := c.ReadFile("f", strings.NewReader("!context [\"x\"]\ncom,a)/ 20200101000000 {\"status\": \"200\"}\n")); err != nil {
			t.Fatal(err)
		}
		if st := c.Stats(); st.SkippedFiles != 1 {
			t.Errorf("stats = %+v, want the file skipped", st)
		}
	})
	t.Run("read error", func(t *testing.T) {
		c := NewCompat(false, false, nil)
		err := c.ReadFile("f", iotest.ErrReader(io.ErrClosedPipe))
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Fatalf("error = %v, want the read error", err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		c := NewCompat(false, false, nil)
		if err := c.ReadFile("f", strings.NewReader("")); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPyLineReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		err  bool
	}{
		{"lf", "a\nb\n", []string{"a\n", "b\n"}, false},
		{"no final newline", "a\nb", []string{"a\n", "b"}, false},
		{"crlf and cr", "a\r\nb\rc\r", []string{"a\n", "b\n", "c\n"}, false},
		{"utf8", "é\n€\n", []string{"é\n", "€\n"}, false},
		{"truncated at end", "a\nb\xe2\x82", []string{"a\n"}, true},
		{"bad byte", "a\n\xffb\n", nil, true},
		{"multibyte across chunk", strings.Repeat("x", pyChunk-1) + "€\n", []string{strings.Repeat("x", pyChunk-1) + "€\n"}, false},
		{"cr at chunk end", strings.Repeat("x", pyChunk-1) + "\r\ny\n", []string{strings.Repeat("x", pyChunk-1) + "\n", "y\n"}, false},
		{"bad byte in second chunk loses that chunk", strings.Repeat("abc\n", pyChunk/4) + "de\nf\xff\n", strings.Split(strings.Repeat("abc\n", pyChunk/4), "\n")[:pyChunk/4], true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, wrap := range []func(io.Reader) io.Reader{func(r io.Reader) io.Reader { return r }, iotest.OneByteReader} {
				p := newPyLineReader(wrap(strings.NewReader(tc.in)))
				var got []string
				var err error
				for {
					var l string
					l, err = p.readLine()
					if err != nil {
						break
					}
					got = append(got, strings.Clone(l)) // l is valid until the next readLine
				}
				want := tc.want
				if tc.name == "bad byte in second chunk loses that chunk" {
					want = make([]string, len(tc.want))
					for i := range want {
						want[i] = "abc\n"
					}
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("lines (-want +got):\n%s", d)
				}
				if (err != io.EOF) != tc.err {
					t.Errorf("err = %v, want error %v", err, tc.err)
				}
			}
		})
	}
}

func TestPyHelpers(t *testing.T) {
	lvl2 := map[string]string{"www.example.co.uk": "co.uk", "ab.c": "ab.c", ".c": "c", "c": "c", "a.b.c": "b.c", "com,example)": "com,example)"}
	for in, want := range lvl2 {
		if got := pyLvl2FromHost(in); got != want {
			t.Errorf("pyLvl2FromHost(%q) = %q, want %q", in, got, want)
		}
	}
	formats := map[string]compatFormat{
		" CDX N b a m s k r M S V g\n":       fmtCDXNbamskrMSVg,
		"CDX N b a m s k r M S V g\n":        fmtCDXNbamskrMSVg,
		" CDX N b a m s k r V g\n":           fmtCDXNbams,
		"CDX N b a m s k r V g\n":            fmtUnknown,
		"a 20200101000000 {\"x\": \"y\"}\n":  fmtCDXJ,
		"a 20200101000000 b c d e f\n":       fmtCDX7,
		"a 20200101000000 b c d e f g h i\n": fmtCDXNbams,
		"a 2020 b c d e f\n":                 fmtUnknown,
		"!context x\n":                       fmtUnknown,
	}
	for in, want := range formats {
		if got := determineFormat(in); got != want {
			t.Errorf("determineFormat(%q) = %v, want %v", in, got, want)
		}
	}
	nums := []struct {
		in      string
		v       int64
		num, er bool
	}{{"123", 123, true, false}, {"", 0, false, false}, {"-1", 0, false, false}, {"١٢", 12, true, false}, {"½", 0, false, true}, {"99999999999999999999", 0, false, true}}
	for _, n := range nums {
		v, num, err := pyIsNumericInt(n.in)
		if v != n.v || num != n.num || (err != nil) != n.er {
			t.Errorf("pyIsNumericInt(%q) = %d, %v, %v", n.in, v, num, err)
		}
	}
}
