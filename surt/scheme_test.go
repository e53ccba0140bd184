package surt

import (
	"net/url"
	"testing"
)

// TestSchemeLen: SchemeLen finds the RFC 3986 §3.1 scheme before the
// first colon, and -1 for what is not one; where it finds one it agrees
// with net/url, which reads the same syntax.
func TestSchemeLen(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"http://example.com/", 4}, {"HTTPS://x/", 5}, {"mailto:a@b", 6}, {"svn+ssh://h/", 7},
		{"a-b.c:x", 5}, {"x:", 1}, {"dns:example.com", 3},
		{"", -1}, {"//x/", -1}, {"1a:b", -1}, {"+a:b", -1}, {"a b:c", -1}, {"http", -1},
		{":x", -1}, {"é:x", -1}, {"a_b:c", -1}, {"http%3A//x", -1}, {"a/b:c", -1},
	} {
		if got := SchemeLen(c.s); got != c.want {
			t.Errorf("SchemeLen(%q) = %d, want %d", c.s, got, c.want)
		}
		if c.want > 0 {
			if u, err := url.Parse(c.s); err != nil || len(u.Scheme) != c.want {
				t.Errorf("%q: net/url reads scheme %q (%v), SchemeLen %d", c.s, u.Scheme, err, c.want)
			}
		}
	}
}
