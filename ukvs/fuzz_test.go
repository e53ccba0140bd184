package ukvs

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// FuzzFrequency: whatever parses formats back to the same text, and the
// Frequency survives a second parse unchanged.
func FuzzFrequency(f *testing.F) {
	for _, s := range []string{"54321/20000", "10000+", "2500~/900", "300+/20-", "0", "/50", "/", "-", "200/", "0/20", "007", "1/2/3", "18446744073709551616"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseFrequency(s)
		if err != nil {
			if !errors.Is(err, ErrFrequency) {
				t.Fatalf("ParseFrequency(%q) error %v does not wrap ErrFrequency", s, err)
			}
			return
		}
		if got := v.String(); got != s {
			t.Fatalf("ParseFrequency(%q).String() = %q", s, got)
		}
		w, err := ParseFrequency(v.String())
		if err != nil || w != v {
			t.Fatalf("second parse of %q = %+v, %v; want %+v", s, w, err, v)
		}
		_ = v.Add(w).String()
	})
}

// FuzzDatetimeValue: whatever parses formats back to the same text and its bounds
// are ordered.
func FuzzDatetimeValue(f *testing.F) {
	for _, s := range []string{"2014", "201603", "2010:2012", ":2009", "201603:", ":", "20160229", "2012:2010"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseDatetimeValue(s)
		if err != nil {
			return
		}
		if p.String() != s {
			t.Fatalf("ParseDatetimeValue(%q).String() = %q", s, p.String())
		}
		if lo, hi := p.Lower(), p.Upper(); lo != "" && hi != "" && lo > hi {
			t.Fatalf("%q: lower %s > upper %s", s, lo, hi)
		}
	})
}

// FuzzReader: the reader never panics, reports only ParseErrors with a
// positive line number, and every record it returns can be written back
// and read again to the same columns (the write-read round trip).
func FuzzReader(f *testing.F) {
	f.Add(figure2)
	f.Add("!fields {keys: [\"a\", \"b\"], values: [\"c\"]}\nx \"y z\" - {q: 1}\n\"\\\"\" 1 2\n")
	f.Add("a 1\r\nb\n!x\n\"c 1\n")
	f.Fuzz(func(t *testing.T, in string) {
		r := NewReader(strings.NewReader(in))
		r.MaxLineLength = 1 << 12
		hs, _ := r.Headers()
		fields, _ := r.Fields()
		var out bytes.Buffer
		w := NewWriter(&out)
		w.WriteHeader(HeaderFields, fields)
		var kept []line
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				var pe *ParseError
				if !errors.As(err, &pe) || pe.Line < 1 {
					t.Fatalf("error %v is not a ParseError with a line", err)
				}
				continue
			}
			if err := w.WriteRecord(rec); err == nil {
				l := flatten(rec)
				l.Line = 0
				kept = append(kept, l)
			}
		}
		_ = hs
		w.Flush()
		r2 := NewReader(&out)
		var again []line
		for rec, err := range r2.All() {
			if err != nil {
				t.Fatalf("re-reading written output: %v\n%q", err, out.String())
			}
			l := flatten(rec)
			l.Line = 0
			again = append(again, l)
		}
		if len(again) != len(kept) {
			t.Fatalf("wrote %d records, read back %d\n%q", len(kept), len(again), out.String())
		}
		for i := range kept {
			if strings.Join(kept[i].Keys, "\x00") != strings.Join(again[i].Keys, "\x00") ||
				strings.Join(kept[i].Values, "\x00") != strings.Join(again[i].Values, "\x00") ||
				kept[i].JSON != again[i].JSON {
				t.Fatalf("record %d: wrote %+v, read back %+v", i, kept[i], again[i])
			}
		}
		if _, err := Check(strings.NewReader(out.String())); err != nil && !errors.Is(err, ErrFrequency) && !errors.Is(err, ErrDatetimeValue) {
			t.Fatalf("Check of writer output: %v", err)
		}
	})
}
