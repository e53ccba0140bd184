package memento

import (
	"errors"
	"strings"
	"testing"
)

// TestJSONReadersNameOffsetAndRefuseTrailingData: a JSON TimeMap or Time
// Travel answer that does not parse must say where, and one followed by
// other data (two answers concatenated, an HTML error page appended) is not
// a complete document. Before the fix the errors had no offset ("invalid
// character ']' looking for beginning of value") and trailing data was
// ignored.
func TestJSONReadersNameOffsetAndRefuseTrailingData(t *testing.T) {
	// Both readers accept this: a Time Travel answer whose mementos have
	// no "list" (ReadJSON gives an empty TimeMap).
	const good = `{"original_uri": "http://a/", "mementos": {"first": {"datetime": "2010-01-01T00:00:00Z", "uri": ["http://m/1"]}}}`
	tests := []struct {
		name    string
		in      string
		wantErr string // "" for success
	}{
		{"good", good, ""},
		{"good with trailing white space", good + "\n\n  ", ""},
		{"trailing comma in an array", strings.Replace(good, `"]`, `",]`, 1), "at byte 111"}, // the offending ']'
		{"trailing junk", good + " <html>", "at byte"},
		{"two documents", good + good, "data after the JSON value"},
		{"wrong type", `{"original_uri": 5}`, "at byte 18"},
		{"empty", "", "empty document"},
		{"truncated", good[:40], "unexpected EOF"},
	}
	readers := map[string]func(string) error{
		"ReadJSON": func(s string) error { _, err := ReadJSON(strings.NewReader(s)); return err },
		"ReadTimeTravelJSON": func(s string) error {
			_, err := ReadTimeTravelJSON(strings.NewReader(s))
			return err
		},
	}
	for _, tc := range tests {
		for name, read := range readers {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				err := read(tc.in)
				if tc.wantErr == "" {
					if err != nil {
						t.Fatal(err)
					}
					return
				}
				if err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrFormat containing %q", err, tc.wantErr)
				}
			})
		}
	}
}
