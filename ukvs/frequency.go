package ukvs

import (
	"errors"
	"fmt"
	"math"
	"strconv"
)

// Bound says how exact a [Count] is. It is written as a one-byte suffix after
// the number, as the UKVS draft's "frequency" field defines: no suffix for an
// exact value, '+' for a lower bound, '-' for an upper bound and '~' for an
// approximate value.
type Bound uint8

// The four bounds of the UKVS draft.
const (
	Exact   Bound = iota // no suffix: the count is exact
	AtLeast              // '+': the true count is at least N
	AtMost               // '-': the true count is at most N
	About                // '~': the true count is approximately N
)

// String returns the suffix of b as written in a frequency value ("" for
// Exact, "+", "-" or "~"), or "?" for a Bound outside the four.
func (b Bound) String() string {
	switch b {
	case Exact:
		return ""
	case AtLeast:
		return "+"
	case AtMost:
		return "-"
	case About:
		return "~"
	}
	return "?"
}

// Count is one side of a [Frequency]: a URI-M or a URI-R count. The zero
// Count is unknown (the side was left empty in the text).
type Count struct {
	N     uint64 // the number written; meaningful only when Known
	Known bool   // false when the side was left empty
	Bound Bound  // how exact N is
}

// Exactly returns the known, exact count n.
func Exactly(n uint64) Count { return Count{N: n, Known: true} }

// String formats c as it appears in a frequency value: "" when unknown,
// else the decimal number followed by its bound suffix ("300", "300+").
func (c Count) String() string { return string(c.appendTo(nil)) }

func (c Count) appendTo(b []byte) []byte {
	if !c.Known {
		return b
	}
	b = strconv.AppendUint(b, c.N, 10)
	switch c.Bound {
	case AtLeast:
		b = append(b, '+')
	case AtMost:
		b = append(b, '-')
	case About:
		b = append(b, '~')
	}
	return b
}

// Frequency is the value of the UKVS "frequency" field (MementoMap paper,
// Figure 2; ORS draft ukvs.md, "The frequency Field"): how many mementos
// (URI-Ms) and how many distinct original URIs (URI-Rs) an archive holds for
// a key, written "[URI-M count]/[URI-R count]". Both counts are optional and
// each may carry a [Bound] suffix:
//
//	54321/20000   exactly 54321 URI-Ms of exactly 20000 URI-Rs
//	10000+        at least 10000 URI-Ms, URI-Rs unknown
//	2500~/900     about 2500 URI-Ms of exactly 900 URI-Rs
//	300+/20-      at least 300 URI-Ms of at most 20 URI-Rs
//	0             holds nothing here (an exclusion line)
//	/50           URI-Ms unknown, exactly 50 URI-Rs
//	200/          200 URI-Ms, URI-Rs unknown (same meaning as "200")
//	/             nothing known (the draft's explicit placeholder)
//	-             nothing known (the generic UKVS placeholder)
//
// Parsing and formatting round-trip exactly: [ParseFrequency] accepts only
// the forms [Frequency.String] writes (no sign, no leading zeros, no
// spaces), and records whether the '/' was written so that "200/" and "200"
// both come back as they were. The zero Frequency is unknown and formats as
// "-"; "0" is a known exact zero, which [Frequency.HoldsNothing] reports.
type Frequency struct {
	URIM  Count // mementos
	URIR  Count // distinct original URIs
	Slash bool  // the '/' separator is written even though it could be left out
}

// Frequency errors. A *ParseError or a *FrequencyError wraps one of these.
var (
	ErrFrequency = errors.New("ukvs: invalid frequency value")
)

// FrequencyError reports a malformed frequency value: the text, the byte
// offset in it where parsing failed and why. Its Unwrap is [ErrFrequency].
type FrequencyError struct {
	Text   string // the value as given
	Offset int    // 0-based byte offset of the first bad byte
	Reason string // e.g. "leading zero", "count overflows uint64"
}

// Error formats the error with the value, the offset and the reason.
func (e *FrequencyError) Error() string {
	return fmt.Sprintf("ukvs: invalid frequency %q at byte %d: %s", e.Text, e.Offset, e.Reason)
}

// Unwrap returns [ErrFrequency].
func (e *FrequencyError) Unwrap() error { return ErrFrequency }

// ParseFrequency parses a frequency value such as "54321/20000", "10000+",
// "2500~/900", "300+/20-", "0", "/50", "/" or "-" (see [Frequency] for the
// grammar). A malformed value returns a *[FrequencyError] wrapping
// [ErrFrequency]. It does not allocate unless it fails.
func ParseFrequency(s string) (Frequency, error) {
	return parseFrequency(s)
}

// UnmarshalText parses text as [ParseFrequency] does, without allocating on
// success; it lets a Frequency be read straight from a [Record] value column.
// A malformed value returns a *[FrequencyError] wrapping [ErrFrequency], and
// f is left unchanged.
func (f *Frequency) UnmarshalText(text []byte) error {
	v, err := parseFrequency(text)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

func parseFrequency[T string | []byte](s T) (Frequency, error) {
	var f Frequency
	if len(s) == 1 && s[0] == '-' {
		return f, nil
	}
	if len(s) == 0 {
		return f, freqErr(s, 0, "empty value (write - or / for unknown)")
	}
	i := 0
	var err error
	f.URIM, i, err = parseCount(s, i)
	if err != nil {
		return Frequency{}, err
	}
	if i == len(s) {
		if !f.URIM.Known {
			return Frequency{}, freqErr(s, 0, "no count")
		}
		return f, nil
	}
	if s[i] != '/' {
		return Frequency{}, freqErr(s, i, "expected '/' or a bound suffix (+ - ~)")
	}
	i++
	f.URIR, i, err = parseCount(s, i)
	if err != nil {
		return Frequency{}, err
	}
	if i != len(s) {
		return Frequency{}, freqErr(s, i, "unexpected byte after the URI-R count")
	}
	// The slash is implied when the URI-R count is written or the URI-M
	// count is not; record it only when it is optional.
	f.Slash = f.URIM.Known && !f.URIR.Known
	if !f.URIM.Known && !f.URIR.Known {
		f.Slash = true
	}
	return f, nil
}

// parseCount reads an optional count with an optional suffix at s[i:].
func parseCount[T string | []byte](s T, i int) (Count, int, error) {
	start := i
	var n uint64
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		d := uint64(s[i] - '0')
		if n > (math.MaxUint64-d)/10 {
			return Count{}, i, freqErr(s, start, "count overflows uint64")
		}
		n = n*10 + d
		i++
	}
	if i == start {
		if i < len(s) && (s[i] == '+' || s[i] == '-' || s[i] == '~') {
			return Count{}, i, freqErr(s, i, "bound suffix without a number")
		}
		return Count{}, i, nil
	}
	if s[start] == '0' && i-start > 1 {
		return Count{}, i, freqErr(s, start, "leading zero")
	}
	c := Count{N: n, Known: true}
	if i < len(s) {
		switch s[i] {
		case '+':
			c.Bound = AtLeast
			i++
		case '-':
			c.Bound = AtMost
			i++
		case '~':
			c.Bound = About
			i++
		}
	}
	return c, i, nil
}

func freqErr[T string | []byte](s T, off int, reason string) error {
	return &FrequencyError{Text: string(s), Offset: off, Reason: reason}
}

// String formats f; it is the inverse of [ParseFrequency]. The zero
// Frequency formats as "-".
func (f Frequency) String() string {
	var buf [48]byte
	return string(f.Append(buf[:0]))
}

// Append appends the text of f to b and returns the extended slice, without
// allocating when b has room. It never fails; [Frequency.AppendText] is the
// [encoding.TextAppender] form.
func (f Frequency) Append(b []byte) []byte {
	switch {
	case !f.URIM.Known && !f.URIR.Known:
		if f.Slash {
			return append(b, '/')
		}
		return append(b, '-')
	case !f.URIR.Known:
		b = f.URIM.appendTo(b)
		if f.Slash {
			b = append(b, '/')
		}
		return b
	default:
		b = f.URIM.appendTo(b)
		b = append(b, '/')
		return f.URIR.appendTo(b)
	}
}

// AppendText implements [encoding.TextAppender]; the error is always nil.
func (f Frequency) AppendText(b []byte) ([]byte, error) { return f.Append(b), nil }

// MarshalText implements [encoding.TextMarshaler]; the error is always nil.
func (f Frequency) MarshalText() ([]byte, error) { return f.Append(nil), nil }

// Known reports whether at least one of the two counts is known.
func (f Frequency) Known() bool { return f.URIM.Known || f.URIR.Known }

// HoldsNothing reports whether f says the archive holds no memento for the
// key: a known URI-M or URI-R count of 0 that is exact or an upper bound.
// A map's data line holds such a frequency as "0" (the exclusion line our
// maps write), "0-", "0/" or "/0", or "0/20-" with an inexact URI-R count;
// "0/20" and "0/0", whose two exact counts cannot both be true, also hold
// nothing here but are refused on a data line by [CheckLine] (and so by
// [Check] and mementomap's CheckMap). Such a line excludes its key from a
// wildcard above it (internal/spec/MEMENTOMAP.md, "Keys"). An unknown
// frequency ("-", "/") does not hold nothing: it may hold anything.
func (f Frequency) HoldsNothing() bool {
	zero := func(c Count) bool { return c.Known && c.N == 0 && (c.Bound == Exact || c.Bound == AtMost) }
	return zero(f.URIM) || (zero(f.URIR) && !(f.URIM.Known && f.URIM.N > 0))
}

// Add returns the frequency of the union of two disjoint sets of URIs: the
// roll-up of sibling keys (MementoMap compaction, internal/spec/MEMENTOMAP.md). URI-M
// counts and URI-R counts are summed separately (the sum saturates at the
// largest uint64 and is then marked AtLeast). The bound of each sum follows
// from the bounds of its terms:
//
//   - exact + exact = exact; a bound plus an exact count keeps the bound
//     (300+ + 20 = 320+, 300- + 20 = 320-, 300~ + 20 = 320~);
//   - lower + lower = lower, upper + upper = upper;
//   - a lower bound plus an upper bound, or anything plus an approximate
//     count, is approximate (300+ + 20- = 320~);
//   - a known count plus an unknown one keeps only what stays true: an exact
//     or lower-bound a gives "at least a" (an unknown count is ≥ 0), an
//     upper-bound or approximate a gives unknown; unknown + unknown is
//     unknown.
//
// The separator flag of the result is set when either term's was. Add
// assumes the two sets share no URI-R; merging two descriptions of the same
// URIs (overlapping URI-R sets) would over-count URI-Rs, so use it for
// roll-ups and for summing distinct keys only.
func (f Frequency) Add(g Frequency) Frequency {
	return Frequency{
		URIM:  addCount(f.URIM, g.URIM),
		URIR:  addCount(f.URIR, g.URIR),
		Slash: f.Slash || g.Slash,
	}
}

func addCount(a, b Count) Count {
	switch {
	case !a.Known && !b.Known:
		return Count{}
	case !a.Known:
		a, b = b, a
		fallthrough
	case !b.Known:
		if a.Bound == Exact || a.Bound == AtLeast {
			return Count{N: a.N, Known: true, Bound: AtLeast}
		}
		return Count{}
	}
	n := a.N + b.N
	bound := combineBounds(a.Bound, b.Bound)
	if n < a.N { // overflow
		n = math.MaxUint64
		if bound == Exact || bound == AtMost {
			bound = AtLeast
		}
	}
	return Count{N: n, Known: true, Bound: bound}
}

func combineBounds(a, b Bound) Bound {
	switch {
	case a == b:
		return a
	case a == Exact:
		return b
	case b == Exact:
		return a
	default: // AtLeast+AtMost, or anything with About
		return About
	}
}
