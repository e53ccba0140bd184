package aggregator

import (
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// TestDateWriterMatchesAppendHTTPDate: a dateWriter writes every datetime
// of a sequence as memento.AppendHTTPDate does: the same day again,
// another day, days before 1970 and around the years 0 and 9999 (past
// which the strict form ends).
func TestDateWriterMatchesAppendHTTPDate(t *testing.T) {
	var seq []time.Time
	for _, d := range []time.Time{
		time.Date(2000, 6, 20, 18, 2, 59, 0, time.UTC), time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(0, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(-1, 12, 31, 23, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		seq = append(seq, d, d.Add(time.Hour), d.Add(-time.Hour), d.Add(-time.Hour), d.Add(6*time.Hour), d.Add(time.Second))
	}
	var w dateWriter
	hits := 0
	for _, d := range seq {
		if w.kept && d.Unix() >= 0 && d.Unix()/86400 == w.days {
			hits++
		}
		if got, want := string(w.append([]byte("x"), d)), "x"+string(memento.AppendHTTPDate(nil, d)); got != want {
			t.Errorf("append(%v) = %q, want %q", d, got, want)
		}
	}
	if hits < 3 {
		t.Errorf("%d datetimes of the day kept, want at least 3", hits)
	}
}

// FuzzDateWriter: after one datetime, another is written as
// memento.AppendHTTPDate writes it.
func FuzzDateWriter(f *testing.F) {
	f.Add(int64(961524179), int64(3600))
	f.Add(int64(-62167219200), int64(-1))
	f.Add(int64(253402300799), int64(1))
	f.Fuzz(func(t *testing.T, sec, delta int64) {
		var w dateWriter
		for _, s := range []int64{sec, sec + delta} {
			d := time.Unix(s, 0).UTC()
			if got, want := string(w.append(nil, d)), string(memento.AppendHTTPDate(nil, d)); got != want {
				t.Fatalf("after %d: append(%v) = %q, want %q", sec, d, got, want)
			}
		}
	})
}
