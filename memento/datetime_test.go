package memento

import (
	"errors"
	"testing"
	"time"
)

func TestParseHTTPDateLenient(t *testing.T) {
	want := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	for _, tc := range []struct {
		name, in string
		ok       bool
	}{
		{"canonical", "Sun, 06 Nov 1994 08:49:37 GMT", true},
		{"UTC for GMT", "Sun, 06 Nov 1994 08:49:37 UTC", true},
		{"lower case", "sun, 06 nov 1994 08:49:37 gmt", true},
		{"one-digit day", "Sun, 6 Nov 1994 08:49:37 GMT", true},
		{"numeric zone", "Sun, 06 Nov 1994 10:49:37 +0200", true},
		{"no zone", "Sun, 06 Nov 1994 08:49:37", true},
		{"RFC 850", "Sunday, 06-Nov-94 08:49:37 GMT", true},
		{"asctime", "Sun Nov  6 08:49:37 1994", true},
		{"no weekday", "06 Nov 1994 08:49:37 GMT", true},
		{"RFC 3339", "1994-11-06T08:49:37Z", true},
		{"RFC 3339 offset", "1994-11-06T09:49:37+01:00", true},
		{"ISO without zone", "1994-11-06T08:49:37", true},
		{"surrounding space", "  Sun, 06 Nov 1994 08:49:37 GMT \t", true},
		{"named zone", "Sun, 06 Nov 1994 08:49:37 PST", false},
		{"garbage", "yesterday", false},
		{"empty", "", false},
		{"truncated", "Thu, 01 Apr 2010 12:00:00 G", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseHTTPDateLenient(tc.in)
			if !tc.ok {
				if err == nil || !errors.Is(err, ErrHTTPDate) {
					t.Errorf("got %v, %v; want an ErrHTTPDate", got, err)
				}
				return
			}
			if err != nil || !got.Equal(want) || got.Location() != time.UTC {
				t.Errorf("got %v, %v; want %v", got, err, want)
			}
		})
	}
	// A date without time is midnight.
	if got, err := ParseHTTPDateLenient("Sun, 06 Nov 1994"); err != nil || !got.Equal(time.Date(1994, 11, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date only: %v %v", got, err)
	}
}

func TestParseDatetime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"2005", time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"201206", time.Date(2012, 6, 1, 0, 0, 0, 0, time.UTC), true},
		{"20120615080910", time.Date(2012, 6, 15, 8, 9, 10, 0, time.UTC), true},
		{"Fri, 15 Jun 2012 08:09:10 GMT", time.Date(2012, 6, 15, 8, 9, 10, 0, time.UTC), true},
		{"2012-06-15T08:09:10Z", time.Date(2012, 6, 15, 8, 9, 10, 0, time.UTC), true},
		{"20051", time.Time{}, false},
		{"20051301", time.Time{}, false},
		{"20050230", time.Time{}, false},
		{"2005030124", time.Time{}, false},
		{"200503011260", time.Time{}, false},
		{"2005x3", time.Time{}, false},
	} {
		got, err := ParseDatetime(tc.in)
		if (err == nil) != tc.ok || !got.Equal(tc.want) {
			t.Errorf("ParseDatetime(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

func TestFormatTimestamp(t *testing.T) {
	for _, tc := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(1996, 12, 21, 3, 12, 31, 0, time.UTC), "19961221031231"},
		{time.Date(2010, 5, 15, 1, 18, 57, 999, time.FixedZone("CEST", 7200)), "20100514231857"},
		{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), "00010101000000"},
	} {
		if got := FormatTimestamp(tc.in); got != tc.want {
			t.Errorf("FormatTimestamp(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
