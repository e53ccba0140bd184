package aggregator

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"
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
	// errMemoryBusy: the bytes a body needs stayed held by other
	// searches for Options.BodyMemoryWait (ReasonMemoryBusy).
	errMemoryBusy = errors.New("the aggregator's memory budget for upstream bodies stayed in use by other requests")
	// errOverBudget: the search alone would hold more than the whole
	// budget (ReasonOverMemoryBudget).
	errOverBudget = errors.New("the archives' answers to this request together need more than the aggregator's memory budget for upstream bodies")
)

// bodyMemory is the budget of upstream body bytes held at once by all
// searches together (Options.BodyMemory): a body reserves its share
// before it is read (waiting, in arrival order, at most wait for bytes
// other searches hold), and a search's bytes are held until every caller
// of the search is done with its Result (bodyHold).
type bodyMemory struct {
	limit      int64               // <= 0: no limit
	wait       time.Duration       // Options.BodyMemoryWait
	sem        *semaphore.Weighted // the limit's bytes; nil without a limit
	held, peak atomic.Int64
	busy, over atomic.Int64 // reservations refused, by reason
}

func newBodyMemory(limit int64, wait time.Duration) *bodyMemory {
	m := &bodyMemory{limit: limit, wait: wait}
	if limit > 0 {
		m.sem = semaphore.NewWeighted(limit)
	}
	return m
}

// BodyMemoryStats is the state of the body memory budget
// (Options.BodyMemory), in bytes, and the reservations it refused.
type BodyMemoryStats struct {
	// Limit is Options.BodyMemory (0: no limit); Held the bytes reserved
	// now; Peak the most ever reserved at once (never over Limit).
	Limit, Held, Peak int64
	// Busy counts body reservations refused because other searches held
	// the budget for Options.BodyMemoryWait (ReasonMemoryBusy, a 503 with
	// Retry-After); OverBudget those refused because one search alone
	// needed more (ReasonOverMemoryBudget).
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
// reserves nothing more (a call that outlived its search).
type bodyHold struct {
	m       *bodyMemory
	mu      sync.Mutex
	held    int64         // bytes reserved
	pending int64         // bytes being waited for
	open    int           // bodies of unknown length reserving or being read
	changed chan struct{} // closed when a body of unknown length ends (made on demand)
	refs    int
	closed  bool
}

func newBodyHold(m *bodyMemory) *bodyHold { return &bodyHold{m: m, refs: 1} }

type bodyHoldKey struct{}

// withBodyHold returns ctx carrying h, which the body reads of
// HTTPUpstream reserve from.
func withBodyHold(ctx context.Context, h *bodyHold) context.Context {
	return context.WithValue(ctx, bodyHoldKey{}, h)
}

func bodyHoldOf(ctx context.Context) *bodyHold {
	h, _ := ctx.Value(bodyHoldKey{}).(*bodyHold)
	return h
}

// limited reports whether reservations from h count (a search's hold of
// a limited budget).
func (h *bodyHold) limited() bool { return h != nil && h.m.sem != nil }

// reserve takes n bytes from the budget for one body of h's search
// (with open, a body of unknown length: as much of n as the search may
// still hold) and returns how many it took. When the search (its bytes
// held and waited for) could not hold them, it waits for the search's
// own open bodies to end (they give back what they did not read) and,
// with none, refuses with errOverBudget. It waits, in arrival order, for
// bytes other searches hold. Either wait lasts at most the budget's wait
// and while ctx lasts: past it the refusal is errMemoryBusy
// (context.Canceled when ctx was canceled). Once h was let go it refuses
// with context.Canceled. A reservation with open must be ended by
// endOpen. A hold that is not limited gives n.
func (h *bodyHold) reserve(ctx context.Context, n int64, open bool) (int64, error) {
	if !h.limited() || n <= 0 {
		return n, nil
	}
	m := h.m
	wctx, cancel := context.WithTimeout(ctx, m.wait) // both waits together
	defer cancel()
	busy := func() error {
		if errors.Is(ctx.Err(), context.Canceled) {
			return ctx.Err()
		}
		// the wait ended, or the archive's timeout or the search's budget
		// ended while waiting: either way the budget was busy
		m.busy.Add(1)
		return errMemoryBusy
	}
	h.mu.Lock()
	take := n
	for {
		if h.closed {
			h.mu.Unlock()
			return 0, context.Canceled
		}
		room := m.limit - h.held - h.pending
		if open {
			take = min(n, room)
		}
		if take > 0 && take <= room {
			break
		}
		if h.open == 0 {
			h.mu.Unlock()
			m.over.Add(1)
			return 0, errOverBudget
		}
		if h.changed == nil {
			h.changed = make(chan struct{})
		}
		ch := h.changed
		h.mu.Unlock()
		select {
		case <-ch:
		case <-wctx.Done():
			return 0, busy()
		}
		h.mu.Lock()
	}
	h.pending += take
	if open {
		h.open++
	}
	h.mu.Unlock()
	var err error
	if !m.sem.TryAcquire(take) {
		if err = m.sem.Acquire(wctx, take); err != nil {
			err = busy()
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending -= take
	if err == nil && h.closed {
		m.sem.Release(take)
		err = context.Canceled
	}
	if err != nil {
		if open {
			h.endOpenLocked()
		}
		return 0, err
	}
	h.held += take
	cur := m.held.Add(take)
	for p := m.peak.Load(); cur > p && !m.peak.CompareAndSwap(p, cur); p = m.peak.Load() {
	}
	return take, nil
}

// endOpen ends a body of unknown length (a reservation with open),
// giving back unread of its bytes.
func (h *bodyHold) endOpen(unread int64) {
	if !h.limited() {
		return
	}
	h.give(unread)
	h.mu.Lock()
	h.endOpenLocked()
	h.mu.Unlock()
}

func (h *bodyHold) endOpenLocked() {
	h.open--
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
}

// give returns n of h's bytes to the budget.
func (h *bodyHold) give(n int64) {
	if !h.limited() || n <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n = min(n, h.held)
	h.held -= n
	h.m.held.Add(-n)
	h.m.sem.Release(n)
}

// hold adds a holder of h's bytes (a caller of the search); false when
// every holder has let go already.
func (h *bodyHold) hold() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return false
	}
	h.refs++
	return true
}

// release lets go of one hold of h's bytes; with the last, every byte
// goes back and h reserves nothing more.
func (h *bodyHold) release() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	if h.refs--; h.refs > 0 {
		return
	}
	h.closed = true
	if h.held > 0 {
		h.m.held.Add(-h.held)
		if h.m.sem != nil {
			h.m.sem.Release(h.held)
		}
	}
	h.held = 0
}

// bodyHolds collects the holds of the search Results one request uses
// (a Handler request, a Refresh), let go together when it is done: its
// answer written, its result stored. The zero value is ready.
type bodyHolds struct {
	mu    sync.Mutex
	holds []*bodyHold
	done  bool
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
