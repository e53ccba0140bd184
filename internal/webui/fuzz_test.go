package webui

import (
	"testing"
	"time"
)

// FuzzFormDate checks the form's date reader: no panic; an accepted date is
// in UTC, whole seconds, and reads back the same from its 14-digit form.
func FuzzFormDate(f *testing.F) {
	for _, s := range []string{"", "2005", "2005-03-01", "2005-03-01T12:30", "2005-03-01 12:30:45Z", "20050301123045",
		"Tue, 01 Mar 2005 12:30:45 GMT", "2005-13-01", "yesterday", "--::TT", "0000", "9999-12-31T23:59:59"} {
		f.Add(s)
	}
	now := time.Date(2024, 6, 6, 6, 6, 6, 123, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		got, err := FormDate(s, now)
		if err != nil {
			return
		}
		if got.Location() != time.UTC || got.Nanosecond() != 0 {
			t.Fatalf("FormDate(%q) = %v: not UTC whole seconds", s, got)
		}
		if got.Year() < 0 || got.Year() > 9999 {
			return // no 14-digit form
		}
		again, err := FormDate(got.Format("20060102150405"), now)
		if err != nil || !again.Equal(got) {
			t.Fatalf("FormDate(%q) = %v, which reads back as %v, %v", s, got, again, err)
		}
	})
}
