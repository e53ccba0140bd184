package aggregator

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/cache"
)

// DefaultCacheTimeout bounds the cache calls of one request when
// Options.CacheTimeout is 0.
const DefaultCacheTimeout = 2 * time.Second

// BackgroundCacheTimeout bounds each cache call of the refresh workers and
// the stale scan (Claim, Complete, the Put of a thorough result, Stale),
// or Options.CacheTimeout when that is longer: a Put of a large TimeMap
// into a busy database takes seconds, and no user waits on it.
const BackgroundCacheTimeout = 30 * time.Second

// MaxCacheCalls caps the cache calls in flight from requests (and
// CheckCache). Each runs in a goroutine of its own that the request stops
// waiting for at its deadline; a store that hangs therefore holds at most
// this many goroutines, however many requests come, and a call past the
// cap is not made (reason "busy": the request is answered by searching).
const MaxCacheCalls = 1024

// Reasons given for a failed cache call in Cache-Degraded and
// CacheFailures.
const (
	CacheReasonTimeout = "timeout" // no answer within the deadline
	CacheReasonBusy    = "busy"    // MaxCacheCalls calls already waiting on the store
	CacheReasonClosed  = "closed"  // the store was closed
	CacheReasonInvalid = "invalid" // the store refused the arguments
	CacheReasonError   = "error"   // any other failure of the store (a panic in it included)
)

var errCacheBusy = errors.New("aggregator: too many cache calls waiting on the store")

// CacheFailure counts the calls of one cache operation ("get", "put",
// "record-request", "enqueue", "claim", "complete", "stale") that failed
// for one reason (CacheReason*).
type CacheFailure struct {
	Op, Reason string
	Count      int64
}

// cacheHealth counts cache failures for CacheFailures and CacheDegraded.
type cacheHealth struct {
	mu       sync.Mutex
	failures map[[2]string]int64
	degraded atomic.Int64
}

func (h *cacheHealth) failed(op, reason string) {
	h.mu.Lock()
	if h.failures == nil {
		h.failures = map[[2]string]int64{}
	}
	h.failures[[2]string{op, reason}]++
	h.mu.Unlock()
}

// CacheFailures returns the failed cache calls since New, by operation and
// reason, sorted by Op then Reason.
func (ag *Aggregator) CacheFailures() []CacheFailure {
	ag.cacheHealth.mu.Lock()
	out := make([]CacheFailure, 0, len(ag.cacheHealth.failures))
	for k, n := range ag.cacheHealth.failures {
		out = append(out, CacheFailure{Op: k[0], Reason: k[1], Count: n})
	}
	ag.cacheHealth.mu.Unlock()
	slices.SortFunc(out, func(a, b CacheFailure) int {
		if c := strings.Compare(a.Op, b.Op); c != 0 {
			return c
		}
		return strings.Compare(a.Reason, b.Reason)
	})
	return out
}

// CacheDegraded is the number of requests since New whose answer carried
// Cache-Degraded: a cache call failed or timed out, and the request was
// answered by searching (or its result was not stored).
func (ag *Aggregator) CacheDegraded() int64 { return ag.cacheHealth.degraded.Load() }

// cacheReason names the failure of a cache call; "" for no failure and
// for the answers that are not failures (not found, no job).
func cacheReason(err error) string {
	switch {
	case err == nil, errors.Is(err, cache.ErrNotFound), errors.Is(err, cache.ErrNoJob):
		return ""
	case errors.Is(err, context.DeadlineExceeded):
		return CacheReasonTimeout
	case errors.Is(err, errCacheBusy):
		return CacheReasonBusy
	case errors.Is(err, cache.ErrClosed):
		return CacheReasonClosed
	case errors.Is(err, cache.ErrInvalid):
		return CacheReasonInvalid
	}
	return CacheReasonError
}

// cacheCalls is the cache use of one request: the reads share one
// deadline and the writes another (Options.CacheTimeout each), so that a
// store that hangs delays a request by one deadline at most before it is
// answered by searching; failures are noted for the Cache-Degraded
// header. Once a call timed out, the request makes no more cache calls.
type cacheCalls struct {
	ag       *Aggregator
	parent   context.Context
	ctx      context.Context
	cancel   context.CancelFunc
	notes    []string
	timedOut bool
}

func (ag *Aggregator) newCacheCalls(ctx context.Context) *cacheCalls {
	cc := &cacheCalls{ag: ag, parent: ctx}
	cc.phase()
	return cc
}

// phase starts a new deadline (the writes after the search); a
// cache.Nonblocking store needs none: its calls get the request's context.
func (cc *cacheCalls) phase() {
	if cc.ag.inlineCache {
		cc.ctx = cc.parent
		return
	}
	if cc.cancel != nil {
		cc.cancel()
	}
	cc.ctx, cc.cancel = context.WithTimeout(cc.parent, cc.ag.opts.CacheTimeout)
}

func (cc *cacheCalls) done() {
	if cc.cancel != nil {
		cc.cancel()
	}
}

// usable reports whether the cache may still be called.
func (cc *cacheCalls) usable() bool { return !cc.timedOut }

// note records the outcome of one call; it reports whether the call
// failed. A failure because the request itself ended (its client went
// away) is not the cache's and is not counted.
func (cc *cacheCalls) note(op string, err error) bool {
	reason := cacheReason(err)
	if reason == "" {
		return false
	}
	if cc.parent.Err() != nil {
		return true
	}
	if reason == CacheReasonTimeout {
		cc.timedOut = true
	}
	cc.notes = append(cc.notes, op+"="+reason)
	cc.ag.cacheHealth.failed(op, reason)
	cc.ag.log.Warn("cache call failed; answering without it", "op", op, "reason", reason, "err", err)
	return true
}

// callCache makes one cache call of a request: for a cache.Nonblocking
// store in the request's goroutine; for any other in a goroutine of its own
// (at most MaxCacheCalls at once), waited for until the phase's deadline,
// so that a store that ignores the deadline (bbolt waiting for its writer
// lock, a driver that does not notice) cannot hold the request either. The
// error is the store's, the deadline's, or errCacheBusy; a failure is
// noted (cacheCalls.note). After a timeout in the request it makes no
// call and returns errCacheBusy without noting it.
func callCache[T any](cc *cacheCalls, op string, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	if !cc.usable() {
		return zero, errCacheBusy
	}
	var (
		v   T
		err error
	)
	if cc.ag.inlineCache {
		v, err = inlineCall(cc.ctx, f)
	} else {
		v, err = guardedCall(cc.ag, cc.ctx, f)
	}
	cc.note(op, err)
	return v, err
}

// inlineCall runs f(ctx) in the caller's goroutine, for a
// cache.Nonblocking store; a panic in the store is an error, as in
// guardedCall.
func inlineCall[T any](ctx context.Context, f func(ctx context.Context) (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			var zero T
			v, err = zero, fmt.Errorf("aggregator: the cache panicked: %v", r)
		}
	}()
	return f(ctx)
}

// guardedCall runs f(ctx) in a goroutine (a slot of ag.cacheSlots) and
// waits for it until ctx ends.
func guardedCall[T any](ag *Aggregator, ctx context.Context, f func(ctx context.Context) (T, error)) (T, error) {
	return slotCall(ag.cacheSlots, ctx, f)
}

// slotCall runs f(ctx) in a goroutine holding a slot of slots (none free:
// errCacheBusy, and f is not called) and waits for it until ctx ends; the
// slot is given back when f returns, however late.
func slotCall[T any](slots chan struct{}, ctx context.Context, f func(ctx context.Context) (T, error)) (T, error) {
	var zero T
	select {
	case slots <- struct{}{}:
	default:
		return zero, errCacheBusy
	}
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		defer func() { <-slots }()
		defer func() {
			if r := recover(); r != nil {
				ch <- result{err: fmt.Errorf("aggregator: the cache panicked: %v", r)}
			}
		}()
		v, err := f(ctx)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// CheckCache reads a probe key from the cache as a request's read would
// (its deadline CacheTimeout, never waiting longer, whatever the store
// does): nil when the store answers (that the key is not found is an
// answer), else the failure, wrapping context.DeadlineExceeded when the
// store did not answer in time. Without a cache it returns ErrNoCache. For
// health checks.
func (ag *Aggregator) CheckCache(ctx context.Context) error {
	c := ag.opts.Cache
	if c == nil {
		return ErrNoCache
	}
	ctx, cancel := context.WithTimeout(ctx, ag.opts.CacheTimeout)
	defer cancel()
	_, err := guardedCall(ag, ctx, func(ctx context.Context) (cache.Entry, error) {
		return c.Get(ctx, cache.URIRKeyOf("http://cache-check.invalid/"))
	})
	if cacheReason(err) == "" {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("cache: no answer within %v: %w", ag.opts.CacheTimeout, err)
	}
	return err
}

// header is the Cache-Degraded value: "op=reason, ..." in call order.
func (cc *cacheCalls) header() string { return strings.Join(cc.notes, ", ") }

// MaxBackgroundCacheCalls caps the cache calls in flight from refresh
// workers and the stale scan, apart from MaxCacheCalls: a store that
// hangs holds at most this many of their goroutines, and a worker whose
// call finds no free slot is told "busy" at once (it then waits its
// Idle period), so background work cannot take the requests' slots.
const MaxBackgroundCacheCalls = 64

// bgCache runs one background cache call with BackgroundCacheTimeout (or
// CacheTimeout when longer) and counts its failure. Like a request's
// calls it runs in a goroutine of its own (a slot of ag.bgSlots) that the
// worker stops waiting for at the deadline, so a store that ignores its
// deadline (bbolt waiting for its writer lock, a frozen database whose
// driver does not notice) cannot hang a worker: the call fails with
// reason "timeout" and the worker goes on.
func bgCache[T any](ag *Aggregator, ctx context.Context, op string, f func(ctx context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, max(BackgroundCacheTimeout, ag.opts.CacheTimeout))
	defer cancel()
	v, err := slotCall(ag.bgSlots, ctx, f)
	if r := cacheReason(err); r != "" && ctx.Err() != context.Canceled {
		ag.cacheHealth.failed(op, r)
	}
	return v, err
}
