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

// Set reads s by ParseBytes.
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

// ParseTime reads an instant: RFC 3339 ("2026-12-01T00:00:00Z", an offset
// other than Z allowed) or a timestamp in UTC by the rule of package
// timestamp (4 to 17 digits, the earliest instant they name: "20261201"
// is 2026-12-01T00:00:00Z). The result is in UTC. An error names s and,
// for digits, wraps timestamp.ErrInvalid.
func ParseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if s != "" && strings.Trim(s, "0123456789") == "" {
		t, err := timestamp.Parse(s)
		if err != nil {
			return time.Time{}, fmt.Errorf("%q: %w", s, err)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("invalid time %q (RFC 3339 such as 2026-12-01T00:00:00Z, or a timestamp of 4 to 17 digits YYYYMMDDhhmmss in UTC)", s)
}

// Datetime reads a datetime given on a command line that may name a span of
// time (mementomap lookup -at) by the rule of ParseTime, widened to spans:
// an instant in RFC 3339 ("2015-03-14T12:00:00Z", any offset) becomes its
// timestamp in UTC (timestamp.Format: 14 digits, 17 when it has
// milliseconds); any other value, timestamp digits that stand for the
// period they name ("2015", "20150314") or a range "FROM:TO" of two, is
// returned as it is, for the command's own parser of datetimes
// (mementomap.ParseDatetime) to check.
func Datetime(s string) string {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return timestamp.Format(t)
	}
	return s
}
