package cache

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"
)

// The functions in this file check and normalise arguments. Every
// implementation calls them before touching its store, so that all stores
// accept and refuse exactly the same input. Their errors wrap [ErrInvalid].

// CheckTime returns t in UTC truncated to the second. It fails if t is
// outside [MinTime, MaxTime] (which includes the zero time); field names the
// argument in the error.
func CheckTime(field string, t time.Time) (time.Time, error) {
	u := t.UTC().Truncate(time.Second)
	if u.Before(MinTime) || u.After(MaxTime) {
		return time.Time{}, fmt.Errorf("%w: %s %s outside %s..%s", ErrInvalid, field,
			t.Format(time.RFC3339), MinTime.Format(time.RFC3339), MaxTime.Format(time.RFC3339))
	}
	return u, nil
}

// CheckURI fails if uri is empty or longer than MaxURILen bytes; field names
// the argument in the error.
func CheckURI(field, uri string) error {
	if uri == "" {
		return fmt.Errorf("%w: %s is empty", ErrInvalid, field)
	}
	if len(uri) > MaxURILen {
		return fmt.Errorf("%w: %s is %d bytes, longer than %d", ErrInvalid, field, len(uri), MaxURILen)
	}
	return nil
}

// CheckURIR strips the scheme from uriR ([StripScheme]) and checks the
// result with [CheckURI]. It returns the stripped URI-R and its key.
func CheckURIR(uriR string) (string, URIRKey, error) {
	s := StripScheme(uriR)
	if err := CheckURI("URI-R", s); err != nil {
		return "", URIRKey{}, err
	}
	return s, URIRKeyOf(s), nil
}

// CheckField fails if s is longer than MaxFieldLen bytes or not valid UTF-8
// (or empty, when required); field names the argument in the error.
func CheckField(field, s string, required bool) error {
	switch {
	case s == "" && required:
		return fmt.Errorf("%w: %s is empty", ErrInvalid, field)
	case len(s) > MaxFieldLen:
		return fmt.Errorf("%w: %s is %d bytes, longer than %d", ErrInvalid, field, len(s), MaxFieldLen)
	case !utf8.ValidString(s):
		return fmt.Errorf("%w: %s %q is not valid UTF-8", ErrInvalid, field, s)
	}
	return nil
}

// CheckPriority fails unless 1 <= p <= MaxPriority.
func CheckPriority(p Priority) error {
	if p < 1 || p > MaxPriority {
		return fmt.Errorf("%w: priority %d outside 1..%d", ErrInvalid, p, MaxPriority)
	}
	return nil
}

// CheckEnqueue checks the arguments of [Cache.Enqueue] as every store
// must: uriR as given and without its scheme ([CheckURI], [CheckURIR]),
// the priority ([CheckPriority]) and the time ([CheckTime]). It returns the
// URI-R's key and at in UTC at second precision.
func CheckEnqueue(uriR string, p Priority, at time.Time) (URIRKey, time.Time, error) {
	if err := CheckURI("URI-R", uriR); err != nil {
		return URIRKey{}, time.Time{}, err
	}
	_, key, err := CheckURIR(uriR)
	if err != nil {
		return URIRKey{}, time.Time{}, err
	}
	if err := CheckPriority(p); err != nil {
		return URIRKey{}, time.Time{}, err
	}
	if at, err = CheckTime("enqueue time", at); err != nil {
		return URIRKey{}, time.Time{}, err
	}
	return key, at, nil
}

// CheckClaim checks the arguments of [Cache.Claim] as every store must:
// a non-empty worker name ([CheckField]) and the claim time ([CheckTime]),
// which it returns in UTC at second precision.
func CheckClaim(worker string, at time.Time) (time.Time, error) {
	if err := CheckField("worker", worker, true); err != nil {
		return time.Time{}, err
	}
	return CheckTime("claim time", at)
}

// CheckLimit fails unless limit > 0.
func CheckLimit(limit int) error {
	if limit <= 0 {
		return fmt.Errorf("%w: limit %d is not positive", ErrInvalid, limit)
	}
	return nil
}

// CheckResult checks r and returns a normalised copy: Updated and each
// Datetime in UTC at second precision, mementos sorted by [StoredMemento.Compare]
// with exact duplicates removed. r.Mementos is not modified. Errors name the
// field and, for a memento, its index in r.Mementos.
func CheckResult(r Result) (Result, error) {
	var err error
	out := Result{Status: r.Status}
	if out.Updated, err = CheckTime("updated", r.Updated); err != nil {
		return Result{}, err
	}
	switch r.Status {
	case StatusFound:
		if len(r.Mementos) == 0 {
			return Result{}, fmt.Errorf("%w: status found with no mementos", ErrInvalid)
		}
	case StatusNone, StatusBlocked:
		if len(r.Mementos) != 0 {
			return Result{}, fmt.Errorf("%w: status %s with %d mementos", ErrInvalid, r.Status, len(r.Mementos))
		}
	case StatusFailed:
	default:
		return Result{}, fmt.Errorf("%w: status %s cannot be put", ErrInvalid, r.Status)
	}
	if len(r.Mementos) == 0 {
		return out, nil
	}
	ms := make([]StoredMemento, len(r.Mementos))
	for i, m := range r.Mementos {
		if err := CheckURI(fmt.Sprintf("memento %d URI-M", i), m.URIM); err != nil {
			return Result{}, err
		}
		if m.Datetime, err = CheckTime(fmt.Sprintf("memento %d datetime", i), m.Datetime); err != nil {
			return Result{}, err
		}
		if err := CheckField(fmt.Sprintf("memento %d archive", i), m.Archive, true); err != nil {
			return Result{}, err
		}
		if err := CheckField(fmt.Sprintf("memento %d rel", i), m.Rel, false); err != nil {
			return Result{}, err
		}
		if err := CheckField(fmt.Sprintf("memento %d type", i), m.Type, false); err != nil {
			return Result{}, err
		}
		ms[i] = m
	}
	slices.SortFunc(ms, StoredMemento.Compare)
	out.Mementos = slices.CompactFunc(ms, func(a, b StoredMemento) bool { return a.Compare(b) == 0 })
	return out, nil
}

// CheckPolicy checks p and returns it with Now in UTC at second precision
// and MaxEntries defaulted. Negative ages are refused.
func CheckPolicy(p CleanupPolicy) (CleanupPolicy, error) {
	var err error
	if p.Now, err = CheckTime("cleanup now", p.Now); err != nil {
		return p, err
	}
	if p.CompletedJobAge < 0 || p.UnrequestedAge < 0 || p.ClaimTimeout < 0 || p.MaxEntries < 0 {
		return p, fmt.Errorf("%w: cleanup policy with a negative age or limit", ErrInvalid)
	}
	if p.MaxEntries == 0 {
		p.MaxEntries = DefaultCleanupMaxEntries
	}
	return p, nil
}

// Cutoff returns the time before which things are removed for age, and
// whether that part of the policy is enabled (age > 0). The cutoff is
// clamped to MinTime.
func (p CleanupPolicy) Cutoff(age time.Duration) (time.Time, bool) {
	if age <= 0 {
		return time.Time{}, false
	}
	c := p.Now.Add(-age)
	if c.Before(MinTime) {
		c = MinTime
	}
	return c.Truncate(time.Second), true
}
