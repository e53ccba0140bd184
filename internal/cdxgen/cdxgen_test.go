package cdxgen

import (
	"bufio"
	"bytes"
	"io"
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
