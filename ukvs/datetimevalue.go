package ukvs

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mementokit/mementokit/timestamp"
)

// ErrDatetimeValue is wrapped by every error of [ParseDatetimeValue].
var ErrDatetimeValue = errors.New("ukvs: invalid datetime value")

// DatetimeValue is a time-breakdown value of the UKVS "datetime" field (ORS draft
// ukvs.md, "The datetime Field"): a prefix of a 14-digit Memento datetime
// (YYYYMMDDhhmmss, UTC) standing for the whole year, month, day, hour,
// minute or second it names, or a range of two such prefixes separated by a
// colon, either end of which may be open:
//
//	2014            the year 2014
//	201603          March 2016
//	2010:2012       from the start of 2010 to the end of 2012 (inclusive)
//	:2009           up to the end of 2009
//	201603:         from March 2016 on
//	:               all time (the draft's placeholder for "not broken down")
//
// A prefix has 4, 6, 8, 10, 12 or 14 digits and must name a real date
// (month 01–12, a day that exists in that month, hour 00–23, minute and
// second 00–59). [ParseDatetimeValue] and [DatetimeValue.String] round-trip exactly.
type DatetimeValue struct {
	From  string // first prefix ("" when open); equals To when not a range
	To    string // last prefix ("" when open)
	Range bool   // written with a ':'
}

// ParseDatetimeValue parses a datetime field value (see [DatetimeValue]). Errors wrap
// [ErrDatetimeValue] and name the offending part.
func ParseDatetimeValue(s string) (DatetimeValue, error) {
	from, to, isRange := strings.Cut(s, ":")
	if !isRange {
		if s == "" {
			return DatetimeValue{}, fmt.Errorf("%w %q: empty", ErrDatetimeValue, s)
		}
		if err := checkPrefix(s); err != nil {
			return DatetimeValue{}, fmt.Errorf("%w %q: %v", ErrDatetimeValue, s, err)
		}
		return DatetimeValue{From: s, To: s}, nil
	}
	p := DatetimeValue{From: from, To: to, Range: true}
	if from != "" {
		if err := checkPrefix(from); err != nil {
			return DatetimeValue{}, fmt.Errorf("%w %q: start: %v", ErrDatetimeValue, s, err)
		}
	}
	if to != "" {
		if err := checkPrefix(to); err != nil {
			return DatetimeValue{}, fmt.Errorf("%w %q: end: %v", ErrDatetimeValue, s, err)
		}
	}
	if from != "" && to != "" && p.Lower() > p.Upper() {
		return DatetimeValue{}, fmt.Errorf("%w %q: ends before it starts", ErrDatetimeValue, s)
	}
	return p, nil
}

// String formats p; it is the inverse of [ParseDatetimeValue].
func (p DatetimeValue) String() string {
	if !p.Range {
		return p.From
	}
	return p.From + ":" + p.To
}

// Lower returns the first second p covers as a 14-digit datetime
// ("2010:2012" → "20100101000000"), or "" when p is open at the start.
func (p DatetimeValue) Lower() string {
	if p.From == "" {
		return ""
	}
	d, err := timestamp.Earliest(p.From)
	if err != nil {
		return "" // unreachable for a DatetimeValue from ParseDatetimeValue
	}
	return string(d[:14])
}

// Upper returns the last second p covers as a 14-digit datetime
// ("2010:2012" → "20121231235959", "201602" → "20160229235959"), or "" when
// p is open at the end.
func (p DatetimeValue) Upper() string {
	if p.To == "" {
		return ""
	}
	d, err := timestamp.Latest(p.To)
	if err != nil {
		return "" // unreachable for a DatetimeValue from ParseDatetimeValue
	}
	return string(d[:14])
}

// Contains reports whether the timestamp ts (4 to 17 digits, as in a CDX
// timestamp field; a shorter one stands for the first instant it names)
// falls within p, bounds included. An invalid ts is in no DatetimeValue.
func (p DatetimeValue) Contains(ts string) bool {
	return timestamp.InRange(ts, p.Lower(), p.Upper())
}

// checkPrefix validates a datetime prefix: 4 to 14 digits of even length
// naming a real date (by the rule of package timestamp).
func checkPrefix(s string) error {
	switch len(s) {
	case 4, 6, 8, 10, 12, 14:
	default:
		return fmt.Errorf("%d digits (want 4, 6, 8, 10, 12 or 14)", len(s))
	}
	if _, err := timestamp.Earliest(s); err != nil {
		return err
	}
	return nil
}
