package aggregator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// Status is what one archive contributed to a search.
type Status int

// The per-archive statuses of a search.
const (
	StatusFound         Status = iota + 1 // answered with at least one memento
	StatusNone                            // answered "not found" (404 or 410)
	StatusSkippedByMap                    // not asked: its MementoMap says it holds nothing
	StatusDormant                         // not asked: sleeping after consecutive failures
	StatusFailed                          // asked, and the request failed (Outcome.Reason says why)
	StatusSkippedByRule                   // not asked: the service's rule does not list it (Result.NotAsked only)
	StatusSkippedByTopK                   // not asked: listed, but Options.TopK left it out (Result.NotAsked only)
)

var statusNames = map[Status]string{
	StatusFound: "found", StatusNone: "none", StatusSkippedByMap: "skipped-by-map",
	StatusDormant: "dormant", StatusFailed: "failed", StatusSkippedByRule: "skipped-by-rule",
	StatusSkippedByTopK: "skipped-by-topk",
}

// String is the status as outcomes print it: found, none, skipped-by-map,
// dormant, failed, skipped-by-rule, skipped-by-topk.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return fmt.Sprintf("status(%d)", int(s))
}

// Outcome is one archive's part in a search.
type Outcome struct {
	Archive  string
	Status   Status
	Mementos int           // mementos it contributed (before de-duplication); a ClassPerURI failure may contribute those read before the cap, a bad-body failure those of the well-formed links before the error
	Requests int           // upstream requests sent (TimeMap pages count one each)
	Dropped  int           // mementos of its answer left out: a URI-M that is no http(s) URL, no datetime or one that cannot be read, or a datetime outside [EarliestDatetime, cache.MaxTime]
	Reason   string        // for StatusFailed: a short token such as "timeout", "status-503", "reset"
	Err      error         // for StatusFailed: the full error
	Elapsed  time.Duration // wall time spent on the archive
	// Class is how the answer was judged (see Class); zero for an archive
	// that was not asked (skipped by its map, or dormant). A failure before
	// any request was sent (the archive's concurrency or rate limit left
	// no time in the budget) is ClassDown but does not count toward
	// dormancy: it says nothing about the archive.
	Class Class
}

// Kind is the kind of search.
type Kind int

// The search kinds (internal/spec/TIMETRAVEL.md §1).
const (
	// Dynamic searches the rule's dynamic list within DynamicBudget: the
	// TimeGate and Time Travel services ask TimeGates and collect the
	// mementos their answers name (closest, first, last, prev, next); the
	// TimeMap service fetches TimeMaps.
	Dynamic Kind = iota + 1
	// Thorough fetches whole TimeMaps, following rel="timemap" pages, from
	// the rule's cache or batch list, within ThoroughBudget.
	Thorough
)

// String is "dynamic" or "thorough".
func (k Kind) String() string {
	switch k {
	case Dynamic:
		return "dynamic"
	case Thorough:
		return "thorough"
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Result is the merged answer of one search.
type Result struct {
	URIR string
	Kind Kind
	// Mementos are sorted by datetime, then by the archive's rank in the
	// registry, then by URI-M; identical (URI-M, datetime) pairs are listed
	// once, distinct URI-Ms of the same second are all kept (RFC 7089 §5
	// allows duplicates; AGG-04 asks for a stable order). Each has its
	// URI-M, its Memento-Datetime (UTC, second precision) and the id of
	// the archive that listed it (memento.Memento.Archive); Rel and Extra
	// are nil.
	Mementos []memento.Memento
	// Outcomes has one entry per archive the route considered, in route
	// order.
	Outcomes []Outcome
	// At is when the search finished.
	At time.Time
	// SkippedByRule is the number of registry archives the service's
	// rule left out (not in Outcomes).
	SkippedByRule int
	// SkippedByTopK is the number of archives the rule listed and that
	// would have been asked, but Options.TopK left out (not in Outcomes).
	SkippedByTopK int
	// NotAsked has one entry per registry archive not in Outcomes, in
	// registry order: StatusSkippedByTopK or StatusSkippedByRule.
	NotAsked []Decision

	// reusable: Mementos is a list of the search's own making (not an
	// Upstream's data), given back for the next searches' lists
	// (giveBack) once the last Handler request that shares the Result
	// has answered, unless kept is set.
	reusable bool
	// kept: a caller other than a Handler request (Search, Lookup,
	// Refresh) has the Result; its Mementos are never given back.
	kept atomic.Bool
}

// giveBack gives r's merged list back for reuse when nothing but the
// Handler requests that shared r (all answered now) had it.
func (r *Result) giveBack() {
	if r.reusable && !r.kept.Load() && cap(r.Mementos) > 0 {
		releaseMementos(r.Mementos)
	}
}

// Failures returns the outcomes with StatusFailed.
func (r *Result) Failures() []Outcome {
	var out []Outcome
	for _, o := range r.Outcomes {
		if o.Status == StatusFailed {
			out = append(out, o)
		}
	}
	return out
}

// Complete reports whether every archive the route chose answered or was
// skipped by its MementoMap: no archive failed and none was left out as
// dormant. Only then may the result be cached as the whole truth (a "none"
// with failures, or with dormant archives that were not asked, is not a
// "none").
func (r *Result) Complete() bool {
	for _, o := range r.Outcomes {
		if o.Status == StatusFailed || o.Status == StatusDormant {
			return false
		}
	}
	return true
}

// MemoryBusy reports whether an archive's answer was refused (or cut)
// because other requests held the memory budget for upstream bodies
// (ReasonMemoryBusy): the HTTP API answers 503 with Retry-After and
// stores nothing.
func (r *Result) MemoryBusy() bool {
	for _, o := range r.Outcomes {
		if o.Reason == ReasonMemoryBusy {
			return true
		}
	}
	return false
}

// AllFailed reports whether the search found nothing, every archive that
// was asked failed or every archive of the route was dormant (at least one
// failed or dormant), none answered, and none was skipped by its
// MementoMap: a map's "absent" is an answer, so that a search where maps
// ruled out some archives and the others failed is a 404 naming the
// failures, not a 502. The HTTP API answers 502 then.
func (r *Result) AllFailed() bool {
	down := 0
	for _, o := range r.Outcomes {
		switch o.Status {
		case StatusFound, StatusNone, StatusSkippedByMap:
			return false
		case StatusFailed, StatusDormant:
			down++
		}
	}
	return down > 0 && len(r.Mementos) == 0
}

// Counts is what the archives of one search did, one count per kind of
// outcome: answered with mementos, answered none, failed (TimedOut of
// them by a timeout, ReasonTimeout, ReasonSlowAnswer or ReasonBudgetCut), not asked as
// dormant, not asked as their MementoMap says they hold nothing, and left
// out by the rules (in the registry, not in the service's rule list) or
// by Options.TopK.
type Counts struct {
	Found, None, Failed, TimedOut, Dormant, SkippedByMap, SkippedByRule, SkippedByTopK int
}

// Counts tallies the outcomes (SkippedByRule and SkippedByTopK from the
// Result's fields of those names).
func (r *Result) Counts() Counts {
	c := Counts{SkippedByRule: r.SkippedByRule, SkippedByTopK: r.SkippedByTopK}
	for _, o := range r.Outcomes {
		switch o.Status {
		case StatusFound:
			c.Found++
		case StatusNone:
			c.None++
		case StatusFailed:
			c.Failed++
			if o.Reason == ReasonTimeout || o.Reason == ReasonSlowAnswer || o.Reason == ReasonBudgetCut {
				c.TimedOut++
			}
		case StatusDormant:
			c.Dormant++
		case StatusSkippedByMap:
			c.SkippedByMap++
		}
	}
	return c
}

// String lists the non-zero counts of archives, the first with the noun,
// such as "1 archive with mementos, 2 answered none, 1 failed (1 timed
// out), 3 skipped by MementoMap, 1 dormant, 2 skipped by rule, 1 left
// out by top-k" or "2 archives answered none"; "no archive" when all are
// zero. Every count is of archives, never of mementos.
func (c Counts) String() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			noun := ""
			if len(parts) == 0 {
				noun = " archives"
				if n == 1 {
					noun = " archive"
				}
			}
			parts = append(parts, strconv.Itoa(n)+noun+" "+what)
		}
	}
	add(c.Found, "with mementos")
	add(c.None, "answered none")
	if c.Failed > 0 {
		f := "failed"
		if c.TimedOut > 0 {
			f += " (" + strconv.Itoa(c.TimedOut) + " timed out)"
		}
		add(c.Failed, f)
	}
	add(c.SkippedByMap, "skipped by MementoMap")
	add(c.Dormant, "dormant")
	add(c.SkippedByRule, "skipped by rule")
	add(c.SkippedByTopK, "left out by top-k")
	if len(parts) == 0 {
		return "no archive"
	}
	return strings.Join(parts, ", ")
}

// TimedOut reports whether every failure was a timeout (ReasonTimeout,
// ReasonSlowAnswer or ReasonBudgetCut) and no archive was dormant (the HTTP API answers 504 rather than 502 when all archives
// timed out).
func (r *Result) TimedOut() bool {
	n := 0
	for _, o := range r.Outcomes {
		switch {
		case o.Status == StatusDormant:
			return false
		case o.Status == StatusFailed && o.Reason != ReasonTimeout && o.Reason != ReasonSlowAnswer && o.Reason != ReasonBudgetCut:
			return false
		case o.Status == StatusFailed:
			n++
		}
	}
	return n > 0
}

// ReasonDormant is the reason the Archive-Failures header gives an archive
// that was not asked because it is sleeping after consecutive failures.
const ReasonDormant = "dormant"

// FailureHeader renders the Archive-Failures header value,
// "id=reason, id=reason", in route order: the failed archives, and the
// dormant ones as "id=dormant" (they were not asked, so the answer may
// lack their mementos); "" when none.
func (r *Result) FailureHeader() string {
	var parts []string
	for _, o := range r.Outcomes {
		switch o.Status {
		case StatusFailed:
			parts = append(parts, o.Archive+"="+o.Reason)
		case StatusDormant:
			parts = append(parts, o.Archive+"="+ReasonDormant)
		}
	}
	return strings.Join(parts, ", ")
}

// OutcomeLog renders every outcome of the search for the access log
// (aggregator/server's "archives" attribute; package aggregator/accesslog
// reads it for the paper's Table 3), in route order, ", "-separated:
// "id=found:M" (M mementos), "id=none", "id=skipped-by-map", "id=dormant",
// "id=failed:REASON"; "" when the route was empty.
func (r *Result) OutcomeLog() string {
	var b strings.Builder
	for i, o := range r.Outcomes {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(o.Archive)
		b.WriteByte('=')
		b.WriteString(o.Status.String())
		switch o.Status {
		case StatusFound:
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(o.Mementos))
		case StatusFailed:
			b.WriteByte(':')
			b.WriteString(o.Reason)
		}
	}
	return b.String()
}

// maxRuns is the number of sorted runs up to which merge merges runs
// instead of sorting: a search concatenates one list per archive, each
// usually sorted already (ascending or descending), so k runs cost
// O(n log k) comparisons instead of O(n log n).
const maxRuns = 64

// merge sorts and de-duplicates mementos; rank gives each archive id its
// position in the registry. It may reorder ms and may return a different
// slice. Memory: one extra slice of len(ms) when ms has 2 to maxRuns runs.
func merge(ms []memento.Memento, rank func(id string) int) []memento.Memento {
	if len(ms) == 0 {
		return ms
	}
	compare := mementoOrder(rank, ms)
	return dedup(sortRuns(ms, compare))
}

// maxMergeLists is the number of lists up to which mergeLists merges
// them in one pass (a linear scan of the heads per memento).
const maxMergeLists = 4

// mergeLists is merge of the concatenation of lists (one per archive),
// with the same result: when there are at most maxMergeLists non-empty
// lists, each sorted, it merges them in one pass into one slice (a
// released one, reusedMementos, when one fits) instead of concatenating them first and merging runs pairwise (for 3
// lists of 1,000 mementos, two slices of 3,000 fewer written); a single
// sorted list without two mementos of one second is returned as it is
// (no copy). The lists are not modified.
func mergeLists(lists [][]memento.Memento, rank func(id string) int) []memento.Memento {
	total, nonEmpty := 0, 0
	for _, l := range lists {
		total += len(l)
		if len(l) > 0 {
			nonEmpty++
		}
	}
	if total == 0 {
		return nil
	}
	if nonEmpty <= maxMergeLists {
		o := newOrder(rank, lists...)
		var heads [maxMergeLists][]memento.Memento
		k := 0
		for _, l := range lists {
			if len(l) == 0 {
				continue
			}
			if !o.sorted(l) {
				k = -1
				break
			}
			heads[k] = l
			k++
		}
		if k == 1 && !anySameSecond(heads[0]) {
			return heads[0] // sorted, nothing to drop: the list itself
		}
		if k > 0 {
			out := reusedMementos(total)[:total]
			n := 0
			hs := heads[:k]
			for len(hs) > 1 {
				best := 0
				for i := 1; i < len(hs); i++ {
					if o.cmp(&hs[i][0], &hs[best][0]) < 0 {
						best = i
					}
				}
				out[n] = hs[best][0]
				n++
				if hs[best] = hs[best][1:]; len(hs[best]) == 0 {
					hs = slices.Delete(hs, best, best+1)
				}
			}
			n += copy(out[n:], hs[0])
			return dedup(out[:n])
		}
	}
	all := make([]memento.Memento, 0, total)
	for _, l := range lists {
		all = append(all, l...)
	}
	return merge(all, rank)
}

// anySameSecond reports whether two neighbours of sorted ms share their
// datetime (the only place dedup may drop one).
func anySameSecond(ms []memento.Memento) bool {
	for i := 1; i < len(ms); i++ {
		if ms[i].Datetime.Equal(ms[i-1].Datetime) {
			return true
		}
	}
	return false
}

// order is the order of merged mementos: by datetime, then the archive's
// rank, then URI-M. The order is total: equal elements are identical, so
// no sort or merge by it needs to be stable.
type order struct {
	ranks map[string]int // rank of each archive id of the mementos ordered
}

// newOrder is the order of the mementos of lists, rank asked once per
// distinct archive.
func newOrder(rank func(id string) int, lists ...[]memento.Memento) *order {
	o := &order{ranks: map[string]int{}}
	for _, l := range lists {
		last := ""
		for i := range l {
			if id := l[i].Archive; i == 0 || id != last {
				if _, ok := o.ranks[id]; !ok {
					o.ranks[id] = rank(id)
				}
				last = id
			}
		}
	}
	return o
}

// cmp compares a and b in the order: negative when a comes first.
func (o *order) cmp(a, b *memento.Memento) int {
	if c := a.Datetime.Compare(b.Datetime); c != 0 {
		return c
	}
	if a.Archive != b.Archive {
		if c := cmp.Compare(o.ranks[a.Archive], o.ranks[b.Archive]); c != 0 {
			return c
		}
	}
	return strings.Compare(a.URIM, b.URIM)
}

// sorted reports whether ms is in the order.
func (o *order) sorted(ms []memento.Memento) bool {
	for i := 1; i < len(ms); i++ {
		if o.cmp(&ms[i], &ms[i-1]) < 0 {
			return false
		}
	}
	return true
}

// mementoOrder returns the order of merged mementos (order) as a function
// of two values, rank asked once per distinct archive of lists.
func mementoOrder(rank func(id string) int, lists ...[]memento.Memento) func(a, b memento.Memento) int {
	o := newOrder(rank, lists...)
	return func(a, b memento.Memento) int { return o.cmp(&a, &b) }
}

// dedup drops, from mementos sorted by mementoOrder, the later copies of
// an identical (URI-M, datetime) pair, in place.
func dedup(ms []memento.Memento) []memento.Memento {
	// Drop later copies of an identical (URI-M, datetime) pair; the copy of
	// the best-ranked archive stays. Copies share a second, so the set is
	// reset at each new second (memory: one second's mementos). Until the
	// first drop every memento stays where it is (n == i): nothing moves.
	n := 0
	var seen map[string]bool
	for i := range ms {
		m := &ms[i]
		if i == 0 || !m.Datetime.Equal(ms[i-1].Datetime) {
			clear(seen)
			// The common case: a second with a single memento needs no set.
			if i+1 == len(ms) || !ms[i+1].Datetime.Equal(m.Datetime) {
				if n != i {
					ms[n] = *m
				}
				n++
				continue
			}
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		if seen[m.URIM] {
			continue
		}
		seen[m.URIM] = true
		if n != i {
			ms[n] = *m
		}
		n++
	}
	clear(ms[n:]) // the dropped copies' strings are not kept alive
	return ms[:n]
}

// sortRuns sorts ms by compare. It splits ms into maximal ascending or
// strictly descending runs (descending ones are reversed in place); up to
// maxRuns runs are merged pairwise, more are sorted with slices.SortFunc.
func sortRuns(ms []memento.Memento, compare func(a, b memento.Memento) int) []memento.Memento {
	var bounds []int // run i is ms[bounds[i]:bounds[i+1]]
	for start := 0; start < len(ms); {
		end := start + 1
		if end < len(ms) && compare(ms[start], ms[end]) > 0 {
			for end < len(ms) && compare(ms[end-1], ms[end]) > 0 {
				end++
			}
			slices.Reverse(ms[start:end])
		} else {
			for end < len(ms) && compare(ms[end-1], ms[end]) <= 0 {
				end++
			}
		}
		bounds = append(bounds, start)
		if len(bounds) > maxRuns {
			slices.SortFunc(ms, compare)
			return ms
		}
		start = end
	}
	bounds = append(bounds, len(ms))
	if len(bounds) == 2 {
		return ms // one run
	}
	src, dst := ms, make([]memento.Memento, len(ms))
	for len(bounds) > 2 {
		next := bounds[:0:0]
		for i := 0; i+1 < len(bounds); i += 2 {
			lo := bounds[i]
			next = append(next, lo)
			if i+2 >= len(bounds) { // an odd run out: copy it over
				copy(dst[lo:], src[lo:bounds[i+1]])
				continue
			}
			mid, hi := bounds[i+1], bounds[i+2]
			mergeInto(dst[lo:hi], src[lo:mid], src[mid:hi], compare)
		}
		next = append(next, len(ms))
		bounds = next
		src, dst = dst, src
	}
	return src
}

// mergeInto merges the sorted a and b into dst (len(a)+len(b) long).
func mergeInto(dst, a, b []memento.Memento, compare func(a, b memento.Memento) int) {
	k := 0
	for len(a) > 0 && len(b) > 0 {
		if compare(b[0], a[0]) < 0 {
			dst[k] = b[0]
			b = b[1:]
		} else {
			dst[k] = a[0]
			a = a[1:]
		}
		k++
	}
	k += copy(dst[k:], a)
	copy(dst[k:], b)
}

// Reasons given in Outcome.Reason and the Archive-Failures header.
const (
	ReasonTimeout      = "timeout"
	ReasonReset        = "reset"
	ReasonNetwork      = "network"
	ReasonRedirectLoop = "redirect-loop"
	ReasonTooLarge     = "too-large"
	ReasonWrongType    = "wrong-content-type"
	// ReasonBadBody: a TimeMap page whose link-format cannot be read on
	// (an unterminated entry, garbage between entries); the mementos of
	// the well-formed links before the error are kept, and the failure
	// keeps the result from counting as complete (not stored as found).
	ReasonBadBody         = "bad-body"
	ReasonRateLimited     = "rate-limited"
	ReasonCanceled        = "canceled"
	ReasonUnexpectedReply = "unexpected-reply"
	// ReasonTooManyPages: a paged TimeMap has more pages than MaxPages.
	ReasonTooManyPages = "too-many-pages"
	// ReasonSlowAnswer: the archive began answering (response headers,
	// earlier pages, the TimeGate's redirect) but the whole answer (the
	// body, later pages, the HEAD of the Location) did not come within
	// the archive's timeout: this URI-R's answer is too big or too slow,
	// the archive is up (ClassPerURI).
	ReasonSlowAnswer = "slow-answer"
	// ReasonBudgetCut: the search's budget (Options.DynamicBudget,
	// ThoroughBudget) ended while the archive was answering (it had
	// begun: a first response byte): the archive is up (ClassPerURI,
	// never counted toward dormancy), and the mementos read before the
	// cut are kept when its call returned within the search's grace.
	ReasonBudgetCut = "budget-cut"
	// ReasonMemoryBusy: the archive's body was not read (or read only in
	// part) because other requests held the aggregator's memory budget
	// for upstream bodies (Options.BodyMemory); says nothing about the
	// archive (ClassPerURI, never counted toward dormancy); the request is
	// answered 503 with Retry-After (BusyRetryAfter).
	ReasonMemoryBusy = "memory-busy"
	// ReasonOverMemoryBudget: the archives' answers to this one search
	// together needed more than the whole memory budget for upstream
	// bodies (Options.BodyMemory): the mementos read before are kept and
	// the answer is partial, marked as such in Archive-Failures
	// (ClassPerURI, never counted toward dormancy; not stored as complete).
	ReasonOverMemoryBudget = "over-memory-budget"
	// ReasonEmptyAnswer: a 200 that names no memento (an empty body, a
	// TimeMap of only original, self and timemap links).
	ReasonEmptyAnswer = "empty-answer"
	// ReasonBadURIM: mementos whose URI-Ms are all unusable (not http or
	// https, such as javascript: or data:).
	ReasonBadURIM = "bad-urim"
	// ReasonHostNotAllowed: the answer led to a host the aggregator may
	// not contact (AllowList).
	ReasonHostNotAllowed = "host-not-allowed"
)

// ErrNotFound is returned (wrapped) by an Upstream when the archive
// answered that it holds no memento of the URI-R: a 404 or a 410. Any
// other error is a failure, and so is an answer without error and without
// mementos (ClassMalformed, ReasonEmptyAnswer): a 200 with an empty
// TimeMap is never read as "holds nothing".
var ErrNotFound = errors.New("archive holds no memento of the URI-R")

// UpstreamError is a failed request to one archive: Op is "timemap" or
// "timegate", URL the request URL, Reason one of the Reason* tokens (or
// "status-NNN"), Err the cause.
type UpstreamError struct {
	Archive string
	Op      string
	URL     string
	Reason  string
	Err     error
}

// Error names the archive, operation, URL, reason and cause.
func (e *UpstreamError) Error() string {
	return fmt.Sprintf("%s %s %s: %s: %v", e.Archive, e.Op, e.URL, e.Reason, e.Err)
}

// Unwrap returns the cause (a transport, context or parse error).
func (e *UpstreamError) Unwrap() error { return e.Err }
