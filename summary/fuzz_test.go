package summary

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
)

func addSampleSeeds(f *testing.F) {
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(b), "\n") {
			f.Add(l)
		}
	}
	f.Add(`a)/ 20200101000000 {"status": 200, "url": "http://a/", "mime": "x", "length": 5}`)
	f.Add(`a)/ 20200101000000 {"status": "2\u0030\u0030", "url": "http://a/"}`)
	f.Add(`a)/ 20200101000000 {"status":"200","url":"h","mime":null,"length":"-"}`)
}

// FuzzFastFields checks that the one-pass JSON reader of AddRecord never
// disagrees with package cdxj when it claims a line.
func FuzzFastFields(f *testing.F) {
	addSampleSeeds(f)
	f.Fuzz(func(t *testing.T, line string) {
		rec, err := cdxj.ParseLine([]byte(strings.TrimRight(line, "\r\n")), nil)
		if err != nil || rec.JSON() == nil {
			return
		}
		var fast Capture
		if !fastFields(rec.JSON(), &fast) {
			return
		}
		want := Capture{Status: rec.Status()}
		if want.Status == 0 {
			want.Status = paddedStatus(rec) // the path AddRecord takes for "200 "
		}
		if want.Status >= 200 && want.Status <= 299 {
			want.URL, want.MIME = string(rec.URL()), string(rec.MIME())
		} else {
			fast.URL, fast.MIME = "", ""
		}
		want.Length = -1
		if n, ok := rec.Length(); ok {
			want.Length = n
		}
		if d := cmp.Diff(want, fast); d != "" {
			t.Errorf("fastFields(%q) disagrees with cdxj (-cdxj +fast):\n%s", rec.JSON(), d)
		}
	})
}

// FuzzSummarize feeds arbitrary lines to the default summary and to the
// emulation of the original: neither may panic, and the counts add up.
func FuzzSummarize(f *testing.F) {
	addSampleSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		s := New(&Options{MaxYear: 2030})
		if err := s.ReadIndex(context.Background(), cdxj.NewStream("fuzz", strings.NewReader(in), nil), true); err != nil {
			t.Fatalf("ReadIndex with skipBad: %v", err)
		}
		st := s.Stats()
		var total int64
		for _, l := range s.Lines() {
			if l.Key == "" {
				t.Errorf("empty key from %q", in)
			}
			for _, p := range l.Periods {
				total += p.Counters[NTotal]
			}
		}
		if total != st.Counted {
			t.Errorf("n_total sum %d != Stats.Counted %d", total, st.Counted)
		}
		var out bytes.Buffer
		if _, err := s.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		// What we write, we read back.
		back, err := ReadSummary(&out, "out")
		if err != nil {
			t.Fatalf("ReadSummary of our own output: %v", err)
		}
		if d := cmp.Diff(s.Lines(), back); d != "" {
			t.Errorf("round trip (-written +read):\n%s", d)
		}
		c := NewCompat(false, false, nil)
		_ = c.ReadFile("fuzz", strings.NewReader(in))
		if _, err := c.WriteTo(io.Discard); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzParseLine checks the summary line parser: no panic, and a line it
// accepts, written back, parses to the same value.
func FuzzParseLine(f *testing.F) {
	for _, s := range []string{
		`a.com {"2020": {"n_html": 1, "s_html": 5}}`,
		`a.com {"202001": {"n_total": 2}, "201912": {}}`,
		` {"2020": {"n_total": 1}}`,
		`a {"2020": {"n_foo": 1}}`,
		`bnl.lu {"2003":{"n_audio":0,"n_css":8,"n_html":639,"s_total":4680354}}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLine([]byte(s))
		if err != nil {
			return
		}
		out := AppendLine(nil, l, false)
		back, err := ParseLine(bytes.TrimSuffix(out, []byte("\n")))
		if err != nil {
			t.Fatalf("our own line %q does not parse: %v", out, err)
		}
		if d := cmp.Diff(l, back); d != "" {
			t.Errorf("round trip of %q (-first +second):\n%s", s, d)
		}
	})
}

// FuzzParseDayLine checks the daily-series line parser: no panic, and a
// line it accepts, written back by AppendDayLine, parses to the same day.
func FuzzParseDayLine(f *testing.F) {
	for _, s := range []string{
		`20090119 {"CDL": {"count": 1, "size": 30, "okcount": 1, "oksize": 30}, "toturis": 1, "totsize": 30, "totokcount": 1, "totoksize": 30}`,
		`20090119 {"toturis_": {"count": 2, "size": 0, "okcount": 0, "oksize": 0}, "toturis": 2, "totsize": 0, "totokcount": 0, "totoksize": 0}`,
		`20090119 {"a": {"count": 1, "size": 1, "okcount": 1, "oksize": 1}, "a": {"count": 1, "size": 1, "okcount": 1, "oksize": 1}}`,
		`20090132 {}`,
		`2009011 {}`,
		`20090119 {"a": {"count": -1, "size": 0, "okcount": 0, "oksize": 0}}`,
		`20090119 {"toturis": 5}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDayLine([]byte(s))
		if err != nil {
			return
		}
		out := AppendDayLine(nil, d)
		back, err := ParseDayLine(bytes.TrimSuffix(out, []byte("\n")))
		if err != nil {
			t.Fatalf("our own line %q does not parse: %v", out, err)
		}
		if d2 := cmp.Diff(d, back); d2 != "" {
			t.Errorf("round trip of %q (-first +second):\n%s", s, d2)
		}
	})
}
