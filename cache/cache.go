package cache

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mementokit/mementokit/surt"
)

// Errors returned by every [Cache] implementation. Test them with [errors.Is]:
// implementations wrap them with the operation and the key.
var (
	// ErrNotFound reports that the entry (Get, Delete) or the claimed job
	// (Complete) does not exist in the store.
	ErrNotFound = errors.New("cache: not found")
	// ErrNoJob reports that Claim found no job waiting in the queue.
	ErrNoJob = errors.New("cache: no job waiting")
	// ErrInvalid reports an argument that no store accepts: a bad time, an
	// over-long URI, an unknown status or priority. The message names the field
	// (and the memento's index for mementos). Retrying cannot help.
	ErrInvalid = errors.New("cache: invalid argument")
	// ErrClosed reports a call on a store after Close.
	ErrClosed = errors.New("cache: store closed")
)

// Error is a failure of the store itself (I/O, the database, a corrupt
// record), as opposed to [ErrNotFound], [ErrNoJob] and [ErrInvalid], which
// describe the request. Callers tell them apart with [errors.As]:
//
//	var se *cache.Error
//	if errors.As(err, &se) { /* the store is unwell: answer without it */ }
//
// A store failure may be transient (a database restarting): the same call can
// succeed later on the same handle.
type Error struct {
	Store string // the implementation: "memory", "bolt", "mysql"
	Op    string // the operation: "get", "put", "claim", ...
	Err   error  // the cause, never nil
}

// Error returns "cache: STORE OP: CAUSE".
func (e *Error) Error() string {
	return "cache: " + e.Store + " " + e.Op + ": " + e.Err.Error()
}

// Unwrap returns the cause, so that errors.Is sees through to it
// (context.DeadlineExceeded, a driver error, ...).
func (e *Error) Unwrap() error { return e.Err }

// Limits that every store enforces identically, so that an entry accepted by
// one implementation is accepted by all of them (the MySQL column types are
// sized from these).
const (
	// MaxURILen is the longest URI-R or URI-M, in bytes, that a store keeps.
	// URIs are stored byte-exact: any bytes are allowed, UTF-8 or not.
	MaxURILen = 16 << 10
	// MaxFieldLen is the longest archive id, rel, type or worker name, in
	// bytes. These must be valid UTF-8.
	MaxFieldLen = 255
)

// The times every store accepts: the range of a MySQL DATETIME.
var (
	// MinTime is the earliest time a store accepts: 1000-01-01T00:00:00Z.
	MinTime = time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	// MaxTime is the latest time a store accepts: 9999-12-31T23:59:59Z.
	MaxTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
)

// URIRKey identifies an entry: the MD5 digest of the URI-R with its scheme
// removed ([StripScheme]), as the Time Travel aggregator's linkmaster.id. Its
// String form is the 32-digit lower-case hex that MySQL's md5() returns.
type URIRKey [md5.Size]byte

// URIRKeyOf returns the key of uriR: MD5(StripScheme(uriR)). The http and https
// forms of a URL have the same key.
func URIRKeyOf(uriR string) URIRKey { return md5.Sum([]byte(StripScheme(uriR))) }

// String returns k as 32 lower-case hex digits.
func (k URIRKey) String() string { return hex.EncodeToString(k[:]) }

// ParseURIRKey parses the 32-hex-digit form written by [URIRKey.String] (either case).
// It returns an error wrapping [ErrInvalid] for any other input.
func ParseURIRKey(s string) (URIRKey, error) {
	var k URIRKey
	if len(s) != 2*len(k) {
		return k, fmt.Errorf("%w: key %q: want %d hex digits, have %d bytes", ErrInvalid, s, 2*len(k), len(s))
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, fmt.Errorf("%w: key %q: %v", ErrInvalid, s, err)
	}
	return k, nil
}

// StripScheme removes a leading URI scheme and the "//" after it, as the Time
// Travel aggregator's RemoveProtocol: "https://example.com/a" and
// "http://example.com/a" both become "example.com/a". The scheme is
// recognised only when followed by "://" (RFC 3986 section 3.1 syntax: a
// letter, then letters, digits, "+", "-" or "."), so "example.com:8080/" is
// kept whole; a leading "//" alone is removed too. Other input is returned
// unchanged. Only one scheme is removed: "http://http://x/" (a common user
// error that the aggregator repairs before lookup) becomes "http://x/".
func StripScheme(uri string) string {
	if i := strings.Index(uri, "://"); i > 0 && surt.SchemeLen(uri) == i {
		return uri[i+3:]
	}
	return strings.TrimPrefix(uri, "//")
}

// Status says what the last search for a URI-R found. It is linkmaster.status
// in the Time Travel schema.
type Status uint8

const (
	// StatusPending: the URI-R was requested but never searched (no Put yet).
	// It is the status of entries made by RecordRequest; Put refuses it.
	StatusPending Status = iota
	// StatusFound: the search found mementos (at least one).
	StatusFound
	// StatusNone: the search completed and found no memento (a negative
	// entry; the Time Travel code serves it as 404 for 10 minutes).
	StatusNone
	// StatusFailed: the search failed (archives unreachable); the mementos
	// put with it, if any, are those known from before.
	StatusFailed
	// StatusBlocked: the URI-R is not searched (bad URL or blacklisted host);
	// no mementos.
	StatusBlocked
)

var statusNames = [...]string{"pending", "found", "none", "failed", "blocked"}

// String returns the status's lower-case name, e.g. "found".
func (s Status) String() string {
	if int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Priority orders the job queue: a lower value is claimed first. The Time
// Travel aggregator queues live requests at "1" and stale refreshes at "2".
type Priority uint8

const (
	// PriorityLive is for a URI-R that a user asked for just now.
	PriorityLive Priority = 1
	// PriorityRefresh is for re-searching a stale entry in the background.
	PriorityRefresh Priority = 2
	// MaxPriority is the lowest priority a store accepts (one decimal digit,
	// as jobs.priority CHAR(1)); valid priorities are 1 to MaxPriority.
	MaxPriority Priority = 9
)

// StoredMemento is a [github.com/mementokit/mementokit/memento.Memento] as a
// store keeps it (a row of the Time Travel links table): the URI-M and
// Memento-Datetime an archive's TimeMap listed (RFC 7089 section 5), the id of
// that archive, and the link's rel and type as plain strings; the link's other
// parameters are not kept.
type StoredMemento struct {
	URIM     string    // the memento's URI, byte-exact, 1 to MaxURILen bytes
	Datetime time.Time // Memento-Datetime; stored in UTC at second precision
	Archive  string    // the archive's id (archivelist.xml link@id), non-empty
	Rel      string    // link relation types if known ("memento", "first memento"), else ""
	Type     string    // media type if known, else ""
}

// Compare orders mementos by Datetime, then Archive, URIM, Rel and Type
// (byte-wise). It returns -1, 0 or +1. Stores return an entry's mementos in
// this order.
func (m StoredMemento) Compare(o StoredMemento) int {
	if c := m.Datetime.Compare(o.Datetime); c != 0 {
		return c
	}
	for _, p := range [...][2]string{{m.Archive, o.Archive}, {m.URIM, o.URIM}, {m.Rel, o.Rel}, {m.Type, o.Type}} {
		if c := strings.Compare(p[0], p[1]); c != 0 {
			return c
		}
	}
	return 0
}

// Info is what a store knows about a URI-R besides its mementos: the columns
// of the Time Travel linkmaster table.
type Info struct {
	Key       URIRKey   // URIRKeyOf(URIR)
	URIR      string    // the URI-R with its scheme removed (linkmaster.url)
	Status    Status    // what the last search found (linkmaster.status)
	Requested time.Time // last request, UTC; zero if never requested (reqtime)
	Requests  int64     // number of requests recorded (numreq)
	Updated   time.Time // last Put, UTC; zero while pending (updtime)
}

// Entry is a URI-R's cache entry: its Info and its mementos (the links table).
type Entry struct {
	Info
	// Mementos in [StoredMemento.Compare] order, exact duplicates removed. The
	// slice is the caller's own: stores never retain or share it.
	Mementos []StoredMemento
}

// Result is what one search found for a URI-R; [Cache.Put] stores it,
// replacing the entry's mementos as a whole.
type Result struct {
	// Status is StatusFound (then Mementos must not be empty), StatusNone or
	// StatusBlocked (then Mementos must be empty), or StatusFailed (any).
	Status Status
	// Updated is when the search ended: non-zero, within [MinTime, MaxTime].
	// Staleness is measured from it.
	Updated time.Time
	// Mementos in any order; Put sorts them and drops exact duplicates.
	Mementos []StoredMemento
}

// Job is a search waiting in (or taken from) the queue (the jobs table).
// There is at most one job per Key: enqueueing a URI-R whose job is waiting
// raises its priority; enqueueing one whose job is completed reopens it.
type Job struct {
	ID       int64     // unique within the store; kept when a job is reopened
	Key      URIRKey   // URIRKeyOf(URIR) (jobs.hashkey)
	URIR     string    // the URI-R as enqueued, scheme included (jobs.url)
	Priority Priority  // lower is claimed first
	Enqueued time.Time // when it was enqueued or reopened (reqtime)
	Worker   string    // who claimed it; "" while waiting (process_id)
	Claimed  time.Time // when it was claimed; zero while waiting
}

// CleanupPolicy says what [Cache.Cleanup] removes. A zero age disables that
// part. [DefaultCleanupPolicy] gives the Time Travel aggregator's values.
type CleanupPolicy struct {
	// Now is the reference time; required.
	Now time.Time
	// CompletedJobAge: completed jobs whose completion is older than this
	// are deleted.
	CompletedJobAge time.Duration
	// UnrequestedAge: entries whose last request (or, if never requested,
	// last update) is older than this are deleted with their mementos.
	UnrequestedAge time.Duration
	// ClaimTimeout: jobs claimed longer ago than this and not completed
	// (their worker died) return to the queue.
	ClaimTimeout time.Duration
	// MaxEntries caps the entries deleted by one call; 0 means
	// DefaultCleanupMaxEntries.
	MaxEntries int
}

// DefaultCleanupMaxEntries is the number of entries one Cleanup call deletes
// at most when CleanupPolicy.MaxEntries is 0 (the Time Travel cleaner's batch).
const DefaultCleanupMaxEntries = 40000

// DefaultCleanupPolicy returns the policy of the Time Travel aggregator at
// now: completed jobs kept 3 months (90 days), entries kept 6 months (182
// days) after their last request, claims released after 1 hour (the
// thorough search budget is 250 s).
func DefaultCleanupPolicy(now time.Time) CleanupPolicy {
	return CleanupPolicy{
		Now:             now,
		CompletedJobAge: 90 * 24 * time.Hour,
		UnrequestedAge:  182 * 24 * time.Hour,
		ClaimTimeout:    time.Hour,
	}
}

// CleanupStats counts what one [Cache.Cleanup] call did.
type CleanupStats struct {
	JobsReleased   int // claimed jobs returned to the queue
	JobsDeleted    int // completed jobs deleted
	EntriesDeleted int // entries deleted with their mementos
}

// Cache is the store behind an aggregator: entries of mementos per URI-R and
// the queue of searches to run. Implementations are safe for concurrent use.
//
// All times are stored in UTC at second precision: a time given with
// fractions of a second is truncated, and returned times are in time.UTC.
// Every time must lie within [MinTime, MaxTime].
//
// Errors: [ErrNotFound] and [ErrNoJob] for absent things, [ErrInvalid] for
// bad arguments (checked before the store is touched), [ErrClosed] after
// Close, and an [*Error] for a failure of the store (then the cause may be
// ctx.Err()). A call returns no later than shortly after ctx is done.
type Cache interface {
	// Get returns the entry of key with its mementos. A pending entry (from
	// RecordRequest) is returned with StatusPending and no mementos.
	Get(ctx context.Context, key URIRKey) (Entry, error)

	// Put stores what a search for uriR found: status, update time and the
	// whole list of mementos, replacing the previous list atomically (a
	// concurrent Get sees the old list or the new, never a mix). It creates
	// the entry if needed and keeps its request time and count.
	Put(ctx context.Context, uriR string, r Result) error

	// RecordRequest notes that uriR was requested at "at": it adds one to
	// the request count and sets the request time to at if at is later. An
	// unknown uriR gets a pending entry with one request.
	RecordRequest(ctx context.Context, uriR string, at time.Time) error

	// Stale lists up to limit (> 0) entries updated before "before", oldest
	// first (pending entries, never updated, come first), ties by key. The
	// Infos come without mementos.
	Stale(ctx context.Context, before time.Time, limit int) ([]Info, error)

	// Delete removes the entry of key and its mementos; ErrNotFound if
	// there is none. The entry's job, if any, is not touched.
	Delete(ctx context.Context, key URIRKey) error

	// Enqueue asks for a search of uriR at priority p. With no job for
	// URIRKeyOf(uriR) it adds one; with a completed one it reopens it (new
	// URIR, priority and time, same ID); with one waiting or claimed it only
	// raises its priority if p is higher (lower value).
	Enqueue(ctx context.Context, uriR string, p Priority, at time.Time) error

	// Claim gives worker the waiting job that comes first by (Priority,
	// Enqueued, ID), marking it claimed at "at", or ErrNoJob. Each job is
	// given to one caller only, even when several processes share the store.
	Claim(ctx context.Context, worker string, at time.Time) (Job, error)

	// Complete marks a claimed job done at "at". It returns ErrNotFound
	// unless job.ID exists and is claimed by job.Worker. Completing a job
	// twice is not an error.
	Complete(ctx context.Context, job Job, at time.Time) error

	// Cleanup releases timed-out claims, deletes old completed jobs and
	// long-unrequested entries, as p says.
	Cleanup(ctx context.Context, p CleanupPolicy) (CleanupStats, error)

	// Close releases the store's resources. Calls after Close return
	// ErrClosed; Close is safe to call twice.
	Close() error
}

// Nonblocking is implemented by a store whose calls never wait on I/O or
// on a lock held across I/O (an in-process structure such as [Memory]):
// a caller may make them in its own goroutine, without the guard (a
// goroutine and a deadline per call) that a store which may hang needs.
// Nonblocking reports whether that holds for this store.
type Nonblocking interface {
	Nonblocking() bool
}

// RequestGetter is implemented by a store that records a request and
// reads the entry in one call, with one key computed ([URIRKeyOf]) and
// one lock taken: what a request for a URI-R does first. A type that
// embeds such a store (as memorycache.Cache) and overrides Get or
// RecordRequest must override RecordRequestGet too, or the aggregator's
// reads bypass its Get.
type RequestGetter interface {
	// RecordRequestGet is RecordRequest(ctx, uriR, at) followed by
	// Get(ctx, URIRKeyOf(uriR)) as one call: it returns the entry with
	// the request counted (StatusPending and no mementos for a URI-R
	// never searched). Its errors are RecordRequest's ([ErrInvalid] for
	// the arguments, [ErrClosed] after Close, an [*Error] when ctx has
	// ended or the store failed); it never returns [ErrNotFound].
	RecordRequestGet(ctx context.Context, uriR string, at time.Time) (Entry, error)
}
