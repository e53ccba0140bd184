package aggregator

import (
	"sync"

	"github.com/mementokit/mementokit/memento"
)

// freeList keeps released slices for reuse: at most maxFree of them,
// each of least to one elements of capacity, up to most in all; unlike a sync.Pool's, its slices are not dropped by
// the garbage collector, which runs every few large TimeMaps (each
// search allocates for its answer) and would empty a sync.Pool as often
// as it is filled. The zero value keeps nothing; its methods are safe
// for concurrent use.
type freeList[T any] struct {
	mu    sync.Mutex
	items [][]T // released slices, len 0, contents zeroed unless dirty
	held  int   // their capacities, summed
	most  int   // the most held
	least int   // the smallest capacity kept
	one   int   // the largest capacity kept
	dirty bool  // slices are kept as they are, not zeroed (no pointers in T)
}

// maxFree is the most slices a freeList keeps (get looks at each).
const maxFree = 64

// get returns a released slice of length 0 and a capacity between n and
// up (the smallest that fits), or nil when none is kept.
func (f *freeList[T]) get(n, up int) []T {
	if up < f.least {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	best := -1
	for i, s := range f.items {
		if c := cap(s); c >= n && c <= up && (best < 0 || c < cap(f.items[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	s := f.items[best]
	last := len(f.items) - 1
	f.items[best] = f.items[last]
	f.items[last] = nil
	f.items = f.items[:last]
	f.held -= cap(s)
	return s
}

// put releases s, which its caller no longer uses (nor anything it
// handed s to): its contents up to len(s) are zeroed unless the list is
// dirty (no string it held is kept alive), and it is kept when it fits
// within the list's bounds.
func (f *freeList[T]) put(s []T) {
	c := cap(s)
	if c == 0 || c < f.least || c > f.one {
		return
	}
	if !f.dirty {
		clear(s)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held+c > f.most || len(f.items) == maxFree {
		return
	}
	f.items = append(f.items, s[:0])
	f.held += c
}

// minReusedMementos is the smallest memento list kept for reuse (a
// smaller one costs little to allocate), maxReusedMementos the largest
// (about 1.7 MB), and mementoListsHeld the most mementos kept in all
// (about 6.8 MB): room for the lists of a dozen concurrent searches of
// three archives of 1,000 mementos each.
const (
	minReusedMementos = 256
	maxReusedMementos = 16 << 10
	mementoListsHeld  = 64 << 10
)

// mementoLists holds the memento lists of HTTPUpstream's TimeMap
// answers that a search has merged (releaseMementos), for the next
// answers' pages (growMementos).
var mementoLists = freeList[memento.Memento]{most: mementoListsHeld, least: minReusedMementos, one: maxReusedMementos}

// reusedMementos returns a list of length 0 for about want mementos: a
// released one whose capacity is want to a thirty-second more, else a
// new one of capacity want.
func reusedMementos(want int) []memento.Memento {
	if s := mementoLists.get(want, want+want/32+16); s != nil {
		return s
	}
	return make([]memento.Memento, 0, want)
}

// releaseMementos gives ms back for reuse: nothing refers to it any
// more (its mementos were copied into a merged list).
func releaseMementos(ms []memento.Memento) { mementoLists.put(ms[:cap(ms)]) }
