package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/extsort"
)

// TestJoinPartsMatchesMerge: the sort keys of a build cut into parts
// anywhere (inside the URI-Rs of one HxPx key, a part of one key, empty
// parts, a chunk that spills), each part's lines written by formatPart
// and joined by joinParts, give the same map lines and the same Keys and
// URIRs as writeMapLines over the same sorters; so do they when the first
// part's lines are written straight to the map's writer.
func TestJoinPartsMatchesMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 1))
	var keys [][]byte
	for h := range 400 {
		hx := fmt.Sprintf("com,host%03d)/p%d", h/7, h%7)
		for q := range 1 + r.IntN(4) {
			k := []byte(hx)
			if q > 0 {
				k = fmt.Appendf(k, "\x00id=%d", q)
			}
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, bytes.Compare)
	for trial := range 20 {
		var cuts []int
		switch trial {
		case 0: // one part
		case 1: // parts of one to three sort keys
			for i := 1; i < 60; i += 1 + i%3 {
				cuts = append(cuts, i)
			}
		default:
			for range 1 + r.IntN(6) {
				cuts = append(cuts, r.IntN(len(keys)+1))
			}
			slices.Sort(cuts)
		}
		limit := int64(1 << 20)
		if trial%3 == 2 {
			limit = 2048 // chunks spill
		}
		mk := func() []*extsort.Sorter {
			var ss []*extsort.Sorter
			start := 0
			for _, c := range append(cuts, len(keys)) {
				s := extsort.New(limit, t.TempDir())
				for j := start; j < c; j++ {
					n := uint64(1 + j%3)
					var err error
					if j%5 == 0 {
						err = s.Add(keys[j], n) // the chunk
					} else {
						err = s.Append(keys[j], n)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				ss = append(ss, s)
				start = c
			}
			return ss
		}
		var want bytes.Buffer
		var wst BuildStats
		if err := writeMapLines(context.Background(), bufio.NewWriter(&want), &wst, mk(), false); err != nil {
			t.Fatal(err)
		}
		// The first part's lines formatted to a file as the others', or
		// (direct) straight to the map's writer.
		for _, direct := range []bool{false, true} {
			ss := mk()
			var got bytes.Buffer
			bw := bufio.NewWriter(&got)
			var ps []*partLines
			for i, s := range ss {
				var to *bufio.Writer
				if direct && i == 0 {
					to = bw
				}
				p, err := formatPart(context.Background(), s, t.TempDir(), to)
				if err != nil {
					t.Fatal(err)
				}
				ps = append(ps, p)
			}
			if _, ordered, err := extsort.Ordered(ss); err != nil || !ordered {
				t.Fatalf("trial %d: Ordered = %v, %v", trial, ordered, err)
			}
			var gst BuildStats
			if err := joinParts(bw, &gst, ps); err != nil {
				t.Fatal(err)
			}
			for _, p := range ps {
				p.close()
			}
			for _, s := range ss {
				s.Close()
			}
			if got.String() != want.String() {
				t.Fatalf("trial %d (cuts %v, direct %v): joined lines differ:\n%.300s\nwant\n%.300s", trial, cuts, direct, got.String(), want.String())
			}
			if gst.Keys != wst.Keys || gst.URIRs != wst.URIRs || wst.Keys != 400 {
				t.Errorf("trial %d (direct %v): Keys %d URIRs %d, want %d %d (400 keys)", trial, direct, gst.Keys, gst.URIRs, wst.Keys, wst.URIRs)
			}
		}
	}
}

// TestBuildGeneratedEveryWay: on generated CDXJ (queries, revisits, hosts
// of many captures), the map is byte-identical whether the index is read
// as one stream, as a file cut into parts built on two workers (their
// lines joined), or shuffled (every key through the sorter's chunk), and
// its counts are those of an independent count of the index's lines.
func TestBuildGeneratedEveryWay(t *testing.T) {
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 30000, Seed: 3}).Write(&idx); err != nil {
		t.Fatal(err)
	}
	want := independentCounts(t, idx.Bytes())
	path := filepath.Join(t.TempDir(), "index.cdxj")
	if err := os.WriteFile(path, idx.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(idx.String(), "\n")
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	shuffled := strings.Join(lines, "")
	lowPartBytes(t, int64(idx.Len()/5))
	build := func(in cdxj.Searcher, workers int) string {
		t.Helper()
		var m bytes.Buffer
		st, err := Build(context.Background(), &m, []cdxj.Searcher{in}, &BuildOptions{Workers: workers, Now: fixedNow, TempDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if st.Records != 30000 || st.Keys != int64(len(want)) {
			t.Errorf("workers %d: %d records, %d keys; want 30000, %d", workers, st.Records, st.Keys, len(want))
		}
		return m.String()
	}
	stream := build(cdxj.NewStream("index.cdxj", bytes.NewReader(idx.Bytes()), nil), 1)
	if diff := cmp.Diff(want, mapCounts(t, stream)); diff != "" {
		t.Fatalf("counts differ from the index's (-index +map):\n%s", diff)
	}
	f, err := cdxj.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if parts, err := planBuild(context.Background(), []cdxj.Searcher{f}, 2); err != nil || len(parts) != 2 {
		t.Fatalf("planBuild: %d parts, %v; want 2", len(parts), err)
	}
	for name, m := range map[string]string{
		"file on 2 workers": build(f, 2),
		"file on 5 workers": build(f, 5),
		"shuffled stream":   build(cdxj.NewStream("shuffled.cdxj", strings.NewReader(shuffled), nil), 1),
	} {
		if m != stream {
			t.Errorf("%s: the map differs from the stream's", name)
		}
	}
}

// TestBuildWorkersStreamGivenUp: a part whose keys come out of order for
// its line stream is read again into its sorter, in the middle of the part
// (a query held back past a pending limit of 64 bytes, an unsorted index)
// or at the end (two sorted halves whose parts' keys overlap), and the map
// is byte-identical to a one-worker build's, its counts those of an
// independent count of the index's lines.
func TestBuildWorkersStreamGivenUp(t *testing.T) {
	defer func(n int) { maxPendingKeys = n }(maxPendingKeys)
	var mu sync.Mutex
	var ix cdxj.Index           // the index being built, for the records of a part
	replays := map[string]int{} // "in the middle", "at the end"
	onReplay = func(p cdxj.Part, n int64) {
		all := int64(0)
		for range cdxj.PartRecords(ix, p) {
			all++
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case n < all:
			replays["in the middle"]++
		case n == all:
			replays["at the end"]++
		default:
			t.Errorf("a replay of %d records of a part of %d", n, all)
		}
	}
	defer func() { onReplay = nil }()
	sorted := sinkIndex(t, 5, true, true)
	halves := append(sinkIndex(t, 6, true, true), sinkIndex(t, 7, true, true)...)
	lowPartBytes(t, 4<<10)
	for _, c := range []struct {
		name    string
		index   []byte
		pending int
		replays []string // the replays wanted on 2 workers
	}{
		{"sorted", sorted, 4 << 20, nil},
		{"sorted, pending 64", sorted, 64, []string{"in the middle"}},
		{"unsorted", sinkIndex(t, 5, false, true), 4 << 20, []string{"in the middle"}},
		{"two sorted halves", halves, 4 << 20, []string{"at the end"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			maxPendingKeys = c.pending
			path := filepath.Join(t.TempDir(), "index.cdxj")
			if err := os.WriteFile(path, c.index, 0o644); err != nil {
				t.Fatal(err)
			}
			ix = openAll(t, path)[0].(cdxj.Index)
			want, wst := buildWith(t, 1, BuildOptions{}, path)
			if diff := cmp.Diff(independentCounts(t, c.index), mapCounts(t, want)); diff != "" {
				t.Fatalf("counts differ from the index's (-index +map):\n%s", diff)
			}
			for _, w := range []int{2, 3} {
				clear(replays)
				got, gst := buildWith(t, w, BuildOptions{}, path)
				if got != want {
					t.Errorf("%d workers: map differs from 1 worker's (%d vs %d bytes)", w, len(got), len(want))
				}
				if gst.Records != wst.Records || gst.Keys != wst.Keys || gst.URIRs != wst.URIRs {
					t.Errorf("%d workers: stats %+v, 1 worker %+v", w, gst, wst)
				}
				for _, r := range c.replays {
					if w == 2 && replays[r] == 0 {
						t.Errorf("%d workers: no part read again %s (%v)", w, r, replays)
					}
				}
				if len(c.replays) == 0 && len(replays) > 0 {
					t.Errorf("%d workers: parts read again: %v", w, replays)
				}
				t.Logf("%d workers: %v", w, replays)
			}
		})
	}
}
