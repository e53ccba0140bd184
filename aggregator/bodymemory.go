package aggregator

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// DefaultBodyMemory is the default Options.BodyMemory: 256 MiB, a quarter
// of 1 GiB, eight answers at the default MaxBodyBytes of 32 MiB.
const DefaultBodyMemory = 256 << 20

// BusyRetryAfter is the Retry-After value, in seconds, of the 503 a
// request gets when the body memory budget (Options.BodyMemory) is in
// use by other requests.
const BusyRetryAfter = 2

var (
	// errMemoryBusy: the bytes a body read needs are held by other
	// searches (ReasonMemoryBusy).
	errMemoryBusy = errors.New("the aggregator's memory budget for upstream bodies is in use by other requests")
	// errOverBudget: the search alone holds the whole budget
	// (ReasonOverMemoryBudget).
	errOverBudget = errors.New("the archives' answers to this request together need more than the aggregator's memory budget for upstream bodies")
)

// bodyMemory is the budget of upstream body bytes held at once by all
// searches together (Options.BodyMemory): a search reserves the bytes of
// every body read before it reads them and gives them all back when it
// has merged its Result.
type bodyMemory struct {
	limit      int64 // <= 0: no limit
	held, peak atomic.Int64
	busy, over atomic.Int64 // reservations refused, by reason
}

// BodyMemoryStats is the state of the body memory budget
// (Options.BodyMemory), in bytes, and the reservations it refused.
type BodyMemoryStats struct {
	// Limit is Options.BodyMemory (0: no limit); Held the bytes reserved
	// now; Peak the most ever reserved at once (never over Limit).
	Limit, Held, Peak int64
	// Busy counts body reads refused because other searches held the
	// budget (ReasonMemoryBusy, a 503 with Retry-After); OverBudget those
	// refused because one search alone needed more (ReasonOverMemoryBudget).
	Busy, OverBudget int64
}

// BodyMemory returns the state of the body memory budget.
func (ag *Aggregator) BodyMemory() BodyMemoryStats {
	m := ag.bodyMem
	return BodyMemoryStats{Limit: max(m.limit, 0), Held: m.held.Load(), Peak: m.peak.Load(), Busy: m.busy.Load(), OverBudget: m.over.Load()}
}

// bodyHold is one search's share of a bodyMemory; once released it
// reserves nothing more (a call that outlived its search).
type bodyHold struct {
	m      *bodyMemory
	mu     sync.Mutex
	held   int64
	closed bool
}

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

// reserve takes n bytes from the budget for h's search, or refuses with
// errOverBudget when the search with them would hold more than the whole
// budget, errMemoryBusy when other searches hold the rest, and
// context.Canceled once h was released. A nil h (a read outside a
// search) or an unlimited budget always gives.
func (h *bodyHold) reserve(n int64) error {
	if h == nil || h.m.limit <= 0 || n <= 0 {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return context.Canceled
	}
	m := h.m
	for {
		cur := m.held.Load()
		if cur+n > m.limit {
			if h.held+n > m.limit {
				m.over.Add(1)
				return errOverBudget
			}
			m.busy.Add(1)
			return errMemoryBusy
		}
		if m.held.CompareAndSwap(cur, cur+n) {
			h.held += n
			for p := m.peak.Load(); cur+n > p && !m.peak.CompareAndSwap(p, cur+n); p = m.peak.Load() {
			}
			return nil
		}
	}
}

// give returns n of h's bytes to the budget.
func (h *bodyHold) give(n int64) {
	if h == nil || h.m.limit <= 0 || n <= 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	n = min(n, h.held)
	h.held -= n
	h.m.held.Add(-n)
}

// release returns every byte h holds; h reserves nothing after it.
func (h *bodyHold) release() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.m.held.Add(-h.held)
	h.held = 0
}
