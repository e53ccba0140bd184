package mementomap

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
)

// generatedMap builds the baseline map of a cdxgen index of n lines.
func generatedMap(t *testing.T, n int64, seed uint64) []byte {
	t.Helper()
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: n, Seed: seed}).Write(&idx); err != nil {
		t.Fatal(err)
	}
	var m bytes.Buffer
	o := BuildOptions{Name: "generated", Now: func() time.Time { return time.Unix(0, 0) }}
	if _, err := Build(context.Background(), &m, []cdxj.Searcher{cdxj.NewStream("gen.cdxj", &idx, nil)}, &o); err != nil {
		t.Fatal(err)
	}
	return m.Bytes()
}

// compactWhole is Compact of the whole map.
func compactWhole(t *testing.T, m []byte, o *CompactOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if _, err := Compact(&out, bytes.NewReader(m), o); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// compactFactors are the weight pairs the tests compact with: from
// rolling up everything that has a child to rolling up little.
var compactFactors = [][2]float64{{0, 0}, {0.25, 0.25}, {1, 1}, {4, 0.5}}

func TestCompactPiecesEqualsOnePass(t *testing.T) {
	m := generatedMap(t, 30000, 7)
	for _, f := range compactFactors {
		o := CompactOptions{HostFactor: f[0], PathFactor: f[1]}
		want := compactWhole(t, m, &o)
		if bytes.Equal(want, m) {
			t.Fatalf("factors %v: compaction changed nothing; the test would prove nothing", f)
		}
		for _, n := range []int{2, 3, 8, 64} {
			cuts, err := CompactCuts(context.Background(), bytes.NewReader(m), int64(len(m)), n, &o)
			if err != nil {
				t.Fatal(err)
			}
			if n == 8 && len(cuts) < 5 {
				t.Errorf("factors %v: %d pieces asked, only %d cuts found", f, n, len(cuts))
			}
			prev := int64(0)
			for _, c := range cuts {
				if c <= prev || c >= int64(len(m)) || m[c-1] != '\n' || m[c] == '!' {
					t.Fatalf("cut at byte %d is not a data line start after %d", c, prev)
				}
				prev = c
			}
			var got bytes.Buffer
			st, err := CompactPieces(&got, bytes.NewReader(m), int64(len(m)), cuts, &o)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Fatalf("factors %v, %d pieces (cuts %v): output differs from one pass\n%s", f, n, cuts, firstDiffLine(got.Bytes(), want))
			}
			if st.OutBytes != int64(len(want)) || st.InBytes != int64(len(m)) {
				t.Errorf("stats: in %d out %d bytes, want %d and %d", st.InBytes, st.OutBytes, len(m), len(want))
			}
		}
	}
}

// TestCompactCutEveryPlace cuts a map in two at every data line boundary
// that CompactCut accepts and checks the output; and shows that a cut it
// refuses can change the output (the check is not vacuous).
func TestCompactCutEveryPlace(t *testing.T) {
	m := generatedMap(t, 4000, 11)
	lines := strings.SplitAfter(string(m), "\n")
	o := CompactOptions{HostFactor: 0.25, PathFactor: 0.25}
	want := compactWhole(t, m, &o)
	accepted, refusedDiffers := 0, 0
	off := 0
	var prevKey []byte
	for i, l := range lines {
		if l == "" {
			break
		}
		if l[0] != '!' {
			key, _, _ := splitLine([]byte(strings.TrimSuffix(l, "\n")))
			if prevKey != nil {
				ok := CompactCut(prevKey, key, &o)
				if ok || i%7 == 0 {
					var got bytes.Buffer
					if _, err := CompactPieces(&got, bytes.NewReader(m), int64(len(m)), []int64{int64(off)}, &o); err != nil {
						t.Fatal(err)
					}
					same := bytes.Equal(got.Bytes(), want)
					switch {
					case ok && !same:
						t.Fatalf("cut between %q and %q accepted, output differs:\n%s", prevKey, key, firstDiffLine(got.Bytes(), want))
					case ok:
						accepted++
					case !same:
						refusedDiffers++
					}
				}
			}
			prevKey = append(prevKey[:0], key...)
		}
		off += len(l)
	}
	if accepted < 10 {
		t.Errorf("only %d cuts accepted in a map of %d lines", accepted, len(lines))
	}
	if refusedDiffers == 0 {
		t.Errorf("no refused cut changes the output: the test cannot tell a wrong cut")
	}
}

func TestCompactCutRules(t *testing.T) {
	o := DefaultCompactOptions()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"com,zeta)/x", "de,alpha)/", true},                   // TLDs differ
		{"com,alpha)/x", "com,beta)/", true},                  // registrable domains under a TLD
		{"uk,co,alpha)/", "uk,co,beta)/a", true},              // under a public suffix
		{"com,alpha)/x", "com,alpha)/y", false},               // one host
		{"com,alpha)/x", "com,alpha,www)/", false},            // a host and its subdomain
		{"com,alpha,mail)/", "com,alpha,www)/", false},        // two subdomains of one domain
		{"uk,co,alpha)/", "uk,org,beta)/", true},              // parting at "uk"
		{"jp,kawasaki,foo)/", "jp,kawasaki,goo)/", true},      // below a wildcard rule
		{"com,blogspot,alpha)/", "com,blogspot,beta)/", true}, // a private-section suffix
		{"com,alpha)/", ")/odd", false},                       // no host
	} {
		if got := CompactCut([]byte(c.a), []byte(c.b), o); got != c.want {
			t.Errorf("CompactCut(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	ref := o
	ref.Reference = true
	if CompactCut([]byte("com,z)/"), []byte("de,a)/"), ref) {
		t.Error("a cut under Reference")
	}
}

func firstDiffLine(got, want []byte) string {
	g := strings.Split(string(got), "\n")
	w := strings.Split(string(want), "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
