package aggregator

import (
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/memento"
)

// A cached entry is read for every request of a URI-R, and its mementos
// were checked (checkEntry), merged (cachedAnswer) and written in a
// TimeMap format each time. prepared keeps that work for an entry that
// has not changed: the merged mementos and, once written, the whole
// TimeMap in each format, reused while the cache returns the same entry
// (same Updated time, same mementos: the same slice from a store that
// shares it, memorycache.Options.ShareMementos, else equal contents).
type prepared struct {
	stored  []cache.StoredMemento // the entry's mementos, as the store returned them
	updated time.Time
	ms      []memento.Memento         // merged, checked: shared by every request, never written
	bodies  [3]atomic.Pointer[[]byte] // whole TimeMaps, by timeMapFormat
}

// The formats prepared.bodies holds.
const (
	formatLink = iota
	formatJSON
	formatCDXJ
)

// Bounds of the prepared entries of one aggregator: at most
// maxPrepared URI-Rs, least recently requested dropped first, and no
// TimeMap body over maxPreparedBody bytes is kept (such a body is written
// per request). Memory per URI-R: the merged mementos (the slice; the
// strings are the store's) and the TimeMap bodies of the formats
// requested.
const (
	maxPrepared     = 4096
	maxPreparedBody = 1 << 20
)

// preparedCache returns the aggregator's prepared entries, made on first
// use.
func (ag *Aggregator) preparedCache() *lru.Cache[string, *prepared] {
	if c := ag.prep.Load(); c != nil {
		return c
	}
	c, _ := lru.New[string, *prepared](maxPrepared) // a positive size cannot fail
	if ag.prep.CompareAndSwap(nil, c) {
		return c
	}
	return ag.prep.Load()
}

// preparedFor returns the prepared entry of urir when e is the entry it
// was made from, else nil.
func (ag *Aggregator) preparedFor(urir string, e *cache.Entry) *prepared {
	if e.Status != cache.StatusFound || len(e.Mementos) == 0 {
		return nil
	}
	p, ok := ag.preparedCache().Get(urir)
	if !ok || !p.updated.Equal(e.Updated) || len(p.stored) != len(e.Mementos) {
		return nil
	}
	if &p.stored[0] == &e.Mementos[0] {
		return p
	}
	for i, m := range e.Mementos {
		s := p.stored[i]
		if m.URIM != s.URIM || !m.Datetime.Equal(s.Datetime) || m.Archive != s.Archive {
			return nil
		}
	}
	return p
}

// prepare makes and keeps the prepared entry of urir from e, an entry
// checkEntry left unchanged, with ms its merged mementos.
func (ag *Aggregator) prepare(urir string, e *cache.Entry, ms []memento.Memento) *prepared {
	p := &prepared{stored: e.Mementos, updated: e.Updated, ms: ms}
	ag.preparedCache().Add(urir, p)
	return p
}

// body returns the TimeMap in format f, written by write on first use
// and kept when it is at most maxPreparedBody bytes.
func (p *prepared) body(f int, write func() []byte) []byte {
	if b := p.bodies[f].Load(); b != nil {
		return *b
	}
	b := write()
	if len(b) <= maxPreparedBody {
		c := append([]byte(nil), b...)
		p.bodies[f].Store(&c)
	}
	return b
}
