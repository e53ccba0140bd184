package mementomap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mementokit/mementokit/internal/extsort"
)

// TestJoinPartsMatchesMerge: the sort keys of a build cut into parts
// anywhere (inside the URI-Rs of one HxPx key, a part of one key, empty
// parts, a chunk that spills), each part's lines written by formatPart
// and joined by joinParts, give the same map lines and the same Keys and
// URIRs as writeMapLines over the same sorters.
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
		ss := mk()
		var ps []*partLines
		for _, s := range ss {
			p, err := formatPart(context.Background(), s, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		if _, ordered, err := extsort.Ordered(ss); err != nil || !ordered {
			t.Fatalf("trial %d: Ordered = %v, %v", trial, ordered, err)
		}
		var got bytes.Buffer
		var gst BuildStats
		if err := joinParts(bufio.NewWriter(&got), &gst, ps); err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			p.close()
		}
		for _, s := range ss {
			s.Close()
		}
		if got.String() != want.String() {
			t.Fatalf("trial %d (cuts %v): joined lines differ:\n%.300s\nwant\n%.300s", trial, cuts, got.String(), want.String())
		}
		if gst.Keys != wst.Keys || gst.URIRs != wst.URIRs || wst.Keys != 400 {
			t.Errorf("trial %d: Keys %d URIRs %d, want %d %d (400 keys)", trial, gst.Keys, gst.URIRs, wst.Keys, wst.URIRs)
		}
	}
}
