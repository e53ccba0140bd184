package aggregator

import (
	"sort"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// nav is the navigation around a requested datetime in a sorted memento
// list: indexes of the first, last, closest, prev and next mementos
// (-1 when absent). prev and next are the nearest mementos of another
// second than the closest one.
type nav struct {
	first, last, closest, prev, next int
}

// closestIndex picks the memento nearest t in ms (sorted by datetime).
// Tie rule (internal/spec/TIMETRAVEL.md §1.2): when t is exactly between two mementos the
// later one wins, as the Time Travel service and MemGator do; among
// mementos of the same second the first in list order (the archive rank)
// wins, so that the choice is stable run after run (AGG-04). It returns -1
// for an empty list.
func closestIndex(ms []memento.Memento, t time.Time) int {
	if len(ms) == 0 {
		return -1
	}
	// i is the first memento at or after t.
	i := sort.Search(len(ms), func(i int) bool { return !ms[i].Datetime.Before(t) })
	switch {
	case i == len(ms):
		return groupStart(ms, len(ms)-1)
	case i == 0:
		return 0
	}
	floor := groupStart(ms, i-1)
	if t.Sub(ms[floor].Datetime) < ms[i].Datetime.Sub(t) {
		return floor
	}
	return i
}

func groupStart(ms []memento.Memento, i int) int {
	for i > 0 && ms[i-1].Datetime.Equal(ms[i].Datetime) {
		i--
	}
	return i
}

func navigate(ms []memento.Memento, t time.Time) nav {
	n := nav{first: -1, last: -1, closest: -1, prev: -1, next: -1}
	if len(ms) == 0 {
		return n
	}
	n.first = 0
	n.last = groupStart(ms, len(ms)-1)
	n.closest = closestIndex(ms, t)
	if n.closest > 0 {
		n.prev = groupStart(ms, n.closest-1)
	}
	j := n.closest
	for j < len(ms) && ms[j].Datetime.Equal(ms[n.closest].Datetime) {
		j++
	}
	if j < len(ms) {
		n.next = j
	}
	return n
}

// sameSecond returns the URI-Ms of the mementos in the second of ms[i].
func sameSecond(ms []memento.Memento, i int) []string {
	var out []string
	for j := groupStart(ms, i); j < len(ms) && ms[j].Datetime.Equal(ms[i].Datetime); j++ {
		out = append(out, ms[j].URIM)
	}
	return out
}
