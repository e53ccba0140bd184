package mementomap

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/ukvs"
)

// randomMap returns a sorted baseline map of n random keys with awkward
// shapes: deep paths, trailing slashes, path characters that sort before
// '/', commas in paths, public suffixes, hosts without a comma.
func randomMap(r *rand.Rand, n int) []string {
	hosts := []string{"com,ex", "com,ex,www", "com,ex,m", "uk,co,firm", "uk,co", "org,a", "localhost", "[::1]", "jp,kawasaki,c1", "com,blogspot,me"}
	for i := range 20 {
		hosts = append(hosts, fmt.Sprintf("com,h%d", i), fmt.Sprintf("com,ex,s%d", i), fmt.Sprintf("net,n,s%d", i%5))
	}
	segs := []string{"a", "b", "a-b", "a.html", "a,b", "!x", "", "index", "x", "y", "0", "~u"}
	keys := map[string]bool{}
	for len(keys) < n {
		h := hosts[r.IntN(len(hosts))]
		depth := r.IntN(12)
		if r.IntN(3) == 0 {
			depth = r.IntN(3)
		}
		var p strings.Builder
		for range depth {
			p.WriteString("/")
			s := segs[r.IntN(len(segs))]
			if r.IntN(2) == 0 {
				s += fmt.Sprint(r.IntN(30))
			}
			p.WriteString(s)
		}
		path := p.String()
		if path == "" {
			path = "/"
		}
		keys[h+")"+path] = true
	}
	out := make([]string, 0, n)
	for k := range keys {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func totalM(t *testing.T, m string) uint64 {
	t.Helper()
	var sum uint64
	for _, l := range strings.Split(m, "\n") {
		if l == "" || l[0] == '!' {
			continue
		}
		_, v, _ := splitLine([]byte(l))
		f, err := ukvs.ParseFrequency(string(v))
		if err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		sum += f.URIM.N
	}
	return sum
}

// TestNoFalseNegatives is the contract of a MementoMap: every key held by
// the baseline is found present in every map compacted from it, through
// the chain of the paper's weight pairs (Table 9) and random ones.
func TestNoFalseNegatives(t *testing.T) {
	weights := []float64{4, 2, 1, 0.5, 0.25, 0}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 12 {
		keys := randomMap(r, 50+r.IntN(1500))
		var base strings.Builder
		for _, k := range keys {
			fmt.Fprintf(&base, "%s %d/1\n", k, 1+r.IntN(5))
		}
		want := totalM(t, base.String())
		ref := trial%4 == 3
		// The paper's chain: each map made from the map of the next
		// larger weight pair, host weight outer, path weight inner.
		for _, wh := range weights {
			prev := base.String()
			for _, wp := range weights {
				o := opts(wh, wp, false)
				if ref {
					o.Reference = true
				}
				if r.IntN(3) == 0 {
					o.HostFactor, o.PathFactor = r.Float64()*3, r.Float64()*3
				}
				got, _ := compactString(t, prev, o)
				if s := totalM(t, got); s != want {
					t.Fatalf("trial %d W=(%v,%v): total %d, want %d", trial, o.HostFactor, o.PathFactor, s, want)
				}
				// The output is sorted: compacting it again with
				// infinite weights (which checks order) copies it.
				again, _ := compactString(t, got, opts(math.Inf(1), math.Inf(1), false))
				if again != got {
					t.Fatalf("trial %d: output does not copy through unchanged", trial)
				}
				m := FromBytes([]byte(got))
				for _, k := range keys {
					if o.Reference {
						// A reference-form map holds stripped keys.
						k = string(referenceKey([]byte(k)))
					}
					match, _ := m.LookupSURT(k)
					if !match.Present() {
						t.Fatalf("trial %d W=(%v,%v) ref=%v: false negative for %q (match %+v)\nmap:\n%s", trial, o.HostFactor, o.PathFactor, ref, k, match, got)
					}
				}
				prev = got
			}
		}
	}
}

func TestCompactedMapCompactsAgain(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	keys := randomMap(r, 800)
	var base bytes.Buffer
	for _, k := range keys {
		fmt.Fprintf(&base, "%s 1/1\n", k)
	}
	once, st1 := compactString(t, base.String(), opts(2, 2, false))
	twice, st2 := compactString(t, once, opts(0.5, 0.5, false))
	if st1.OutLines >= st1.InLines || st2.OutLines >= st2.InLines {
		t.Errorf("compaction did not shrink: %+v then %+v", st1, st2)
	}
	if totalM(t, twice) != uint64(len(keys)) {
		t.Errorf("total after two compactions = %d, want %d", totalM(t, twice), len(keys))
	}
}

// TestNoFalseNegativesRealIndexes builds maps from every shipped real
// index (as keyed and re-keyed), compacts them through many weight pairs,
// and looks up every capture's URL and key.
func TestNoFalseNegativesRealIndexes(t *testing.T) {
	ctx := context.Background()
	var found int64
	for _, name := range sampledata.IndexFiles() {
		data, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		var lookups []string
		r := cdxj.NewReader(bytes.NewReader(data))
		r.SkipBad = true
		for rec, err := range r.All() {
			if err != nil {
				continue
			}
			if u := rec.URL(); u != nil {
				lookups = append(lookups, string(u))
			}
			if rec.KeyIsSURT() {
				lookups = append(lookups, string(rec.Key()))
			}
		}
		for _, rekey := range []bool{false, true} {
			o := BuildOptions{SkipBad: true, Rekey: rekey, Now: fixedNow}
			in := func() []cdxj.Searcher { return []cdxj.Searcher{cdxj.NewStream(name, bytes.NewReader(data), nil)} }
			var base bytes.Buffer
			if _, err := Build(ctx, &base, in(), &o); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			truth, err := LoadTruth(ctx, in(), lookups, &o)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range [][2]float64{{4, 4}, {1, 1}, {0.5, 2}, {2, 0.25}, {0, 1}, {1, 0}, {0, 0}} {
				got, _ := compactString(t, base.String(), opts(w[0], w[1], false))
				e, err := Evaluate(FromBytes([]byte(got)), truth)
				if err != nil {
					t.Fatal(err)
				}
				if err := e.Check(); err != nil {
					t.Errorf("%s rekey=%v W=%v: %v", name, rekey, w, err)
				}
				found += e.TruePositive
			}
		}
	}
	// 2 key forms × 7 weight pairs × (at least the 2144 OpenWayback
	// captures, looked up by URL and by key).
	if found < 2*7*2*2144 {
		t.Errorf("only %d held lookups checked", found)
	}
}
