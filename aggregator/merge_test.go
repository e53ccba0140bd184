package aggregator

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/memento"
)

// mergeReference is the specification of merge: sort by (datetime, rank,
// URI-M), then keep the first of each identical (URI-M, datetime) pair.
func mergeReference(ms []memento.Memento, rank func(string) int) []memento.Memento {
	ms = slices.Clone(ms)
	slices.SortFunc(ms, func(a, b memento.Memento) int {
		if c := a.Datetime.Compare(b.Datetime); c != 0 {
			return c
		}
		if c := cmp.Compare(rank(a.Archive), rank(b.Archive)); c != 0 {
			return c
		}
		return strings.Compare(a.URIM, b.URIM)
	})
	var out []memento.Memento
	for _, m := range ms {
		dup := false
		for _, o := range out {
			if o.URIM == m.URIM && o.Datetime.Equal(m.Datetime) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, m)
		}
	}
	return out
}

// archiveList is one archive's answer: n mementos over few distinct
// seconds (so that ties and duplicates occur), in the given order.
func archiveList(rng *rand.Rand, id string, n int, order string) []memento.Memento {
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := make([]memento.Memento, n)
	for i := range ms {
		dt := base.Add(time.Duration(rng.IntN(n/2+1)) * time.Hour)
		// URI-Ms shared across archives for some captures (duplicates)
		host := id
		if rng.IntN(4) == 0 {
			host = "shared"
		}
		ms[i] = memento.Memento{URIM: fmt.Sprintf("http://%s/web/%s/%d", host, dt.Format("20060102150405"), rng.IntN(2)), Datetime: dt, Archive: id}
	}
	byTime := func(a, b memento.Memento) int {
		if c := a.Datetime.Compare(b.Datetime); c != 0 {
			return c
		}
		return strings.Compare(a.URIM, b.URIM)
	}
	switch order {
	case "ascending":
		slices.SortFunc(ms, byTime)
	case "descending":
		slices.SortFunc(ms, func(a, b memento.Memento) int { return byTime(b, a) })
	}
	return ms
}

func TestMergeMatchesSort(t *testing.T) {
	rank := func(id string) int {
		if id == "" {
			return 99
		}
		return int(id[len(id)-1] - '0')
	}
	rng := rand.New(rand.NewPCG(7, 9))
	for _, tc := range []struct {
		name     string
		archives int
		n        int
		orders   []string
	}{
		{"empty", 1, 0, []string{"ascending"}},
		{"one-memento", 1, 1, []string{"ascending"}},
		{"one-sorted-archive", 1, 500, []string{"ascending"}},
		{"three-sorted-archives", 3, 300, []string{"ascending"}},
		{"descending-archives", 3, 300, []string{"descending"}},
		{"mixed-orders", 5, 200, []string{"ascending", "descending", "random"}},
		{"unsorted-archives", 4, 200, []string{"random"}},
		{"more-runs-than-maxRuns", 70, 5, []string{"ascending", "descending"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var all []memento.Memento
			for i := range tc.archives {
				all = append(all, archiveList(rng, fmt.Sprintf("arc%d", i%10), tc.n, tc.orders[i%len(tc.orders)])...)
			}
			want := mergeReference(all, rank)
			got := merge(slices.Clone(all), rank)
			if diff := gocmp.Diff(want, got); diff != "" {
				t.Errorf("merge differs from sort and de-duplicate (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeLists: mergeLists gives mergeReference of the lists'
// concatenation, and leaves the lists as they were: sorted lists (the
// one-pass merge), a descending or unsorted one and more than
// maxMergeLists lists (the concatenation), empty lists among them, copies
// of one memento in several archives and in one.
func TestMergeLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	rank := func(id string) int { return int(id[1] - '0') }
	base := time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC)
	for trial := range 400 {
		nLists := 1 + rng.IntN(6)
		lists := make([][]memento.Memento, nLists)
		for i := range lists {
			n := rng.IntN(30)
			if rng.IntN(5) == 0 {
				n = 0
			}
			for range n {
				// few datetimes and URI-Ms: ties and copies are common
				dt := base.Add(time.Duration(rng.IntN(20)) * time.Second)
				lists[i] = append(lists[i], memento.Memento{URIM: fmt.Sprintf("http://a%d.example/%d", rng.IntN(3), rng.IntN(3)), Datetime: dt, Archive: fmt.Sprintf("a%d", rng.IntN(4))})
			}
			switch rng.IntN(3) {
			case 0: // sorted by merge's order
				slices.SortFunc(lists[i], func(a, b memento.Memento) int {
					if c := a.Datetime.Compare(b.Datetime); c != 0 {
						return c
					}
					if c := cmp.Compare(rank(a.Archive), rank(b.Archive)); c != 0 {
						return c
					}
					return strings.Compare(a.URIM, b.URIM)
				})
			case 1: // sorted by datetime only, descending
				slices.SortStableFunc(lists[i], func(a, b memento.Memento) int { return b.Datetime.Compare(a.Datetime) })
			}
		}
		var all []memento.Memento
		before := make([][]memento.Memento, len(lists))
		for i, l := range lists {
			all = append(all, l...)
			before[i] = slices.Clone(l)
		}
		got := mergeLists(lists, rank)
		want := mergeReference(all, rank)
		if len(want) == 0 {
			want = nil
		}
		if d := gocmp.Diff(want, got); d != "" {
			t.Fatalf("trial %d (%d lists): mergeLists differs from the reference (-want +got):\n%s", trial, nLists, d)
		}
		if d := gocmp.Diff(before, lists); d != "" {
			t.Fatalf("trial %d: the lists were changed:\n%s", trial, d)
		}
	}
}
