package summary

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/clustertest"
)

// No line that parses is missing from a summary, whatever shape the index
// is kept in: the n_total of each year, summed over the summary's keys,
// equals the 2xx captures of that year found by a full independent scan
// of the flat file (a regular expression per line, nothing of package
// cdxj), for the flat file, a pywb-shaped cluster (blocks of 5 lines
// without a final newline, by its .idx and as one gzip part file) and a
// Common Crawl cluster.
func TestSummaryLosesNoLine(t *testing.T) {
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 20000, Seed: 11}).Write(&idx); err != nil {
		t.Fatal(err)
	}
	status := regexp.MustCompile(`^\S+ (\d{4})\d* \{.*"status": "(\d+)"`)
	want := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(idx.Bytes()))
	for sc.Scan() {
		m := status.FindStringSubmatch(sc.Text())
		if m == nil {
			continue // a revisit: status "-"
		}
		if m[2] >= "200" && m[2] <= "299" {
			want[m[1]]++
		}
	}
	if len(want) < 5 {
		t.Fatalf("independent scan: %v", want)
	}
	lines := strings.Split(strings.TrimSuffix(idx.String(), "\n"), "\n")
	s := clustertest.Write(t, t.TempDir(), lines)
	for _, in := range s.Inputs() {
		t.Run(in.Name, func(t *testing.T) {
			ix, err := cdxj.Open(context.Background(), in.Path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			sum := New(&Options{MinYear: 1990, MaxYear: 2100})
			if err := sum.ReadIndex(context.Background(), ix, false); err != nil {
				t.Fatal(err)
			}
			got := map[string]int64{}
			for _, l := range sum.Lines() {
				for _, p := range l.Periods {
					got[p.Period.String()] += p.Counters[mustCounter(t, "n_total")]
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("2xx captures per year (-independent scan +summary):\n%s", diff)
			}
			if st := sum.Stats(); st.BadLines != 0 || st.BadTimestamp != 0 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// mustCounter returns the index of the counter name.
func mustCounter(t *testing.T, name string) int {
	i, ok := CounterIndex(name)
	if !ok {
		t.Fatalf("no counter %q", name)
	}
	return i
}

// A summary that records skipped index lines passes the record on: its
// note line is read past, and a combination sums the notes.
func TestCombineKeepsSkippedNote(t *testing.T) {
	in := "org,example)/ 20200101000000 {\"url\": \"http://example.org/\", \"status\": \"200\", \"mime\": \"text/html\", \"length\": \"5\"}\norg,example)/x 2020XX {}\n"
	s := New(nil)
	if err := s.ReadIndex(context.Background(), cdxj.NewStream("a.cdxj", strings.NewReader(in), nil), true); err != nil {
		t.Fatal(err)
	}
	var one bytes.Buffer
	if _, err := s.WriteTo(&one); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(one.String(), `!meta {"skipped_lines":1,"skipped_examples":["a.cdxj: line 2`) {
		t.Fatalf("summary %q", one.String())
	}
	lines, err := ReadSummary(strings.NewReader(one.String()), "one")
	if err != nil || len(lines) != 1 || lines[0].Key != "example.org" {
		t.Fatalf("ReadSummary = %v, %v", lines, err)
	}
	c := NewCombiner(nil)
	for _, name := range []string{"one", "two"} {
		if err := c.AddSummary(strings.NewReader(one.String()), name); err != nil {
			t.Fatal(err)
		}
	}
	var both bytes.Buffer
	if _, err := c.WriteTo(&both); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(both.String(), `!meta {"skipped_lines":2,`) || !strings.Contains(both.String(), "\nexample.org {") {
		t.Errorf("combined %q", both.String())
	}
}

// TestParseErrorNamesLineOnce: a bad index line stops a strict read with
// an error naming its file and line once, as the cdxj error does, while a
// cause that does not name them gets "NAME:LINE: " in front.
func TestParseErrorNamesLineOnce(t *testing.T) {
	input := "com,example)/ 20200101000000 {\"url\": \"http://example.com/\"}\n" +
		"com,example)/b 2020XX01000000 {\"url\": \"http://example.com/b\"}\n"
	var s Summarizer
	err := s.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(input), nil), false)
	if err == nil {
		t.Fatal("no error for a line with a bad timestamp")
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "cdxj: in.cdxj: line 2, column 16: ") || strings.Count(msg, "in.cdxj") != 1 {
		t.Errorf("error %q: want it to name in.cdxj line 2 once", msg)
	}
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Name != "in.cdxj" || pe.Line != 2 {
		t.Errorf("error %#v: want a *ParseError of in.cdxj line 2", err)
	}
	other := &ParseError{Name: "map.txt", Line: 7, Err: errors.New("bad field")}
	if got, want := other.Error(), "map.txt:7: bad field"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
