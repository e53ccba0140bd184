package cdxj

import (
	"fmt"
	"testing"
)

func TestSortKey(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"cdxj", `com,example)/ 20170306040206 {"url": "http://example.com/"}`, "com,example)/ 20170306040206"},
		{"cdx", "org,archive)/ 19970126045828 http://www.archive.org:80/ text/html 200 X - 1415 0 a.arc.gz", "org,archive)/ 19970126045828"},
		{"key and timestamp only", "com,example)/ 2017", "com,example)/ 2017"},
		{"key only", "com,example)/", "com,example)/"},
		{"empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := string(SortKey([]byte(tc.line))); got != tc.want {
				t.Errorf("SortKey(%q) = %q, want %q", tc.line, got, tc.want)
			}
		})
	}
}

// Two records of one capture (a response and its request) have the same
// SortKey: a sorted file may hold them in either order.
func ExampleSortKey() {
	a := []byte(`com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html"}`)
	b := []byte(`com,example)/ 20170306040206 {"url": "http://example.com/", "digest": "sha1:3I42"}`)
	fmt.Printf("%s\n%v\n", SortKey(a), string(SortKey(a)) == string(SortKey(b)))
	// Output:
	// com,example)/ 20170306040206
	// true
}
