package cache_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
)

func TestStripScheme(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"http", "http://example.org/a", "example.org/a"},
		{"https", "https://example.org/a", "example.org/a"},
		{"upper_case_scheme", "HTTPS://example.org/a", "example.org/a"},
		{"ftp", "ftp://example.org/f", "example.org/f"},
		{"scheme_with_plus", "svn+ssh://example.org/r", "example.org/r"},
		{"network_path", "//example.org/a", "example.org/a"},
		{"no_scheme", "example.org/a", "example.org/a"},
		{"port_not_scheme", "example.org:8080/a", "example.org:8080/a"},
		{"digit_first_not_scheme", "1http://example.org/", "1http://example.org/"},
		{"scheme_in_query_kept", "http://e.org/?u=http://x.org/", "e.org/?u=http://x.org/"},
		{"double_prefix_once", "http://http://e.org/", "http://e.org/"},
		{"empty", "", ""},
		{"scheme_only", "https://", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := cache.StripScheme(c.in); got != c.want {
				t.Errorf("StripScheme(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestKey(t *testing.T) {
	// printf example.org/ | md5sum, and MySQL's md5('example.org/').
	const want = "95646b5d76f5871edd829eecdcc0bd56"
	for _, u := range []string{"http://example.org/", "https://example.org/", "example.org/"} {
		if got := cache.URIRKeyOf(u).String(); got != want {
			t.Errorf("URIRKeyOf(%q) = %s, want %s", u, got, want)
		}
	}
	k, err := cache.ParseURIRKey(strings.ToUpper(want))
	if err != nil || k != cache.URIRKeyOf("example.org/") {
		t.Errorf("ParseURIRKey(upper case) = %s, %v", k, err)
	}
	for _, bad := range []string{"", "b3f4", want + "0", "g3f4b4cf1bc2c0d2b0ddd5d2d8b33ef5"} {
		if _, err := cache.ParseURIRKey(bad); !errors.Is(err, cache.ErrInvalid) {
			t.Errorf("ParseURIRKey(%q) err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestStatusString(t *testing.T) {
	got := []string{cache.StatusPending.String(), cache.StatusFound.String(), cache.StatusNone.String(),
		cache.StatusFailed.String(), cache.StatusBlocked.String(), cache.Status(42).String()}
	want := []string{"pending", "found", "none", "failed", "blocked", "Status(42)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}
