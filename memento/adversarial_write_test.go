package memento

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// TestWritersRefuseUnwritableYears: a datetime whose year does not fit four
// digits cannot be carried by an rfc1123-date or a 14-digit key. Before the
// fix the writers wrote "Sat, 01 Jan 10000 00:00:00 GMT" and the CDXJ key
// "100000101000000" (or "000/0101000000" for year -1), which no reader
// parses back.
func TestWritersRefuseUnwritableYears(t *testing.T) {
	ok := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	writers := []struct {
		name  string
		write func(io.Writer, *TimeMap) error
		read  func(io.Reader) (*TimeMap, error)
	}{
		{"link-format", WriteLinkFormat, func(r io.Reader) (*TimeMap, error) { return ReadTimeMap(r, &ParseOptions{Strict: true}) }},
		{"json", WriteJSON, ReadJSON},
		{"cdxj", WriteCDXJ, ReadCDXJ},
	}
	tests := []struct {
		name string
		tm   *TimeMap
		ok   bool
	}{
		{"year 10000", &TimeMap{Original: "http://a/", Mementos: []Memento{{URIM: "http://m/1", Datetime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}, false},
		{"year -1", &TimeMap{Original: "http://a/", Mementos: []Memento{{URIM: "http://m/1", Datetime: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}}}, false},
		{"year 9999 in a zone east of UTC becomes 9999", &TimeMap{Original: "http://a/", Mementos: []Memento{{URIM: "http://m/1", Datetime: time.Date(10000, 1, 1, 0, 30, 0, 0, time.FixedZone("X", 3600))}}}, true},
		{"page until year 12000", &TimeMap{Original: "http://a/", Self: Page{URI: "http://a/tm", Type: MediaTypeLinkFormat, Until: time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC)}, Mementos: []Memento{{URIM: "http://m/1", Datetime: ok}}}, false},
		{"ordinary", &TimeMap{Original: "http://a/", Mementos: []Memento{{URIM: "http://m/1", Datetime: ok}}}, true},
	}
	for _, w := range writers {
		for _, tc := range tests {
			t.Run(w.name+"/"+tc.name, func(t *testing.T) {
				var buf bytes.Buffer
				err := w.write(&buf, tc.tm)
				if !tc.ok {
					if !errors.Is(err, ErrFormat) {
						t.Fatalf("err = %v, want ErrFormat", err)
					}
					if buf.Len() != 0 {
						t.Errorf("wrote %d bytes before refusing", buf.Len())
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := w.read(&buf)
				if err != nil {
					t.Fatalf("re-read: %v\n%s", err, buf.Bytes())
				}
				if got.Len() != 1 || !got.Mementos[0].Datetime.Equal(tc.tm.Mementos[0].Datetime) {
					t.Errorf("re-read mementos %v, want %v", got.Mementos, tc.tm.Mementos)
				}
			})
		}
	}
}

// TestWriteTimeTravelJSONRefusesNilAndBadYears: NewTimeTravelResult gives
// nil for an empty TimeMap; before the fix WriteTimeTravelJSON panicked on
// it (nil pointer dereference), and wrote year-10000 datetimes as given.
func TestWriteTimeTravelJSONRefusesNilAndBadYears(t *testing.T) {
	d := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		res  *TimeTravelResult
		ok   bool
	}{
		{"result of an empty TimeMap", NewTimeTravelResult(&TimeMap{}, d), false},
		{"year 10000", &TimeTravelResult{Closest: &TimeTravelEntry{Datetime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), URI: []string{"http://m/"}}}, false},
		{"one memento", NewTimeTravelResult(&TimeMap{Mementos: []Memento{{URIM: "http://m/", Datetime: d}}}, d), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := WriteTimeTravelJSON(&buf, tc.res)
			if !tc.ok {
				if !errors.Is(err, ErrFormat) || buf.Len() != 0 {
					t.Fatalf("err = %v, %d bytes written; want ErrFormat and nothing", err, buf.Len())
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadTimeTravelJSON(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if got.Closest == nil || !got.Closest.Datetime.Equal(d) {
				t.Errorf("re-read closest %+v, want %v", got.Closest, d)
			}
		})
	}
}
