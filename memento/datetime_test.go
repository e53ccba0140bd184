package memento

import (
	"errors"
	"testing"
	"time"

	"github.com/mementokit/mementokit/timestamp"
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
		name, in string
		want     time.Time
		ok       bool
	}{
		{"year", "2005", time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC), true},
		{"month", "201206", time.Date(2012, 6, 1, 0, 0, 0, 0, time.UTC), true},
		{"seconds", "20120615080910", time.Date(2012, 6, 15, 8, 9, 10, 0, time.UTC), true},
		{"HTTP date", "Fri, 15 Jun 2012 08:09:10 GMT", time.Date(2012, 6, 15, 8, 9, 10, 0, time.UTC), true},
		{"RFC 3339", "2012-06-15T08:09:10Z", time.Date(2012, 6, 15, 8, 9, 10, 0, time.UTC), true},
		{"odd length narrows as in a CDX query", "20051", time.Date(2005, 10, 1, 0, 0, 0, 0, time.UTC), true},
		{"milliseconds", "20230426095158263", time.Date(2023, 4, 26, 9, 51, 58, 263e6, time.UTC), true},
		{"the zero time means absent", "0001", time.Time{}, false},
		{"18 digits", "202304260951582630", time.Time{}, false},
		{"month 13", "20051301", time.Time{}, false},
		{"30 February", "20050230", time.Time{}, false},
		{"hour 24", "2005030124", time.Time{}, false},
		{"minute 60", "200503011260", time.Time{}, false},
		{"a letter", "2005x3", time.Time{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDatetime(tc.in)
			if (err == nil) != tc.ok || !got.Equal(tc.want) {
				t.Errorf("ParseDatetime(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
			}
			if err != nil && tc.in[0] >= '0' && tc.in[0] <= '9' && !errors.Is(err, timestamp.ErrInvalid) {
				t.Errorf("ParseDatetime(%q) error %v does not wrap timestamp.ErrInvalid", tc.in, err)
			}
		})
	}
}
