package surt

import (
	"strings"
	"testing"
)

// allocURLs take every step of the fast path: ports, www labels, dot
// segments, percent-escapes, numeric hosts, session ids, query sorting,
// pseudo-URIs.
var allocURLs = []struct{ name, url string }{
	{"plain", "http://www.example.com/"},
	{"path query fragment", "http://www.Example.com:80/a/b/?y=2&X=1#top"},
	{"dot segments", "http://example.com/a/./b/../../c//d/"},
	{"percent escapes", "http://example.com/%7Ea%2525b%20c?q=%41%2526"},
	{"numeric host", "http://3279880203:8080/x"},
	{"octal host", "http://017.0.0.1/"},
	{"session ids", "http://example.com/(S(4hqa0555fwsecu455xqckv45))/x.aspx?jsessionid=0123456789abcdefghijklemopqrstuv&b=1&a=2"},
	{"many args", "http://example.com/?k=9&j=8&i=7&h=6&g=5&f=4&e=3&d=2&c=1&b=0&a=1"},
	{"no scheme", "example.com/a"},
	{"https default port", "https://example.com:443/"},
	{"dns", "dns:www.example.com"},
	{"mailto", "mailto:Someone@Example.com"},
	{"empty", ""},
}

// TestAppendCanonicalAllocs: with warm buffers, canonicalizing an ASCII URL
// allocates nothing (the package documentation's promise for
// AppendCanonical), except the Fixed profile's public-suffix check of a
// host that starts with a www label (golang.org/x/net/publicsuffix: at most
// two small allocations).
func TestAppendCanonicalAllocs(t *testing.T) {
	for _, p := range []*Profile{Default, WithScheme, Fixed, New(&Options{TrailingComma: true, NoReverseIPAddr: true, NoQueryLowercase: true})} {
		for _, tc := range allocURLs {
			t.Run(p.String()+"/"+tc.name, func(t *testing.T) {
				want := 0.0
				if p.fix && strings.Contains(tc.url, "://www.") {
					want = 2
				}
				// The internal path with one scratch: exact under -race too.
				sc := new(scratch)
				dst := make([]byte, 0, 4*len(tc.url)+64)
				if _, err := p.appendCanonical(dst, tc.url, sc); err != nil {
					t.Fatal(err)
				}
				if n := testing.AllocsPerRun(100, func() {
					dst, _ = p.appendCanonical(dst[:0], tc.url, sc)
				}); n > want {
					t.Errorf("appendCanonical(%q): %v allocations per run, want %v", tc.url, n, want)
				}
				if raceEnabled {
					return // sync.Pool drops items at random under -race
				}
				if n := testing.AllocsPerRun(100, func() {
					dst, _ = p.AppendCanonical(dst[:0], tc.url)
				}); n > want {
					t.Errorf("AppendCanonical(%q): %v allocations per run, want %v", tc.url, n, want)
				}
			})
		}
	}
}
