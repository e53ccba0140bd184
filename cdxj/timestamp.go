package cdxj

import (
	"time"
)

// Timestamps in CDX and CDXJ are 4 to 17 ASCII digits, YYYY[MM[DD[hh[mm[ss[SSS]]]]]]
// in UTC: 14 digits is the usual second precision, 12 digits
// (200101011200) is minute precision, 17 digits (20230426095158263)
// carries milliseconds, as WARC-Date allows (WARC 1.1 section 5.4 permits
// fractional seconds). A shorter value stands for the earliest instant it
// covers, so 200101011200 is 2001-01-01T12:00:00Z. Timestamps sort byte-wise
// (never as numbers): 20230426095158263 sorts after 20230426095158 and
// before 20230426095159.

const (
	minTimestampDigits = 4
	maxTimestampDigits = 17
)

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
func checkDigits(ts []byte) error {
	if len(ts) < minTimestampDigits || len(ts) > maxTimestampDigits {
		return causef(ErrTimestamp, "%q has %d characters, want 4 to 17 digits", clip(ts), len(ts))
	}
	for _, c := range ts {
		if c < '0' || c > '9' {
			return causef(ErrTimestamp, "%q is not all digits", clip(ts))
		}
	}
	return nil
}

// padTimestamp expands ts (4-17 digits) into the 17 digits of the earliest
// (upper == false) or latest (upper == true) instant it covers, and checks
// that this is a valid date and time.
func padTimestamp(dst *[17]byte, ts []byte, upper bool) error {
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
		return causef(ErrTimestamp, "%q: month %02d out of range 01-12", clip(ts), month)
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
		return causef(ErrTimestamp, "%q: day %02d out of range for %04d-%02d", clip(ts), day, year, month)
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
		return causef(ErrTimestamp, "%q: hour %02d out of range 00-23", clip(ts), h)
	}
	if m := d2(dst[:], 10); m > 59 {
		return causef(ErrTimestamp, "%q: minute %02d out of range 00-59", clip(ts), m)
	}
	if s := d2(dst[:], 12); s > 59 {
		return causef(ErrTimestamp, "%q: second %02d out of range 00-59", clip(ts), s)
	}
	return nil
}

// ParseTimestamp parses a CDX timestamp of 4 to 17 digits
// (YYYY[MM[DD[hh[mm[ss[SSS]]]]]], UTC) into the earliest instant it covers:
// "200101011200" is 2001-01-01T12:00:00Z and "20230426095158263" is
// 2023-04-26T09:51:58.263Z. An error wraps ErrTimestamp: a month outside
// 01-12, a day past the end of its month, an hour over 23, a minute or second
// over 59, a non-digit, or a length outside 4-17.
func ParseTimestamp(ts []byte) (time.Time, error) {
	var p [17]byte
	if err := padTimestamp(&p, ts, false); err != nil {
		return time.Time{}, err
	}
	return timeOf(&p), nil
}

func timeOf(p *[17]byte) time.Time {
	year := int(p[0]-'0')*1000 + int(p[1]-'0')*100 + int(p[2]-'0')*10 + int(p[3]-'0')
	ms := int(p[14]-'0')*100 + int(p[15]-'0')*10 + int(p[16]-'0')
	return time.Date(year, time.Month(d2(p[:], 4)), d2(p[:], 6), d2(p[:], 8), d2(p[:], 10), d2(p[:], 12),
		ms*int(time.Millisecond), time.UTC)
}

// FormatTimestamp returns t in UTC as the 14 digits YYYYMMDDhhmmss that
// CDX and CDXJ use, or as 17 digits (milliseconds appended) when t has a
// sub-second part. Years outside 0000-9999 are not representable; their
// digits are clamped into that range.
func FormatTimestamp(t time.Time) string {
	t = t.UTC()
	if t.Year() < 0 {
		t = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC)
	} else if t.Year() > 9999 {
		t = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
	}
	if t.Nanosecond() >= int(time.Millisecond) {
		s := t.Format("20060102150405.000")
		return s[:14] + s[15:]
	}
	return t.Format("20060102150405")
}

// TimestampBounds turns the from and to parameters of a CDX server query
// (each 4 to 17 digits, or empty for no bound) into inclusive bounds of the
// same kind as a record's timestamp: from is padded to the earliest instant
// it covers and to to the latest, so from=2014 to=2014 gives
// "20140101000000" and "20141231235959". The bounds have 14 digits, or 17
// when the input had more than 14. An empty input gives an empty bound. An
// error wraps ErrTimestamp. Compare a record against the bounds with
// InRange, which handles the millisecond digits correctly.
//
// This follows the padding the Wayback CDX servers (OpenWayback, pywb,
// OutbackCDX) apply to partial from/to values.
func TimestampBounds(from, to string) (lo, hi string, err error) {
	var p [17]byte
	if from != "" {
		if err := padTimestamp(&p, []byte(from), false); err != nil {
			return "", "", err
		}
		lo = string(p[:max(14, len(from))])
	}
	if to != "" {
		if err := padTimestamp(&p, []byte(to), true); err != nil {
			return "", "", err
		}
		hi = string(p[:max(14, len(to))])
	}
	if lo != "" && hi != "" && compare17(from, to) > 0 {
		return "", "", causef(ErrTimestamp, "from %q is after to %q", from, to)
	}
	return lo, hi, nil
}

// compare17 compares the lower padding of a with the upper padding of b.
func compare17(a, b string) int {
	var pa, pb [17]byte
	if padTimestamp(&pa, []byte(a), false) != nil || padTimestamp(&pb, []byte(b), true) != nil {
		return 0
	}
	return compareBytes(pa[:], pb[:])
}

func compareBytes(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return len(a) - len(b)
}

// InRange reports whether the timestamp ts (4-17 digits) lies within the
// inclusive bounds lo and hi (as TimestampBounds returns them; an empty bound
// is open). It compares at millisecond precision: ts and lo stand for their
// earliest instant, hi for its latest, so a 17-digit 20141231235959500 is
// within to=2014. An invalid ts is never in range; a bound of 14 or 17
// digits is taken as it is, a shorter one is padded (and must be a valid
// date, or nothing is in range). It does not allocate.
func InRange(ts []byte, lo, hi string) bool {
	var t, b [17]byte
	if padTimestamp(&t, ts, false) != nil {
		return false
	}
	if lo != "" {
		if padString(&b, lo, false) != nil || compareBytes(t[:], b[:]) < 0 {
			return false
		}
	}
	if hi != "" {
		if padString(&b, hi, true) != nil || compareBytes(t[:], b[:]) > 0 {
			return false
		}
	}
	return true
}

// padString is padTimestamp for a bound, without allocating. A bound of 14
// or 17 digits (what TimestampBounds returns) is only extended with its
// milliseconds, not re-checked as a date.
func padString(dst *[17]byte, s string, upper bool) error {
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
	var tmp [17]byte
	if len(s) > len(tmp) {
		return causef(ErrTimestamp, "%q is longer than 17 digits", s)
	}
	n := copy(tmp[:], s)
	return padTimestamp(dst, tmp[:n], upper)
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
