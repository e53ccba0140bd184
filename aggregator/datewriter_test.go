package aggregator

import (
	"bytes"
	"strings"
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

// TestWriteMementoLinksMatchesOneByOne: the memento links of a TimeMap
// or of a range of it, written into room grown once, are the bytes of
// writeMementoLink one link at a time, with datetimes past the strict
// years (longer than the room reckoned) among them.
func TestWriteMementoLinksMatchesOneByOne(t *testing.T) {
	var ms []memento.Memento
	t0 := time.Date(2000, 6, 20, 18, 2, 59, 0, time.UTC)
	for i := range 40 {
		d := t0.Add(time.Duration(i) * 5 * time.Hour)
		switch i {
		case 20:
			d = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
		case 21:
			d = time.Date(123456, 3, 1, 12, 0, 0, 0, time.UTC)
		}
		ms = append(ms, memento.Memento{URIM: "http://arc.example/web/" + d.Format("20060102150405") + "/http://ex.com/", Datetime: d})
	}
	for _, r := range [][2]int{{0, len(ms)}, {0, 1}, {5, 25}, {39, 40}, {0, 0}} {
		var want, got bytes.Buffer
		for i := r[0]; i < r[1]; i++ {
			writeMementoLink(&want, ms[i], memento.TimeMapRel(i, len(ms)), nil)
		}
		got.WriteString("head\n")
		writeMementoLinks(&got, ms, r[0], r[1])
		if got.String() != "head\n"+want.String() {
			t.Errorf("links %d to %d:\n%s\nwant\n%s", r[0], r[1], got.String(), want.String())
		}
	}
	one := []memento.Memento{ms[0]}
	var got bytes.Buffer
	writeMementoLinks(&got, one, 0, 1)
	if !strings.Contains(got.String(), `rel="first last memento"`) {
		t.Errorf("a TimeMap of one memento: %q", got.String())
	}
}
