package cdxj

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
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

// TestSortKeyImpliesKeyOrder: lines sorted by SortKey have their keys in
// KeyOrder when no key holds a byte at or below the space: random keys of
// SURT bytes (the separators just above the space, '!' to '/', among
// them) and timestamps, prefixes of each other and not, sorted by SortKey.
// A key holding a tab breaks it, as SortKey's doc says it may.
func TestSortKeyImpliesKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte("!#$%&'()*+,-./09:;=?@AZ_az~")
	for round := range 300 {
		var ls [][]byte
		var key []byte
		for range 50 {
			if rng.IntN(3) > 0 || key == nil {
				key = key[:rng.IntN(len(key)+1)] // often a prefix of the last
				for range rng.IntN(4) {
					key = append(key, alphabet[rng.IntN(len(alphabet))])
				}
				if len(key) == 0 {
					key = append(key, 'a')
				}
			}
			ls = append(ls, fmt.Appendf(nil, "%s %d {}", key, 1996+rng.IntN(30)))
		}
		slices.SortFunc(ls, func(a, b []byte) int { return bytes.Compare(SortKey(a), SortKey(b)) })
		for i := 1; i < len(ls); i++ {
			a, b := ls[i-1][:bytes.IndexByte(ls[i-1], ' ')], ls[i][:bytes.IndexByte(ls[i], ' ')]
			if !KeyOrder(a, b) {
				t.Fatalf("round %d: %q then %q: sorted by SortKey, keys not in KeyOrder", round, ls[i-1], ls[i])
			}
		}
	}
	a, b := []byte("a\t 2020"), []byte("a 2020")
	if bytes.Compare(SortKey(a), SortKey(b)) >= 0 || KeyOrder([]byte("a\t"), []byte("a")) {
		t.Error("a key holding a tab: SortKey order and KeyOrder should differ")
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
