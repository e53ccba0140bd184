// Package check holds the argument checks that every store of package cache
// runs before touching its data, so that the in-memory, bbolt and MySQL stores
// accept and refuse exactly the same input. Its errors wrap [cache.ErrInvalid]
// and name the argument (and, for a memento, its index).
package check

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/mementokit/mementokit/cache"
)

// Time returns t in UTC truncated to the second. It fails if t is
// outside [cache.MinTime, cache.MaxTime] (which includes the zero time); field names the
// argument in the error.
func Time(field string, t time.Time) (time.Time, error) {
	u := t.UTC().Truncate(time.Second)
	if u.Before(cache.MinTime) || u.After(cache.MaxTime) {
		return time.Time{}, fmt.Errorf("%w: %s %s outside %s..%s", cache.ErrInvalid, field,
			t.Format(time.RFC3339), cache.MinTime.Format(time.RFC3339), cache.MaxTime.Format(time.RFC3339))
	}
	return u, nil
}

// URI fails if uri is empty or longer than [cache.MaxURILen] bytes; field names
// the argument in the error.
func URI(field, uri string) error {
	if uri == "" {
		return fmt.Errorf("%w: %s is empty", cache.ErrInvalid, field)
	}
	if len(uri) > cache.MaxURILen {
		return fmt.Errorf("%w: %s is %d bytes, longer than %d", cache.ErrInvalid, field, len(uri), cache.MaxURILen)
	}
	return nil
}

// URIR strips the scheme from uriR ([StripScheme]) and checks the
// result with [URI]. It returns the stripped URI-R and its key.
func URIR(uriR string) (string, cache.URIRKey, error) {
	s := cache.StripScheme(uriR)
	if err := URI("URI-R", s); err != nil {
		return "", cache.URIRKey{}, err
	}
	return s, cache.URIRKeyOf(s), nil
}

// Field fails if s is longer than [cache.MaxFieldLen] bytes or not valid UTF-8
// (or empty, when required); field names the argument in the error.
func Field(field, s string, required bool) error {
	switch {
	case s == "" && required:
		return fmt.Errorf("%w: %s is empty", cache.ErrInvalid, field)
	case len(s) > cache.MaxFieldLen:
		return fmt.Errorf("%w: %s is %d bytes, longer than %d", cache.ErrInvalid, field, len(s), cache.MaxFieldLen)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: %s %q is not valid UTF-8", cache.ErrInvalid, field, s)
	}
	return nil
}

// Priority fails unless 1 <= p <= [cache.MaxPriority].
func Priority(p cache.Priority) error {
	if p < 1 || p > cache.MaxPriority {
		return fmt.Errorf("%w: priority %d outside 1..%d", cache.ErrInvalid, p, cache.MaxPriority)
	}
	return nil
}

// Enqueue checks the arguments of [cache.Cache.Enqueue] as every store
// must: uriR as given and without its scheme ([URI], [URIR]),
// the priority ([Priority]) and the time ([Time]). It returns the
// URI-R's key and at in UTC at second precision.
func Enqueue(uriR string, p cache.Priority, at time.Time) (cache.URIRKey, time.Time, error) {
	if err := URI("URI-R", uriR); err != nil {
		return cache.URIRKey{}, time.Time{}, err
	}
	_, key, err := URIR(uriR)
	if err != nil {
		return cache.URIRKey{}, time.Time{}, err
	}
	if err := Priority(p); err != nil {
		return cache.URIRKey{}, time.Time{}, err
	}
	if at, err = Time("enqueue time", at); err != nil {
		return cache.URIRKey{}, time.Time{}, err
	}
	return key, at, nil
}

// Claim checks the arguments of [cache.Cache.Claim] as every store must:
// a non-empty worker name ([Field]) and the claim time ([Time]),
// which it returns in UTC at second precision.
func Claim(worker string, at time.Time) (time.Time, error) {
	if err := Field("worker", worker, true); err != nil {
		return time.Time{}, err
	}
	return Time("claim time", at)
}

// Put checks the arguments of [cache.Cache.Put] as every store must: the
// URI-R ([URIR]) and the result ([Result]). It returns the URI-R without
// its scheme, its key and the normalised result.
func Put(uriR string, r cache.Result) (string, cache.URIRKey, cache.Result, error) {
	u, key, err := URIR(uriR)
	if err != nil {
		return "", cache.URIRKey{}, cache.Result{}, err
	}
	if r, err = Result(r); err != nil {
		return "", cache.URIRKey{}, cache.Result{}, err
	}
	return u, key, r, nil
}

// Request checks the arguments of [cache.Cache.RecordRequest] as every
// store must: the URI-R ([URIR]) and the request time ([Time]). It returns
// the URI-R without its scheme, its key and at in UTC at second precision.
func Request(uriR string, at time.Time) (string, cache.URIRKey, time.Time, error) {
	u, key, err := URIR(uriR)
	if err != nil {
		return "", cache.URIRKey{}, time.Time{}, err
	}
	if at, err = Time("request time", at); err != nil {
		return "", cache.URIRKey{}, time.Time{}, err
	}
	return u, key, at, nil
}

// Stale checks the arguments of [cache.Cache.Stale] as every store must:
// the time ([Time]), which it returns in UTC at second precision, and the
// limit ([Limit]).
func Stale(before time.Time, limit int) (time.Time, error) {
	before, err := Time("before", before)
	if err != nil {
		return time.Time{}, err
	}
	return before, Limit(limit)
}

// Begin is what a store named store ("bolt", "mysql") checks before
// operation op touches its data, once the arguments are checked: a ctx
// that has ended is a *cache.Error of the store and op wrapping ctx's
// error, and a store that is closed an error wrapping [cache.ErrClosed]
// that names both.
func Begin(ctx context.Context, store, op string, closed bool) error {
	if err := ctx.Err(); err != nil {
		return &cache.Error{Store: store, Op: op, Err: err}
	}
	if closed {
		return Closed(store, op)
	}
	return nil
}

// Closed is the error of operation op of a store named store that is
// closed: it wraps [cache.ErrClosed] and names both.
func Closed(store, op string) error {
	return fmt.Errorf("cache: %s %s: %w", store, op, cache.ErrClosed)
}

// Passed reports an error that a store passes on as it is: one of the
// kinds package cache names ([cache.ErrNotFound], [cache.ErrNoJob],
// [cache.ErrInvalid]) or an error already a *cache.Error. Any other error
// of a store becomes a *cache.Error of the store and the operation.
func Passed(err error) bool {
	var se *cache.Error
	return errors.Is(err, cache.ErrNotFound) || errors.Is(err, cache.ErrNoJob) || errors.Is(err, cache.ErrInvalid) || errors.As(err, &se)
}

// Limit fails unless limit > 0.
func Limit(limit int) error {
	if limit <= 0 {
		return fmt.Errorf("%w: limit %d is not positive", cache.ErrInvalid, limit)
	}
	return nil
}

// Result checks r and returns a normalised copy: Updated and each
// Datetime in UTC at second precision, mementos sorted by [cache.StoredMemento.Compare]
// with exact duplicates removed. r.Mementos is not modified. Errors name the
// field and, for a memento, its index in r.Mementos.
func Result(r cache.Result) (cache.Result, error) {
	var err error
	out := cache.Result{Status: r.Status}
	if out.Updated, err = Time("updated", r.Updated); err != nil {
		return cache.Result{}, err
	}
	switch r.Status {
	case cache.StatusFound:
		if len(r.Mementos) == 0 {
			return cache.Result{}, fmt.Errorf("%w: status found with no mementos", cache.ErrInvalid)
		}
	case cache.StatusNone, cache.StatusBlocked:
		if len(r.Mementos) != 0 {
			return cache.Result{}, fmt.Errorf("%w: status %s with %d mementos", cache.ErrInvalid, r.Status, len(r.Mementos))
		}
	case cache.StatusFailed:
	default:
		return cache.Result{}, fmt.Errorf("%w: status %s cannot be put", cache.ErrInvalid, r.Status)
	}
	if len(r.Mementos) == 0 {
		return out, nil
	}
	ms := make([]cache.StoredMemento, len(r.Mementos))
	for i, m := range r.Mementos {
		if err := URI(fmt.Sprintf("memento %d URI-M", i), m.URIM); err != nil {
			return cache.Result{}, err
		}
		if m.Datetime, err = Time(fmt.Sprintf("memento %d datetime", i), m.Datetime); err != nil {
			return cache.Result{}, err
		}
		if err := Field(fmt.Sprintf("memento %d archive", i), m.Archive, true); err != nil {
			return cache.Result{}, err
		}
		if err := Field(fmt.Sprintf("memento %d rel", i), m.Rel, false); err != nil {
			return cache.Result{}, err
		}
		if err := Field(fmt.Sprintf("memento %d type", i), m.Type, false); err != nil {
			return cache.Result{}, err
		}
		ms[i] = m
	}
	slices.SortFunc(ms, cache.StoredMemento.Compare)
	out.Mementos = slices.CompactFunc(ms, func(a, b cache.StoredMemento) bool { return a.Compare(b) == 0 })
	return out, nil
}

// Policy checks p and returns it with Now in UTC at second precision
// and MaxEntries defaulted. Negative ages are refused.
func Policy(p cache.CleanupPolicy) (cache.CleanupPolicy, error) {
	var err error
	if p.Now, err = Time("cleanup now", p.Now); err != nil {
		return p, err
	}
	if p.CompletedJobAge < 0 || p.UnrequestedAge < 0 || p.ClaimTimeout < 0 || p.MaxEntries < 0 {
		return p, fmt.Errorf("%w: cleanup policy with a negative age or limit", cache.ErrInvalid)
	}
	if p.MaxEntries == 0 {
		p.MaxEntries = cache.DefaultCleanupMaxEntries
	}
	return p, nil
}

// Cutoff returns the time before which p removes things for age, and
// whether that part of the policy is enabled (age > 0). The cutoff is
// clamped to [cache.MinTime].
func Cutoff(p cache.CleanupPolicy, age time.Duration) (time.Time, bool) {
	if age <= 0 {
		return time.Time{}, false
	}
	c := p.Now.Add(-age)
	if c.Before(cache.MinTime) {
		c = cache.MinTime
	}
	return c.Truncate(time.Second), true
}

// LastUsed is the time by which Cleanup judges an entry unrequested
// ([cache.CleanupPolicy.UnrequestedAge]): its last request, or its last
// update if it was never requested.
func LastUsed(i cache.Info) time.Time {
	if i.Requested.IsZero() {
		return i.Updated
	}
	return i.Requested
}
