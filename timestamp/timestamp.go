// Package timestamp reads and writes the digit timestamps of web archives:
// YYYY[MM[DD[hh[mm[ss[SSS]]]]]] in UTC, the second field of a CDX or CDXJ
// line, the {datetime} of a Wayback URI-M (/web/20010101120000/URI-R), the
// from and to of a CDX server query, and the key of a CDXJ TimeMap.
//
// # The rule
//
// A timestamp is 4 to 17 ASCII digits. 14 digits is the usual second
// precision; 12 digits (200101011200) is minute precision; 17 digits
// (20230426095158263) carry milliseconds, as WARC-Date allows (WARC 1.1
// section 5.4 permits fractional seconds). A shorter value stands for the
// period it names and, where one instant is wanted, for the earliest instant
// of that period: 2005 is 2005-01-01T00:00:00Z and 200101011200 is
// 2001-01-01T12:00:00Z. A digit that ends a value mid-field narrows it the
// way the Wayback CDX servers (OpenWayback, pywb, OutbackCDX) pad a partial
// from or to: 20141 is October to December 2014. Every field must be in
// range (month 01-12, day within its month by the proleptic Gregorian
// calendar, hour 00-23, minute and second 00-59); errors wrap ErrInvalid.
//
// Timestamps sort byte-wise, never as numbers: 20230426095158263 sorts after
// 20230426095158 and before 20230426095159. Digits, a timestamp padded to
// its 17 digits, compares byte-wise in time order.
//
// # Which function
//
// Parse turns digits into a time.Time and Format (or Append) turns a
// time.Time back into 14 digits, or 17 when it has milliseconds. Earliest and
// Latest pad digits to the first or last millisecond they cover, without
// allocating. Bounds pads the from and to of a CDX server query to inclusive
// bounds and InRange tests a timestamp against them.
package timestamp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// ErrInvalid is the cause every error of this package wraps: a value that
// is not 4 to 17 ASCII digits, or whose month, day, hour, minute or second
// is out of range, or a from bound after its to bound.
var ErrInvalid = errors.New("invalid timestamp")

const (
	minDigits = 4
	maxDigits = 17
)

// Digits is a timestamp padded to its full 17 digits YYYYMMDDhhmmssSSS, as
// Earliest and Latest return it. Byte-wise order of Digits is time order,
// whatever the lengths of the timestamps they were padded from.
type Digits [17]byte

// Earliest pads ts (4 to 17 digits) to the first millisecond it covers:
// "2014" gives 20140101000000000. An error wraps ErrInvalid. It does not
// allocate unless it fails.
func Earliest[T ~string | ~[]byte](ts T) (Digits, error) {
	var d Digits
	if len(ts) == 14 && earliest14(&d, ts) {
		return d, nil
	}
	err := pad(&d, ts, false)
	return d, err
}

// earliest14 is pad's lower bound for the usual 14 digits YYYYMMDDhhmmss
// of CDX: it reports whether ts is a valid such timestamp, then in dst with
// "000" milliseconds; false leaves the judgement (and the error) to pad.
// The digits are checked eight at a time: a byte is a digit when its high
// nibble is 3 and adding 6 to it leaves that nibble 3.
func earliest14[T ~string | ~[]byte](dst *Digits, ts T) bool {
	n := copy(dst[:], ts)
	if n != 14 {
		return false
	}
	dst[14], dst[15], dst[16] = '0', '0', '0'
	const nib, three, six = 0xf0f0f0f0f0f0f0f0, 0x3030303030303030, 0x0606060606060606
	a, b := binary.LittleEndian.Uint64(dst[0:8]), binary.LittleEndian.Uint64(dst[8:16])
	if a&nib != three || (a+six)&nib != three || b&nib != three || (b+six)&nib != three {
		return false
	}
	month, day := d2(dst[:], 4), d2(dst[:], 6)
	if month < 1 || month > 12 || day < 1 || day > 28 && day > daysIn(Digits(*dst).Year(), month) {
		return false
	}
	return d2(dst[:], 8) <= 23 && d2(dst[:], 10) <= 59 && d2(dst[:], 12) <= 59
}

// Latest pads ts (4 to 17 digits) to the last millisecond it covers:
// "201402" gives 20140228235959999. An error wraps ErrInvalid. It does not
// allocate unless it fails.
func Latest[T ~string | ~[]byte](ts T) (Digits, error) {
	var d Digits
	err := pad(&d, ts, true)
	return d, err
}

// Time returns the instant d stands for, in UTC, at millisecond precision.
func (d Digits) Time() time.Time {
	ms := int(d[14]-'0')*100 + int(d[15]-'0')*10 + int(d[16]-'0')
	return time.Date(d.Year(), time.Month(d2(d[:], 4)), d2(d[:], 6), d2(d[:], 8), d2(d[:], 10), d2(d[:], 12),
		ms*int(time.Millisecond), time.UTC)
}

// Year returns the year of d (0 to 9999) without building a time.Time.
func (d Digits) Year() int {
	return int(d[0]-'0')*1000 + int(d[1]-'0')*100 + int(d[2]-'0')*10 + int(d[3]-'0')
}

// String returns the 17 digits.
func (d Digits) String() string { return string(d[:]) }

// daysIn returns the number of days of month m (1-12) in year y, by the
// proleptic Gregorian calendar.
func daysIn(y, m int) int {
	switch m {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

func d2(b []byte, i int) int { return int(b[i]-'0')*10 + int(b[i+1]-'0') }

// checkDigits returns a cause when ts is not 4-17 ASCII digits.
func checkDigits[T ~string | ~[]byte](ts T) error {
	if len(ts) < minDigits || len(ts) > maxDigits {
		return causef(ErrInvalid, "%q has %d characters, want 4 to 17 digits", clip(ts), len(ts))
	}
	for i := 0; i < len(ts); i++ {
		if c := ts[i]; c < '0' || c > '9' {
			return causef(ErrInvalid, "%q is not all digits", clip(ts))
		}
	}
	return nil
}

// pad expands ts (4-17 digits) into the 17 digits of the earliest
// (upper == false) or latest (upper == true) instant it covers, and checks
// that this is a valid date and time.
func pad[T ~string | ~[]byte](dst *Digits, ts T, upper bool) error {
	if err := checkDigits(ts); err != nil {
		return err
	}
	n := copy(dst[:], ts)
	year := int(dst[0]-'0')*1000 + int(dst[1]-'0')*100 + int(dst[2]-'0')*10 + int(dst[3]-'0')
	// Month, positions 4-5.
	switch {
	case n <= 4:
		if upper {
			dst[4], dst[5] = '1', '2'
		} else {
			dst[4], dst[5] = '0', '1'
		}
	case n == 5:
		switch {
		case dst[4] == '0' && upper:
			dst[5] = '9'
		case dst[4] == '0':
			dst[5] = '1'
		case upper:
			dst[5] = '2'
		default:
			dst[5] = '0'
		}
	}
	month := d2(dst[:], 4)
	if month < 1 || month > 12 {
		return causef(ErrInvalid, "%q: month %02d out of range 01-12", clip(ts), month)
	}
	dim := daysIn(year, month)
	// Day, positions 6-7.
	switch {
	case n <= 6:
		if upper {
			dst[6], dst[7] = byte('0'+dim/10), byte('0'+dim%10)
		} else {
			dst[6], dst[7] = '0', '1'
		}
	case n == 7:
		tens := int(dst[6] - '0')
		switch {
		case upper:
			d := min(tens*10+9, dim)
			dst[7] = byte('0' + d%10)
			if d/10 != tens {
				dst[7] = '9' // out of range; reported below
			}
		case tens == 0:
			dst[7] = '1'
		default:
			dst[7] = '0'
		}
	}
	day := d2(dst[:], 6)
	if day < 1 || day > dim {
		return causef(ErrInvalid, "%q: day %02d out of range for %04d-%02d", clip(ts), day, year, month)
	}
	// Hour, minute, second, millisecond.
	for i := max(n, 8); i < 17; i++ {
		switch {
		case !upper:
			dst[i] = '0'
		case i == 8: // hour tens digit
			dst[i] = '2'
		case i == 9: // hour ones digit
			if dst[8] == '2' {
				dst[i] = '3'
			} else {
				dst[i] = '9'
			}
		case i == 10 || i == 12: // minute or second tens digit
			dst[i] = '5'
		default:
			dst[i] = '9'
		}
	}
	if h := d2(dst[:], 8); h > 23 {
		return causef(ErrInvalid, "%q: hour %02d out of range 00-23", clip(ts), h)
	}
	if m := d2(dst[:], 10); m > 59 {
		return causef(ErrInvalid, "%q: minute %02d out of range 00-59", clip(ts), m)
	}
	if s := d2(dst[:], 12); s > 59 {
		return causef(ErrInvalid, "%q: second %02d out of range 00-59", clip(ts), s)
	}
	return nil
}

// Parse parses a timestamp of 4 to 17 digits into the earliest instant it
// covers, in UTC: "2005" is 2005-01-01T00:00:00Z, "200101011200" is
// 2001-01-01T12:00:00Z and "20230426095158263" is 2023-04-26T09:51:58.263Z.
// An error wraps ErrInvalid: a month outside 01-12, a day past the end of
// its month, an hour over 23, a minute or second over 59, a non-digit, or a
// length outside 4-17. "0001" parses as the zero time.Time; a caller that
// uses the zero time for "absent" must refuse it.
func Parse[T ~string | ~[]byte](ts T) (time.Time, error) {
	d, err := Earliest(ts)
	if err != nil {
		return time.Time{}, err
	}
	return d.Time(), nil
}

// Format returns t in UTC as the 14 digits YYYYMMDDhhmmss of CDX, CDXJ and
// Wayback URI-Ms, or as 17 digits (milliseconds appended) when t has a part
// of at least a millisecond; a smaller remainder is dropped. Years outside
// 0000-9999 are not representable: t is clamped into that range.
func Format(t time.Time) string {
	return string(Append(make([]byte, 0, maxDigits), t))
}

// Append appends Format(t) to dst and returns the extended slice.
func Append(dst []byte, t time.Time) []byte {
	t = t.UTC()
	if t.Year() < 0 {
		t = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if t.Year() > 9999 {
		t = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	}
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	dst = appendInt(dst, y, 4)
	dst = appendInt(dst, int(mo), 2)
	dst = appendInt(dst, d, 2)
	dst = appendInt(dst, h, 2)
	dst = appendInt(dst, mi, 2)
	dst = appendInt(dst, s, 2)
	if ms := t.Nanosecond() / int(time.Millisecond); ms > 0 {
		dst = appendInt(dst, ms, 3)
	}
	return dst
}

// appendInt appends v in exactly width decimal digits (v < 10^width).
func appendInt(b []byte, v, width int) []byte {
	var tmp [4]byte
	for i := width - 1; i >= 0; i-- {
		tmp[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, tmp[:width]...)
}

// Bounds turns the from and to parameters of a CDX server query (each 4 to
// 17 digits, or empty for no bound) into inclusive bounds of the same kind as
// a record's timestamp: from is padded to the earliest instant it covers and
// to to the latest, so from=2014 to=2014 gives "20140101000000" and
// "20141231235959". The bounds have 14 digits, or 17 when the input had more
// than 14. An empty input gives an empty bound. An error wraps ErrInvalid,
// also when from is after to. Compare a timestamp against the bounds with
// InRange, which handles the millisecond digits correctly.
//
// This follows the padding the Wayback CDX servers (OpenWayback, pywb,
// OutbackCDX) apply to partial from/to values.
func Bounds(from, to string) (lo, hi string, err error) {
	var lp, hp Digits
	if from != "" {
		if err := pad(&lp, from, false); err != nil {
			return "", "", err
		}
		lo = string(lp[:max(14, len(from))])
	}
	if to != "" {
		if err := pad(&hp, to, true); err != nil {
			return "", "", err
		}
		hi = string(hp[:max(14, len(to))])
	}
	if lo != "" && hi != "" && lp.compare(&hp) > 0 {
		return "", "", causef(ErrInvalid, "from %q is after to %q", from, to)
	}
	return lo, hi, nil
}

func (d *Digits) compare(e *Digits) int {
	for i := range d {
		if d[i] != e[i] {
			if d[i] < e[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// InRange reports whether the timestamp ts (4-17 digits) lies within the
// inclusive bounds lo and hi (as Bounds returns them; an empty bound is
// open). It compares at millisecond precision: ts and lo stand for their
// earliest instant, hi for its latest, so a 17-digit 20141231235959500 is
// within to=2014. An invalid ts is never in range; a bound of 14 or 17
// digits is taken as it is, a shorter one is padded (and must be a valid
// date, or nothing is in range). It does not allocate.
func InRange[T ~string | ~[]byte](ts T, lo, hi string) bool {
	var t, b Digits
	if pad(&t, ts, false) != nil {
		return false
	}
	if lo != "" {
		if padBound(&b, lo, false) != nil || t.compare(&b) < 0 {
			return false
		}
	}
	if hi != "" {
		if padBound(&b, hi, true) != nil || t.compare(&b) > 0 {
			return false
		}
	}
	return true
}

// padBound is pad for a bound. A bound of 14 or 17 digits (what Bounds
// returns) is only extended with its milliseconds, not re-checked as a date.
func padBound(dst *Digits, s string, upper bool) error {
	if (len(s) == 14 || len(s) == 17) && isDigits(s) {
		copy(dst[:], s)
		if len(s) == 14 {
			if upper {
				dst[14], dst[15], dst[16] = '9', '9', '9'
			} else {
				dst[14], dst[15], dst[16] = '0', '0', '0'
			}
		}
		return nil
	}
	return pad(dst, s, upper)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// causef returns an error that wraps sentinel with a detail message.
func causef(sentinel error, format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{sentinel}, args...)...)
}

// clip shortens b for an error message.
func clip[T ~string | ~[]byte](b T) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
