// Package flagvalue reads the flag values that the commands share, by one
// rule each: sizes in bytes ("96MiB", "1GiB", "4096") and instants (RFC
// 3339, or a timestamp of package timestamp). The libraries take a size as
// an int64 of bytes and an instant as a time.Time; a command converts its
// flags with this package.
package flagvalue

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

// ErrSize is wrapped by the error of ParseBytes and of Bytes.Set.
var ErrSize = errors.New("invalid size")

// units are the suffixes ParseBytes accepts, lower-cased, longest first so
// that "kib" is tried before "b".
var units = []struct {
	suffix string
	bytes  int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1e3}, {"mb", 1e6}, {"gb", 1e9}, {"tb", 1e12},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// ParseBytes reads a size in bytes: a positive decimal integer, optionally
// followed (after optional spaces) by a unit, in any letter case: KiB, MiB,
// GiB, TiB (powers of 1024; K, M, G and T mean the same, as in sort -S),
// KB, MB, GB, TB (powers of 1000), or B. "96MiB" is 100663296 and "4096"
// is 4096. An error wraps ErrSize: no number, a number of 0 or less, an
// unknown unit, or a size of 2^63 bytes or more.
func ParseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(n), u.bytes
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%w %q (a positive number of bytes below 8 EiB, or with a unit: 64KiB, 96MiB, 1GiB)", ErrSize, s)
	}
	return n * mult, nil
}

// FormatBytes writes n bytes as ParseBytes reads them back, in the largest
// of KiB, MiB, GiB and TiB that divides n ("96MiB" for 100663296), or as a
// plain number of bytes ("1000").
func FormatBytes(n int64) string {
	for _, u := range []struct {
		name  string
		bytes int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n != 0 && n%u.bytes == 0 {
			return strconv.FormatInt(n/u.bytes, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// Bytes is a size flag in bytes, read by ParseBytes: set it to its default
// and pass its address to flag.FlagSet.Var; the usage text shows the
// default as FormatBytes writes it.
type Bytes int64

// Set reads s by ParseBytes, returning its error (wrapping ErrSize) and
// leaving b unchanged when s is refused.
func (b *Bytes) Set(s string) error {
	n, err := ParseBytes(s)
	if err != nil {
		return err
	}
	*b = Bytes(n)
	return nil
}

// String returns FormatBytes of b.
func (b *Bytes) String() string {
	if b == nil {
		return "0"
	}
	return FormatBytes(int64(*b))
}

// ErrDatetime is wrapped by every error of ParseDatetime, ParseSpan and
// ParseTime, beside timestamp.ErrInvalid where the value was digits.
var ErrDatetime = errors.New("invalid datetime")

// DatetimeRule is the one rule of a datetime on a command line, as usage
// texts and the errors of this package state it: a timestamp of package
// timestamp (4 to 17 digits, UTC, standing for the period it names) or an
// RFC 3339 instant (any offset; a fraction of a second kept to the millisecond).
const DatetimeRule = "a timestamp of 4 to 17 digits YYYY[MM[DD[hh[mm[ss[SSS]]]]]] in UTC (2015, 20150314, 20150314123456) or an RFC 3339 instant (2015-03-14T12:00:00Z)"

// SpanRule is DatetimeRule widened to spans, as ParseSpan reads them.
const SpanRule = DatetimeRule + ", or a range FROM:TO of two (either may be empty)"

// DatetimeError is the error of ParseDatetime, ParseSpan and ParseTime:
// the value as given, why it is refused, and the rule. It wraps
// ErrDatetime and, for digits, the timestamp.ErrInvalid of package
// timestamp.
type DatetimeError struct {
	Value  string // the value as given
	Reason string // what is wrong with it ("month 13 out of range 01-12")
	Span   bool   // a span (FROM:TO) was allowed: the rule is SpanRule
	err    error  // the cause from package timestamp, or nil
}

// Error reads `invalid datetime "VALUE": REASON; want RULE`.
func (e *DatetimeError) Error() string {
	rule := DatetimeRule
	if e.Span {
		rule = SpanRule
	}
	return fmt.Sprintf("%v %q: %s; want %s", ErrDatetime, e.Value, e.Reason, rule)
}

// Unwrap returns ErrDatetime and the cause from package timestamp.
func (e *DatetimeError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrDatetime}
	}
	return []error{ErrDatetime, e.err}
}

// parseOne reads one datetime into timestamp digits and the instant they
// begin at. An error is a reason and the cause from package timestamp.
func parseOne(s string) (string, time.Time, string, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err == nil {
		return timestamp.Format(t), t.UTC(), "", nil
	}
	if s == "" {
		return "", time.Time{}, "empty", nil
	}
	if strings.Trim(s, "0123456789") != "" {
		// time.ParseError's Message is set for a field out of range
		// (": month out of range"), empty for another layout.
		if pe, ok := err.(*time.ParseError); ok && pe.Message != "" {
			return "", time.Time{}, "RFC 3339" + pe.Message, nil
		}
		return "", time.Time{}, "neither timestamp digits nor an RFC 3339 instant", nil
	}
	if t, err = timestamp.Parse(s); err != nil {
		return "", time.Time{}, reason(err, s), err
	}
	return s, t, "", nil
}

// reason is the message of an error of package timestamp about s without
// the "invalid timestamp" and the value it repeats.
func reason(err error, s string) string {
	r := strings.TrimPrefix(err.Error(), timestamp.ErrInvalid.Error()+": ")
	if v, ok := strings.CutPrefix(r, strconv.Quote(s)); ok {
		r = strings.TrimPrefix(strings.TrimPrefix(v, ":"), " ")
	}
	return r
}

// ParseDatetime reads one datetime given on a command line by
// DatetimeRule and returns it as timestamp digits: an RFC 3339 instant as
// its UTC timestamp (timestamp.Format: 14 digits, 17 with milliseconds),
// digits as given once checked (they stand for the period they name:
// "2015" is the year 2015). An error is a *DatetimeError.
func ParseDatetime(s string) (string, error) {
	d, _, why, err := parseOne(s)
	if why != "" {
		return "", &DatetimeError{Value: s, Reason: why, err: err}
	}
	return d, nil
}

// ParseTime reads an instant given on a command line by DatetimeRule: an
// RFC 3339 instant, or timestamp digits read as the earliest instant they
// name ("20261201" is 2026-12-01T00:00:00Z). The result is in UTC. An
// error is a *DatetimeError.
func ParseTime(s string) (time.Time, error) {
	_, t, why, err := parseOne(s)
	if why != "" {
		return time.Time{}, &DatetimeError{Value: s, Reason: why, err: err}
	}
	return t, nil
}

// ParseSpan reads a datetime given on a command line that may name a span
// of time (mementomap lookup -at, a lookup's "URI DATETIME"), by SpanRule:
// one datetime as ParseDatetime reads it, or a range FROM:TO of two whose
// FROM is not after TO, either end empty for an open end ("2010:2012",
// "2015-03-14T00:00:00Z:2015-03-15T00:00:00Z", "2014:"). It returns
// timestamp digits, FROM:TO for a range, as mementomap.ParseDatetime and
// the lookups of package mementomap read them. An error is a
// *DatetimeError.
func ParseSpan(s string) (string, error) {
	d, _, why, err := parseOne(s)
	if why == "" {
		return d, nil
	}
	if !strings.Contains(s, ":") {
		return "", &DatetimeError{Value: s, Reason: why, Span: true, err: err}
	}
	// An RFC 3339 instant holds colons too: the range's colon is the one
	// both of whose sides are datetimes (or empty). The error named is
	// that of the first split whose FROM is one, else that of s whole.
	for i := 0; i < len(s); i++ {
		if s[i] != ':' {
			continue
		}
		from, to, e := spanEnds(s, s[:i], s[i+1:])
		if e == nil {
			return from + ":" + to, nil
		}
		if e.Reason != "" {
			return "", e
		}
	}
	return "", &DatetimeError{Value: s, Reason: why, Span: true, err: err}
}

// spanEnds reads the two ends of the range s and checks their order. A
// FROM that is no datetime gives an error without a Reason: s may be cut
// elsewhere.
func spanEnds(s, from, to string) (string, string, *DatetimeError) {
	var ends [2]string
	for j, v := range [2]string{from, to} {
		if v == "" {
			continue
		}
		d, _, why, err := parseOne(v)
		if why != "" && j == 0 {
			return "", "", &DatetimeError{}
		}
		if why != "" {
			return "", "", &DatetimeError{Value: s, Reason: "TO " + strconv.Quote(v) + ": " + why, Span: true, err: err}
		}
		ends[j] = d
	}
	if _, _, err := timestamp.Bounds(ends[0], ends[1]); err != nil {
		return "", "", &DatetimeError{Value: s, Reason: "FROM " + strconv.Quote(from) + " is after TO " + strconv.Quote(to), Span: true, err: err}
	}
	return ends[0], ends[1], nil
}
