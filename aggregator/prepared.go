package aggregator

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

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
	ms      []memento.Memento               // merged, checked: shared by every request, never written
	bodies  [3]atomic.Pointer[preparedBody] // whole TimeMaps, by timeMapFormat

	// The header values of every answer from the entry, shared by all
	// (len == cap: an Add elsewhere copies): Last-Modified (updated) and
	// X-Memento-Count (len(ms)).
	lastModified, count []string

	// promoted is when the entry was last made the most recently used
	// (Unix nanoseconds): preparedFor promotes it at most once per
	// promoteEvery, reading it without the cache's write lock otherwise.
	promoted atomic.Int64

	total   *atomic.Int64 // the bytes of all prepared entries (Aggregator.prepBytes)
	mu      sync.Mutex    // guards weight and dropped
	weight  int64         // bytes of this entry counted in total
	dropped bool          // out of the cache: its bodies are no longer kept
}

// preparedBody is a whole TimeMap kept by a prepared entry and its
// Content-Length header value (shared as prepared's header values are).
type preparedBody struct {
	b      []byte
	length []string
}

// The formats prepared.bodies holds.
const (
	formatLink = iota
	formatJSON
	formatCDXJ
)

// Bounds of the prepared entries of one aggregator: at most
// maxPrepared URI-Rs and maxPreparedBytes bytes in all, least recently
// requested dropped first; no entry over maxPreparedEntry bytes is
// prepared and no TimeMap body over maxPreparedBody bytes is kept (such
// an entry or body is made per request, as without preparation). The
// bytes of an entry: the merged mementos' slice, the stored mementos
// with their URI-Ms (the store's copy, which the entry holds), and the
// TimeMap bodies kept.
const (
	maxPrepared      = 4096
	maxPreparedBytes = 64 << 20
	maxPreparedEntry = 4 << 20
	maxPreparedBody  = 1 << 20
)

// promoteEvery is how often at most a prepared entry that requests keep
// reading is made the most recently used again: between promotions it is
// read under the cache's read lock alone (concurrent requests do not
// queue for its write lock), so the least recently requested order, by
// which entries are dropped, is exact to this interval.
const promoteEvery = time.Second

// preparedWeight is the bytes a prepared entry of stored and ms holds.
func preparedWeight(stored []cache.StoredMemento, ms []memento.Memento) int64 {
	w := int64(len(ms))*int64(unsafe.Sizeof(memento.Memento{})) + int64(len(stored))*int64(unsafe.Sizeof(cache.StoredMemento{}))
	for i := range stored {
		w += int64(len(stored[i].URIM))
	}
	return w
}

// preparedCache returns the aggregator's prepared entries, made on first
// use.
func (ag *Aggregator) preparedCache() *lru.Cache[string, *prepared] {
	if c := ag.prep.Load(); c != nil {
		return c
	}
	c, _ := lru.NewWithEvict(maxPrepared, func(_ string, p *prepared) { p.drop() }) // a positive size cannot fail
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
	c := ag.preparedCache()
	p, ok := c.Peek(urir)
	if !ok || !p.updated.Equal(e.Updated) || len(p.stored) != len(e.Mementos) {
		return nil
	}
	if now := time.Now().UnixNano(); now-p.promoted.Load() >= int64(promoteEvery) {
		p.promoted.Store(now)
		c.Get(urir) // most recently used
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
// checkEntry left unchanged, with ms its merged mementos; nil (nothing
// kept) when the entry is over maxPreparedEntry bytes. Least recently
// requested entries are dropped until all fit in maxPreparedBytes.
func (ag *Aggregator) prepare(urir string, e *cache.Entry, ms []memento.Memento) *prepared {
	w := preparedWeight(e.Mementos, ms)
	if w > maxPreparedEntry {
		return nil
	}
	p := &prepared{stored: e.Mementos, updated: e.Updated, ms: ms, total: &ag.prepBytes, weight: w,
		lastModified: []string{memento.FormatHTTPDate(e.Updated)}, count: []string{strconv.Itoa(len(ms))}}
	p.promoted.Store(time.Now().UnixNano()) // Add makes it the most recently used
	c := ag.preparedCache()
	c.Remove(urir) // an entry replaced by Add would not be dropped from the count
	ag.prepBytes.Add(w)
	c.Add(urir, p)
	for ag.prepBytes.Load() > maxPreparedBytes && c.Len() > 1 {
		c.RemoveOldest()
	}
	return p
}

// drop takes p out of the count of prepared bytes (it left the cache).
func (p *prepared) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.dropped = true
	p.total.Add(-p.weight)
	p.weight = 0
}

// body returns the TimeMap in format f, written by write on first use
// and kept when it is at most maxPreparedBody bytes and the prepared
// entries have room for it (maxPreparedBytes), with its Content-Length
// value when kept (nil when not).
func (p *prepared) body(f int, write func() []byte) ([]byte, []string) {
	if b := p.bodies[f].Load(); b != nil {
		return b.b, b.length
	}
	b := write()
	if len(b) > maxPreparedBody {
		return b, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dropped || p.bodies[f].Load() != nil || p.total.Load()+int64(len(b)) > maxPreparedBytes {
		return b, nil
	}
	c := &preparedBody{b: append([]byte(nil), b...), length: []string{strconv.Itoa(len(b))}}
	p.bodies[f].Store(c)
	p.weight += int64(len(c.b))
	p.total.Add(int64(len(c.b)))
	return c.b, c.length
}
