package aggregator

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultBodyMemory is the default Options.BodyMemory: 256 MiB, a quarter
// of 1 GiB, eight answers at the default MaxBodyBytes of 32 MiB.
const DefaultBodyMemory = 256 << 20

// DefaultBodyMemoryWait is the default Options.BodyMemoryWait: how long
// an upstream body waits for its share of the body memory budget while
// other requests hold it, 10 seconds (half the DefaultDynamicBudget).
const DefaultBodyMemoryWait = 10 * time.Second

// BusyRetryAfter is the Retry-After value, in seconds, of the 503 a
// request gets when the body memory budget (Options.BodyMemory) stayed in
// use by other requests for Options.BodyMemoryWait.
const BusyRetryAfter = 2

var (
	// errMemoryBusy: the bytes a body needs to begin stayed held by other
	// searches for Options.BodyMemoryWait (ReasonMemoryBusy).
	errMemoryBusy = errors.New("the aggregator's memory budget for upstream bodies stayed in use by other requests")
	// errOverBudget: the search alone would hold more than the budget
	// allows bodies past their first bytes (ReasonOverMemoryBudget).
	errOverBudget = errors.New("the archives' answers to this request together need more than the aggregator's memory budget for upstream bodies")
	// errGrowthCut: a body of unknown length did not get the bytes it
	// needed to go on while other bodies held the budget: it ends, its
	// mementos kept (ReasonOverMemoryBudget).
	errGrowthCut = errors.New("the answer, of unknown length, was cut: other requests' answers held the aggregator's memory budget for upstream bodies")
	// errGrowthDrop: as errGrowthCut, for a body that gave way to bodies
	// waiting to begin: its bytes go back at once and its mementos are
	// not kept (ReasonOverMemoryBudget).
	errGrowthDrop = errors.New("the answer, of unknown length, was dropped to let other requests' answers begin within the aggregator's memory budget for upstream bodies")
)

// bodyMemory is the budget of upstream body bytes held at once by all
// searches together (Options.BodyMemory). Bytes are charged as they
// arrive, a step at most (bodyStep) ahead of the read, and held by the
// search until every caller of the search is done with its Result
// (bodyHold). A body's first bytes (firstBytes of them) may use any free
// byte of the budget; the bytes past them may not use the reserve, an
// eighth of the budget kept for the first bytes of bodies, and are
// granted in turns: a body grows past its first bytes only while the
// rest of the budget still has room for every elder growing body to
// read to its cap, so the eldest always may. A body with a
// Content-Length takes all its bytes at once before it is read, on the
// same terms. A request that does not fit waits: a body that has not
// begun at most the budget's wait (then errMemoryBusy); a body that grows
// the same, but it gives way (errGrowthCut) at once when another body
// waits to begin, and at the end of its wait.
type bodyMemory struct {
	limit   int64         // <= 0: no limit
	reserve int64         // limit/8: bytes past a body's first bytes never use these
	first   int64         // firstBytes: the bytes of each body that may use the reserve
	step    int64         // the most charged ahead of one read
	wait    time.Duration // Options.BodyMemoryWait

	mu      sync.Mutex
	total   int64         // bytes charged
	grown   int64         // of which past each body's first bytes
	growers []*bodyCharge // open bodies of unknown length that took bytes past their first, eldest first
	waiters []*memWaiter  // in arrival order

	held, peak atomic.Int64
	busy, over atomic.Int64 // requests refused, by reason
}

func newBodyMemory(limit int64, wait time.Duration) *bodyMemory {
	m := &bodyMemory{limit: limit, wait: wait}
	if limit > 0 {
		m.reserve = limit / 8
		m.first = max(m.reserve/16, 1)
		m.step = min(32<<10, m.first)
	}
	return m
}

// BodyMemoryStats is the state of the body memory budget
// (Options.BodyMemory), in bytes, and the requests for bytes it refused.
type BodyMemoryStats struct {
	// Limit is Options.BodyMemory (0: no limit); Held the bytes charged
	// now; Peak the most ever charged at once (never over Limit).
	Limit, Held, Peak int64
	// Busy counts bodies refused because other searches held the budget
	// for Options.BodyMemoryWait before they could begin
	// (ReasonMemoryBusy, a 503 with Retry-After); OverBudget those cut or
	// refused because one search alone needed more, or because a body of
	// unknown length did not get its turn to grow
	// (ReasonOverMemoryBudget).
	Busy, OverBudget int64
}

// BodyMemory returns the state of the body memory budget.
func (ag *Aggregator) BodyMemory() BodyMemoryStats {
	m := ag.bodyMem
	return BodyMemoryStats{Limit: max(m.limit, 0), Held: m.held.Load(), Peak: m.peak.Load(), Busy: m.busy.Load(), OverBudget: m.over.Load()}
}

// bodyHold is one search's share of a bodyMemory. It is held by the
// search while it runs and then by each caller that waited for the
// search's Result, until that caller is done with it (the answer written
// or stored); when the last lets go, every byte goes back and the hold
// takes nothing more (a call that outlived its search). Its counts are
// guarded by the bodyMemory's mutex.
type bodyHold struct {
	m      *bodyMemory
	held   int64 // bytes charged
	grown  int64 // of which past each body's first bytes
	refs   int
	closed bool
	// last, when set, runs once when the last holder lets go (after the
	// budget's lock): the search's merged list goes back then
	// (Result.giveBack).
	last func()
}

func newBodyHold(m *bodyMemory) *bodyHold { return &bodyHold{m: m, refs: 1} }

type bodyHoldKey struct{}

// withBodyHold returns ctx carrying h, which the body reads of
// HTTPUpstream charge.
func withBodyHold(ctx context.Context, h *bodyHold) context.Context {
	return context.WithValue(ctx, bodyHoldKey{}, h)
}

func bodyHoldOf(ctx context.Context) *bodyHold {
	h, _ := ctx.Value(bodyHoldKey{}).(*bodyHold)
	return h
}

// limited reports whether h's charges count (a search's hold of a
// limited budget).
func (h *bodyHold) limited() bool { return h != nil && h.m.limit > 0 }

// bodyCharge is the account of one body of a hold's search.
type bodyCharge struct {
	h       *bodyHold
	charged int64 // bytes charged for the body
	left    int64 // bytes the body may still read (its answer's cap)
	grower  bool  // in the bodyMemory's growers
}

// charge starts the account of a body that may read up to left bytes.
func (h *bodyHold) charge(left int64) *bodyCharge { return &bodyCharge{h: h, left: left} }

// memWaiter is a request for bytes that waits its turn.
type memWaiter struct {
	c       *bodyCharge
	n       int64
	whole   bool       // a Content-Length body's bytes, all at once
	granted chan error // gets the answer once: nil when granted
}

// split is how many of n more bytes of c are first bytes and how many
// lie past them.
func (m *bodyMemory) split(c *bodyCharge, n int64) (first, past int64) {
	first = min(n, max(m.first-c.charged, 0))
	return first, n - first
}

// fitsLocked reports whether n more bytes of c fit: within the limit and,
// for bytes past the first, outside the reserve with room left for every
// elder growing body to read to its cap.
func (m *bodyMemory) fitsLocked(c *bodyCharge, n int64) bool {
	_, past := m.split(c, n)
	if m.total+n > m.limit {
		return false
	}
	if past == 0 {
		// A search that holds nothing yet keeps off the last half of the
		// reserve: searches that hold bytes finish first, and give them
		// back.
		return c.h.held > 0 || m.total+n <= m.limit-m.reserve/2
	}
	promised := int64(0)
	for _, e := range m.growers {
		if e == c {
			break
		}
		promised += e.left
	}
	return m.grown+past+promised <= m.limit-m.reserve
}

// grantLocked charges n more bytes to c.
func (m *bodyMemory) grantLocked(c *bodyCharge, n int64, whole bool) {
	_, past := m.split(c, n)
	c.charged += n
	c.left = max(c.left-n, 0)
	c.h.held += n
	c.h.grown += past
	m.total += n
	m.grown += past
	if past > 0 && !whole && !c.grower {
		c.grower = true
		m.growers = append(m.growers, c)
	}
	m.held.Store(m.total)
	if m.total > m.peak.Load() {
		m.peak.Store(m.total)
	}
}

// take charges n more bytes to c (whole: a Content-Length body's bytes,
// all at once before it is read). When they do not fit it refuses with
// errOverBudget if c's search alone could never hold them, and otherwise
// waits, within ctx and at most the budget's wait: past it a body that
// has not begun is refused with errMemoryBusy, one that grows is cut
// with errGrowthCut (as when another body waits to begin meanwhile), a
// canceled ctx gives context.Canceled. Once the hold was let go it
// refuses with context.Canceled. A hold that is not limited takes
// nothing.
func (c *bodyCharge) take(ctx context.Context, n int64, whole bool) error {
	h := c.h
	if !h.limited() || n <= 0 {
		return nil
	}
	m := h.m
	m.mu.Lock()
	if h.closed {
		m.mu.Unlock()
		return context.Canceled
	}
	_, past := m.split(c, n)
	if h.grown+past > m.limit-m.reserve || h.held+n > m.limit {
		m.mu.Unlock()
		m.over.Add(1)
		return errOverBudget
	}
	// A request waiting before this one that it may not pass: a body
	// waiting to begin, and for a body that does not grow yet (or a
	// Content-Length body), another such.
	newcomer := past > 0 && !c.grower
	ahead := false
	for _, w := range m.waiters {
		if _, wPast := m.split(w.c, w.n); wPast == 0 || newcomer && !w.c.grower {
			ahead = true
			break
		}
	}
	if !ahead && m.fitsLocked(c, n) {
		m.grantLocked(c, n, whole)
		m.mu.Unlock()
		return nil
	}
	holding := c.charged > 0 && !whole // a body of unknown length that holds bytes
	if holding && m.beginnersLocked() {
		err := m.giveWayLocked(c)
		m.mu.Unlock()
		return err
	}
	w := &memWaiter{c: c, n: n, whole: whole, granted: make(chan error, 1)}
	m.waiters = append(m.waiters, w)
	if m.beginnerLocked(w) {
		m.cutHoldersLocked() // bodies that hold bytes give way to one that waits to begin
	}
	m.unblockEldestLocked()
	m.mu.Unlock()
	timer := time.NewTimer(m.wait)
	defer timer.Stop()
	select {
	case err := <-w.granted:
		return err
	case <-timer.C:
	case <-ctx.Done():
	}
	m.mu.Lock()
	i := slices.Index(m.waiters, w)
	if i < 0 {
		m.mu.Unlock()
		return <-w.granted // answered meanwhile
	}
	m.waiters = slices.Delete(m.waiters, i, i+1)
	m.wakeLocked() // a waiter it held back may fit now
	m.mu.Unlock()
	if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	}
	// The wait ended, or the archive's timeout or the search's budget
	// ended while waiting: either way the budget was in use.
	if holding {
		m.over.Add(1)
		return errGrowthCut
	}
	m.busy.Add(1)
	return errMemoryBusy
}

// beginnerLocked reports whether w waits to begin: it holds nothing and
// asks for first bytes only.
func (m *bodyMemory) beginnerLocked(w *memWaiter) bool {
	_, past := m.split(w.c, w.n)
	return w.c.charged == 0 && past == 0
}

// beginnersLocked reports whether a body waits to begin.
func (m *bodyMemory) beginnersLocked() bool {
	return slices.ContainsFunc(m.waiters, m.beginnerLocked)
}

// giveWayLocked ends c, a body of unknown length that holds bytes and
// needs more while a body waits to begin: the eldest growing body is cut
// (errGrowthCut, its mementos kept, its search can end and give its
// bytes back), any other dropped (errGrowthDrop: its reader gives its
// bytes back at once).
func (m *bodyMemory) giveWayLocked(c *bodyCharge) error {
	m.over.Add(1)
	if len(m.growers) > 0 && m.growers[0] == c {
		return errGrowthCut
	}
	return errGrowthDrop
}

// unblockEldestLocked drops the waiting bodies of unknown length that
// hold bytes, other than the eldest growing body, when that one waits
// and their bytes are what keeps it from fitting: they wait for its turn
// to end, it for their bytes.
func (m *bodyMemory) unblockEldestLocked() {
	if len(m.growers) == 0 {
		return
	}
	eldest := m.growers[0]
	var ew *memWaiter
	var total, grown int64
	for _, w := range m.waiters {
		switch {
		case w.c == eldest:
			ew = w
		case !w.whole && w.c.charged > 0:
			total += w.c.charged
			grown += max(w.c.charged-m.first, 0)
		}
	}
	if ew == nil || total == 0 || m.fitsLocked(eldest, ew.n) {
		return
	}
	_, past := m.split(eldest, ew.n)
	if m.total-total+ew.n > m.limit || m.grown-grown+past > m.limit-m.reserve {
		return // it would not fit without them either
	}
	m.waiters = slices.DeleteFunc(m.waiters, func(w *memWaiter) bool {
		if w.c == eldest || w.whole || w.c.charged == 0 {
			return false
		}
		m.over.Add(1)
		w.granted <- errGrowthDrop
		return true
	})
}

// cutHoldersLocked answers every waiting body of unknown length that
// holds bytes as giveWayLocked does.
func (m *bodyMemory) cutHoldersLocked() {
	m.waiters = slices.DeleteFunc(m.waiters, func(w *memWaiter) bool {
		if w.whole || w.c.charged == 0 {
			return false
		}
		w.granted <- m.giveWayLocked(w.c)
		return true
	})
}

// drop gives back every byte of c, a body whose text is not kept
// (errGrowthDrop), and ends its account.
func (c *bodyCharge) drop() {
	c.give(c.charged)
	c.end()
}

// wakeLocked grants the waiting requests that fit now, in arrival order:
// first bytes whenever they fit, a growing body's bytes whenever they
// fit, and the bytes past the first of a body that does not grow yet
// (or a Content-Length body) only in turn, none passing an earlier one
// that does not fit.
func (m *bodyMemory) wakeLocked() {
	blocked := false
	m.waiters = slices.DeleteFunc(m.waiters, func(w *memWaiter) bool {
		_, past := m.split(w.c, w.n)
		newcomer := past > 0 && !w.c.grower
		if newcomer && blocked {
			return false
		}
		if m.fitsLocked(w.c, w.n) {
			m.grantLocked(w.c, w.n, w.whole)
			w.granted <- nil
			return true
		}
		if newcomer {
			blocked = true
		}
		return false
	})
	m.unblockEldestLocked()
}

// give gives n of c's bytes back (bytes charged and not read).
func (c *bodyCharge) give(n int64) {
	h := c.h
	if !h.limited() || n <= 0 {
		return
	}
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	n = min(n, c.charged)
	if h.closed || n <= 0 {
		return
	}
	before := max(c.charged-m.first, 0)
	c.charged -= n
	c.left += n
	past := before - max(c.charged-m.first, 0)
	h.held -= n
	h.grown -= past
	m.total -= n
	m.grown -= past
	m.held.Store(m.total)
	m.wakeLocked()
}

// end ends c's body: it grows no more (its bytes stay with the search).
func (c *bodyCharge) end() {
	h := c.h
	if !h.limited() {
		return
	}
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	c.left = 0
	if c.grower {
		c.grower = false
		m.growers = slices.DeleteFunc(m.growers, func(e *bodyCharge) bool { return e == c })
		m.wakeLocked()
	}
}

// hold adds a holder of h's bytes (a caller of the search); false when
// every holder has let go already.
func (h *bodyHold) hold() bool {
	if h == nil {
		return false
	}
	h.m.mu.Lock()
	defer h.m.mu.Unlock()
	if h.closed {
		return false
	}
	h.refs++
	return true
}

// release lets go of one hold of h's bytes; with the last, every byte
// goes back and h charges nothing more.
func (h *bodyHold) release() {
	if h == nil {
		return
	}
	if h.releaseLocked() && h.last != nil {
		h.last()
	}
}

// releaseLocked is release under the budget's lock; true when it let go
// of the last hold.
func (h *bodyHold) releaseLocked() bool {
	m := h.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if h.closed {
		return false
	}
	if h.refs--; h.refs > 0 {
		return false
	}
	h.closed = true
	m.total -= h.held
	m.grown -= h.grown
	h.held, h.grown = 0, 0
	m.held.Store(m.total)
	m.growers = slices.DeleteFunc(m.growers, func(e *bodyCharge) bool {
		if e.h == h {
			e.grower = false
			return true
		}
		return false
	})
	m.waiters = slices.DeleteFunc(m.waiters, func(w *memWaiter) bool {
		if w.c.h == h {
			w.granted <- context.Canceled
			return true
		}
		return false
	})
	m.wakeLocked()
	return true
}

// bodyHolds collects the holds of the search Results one request uses
// (a Handler request, a Refresh), let go together when it is done: its
// answer written, its result stored. The zero value is ready.
type bodyHolds struct {
	mu    sync.Mutex
	holds []*bodyHold
	done  bool
	// request: the holder is a Handler request, done with the Results'
	// mementos once it is answered (they may be given back then,
	// Result.giveBack); otherwise a caller keeps the Results it gets.
	request bool
}

// keep gives the caller's hold h (taken with hold) to hs, or lets it go
// at once when hs is nil or done (the Result is then its caller's, out
// of the budget).
func (hs *bodyHolds) keep(h *bodyHold) {
	if hs == nil {
		h.release()
		return
	}
	hs.mu.Lock()
	if hs.done {
		hs.mu.Unlock()
		h.release()
		return
	}
	hs.holds = append(hs.holds, h)
	hs.mu.Unlock()
}

// release lets every hold of hs go; holds kept after it go at once.
func (hs *bodyHolds) release() {
	hs.mu.Lock()
	holds := hs.holds
	hs.holds, hs.done = nil, true
	hs.mu.Unlock()
	for _, h := range holds {
		h.release()
	}
}
