package aggregator

import (
	"math/rand/v2"
	"net/http"
	"testing"
	"time"
)

// TestAppendHTTPDate: the hand-written IMF-fixdate is what time.Format
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
		if got := string(appendHTTPDate([]byte("x"), tm)); got != "x"+want {
			t.Fatalf("%v: %q, want %q", tm, got, "x"+want)
		}
		if got := httpDate(tm); got != want {
			t.Fatalf("httpDate(%v) = %q, want %q", tm, got, want)
		}
	}
}
