package cdxgen

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/surt"
)

func generate(t *testing.T, n int64, seed uint64) ([]byte, Stats) {
	t.Helper()
	var b bytes.Buffer
	st, err := New(Config{Lines: n, Seed: seed}).Write(&b)
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), st
}

func TestWriteIsSortedExactAndCanonical(t *testing.T) {
	for _, n := range []int64{1, 7, 1000, 30000} {
		data, st := generate(t, n, 42)
		if st.Lines != n || int64(bytes.Count(data, []byte("\n"))) != n {
			t.Fatalf("n=%d: %d lines (stats %d)", n, bytes.Count(data, []byte("\n")), st.Lines)
		}
		// Every line is valid CDXJ.
		r := cdxj.NewReader(bytes.NewReader(data))
		for {
			_, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("n=%d: %v", n, err)
			}
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		prev := ""
		checked := 0
		for sc.Scan() {
			line := sc.Text()
			key, rest, _ := strings.Cut(line, " ")
			if key+" "+rest[:14] < prev {
				t.Fatalf("n=%d: out of order: %q after %q", n, line, prev)
			}
			prev = key + " " + rest[:14]
			if checked < 3000 {
				i := strings.Index(rest, `"url": "`) + 8
				u := rest[i : i+strings.IndexByte(rest[i:], '"')]
				c, err := surt.Canonicalize(u)
				if err != nil || c != key {
					t.Fatalf("key %q != surt.Canonicalize(%q) = %q, %v", key, u, c, err)
				}
				checked++
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	a, _ := generate(t, 5000, 7)
	b, _ := generate(t, 5000, 7)
	c, _ := generate(t, 5000, 8)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different output")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds, same output")
	}
}

func TestShape(t *testing.T) {
	_, st := generate(t, 200000, 1)
	per := float64(st.Lines) / float64(st.URIRs)
	// internal/spec/MEMENTOMAP.md, Table 4: 2.46 mementos per URI-R.
	if per < 1.8 || per > 3.4 {
		t.Errorf("mementos per URI-R = %.2f, want about 2.46", per)
	}
	if st.Hosts < 50 || st.Domains < 50 {
		t.Errorf("hosts %d, domains %d: too few for 200k lines", st.Hosts, st.Domains)
	}
	t.Logf("%+v, %.2f mementos per URI-R", st, per)
}

func TestWriteLookups(t *testing.T) {
	data, _ := generate(t, 20000, 3)
	keys := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, _, _ := strings.Cut(sc.Text(), " ")
		keys[k] = true
	}
	for _, asSURT := range []bool{false, true} {
		var b bytes.Buffer
		st, err := WriteLookups(&b, Config{Lines: 20000, Seed: 3}, LookupConfig{N: 1000, Held: 0.25, SURT: asSURT})
		if err != nil {
			t.Fatal(err)
		}
		if st.Held != 250 || st.Absent != 750 {
			t.Errorf("stats %+v, want 250 held and 750 absent", st)
		}
		held := 0
		for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
			k := l
			if !asSURT {
				k, _ = surt.Canonicalize(l)
			}
			if keys[k] {
				held++
			}
		}
		if held != 250 {
			t.Errorf("surt=%v: %d lookups held by the index, want 250", asSURT, held)
		}
	}
}

// TestRekey: a picked line carries the other line's URL under its own key
// and timestamp, the rest are unchanged, and a line without a url member
// or a pick past the end is an error naming the line.
func TestRekey(t *testing.T) {
	lines := []string{
		`com,a)/ 20200101000000 {"url": "http://a.com/", "status": "200"}`,
		`com,a)/b 20200101000000 {"url": "http://a.com/b", "status": "200"}`,
	}
	got, err := Rekey(lines, func(i int) int { return map[int]int{0: -1, 1: 0}[i] })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{lines[0], `com,a)/b 20200101000000 {"url": "http://a.com/", "status": "200"}`}
	if !slices.Equal(got, want) {
		t.Errorf("Rekey = %q; want %q", got, want)
	}
	if lines[1] != `com,a)/b 20200101000000 {"url": "http://a.com/b", "status": "200"}` {
		t.Errorf("Rekey changed its input: %q", lines[1])
	}
	if _, err := Rekey(lines, func(int) int { return 2 }); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("pick past the end: %v; want an error naming line 1", err)
	}
	bad := []string{lines[0], `com,a)/c 20200101000000 {"status": "200"}`}
	if _, err := Rekey(bad, func(i int) int { return 1 - i }); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("no url member: %v; want an error naming line 2", err)
	}
}
