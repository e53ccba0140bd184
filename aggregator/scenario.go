package aggregator

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/memento"
)

// Cache is the store the aggregator keeps results and refresh jobs in: the
// cache package's interface (in-memory, bbolt or MySQL).
type Cache = cache.Cache

// Family is the group of endpoints a request comes from; it picks the pair
// of services (dynamic, cache) of the rules file.
type Family int

// The endpoint families.
const (
	FamilyTimeGate   Family = iota + 1 // /timegate: timegate_dynamic, timegate_cache
	FamilyTimeMap                      // /timemap: timemap_dynamic, timemap_cache
	FamilyTimeTravel                   // /api/json, /memento: timetravel_dynamic, timetravel_cache
)

func (f Family) services() (dynamic, thorough Service) {
	switch f {
	case FamilyTimeGate:
		return TimeGateDynamic, TimeGateCache
	case FamilyTimeMap:
		return TimeMapDynamic, TimeMapCache
	default:
		return TimeTravelDynamic, TimeTravelCache
	}
}

// CacheControl is what the aggregator reads of a request's Cache-Control
// header (RFC 9111 §5.2.1).
type CacheControl struct {
	NoCache      bool // search unless the entry is younger than NoCacheAfter
	OnlyIfCached bool // never search: answer from the cache or 504
}

// ParseCacheControl reads the no-cache and only-if-cached directives of
// Cache-Control header values (case-insensitive; other directives ignored).
func ParseCacheControl(values []string) CacheControl {
	var cc CacheControl
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-cache":
				cc.NoCache = true
			case "only-if-cached":
				cc.OnlyIfCached = true
			}
		}
	}
	return cc
}

// Source says where an Answer's mementos come from.
type Source int

// The answer sources.
const (
	FromSearch Source = iota + 1 // a search made for this request
	FromCache                    // the cache, without searching
)

// Answer is the aggregator's reply to one request, before it is written
// as HTTP: the mementos, the HTTP status to send (200, 400, 403, 404, 502,
// 504) and what the Time Travel scenario decided.
type Answer struct {
	URIR     string
	Mementos []memento.Memento
	// Status is 200 when there are mementos, else 404 (none found, or
	// some archive answered none or was skipped by its MementoMap while
	// others failed), 502 (Result.AllFailed: every asked archive failed,
	// or every one is dormant, none skipped by its map), 504 (only-if-cached miss, or every
	// asked archive timed out), 400 (a URI-R NormalizeURIR refuses) or 403
	// (a blacklisted host); the last two ask neither cache nor archive.
	Status int
	Source Source
	// Scenario names the case (internal/spec/TIMETRAVEL.md §1.1): "fresh", "stale",
	// "negative", "unknown", "no-cache", "only-if-cached", "uncached",
	// and "bad-uri-r" or "blocked" for the 400 and 403 answers.
	Scenario string
	// Updated is when the answer's data was searched (Last-Modified).
	Updated time.Time
	// Result is the search, when one was made (its Outcomes give the
	// per-archive details).
	Result *Result
	// Failures is the Archive-Failures header value ("" when none).
	Failures string
	// Queued reports that a thorough refresh job was enqueued.
	Queued bool
	// CacheDegraded is the Cache-Degraded header value, "op=reason, ..."
	// (such as "get=timeout"): the cache calls that failed or did not
	// answer within Options.CacheTimeout, so that the request was
	// answered without the cache, or its result was not stored; "" when
	// the cache answered.
	CacheDegraded string

	prep *prepared // the cached entry prepared for the Handler, when it was one
}

// Lookup answers a request for urir from the family's endpoints, following
// the Time Travel cache scenarios (internal/spec/TIMETRAVEL.md §1.1) over Options.Cache:
//
//   - fresh hit (updated within FreshFor): served from the cache;
//   - stale hit: answered by a dynamic search now, and a thorough refresh
//     is queued (priority cache.PriorityRefresh); if that search finds
//     nothing but fails somewhere, the stale mementos are served;
//   - cached "none": 404 from the cache when searched within NegativeFor,
//     else searched again;
//   - unknown: dynamic search, and a thorough job queued (PriorityLive).
//
// Cache-Control: no-cache forces a search only when the entry is older than
// NoCacheAfter (the Time Travel rule, protecting archives from no-cache
// storms); only-if-cached never searches (404 for a cached "none", 504 for
// unknown). Without a cache every request searches. A dynamic result is
// stored when it is as thorough as a refresh would be (same archives, whole
// TimeMaps) and no archive failed; a failure is never stored as "none", and a
// partial result is stored as cache.StatusFailed so that it is searched
// again on the next request. urir is normalized first (NormalizeURIR, the
// Answer's URIR); a URI-R it refuses is a 400 answer, a blacklisted host a
// 403, and neither touches the cache. at is the requested datetime (zero:
// now). The error is non-nil only when ctx ends.
func (ag *Aggregator) Lookup(ctx context.Context, f Family, urir string, at time.Time, cc CacheControl) (*Answer, error) {
	u, err := ag.checkURIR(urir)
	switch {
	case errors.Is(err, ErrBlocked):
		return &Answer{URIR: urir, Status: http.StatusForbidden, Scenario: "blocked"}, nil
	case err != nil:
		return &Answer{URIR: urir, Status: http.StatusBadRequest, Scenario: "bad-uri-r"}, nil
	}
	return ag.lookup(ctx, f, u, at, cc, false, nil)
}

// lookup is Lookup for a URI-R that checkURIR accepted. With share, an
// answer from the cache may carry the entry's prepared mementos (shared
// by requests: the Handler only reads them) and its prepared TimeMaps.
func (ag *Aggregator) lookup(ctx context.Context, f Family, urir string, at time.Time, cc CacheControl, share bool, holds *bodyHolds) (*Answer, error) {
	if ag.opts.Cache == nil {
		dyn, thorough := f.services()
		if cc.OnlyIfCached {
			return &Answer{URIR: urir, Status: http.StatusGatewayTimeout, Scenario: "only-if-cached"}, nil
		}
		return ag.searchAnswer(ctx, nil, dyn, thorough, urir, at, "uncached", nil, holds)
	}
	calls := ag.newCacheCalls(ctx)
	defer calls.done()
	ans, err := ag.lookupCached(ctx, calls, f, urir, at, cc, share, holds)
	if ans != nil {
		if ans.CacheDegraded = calls.header(); ans.CacheDegraded != "" {
			ag.cacheHealth.degraded.Add(1)
		}
	}
	return ans, err
}

// lookupCached runs the cache scenarios; every cache call goes through
// calls (its deadlines), and a failed read is a miss: the request is
// answered by searching.
func (ag *Aggregator) lookupCached(ctx context.Context, calls *cacheCalls, f Family, urir string, at time.Time, cc CacheControl, share bool, holds *bodyHolds) (*Answer, error) {
	dyn, thorough := f.services()
	now := time.Now()
	var entry *cache.Entry
	var prep *prepared // entry's, when it was prepared (entry is then unchanged by checkEntry)
	e, err := ag.recordRequestGet(calls, urir, now)
	if err == nil && e.Status != cache.StatusPending {
		if share {
			prep = ag.preparedFor(urir, &e)
		}
		if prep != nil {
			entry = &e // checked when it was prepared
		} else {
			n := len(e.Mementos)
			entry = ag.checkEntry(urir, &e)
			// an entry checkEntry leaves as it is can be prepared
			share = share && entry == &e && len(e.Mementos) == n
		}
	}
	cached := func(scenario string) *Answer {
		switch {
		case prep != nil:
			return &Answer{URIR: urir, Mementos: prep.ms, Status: http.StatusOK, Source: FromCache, Scenario: scenario, Updated: entry.Updated, prep: prep}
		case share && entry.Status == cache.StatusFound:
			a := ag.cachedAnswer(urir, entry, scenario)
			if a.Status == http.StatusOK {
				a.prep = ag.prepare(urir, entry, a.Mementos)
			}
			return a
		}
		return ag.cachedAnswer(urir, entry, scenario)
	}
	age := time.Duration(0)
	if entry != nil {
		age = now.Sub(entry.Updated)
	}
	if cc.OnlyIfCached {
		switch {
		case entry != nil && len(entry.Mementos) > 0:
			return cached("only-if-cached"), nil
		case entry != nil && entry.Status == cache.StatusNone:
			return &Answer{URIR: urir, Status: http.StatusNotFound, Source: FromCache, Scenario: "only-if-cached", Updated: entry.Updated}, nil
		}
		return &Answer{URIR: urir, Status: http.StatusGatewayTimeout, Scenario: "only-if-cached"}, nil
	}
	if entry == nil {
		return ag.searchAnswer(ctx, calls, dyn, thorough, urir, at, "unknown", nil, holds)
	}
	forced := cc.NoCache && age > ag.opts.NoCacheAfter
	switch entry.Status {
	case cache.StatusNone:
		if age <= ag.opts.NegativeFor && !forced {
			return &Answer{URIR: urir, Status: http.StatusNotFound, Source: FromCache, Scenario: "negative", Updated: entry.Updated}, nil
		}
		return ag.searchAnswer(ctx, calls, dyn, thorough, urir, at, scenarioName(forced, "negative"), nil, holds)
	case cache.StatusFound:
		if age <= ag.opts.FreshFor && !forced {
			return cached("fresh"), nil
		}
		return ag.searchAnswer(ctx, calls, dyn, thorough, urir, at, scenarioName(forced, "stale"), heapEntry(entry), holds)
	default: // failed (partial) or blocked: search again
		return ag.searchAnswer(ctx, calls, dyn, thorough, urir, at, scenarioName(forced, "stale"), heapEntry(entry), holds)
	}
}

// heapEntry is a copy of e that a search may keep: lookupCached's entry
// stays on its stack (no allocation per cached answer), and only the
// stale paths, which search the archives anyway, allocate one.
func heapEntry(e *cache.Entry) *cache.Entry {
	c := *e
	return &c
}

// recordRequestGet counts the request for urir in the cache and reads
// its entry: in one call for a cache.Nonblocking store that is a
// cache.RequestGetter, else (and when that call fails, so that each
// failure is noted under its own operation) RecordRequest then Get.
func (ag *Aggregator) recordRequestGet(calls *cacheCalls, urir string, now time.Time) (cache.Entry, error) {
	c := ag.opts.Cache
	if rg, ok := c.(cache.RequestGetter); ok && ag.inlineCache && calls.usable() {
		if e, err := inlineCall(calls.ctx, func(ctx context.Context) (cache.Entry, error) { return rg.RecordRequestGet(ctx, urir, now) }); err == nil {
			return e, nil
		}
	}
	_, _ = callCache(calls, "record-request", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.RecordRequest(ctx, urir, now)
	})
	return callCache(calls, "get", func(ctx context.Context) (cache.Entry, error) { return c.Get(ctx, cache.URIRKeyOf(urir)) })
}

// checkEntry passes the mementos of a cache entry through the checks of
// archive answers (cleanURIM): a store shared with other processes is
// data entering the aggregator like any archive's answer. The entry's
// slice is never written (a store may share it, memorycache.Options
// ShareMementos): a change makes a new one. Dropped mementos are logged;
// an entry left without the mementos it claims is treated as unknown
// (searched again).
func (ag *Aggregator) checkEntry(urir string, e *cache.Entry) *cache.Entry {
	var out []cache.StoredMemento // nil until a memento needs a change
	for i, m := range e.Mementos {
		u, ok := cleanURIM(m.URIM)
		if out == nil && ok && u == m.URIM {
			continue
		}
		if out == nil {
			out = append(make([]cache.StoredMemento, 0, len(e.Mementos)), e.Mementos[:i]...)
		}
		if ok {
			m.URIM = u
			out = append(out, m)
		}
	}
	if out == nil {
		return e
	}
	if dropped := len(e.Mementos) - len(out); dropped > 0 {
		ag.log.Warn("cache: mementos with unusable URI-Ms dropped", "urir", urir, "dropped", dropped, "kept", len(out))
	}
	e.Mementos = out
	if len(out) == 0 && e.Status != cache.StatusNone && e.Status != cache.StatusBlocked {
		return nil
	}
	return e
}

func scenarioName(forced bool, s string) string {
	if forced {
		return "no-cache"
	}
	return s
}

func (ag *Aggregator) cachedAnswer(urir string, e *cache.Entry, scenario string) *Answer {
	ms := make([]memento.Memento, len(e.Mementos))
	for i, m := range e.Mementos {
		ms[i] = memento.Memento{URIM: m.URIM, Datetime: m.Datetime, Archive: m.Archive}
	}
	ms = merge(ms, ag.rank)
	st := http.StatusOK
	if len(ms) == 0 {
		st = http.StatusNotFound
	}
	return &Answer{URIR: urir, Mementos: ms, Status: st, Source: FromCache, Scenario: scenario, Updated: e.Updated}
}

// searchAnswer runs the dynamic search of a scenario, stores or queues
// (through calls, nil without a cache, and not when the cache already
// timed out in this request), and builds the answer. stale is the cached
// entry, if any.
func (ag *Aggregator) searchAnswer(ctx context.Context, calls *cacheCalls, dyn, thorough Service, urir string, at time.Time, scenario string, stale *cache.Entry, holds *bodyHolds) (*Answer, error) {
	res, err := ag.searchShared(ctx, dyn, urir, at, holds)
	if err != nil {
		return nil, err
	}
	a := &Answer{URIR: urir, Mementos: res.Mementos, Source: FromSearch, Scenario: scenario, Updated: res.At, Result: res, Failures: res.FailureHeader()}
	if res.MemoryBusy() {
		// Other requests hold the body memory budget: an answer of this
		// moment's load, not of the archives; nothing is stored.
		a.Status, a.Mementos = http.StatusServiceUnavailable, nil
		return a, nil
	}
	switch {
	case len(res.Mementos) > 0:
		a.Status = http.StatusOK
	case res.AllFailed() && res.TimedOut():
		a.Status = http.StatusGatewayTimeout
	case res.AllFailed():
		a.Status = http.StatusBadGateway
	default:
		a.Status = http.StatusNotFound
	}
	if len(res.Mementos) == 0 && !res.Complete() && stale != nil && len(stale.Mementos) > 0 {
		// The archives failed us: the stale truth beats a false "none".
		fb := ag.cachedAnswer(urir, stale, scenario)
		fb.Result, fb.Failures = res, a.Failures
		a = fb
	}
	c := ag.opts.Cache
	if c == nil || calls == nil || !calls.usable() {
		return a, nil
	}
	calls.phase()
	if ag.asThorough(dyn, thorough, urir) {
		_, _ = callCache(calls, "put", func(ctx context.Context) (struct{}, error) { return struct{}{}, ag.store(ctx, urir, res, stale, true) })
		if res.Complete() || !calls.usable() {
			return a, nil
		}
	}
	p := cache.PriorityLive
	if stale != nil {
		p = cache.PriorityRefresh
	}
	_, err = callCache(calls, "enqueue", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.Enqueue(ctx, urir, p, time.Now())
	})
	a.Queued = err == nil
	return a, nil
}

// asThorough reports whether the dynamic search of dyn is as good as a
// refresh: it fetches whole TimeMaps, and asks every archive the refresh
// (Batch) and the family's cache list would.
func (ag *Aggregator) asThorough(dyn, thorough Service, urir string) bool {
	if usesTimeGate(dyn) {
		return false
	}
	have := ag.rules.Archives(dyn, urir)
	for _, s := range []Service{thorough, Batch} {
		for _, id := range ag.rules.Archives(s, urir) {
			if !slices.Contains(have, id) {
				return false
			}
		}
	}
	return true
}

// store puts a search result in the cache: found → StatusFound (or
// StatusFailed when some archive failed, so that it is searched again),
// a complete none → StatusNone, an incomplete none → nothing stored.
//
// The mementos of prev (the entry the search replaces; read here when
// read is false) whose archive the search did not consider (no Outcome:
// an archive the registry or the service's rule does not list, such as
// the archives of a database migrated from the Time Travel aggregator)
// are kept in the new entry and served with it, as the Time Travel
// aggregator serves every links row of a URI-R: a search replaces only
// what the archives it asked answered. The request count is the store's
// (Put keeps it).
func (ag *Aggregator) store(ctx context.Context, urir string, res *Result, prev *cache.Entry, read bool) error {
	c := ag.opts.Cache
	if c == nil {
		return nil
	}
	if !read {
		if e, err := c.Get(ctx, cache.URIRKeyOf(urir)); err == nil {
			prev = &e
		} else if !errors.Is(err, cache.ErrNotFound) {
			return err
		}
	}
	var kept []cache.StoredMemento
	if prev != nil {
		for _, m := range prev.Mementos {
			if !slices.ContainsFunc(res.Outcomes, func(o Outcome) bool { return o.Archive == m.Archive }) {
				kept = append(kept, m)
			}
		}
	}
	r := cache.Result{Updated: res.At.UTC().Truncate(time.Second)}
	switch {
	case len(res.Mementos) > 0 && res.Complete():
		r.Status = cache.StatusFound
	case len(res.Mementos) > 0:
		r.Status = cache.StatusFailed
	case res.Complete():
		r.Status = cache.StatusNone
	default:
		return nil // never cache a failure as "no mementos"
	}
	if r.Status == cache.StatusNone && len(kept) > 0 {
		r.Status = cache.StatusFound // the kept mementos are found
	}
	r.Mementos = make([]cache.StoredMemento, len(res.Mementos), len(res.Mementos)+len(kept))
	for i, m := range res.Mementos {
		r.Mementos[i] = cache.StoredMemento{URIM: m.URIM, Datetime: m.Datetime, Archive: m.Archive, Rel: "memento"}
	}
	r.Mementos = append(r.Mementos, kept...)
	return c.Put(ctx, urir, r)
}
