package memento

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"
)

// TestAppendHTTPDate: AppendHTTPDate and FormatHTTPDate write the IMF-fixdate is what time.Format
// writes with http.TimeFormat, over random instants of years 0-9999, the
// edges of days, months and years, other zones, and years outside 0-9999
// (which take Format's path).
func TestAppendHTTPDate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	lo, hi := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	ts := []time.Time{
		time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC), time.Date(2000, 2, 29, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2005, 3, 1, 1, 0, 0, 0, time.FixedZone("X", 5*3600)), time.Date(-1, 6, 1, 0, 0, 0, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for range 100_000 {
		ts = append(ts, time.Unix(lo+rng.Int64N(hi-lo), 0))
	}
	for _, tm := range ts {
		want := tm.UTC().Format(http.TimeFormat)
		if got := string(AppendHTTPDate([]byte("x"), tm)); got != "x"+want {
			t.Fatalf("%v: %q, want %q", tm, got, "x"+want)
		}
		if got := FormatHTTPDate(tm); got != want {
			t.Fatalf("FormatHTTPDate(%v) = %q, want %q", tm, got, want)
		}
	}
}

// TestStrictHTTPDate: ParseHTTPDate (and its fast path, which
// ParseHTTPDateLenient tries first) reads what time.Parse with
// http.TimeFormat reads (the same instant), over random instants of the
// years 0-9999 and the edges of months and leap years, and refuses what
// it refuses or what is not the exact form: days past a month's end,
// fields out of range, other zones, the zero time, wrong names and
// lengths.
func TestStrictHTTPDate(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	lo, hi := time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC).Unix(), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	in := []string{
		"Sun, 06 Nov 1994 08:49:37 GMT", "Tue, 29 Feb 2000 23:59:59 GMT", "Mon, 29 Feb 1900 00:00:00 GMT",
		"Wed, 29 Feb 2023 00:00:00 GMT", "Thu, 31 Apr 2005 12:00:00 GMT", "Fri, 00 Jan 2005 12:00:00 GMT",
		"Sat, 01 Jan 0001 00:00:00 GMT", "Sat, 01 Jan 0001 00:00:01 GMT", "Sat, 01 Jan 0000 00:00:00 GMT",
		"Fri, 31 Dec 9999 23:59:59 GMT", "Fri, 01 Jan 2005 24:00:00 GMT", "Fri, 01 Jan 2005 23:60:00 GMT",
		"Fri, 01 Jan 2005 23:59:60 GMT", "Fri, 01 Jan 2005 23:59:59 UTC", "Fri, 01 Jan 2005 23:59:59 gmt",
		"Fry, 01 Jan 2005 23:59:59 GMT", "Fri, 01 Jam 2005 23:59:59 GMT", "Fri, 1 Jan 2005 23:59:59 GMT",
		"Fri, 01 Jan 2005 23:59:59 GMT ", "Fri, 0x Jan 2005 23:59:59 GMT", "Fri, 01 Jan 20o5 23:59:59 GMT",
		"Mon, 01 Jan 2005 23:59:59 GMT", // a wrong weekday is read, as time.Parse reads it
	}
	for range 100_000 {
		in = append(in, time.Unix(lo+rng.Int64N(hi-lo), 0).UTC().Format(http.TimeFormat))
	}
	for _, s := range in {
		want, err := time.Parse(http.TimeFormat, s)
		ok := err == nil && !want.IsZero()
		got, gotOK := parseRFC1123Fast(s)
		if gotOK != ok || ok && (!got.Equal(want) || got.Location() != time.UTC) {
			t.Fatalf("%q: %v %v, want %v %v", s, got, gotOK, want, ok)
		}
		if pt, err := ParseHTTPDate(s); (err == nil) != ok || ok && !pt.Equal(got) {
			t.Fatalf("ParseHTTPDate(%q) = %v, %v; want %v %v", s, pt, err, want, ok)
		}
	}
}
