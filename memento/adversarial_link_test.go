package memento

import (
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// TestLenientRecoversMissingCommaAndBOM: real TimeMap files put one link
// per line and sometimes forget the ',' between them, or start with a
// UTF-8 byte order mark. Before the fix the lenient parser silently
// dropped every link that followed a missing ',' (no error, Invalid 0) and
// read the BOM as part of the first target ("\ufeff<http://a/>").
func TestLenientRecoversMissingCommaAndBOM(t *testing.T) {
	const d1 = `datetime="Sat, 01 Jan 2000 00:00:00 GMT"`
	const d2 = `datetime="Sun, 02 Jan 2000 00:00:00 GMT"`
	tests := []struct {
		name      string
		in        string
		original  string
		mementos  []string
		strictErr bool // strict mode must reject the input
	}{
		{"newline instead of comma", "<http://a/>; rel=original\n<http://m/1>; rel=memento; " + d1 + "\n<http://m/2>; rel=memento; " + d2,
			"http://a/", []string{"http://m/1", "http://m/2"}, true},
		{"space instead of comma", "<http://a/>; rel=\"original\" <http://m/1>; rel=\"memento\"; " + d1 + " <http://m/2>; rel=\"memento\"; " + d2,
			"http://a/", []string{"http://m/1", "http://m/2"}, true},
		{"no separator at all after a quoted value", "<http://m/1>; rel=\"memento\"; " + d1 + "<http://m/2>; rel=\"memento\"; " + d2,
			"", []string{"http://m/1", "http://m/2"}, true},
		{"unquoted last value then newline", "<http://m/1>; " + d1 + "; rel=memento\n<http://m/2>; " + d2 + "; rel=memento",
			"", []string{"http://m/1", "http://m/2"}, true},
		{"unquoted datetime then newline", "<http://m/1>; rel=memento; datetime=Sat, 01 Jan 2000 00:00:00 GMT\n<http://m/2>; rel=memento; " + d2,
			"", []string{"http://m/1", "http://m/2"}, true},
		{"target without params then newline", "<http://a/>\n<http://m/1>; rel=memento; " + d1,
			"", []string{"http://m/1"}, true},
		{"byte order mark", "\xef\xbb\xbf<http://a/>; rel=\"original\",\n<http://m/1>; rel=\"memento\"; " + d1,
			"http://a/", []string{"http://m/1"}, true},
		{"byte order mark only", "\xef\xbb\xbf", "", nil, true},
		{"'<' inside a quoted value is data", "<http://m/1>; rel=\"memento\"; title=\"a <b>\"; " + d1,
			"", []string{"http://m/1"}, false},
		{"'>' inside a target still recovered", "<http://m/1>x>; rel=\"memento\"; " + d1,
			"", []string{"http://m/1>x"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, oneByte := range []bool{false, true} {
				var r = strings.NewReader(tc.in)
				var tm *TimeMap
				var err error
				if oneByte {
					tm, err = ReadTimeMap(iotest.OneByteReader(r), nil)
				} else {
					tm, err = ReadTimeMap(r, nil)
				}
				if err != nil {
					t.Fatalf("lenient (one byte %v): %v", oneByte, err)
				}
				var got []string
				for _, m := range tm.Mementos {
					got = append(got, m.URIM)
				}
				if diff := cmp.Diff(tc.mementos, got); diff != "" {
					t.Errorf("mementos (one byte %v) (-want +got):\n%s", oneByte, diff)
				}
				if tm.Original != tc.original {
					t.Errorf("Original = %q, want %q", tm.Original, tc.original)
				}
				if tm.Invalid != 0 {
					t.Errorf("Invalid = %d, want 0", tm.Invalid)
				}
			}
			_, err := ReadTimeMap(strings.NewReader(tc.in), &ParseOptions{Strict: true})
			if (err != nil) != tc.strictErr {
				t.Errorf("strict error = %v, want error %v", err, tc.strictErr)
			}
		})
	}
}
