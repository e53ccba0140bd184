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
