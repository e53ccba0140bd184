package cache_test

import (
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cache"
)

// FuzzKey checks StripScheme and the key's text form on any input: the
// stripped URI is a suffix of the input, http and https give one key, and
// ParseURIRKey reads back what String writes.
func FuzzKey(f *testing.F) {
	for _, s := range []string{"http://example.org/", "https://e.org/a?b=c", "//e.org/", "e.org:80/",
		"a+b-c.d://x", "://x", "1a://x", "http:/x", "\xff://x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, u string) {
		s := cache.StripScheme(u)
		if !strings.HasSuffix(u, s) {
			t.Errorf("StripScheme(%q) = %q is not a suffix of the input", u, s)
		}
		if cache.URIRKeyOf("http://"+s) != cache.URIRKeyOf("https://"+s) {
			t.Errorf("http and https keys of %q differ", s)
		}
		k := cache.URIRKeyOf(u)
		back, err := cache.ParseURIRKey(k.String())
		if err != nil || back != k {
			t.Errorf("ParseURIRKey(%s) = %s, %v", k, back, err)
		}
		if _, err := cache.ParseURIRKey(u); err == nil && len(u) != 32 {
			t.Errorf("ParseURIRKey accepted %q", u)
		}
	})
}
