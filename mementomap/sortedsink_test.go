package mementomap

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/extsort"
	"github.com/mementokit/mementokit/surt"
)

// sinkIndex returns the lines of a SURT-keyed CDXJ index whose URLs take
// the shapes that order differently with a '?' and with the NUL of a sort
// key: a path, its longer neighbours with a byte below '?' ("/x-y", "/x.html",
// "/x/…", "/x0"), its queries, bare and with queries, on hosts that are
// prefixes of one another; each URL captured one to three times. The lines
// are sorted byte-wise (LC_ALL=C sort) when sorted is set, else shuffled.
func sinkIndex(t *testing.T, seed uint64, sorted, queries bool) []byte {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 3))
	hosts := []string{"a.example", "example", "b.a.example", "example0", "ex-ample"}
	paths := []string{"/", "/x", "/x-y", "/x.html", "/x/", "/x/y", "/x/y/z", "/x0", "/x!", "/x/-", "/y", "/0", "/-", "/x/y-1"}
	qs := []string{"", "", "?q=1", "?q=2", "?a", "?"}
	var lines []string
	for range 3000 {
		u := "http://" + hosts[r.IntN(len(hosts))] + paths[r.IntN(len(paths))]
		if queries {
			u += qs[r.IntN(len(qs))]
		}
		k, err := surt.Default.AppendCanonical(nil, u)
		if err != nil {
			t.Fatal(err)
		}
		for range 1 + r.IntN(3) {
			lines = append(lines, fmt.Sprintf("%s 202001%02d%02d%02d%02d {\"url\": %q}", k, 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), u))
		}
	}
	if sorted {
		slices.Sort(lines)
	} else {
		r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// The map of an index is the same whether its keys reach the sorter by
// the appended run, by the chunk, or both (a sorted index, a small pending
// limit, an unsorted index): byte-identical, its keys in order, its counts
// those of an independent count of the index's lines.
func TestSortedSinkSameMap(t *testing.T) {
	defer func(n int) { maxPendingKeys = n }(maxPendingKeys)
	for _, queries := range []bool{false, true} {
		sorted := sinkIndex(t, 5, true, queries)
		want := independentCounts(t, sorted)
		var first string
		for _, c := range []struct {
			name    string
			index   []byte
			pending int
		}{
			{"sorted", sorted, 4 << 20},
			{"sorted-pending-64", sorted, 64},
			{"sorted-pending-0", sorted, 0},
			{"unsorted", sinkIndex(t, 5, false, queries), 4 << 20},
		} {
			maxPendingKeys = c.pending
			var out bytes.Buffer
			st, err := Build(context.Background(), &out, []cdxj.Searcher{cdxj.NewStream("index.cdxj", bytes.NewReader(c.index), nil)},
				&BuildOptions{Workers: 1, Now: fixedNow, MemoryLimit: 1 << 12, TempDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			if st.Mismatched != 0 {
				t.Fatalf("queries=%v %s: %d keys rekeyed", queries, c.name, st.Mismatched)
			}
			m := out.String()
			if diff := cmp.Diff(want, mapCounts(t, m)); diff != "" {
				t.Errorf("queries=%v %s: counts differ from the index's (-index +map):\n%s", queries, c.name, diff)
			}
			var keys []string
			for _, l := range strings.Split(strings.TrimSuffix(m, "\n"), "\n") {
				if !strings.HasPrefix(l, "!") {
					k, _, _ := strings.Cut(l, " ")
					keys = append(keys, k)
				}
			}
			if !slices.IsSorted(keys) {
				t.Errorf("queries=%v %s: map keys out of order", queries, c.name)
			}
			if first == "" {
				first = m
			} else if m != first {
				t.Errorf("queries=%v %s: map differs from the sorted index's", queries, c.name)
			}
		}
	}
}

// A sorted index reaches the sorter by the appended run alone, queries
// and all (each HxPx key of sinkIndex's is captured bare, too, which holds
// its longer neighbours back until its queries are read); with no room
// for pending keys the queries of a bare key appended before its longer
// neighbours take the chunk.
func TestSortedSinkAppends(t *testing.T) {
	defer func(n int) { maxPendingKeys = n }(maxPendingKeys)
	for _, c := range []struct {
		queries bool
		pending int
	}{{false, 4 << 20}, {true, 4 << 20}, {false, 0}, {true, 0}} {
		maxPendingKeys = c.pending
		s := extsort.New(1<<30, t.TempDir())
		b := newBuilder(BuildOptions{})
		finish := b.sortInto(s)
		n := 0
		for rec, err := range cdxj.NewStream("index.cdxj", bytes.NewReader(sinkIndex(t, 9, true, c.queries)), nil).Records(cdxj.Query{}) {
			if err == nil {
				err = b.record(rec)
			}
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		if err := finish(); err != nil {
			t.Fatal(err)
		}
		chunk := s.Buffered()
		if c.queries && c.pending == 0 {
			if chunk == 0 || chunk > n/4 {
				t.Errorf("%+v: %d keys of %d records in the chunk, want some", c, chunk, n)
			}
		} else if chunk != 0 {
			t.Errorf("%+v: %d keys of %d records in the chunk, want 0", c, chunk, n)
		}
		s.Close()
	}
}
