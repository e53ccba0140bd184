package memento

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

// Datetime errors.
var (
	// ErrHTTPDate: a value is not an RFC 7089 §2.1.1 rfc1123-date
	// ("Sun, 06 Nov 1994 08:49:37 GMT").
	ErrHTTPDate = errors.New("not an rfc1123-date (want e.g. \"Sun, 06 Nov 1994 08:49:37 GMT\")")
)

// ParseHTTPDate parses an Accept-Datetime, Memento-Datetime or link
// datetime/from/until value in the strict RFC 7089 §2.1.1 form
// "Mon, 02 Jan 2006 15:04:05 GMT" (http.TimeFormat): English day and month
// names with their case, two-digit day and hour, four-digit year, literal
// "GMT". The weekday's spelling is checked but, as with time.Parse, its
// agreement with the date is not (RFC 7089's own examples contain wrong
// weekdays). It is stricter than time.Parse(http.TimeFormat), which also
// accepts lower-case names and a one-digit hour that the RFC grammar does
// not allow, and than time.RFC1123, which accepts any zone ("PST",
// "+0000"). The result is in UTC and parsing does not allocate. A TimeGate
// answers 400 when this fails (RFC 7089 §4.5.3). The zero time.Time
// (0001-01-01 00:00:00) is refused: this package uses it for "absent".
// Errors wrap ErrHTTPDate.
func ParseHTTPDate(s string) (time.Time, error) {
	if t, ok := parseRFC1123Fast(s); ok {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("memento: %q: %w", s, ErrHTTPDate)
}

// FormatHTTPDate writes t as an rfc1123-date in GMT
// ("Tue, 20 Jun 2000 18:02:59 GMT"), converting to UTC first, as RFC 7089
// §2.1.1 requires for Accept-Datetime, Memento-Datetime and link datetimes.
// It is AppendHTTPDate's text.
func FormatHTTPDate(t time.Time) string {
	return string(AppendHTTPDate(make([]byte, 0, len(http.TimeFormat)), t))
}

// lenientLayouts are the datetime forms archives have been seen to send in
// place of an rfc1123-date. Zone abbreviations are not among them: Go
// invents a zero offset for unknown abbreviations.
var lenientLayouts = []string{
	http.TimeFormat,                   // canonical
	"Mon, 02 Jan 2006 15:04:05 UTC",   // UTC for GMT
	"Mon, 2 Jan 2006 15:04:05 GMT",    // one-digit day
	"Mon, 02 Jan 2006 15:04:05 -0700", // numeric zone (converted)
	"Mon, 2 Jan 2006 15:04:05 -0700",  //
	"Mon, 02 Jan 2006 15:04:05",       // zone missing: read as GMT
	"Monday, 02-Jan-06 15:04:05 GMT",  // RFC 850 (obsolete HTTP-date)
	"Mon Jan _2 15:04:05 2006",        // asctime (obsolete HTTP-date)
	"02 Jan 2006 15:04:05 GMT",        // weekday missing
	"Mon, 02 Jan 2006",                // date only (Time Travel accepts it)
	time.RFC3339Nano,                  // 2018-07-04T12:00:00Z
	"2006-01-02T15:04:05",             // ISO without zone: GMT
	"2006-01-02 15:04:05",             //
	"Monday, 02 January 2006 15:04:05 GMT",
}

// ParseHTTPDateLenient parses the datetime variants real archives send
// where an rfc1123-date belongs: the strict form; "UTC" for "GMT"; a
// one-digit day; a numeric zone (converted to UTC); a missing zone (taken
// as GMT); the obsolete RFC 850 and asctime HTTP-date forms (RFC 9110
// §5.6.7); no weekday; a date without time; RFC 3339. Surrounding
// whitespace is ignored and names are matched case-insensitively. Zone
// names other than GMT and UTC are rejected rather than guessed, and so is
// the zero time.Time. The result is in UTC; errors wrap ErrHTTPDate. Use ParseHTTPDate where the
// protocol demands the strict form (TimeGate Accept-Datetime).
func ParseHTTPDateLenient(s string) (time.Time, error) {
	if t, ok := parseRFC1123Fast(s); ok {
		return t, nil
	}
	v := normalizeDateCase(strings.Join(strings.Fields(s), " "))
	// asctime pads one-digit days with a space that Fields removed.
	for _, layout := range lenientLayouts {
		if t, err := time.Parse(layout, v); err == nil && !t.IsZero() {
			return t.UTC(), nil
		}
		if layout == "Mon Jan _2 15:04:05 2006" {
			if t, err := time.Parse("Mon Jan 2 15:04:05 2006", v); err == nil && !t.IsZero() {
				return t.UTC(), nil
			}
		}
	}
	return time.Time{}, fmt.Errorf("memento: %q: %w", s, ErrHTTPDate)
}

// normalizeDateCase capitalises English day and month names and upper-cases
// GMT/UTC so that "sun, 06 nov 1994 08:49:37 gmt" parses.
func normalizeDateCase(s string) string {
	b := []byte(s)
	for i := 0; i < len(b); {
		if !isLetter(b[i]) {
			i++
			continue
		}
		j := i
		for j < len(b) && isLetter(b[j]) {
			j++
		}
		w := strings.ToLower(string(b[i:j]))
		switch {
		case w == "gmt" || w == "utc" || w == "t" || w == "z":
			for k := i; k < j; k++ {
				b[k] &^= 0x20
			}
		case j-i >= 3:
			b[i] &^= 0x20
			for k := i + 1; k < j; k++ {
				b[k] |= 0x20
			}
		}
		i = j
	}
	return string(b)
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// parseTimestamp parses a timestamp by the one rule of package timestamp
// and refuses the zero time.Time ("0001"), which means "absent" here.
func parseTimestamp(s string) (time.Time, error) {
	t, err := timestamp.Parse(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("memento: %w", err)
	}
	if t.IsZero() {
		return time.Time{}, fmt.Errorf("memento: %w: %q is the zero time, which means \"absent\"", timestamp.ErrInvalid, s)
	}
	return t, nil
}

// ParseDatetime parses a datetime given by a person or in a URL path: a
// timestamp of 4 to 17 digits (the earliest instant it covers, by the rule of
// package timestamp; an error wraps timestamp.ErrInvalid) or an HTTP date in
// one of the forms ParseHTTPDateLenient reads. The result is in UTC. The zero
// time.Time ("0001") is refused: this package uses it for "absent".
func ParseDatetime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s != "" && s[0] >= '0' && s[0] <= '9' && !strings.ContainsAny(s, "-: ") {
		return parseTimestamp(s)
	}
	return ParseHTTPDateLenient(s)
}

// AcceptDatetime reads the Accept-Datetime header of a TimeGate request
// for a server (RFC 7089 §2.1.1). present is false when the header is
// absent: the TimeGate then answers with the most recent memento. A value
// that is not a strict rfc1123-date gives an error wrapping ErrHTTPDate, to
// be answered with 400 Bad Request (RFC 7089 §4.5.3); so do several
// Accept-Datetime fields.
func AcceptDatetime(h http.Header) (t time.Time, present bool, err error) {
	vs := h.Values("Accept-Datetime")
	switch len(vs) {
	case 0:
		return time.Time{}, false, nil
	case 1:
		t, err = ParseHTTPDate(strings.TrimSpace(vs[0]))
		return t, true, err
	}
	return time.Time{}, true, fmt.Errorf("memento: %d Accept-Datetime fields: %w", len(vs), ErrHTTPDate)
}
