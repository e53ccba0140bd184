package surt

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFixedAdversarial holds inputs on which the Fixed profile once gave a
// wrong key or a wrong error (the Default keys were checked against a run
// of the Python reference).
func TestFixedAdversarial(t *testing.T) {
	tests := []struct {
		name, in   string
		fixed, std string
	}{
		// RFC 6874: "%25" before a zone is the '%' delimiter. The zone was
		// escaped a second time ("%2525eth0"), so the key changed each
		// time it was canonicalized again; the first case's input is now
		// the URL form of its own key.
		{"ipv6 zone escaped", "http://[fe80::1%25eth0]/", "[fe80::1%25eth0])/", "fe80::1%25eth0)/"},
		{"ipv6 zone raw", "http://[fe80::1%eth0]/", "[fe80::1%25eth0])/", "fe80::1%25eth0)/"},
		{"ipv6 zone upper case", "http://[FE80::1%25ETH0]:80/", "[fe80::1%25eth0])/", "fe80::1%25eth0)/"},
		{"ipv6 escaped digit", "http://[%41::1]/", "[a::1])/", "a::1)/"},
		// "<>" holds no URL: it was an ErrEmpty, though it is not white space.
		{"empty angle brackets", "<>", "<>)/", "<>)/"},
		{"blank angle brackets", "< >", "<%20>)/", "<%20>)/"},
		// The standard deletes TAB before looking for a scheme.
		{"tab in embedded URL", "youtube-dl:ht\ttp://www.example.pt/A", "youtube-dl:pt,example)/a", "youtube-dl:http://www.example.pt/a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Fixed.Canonicalize(tc.in)
			if err != nil || got != tc.fixed {
				t.Errorf("Fixed: %q, %v; want %q", got, err, tc.fixed)
			}
			if got, err := Default.Canonicalize(tc.in); err != nil || got != tc.std {
				t.Errorf("Default: %q, %v; want %q", got, err, tc.std)
			}
		})
	}
}

// TestErrorOffsets: Error.URL is the input as given and Error.Offset points
// at the port in it (after trimming white space), also where the Fixed
// profile reads the URL inside "<...>" or after a "tool:" prefix.
func TestErrorOffsets(t *testing.T) {
	tests := []struct {
		name string
		p    *Profile
		in   string
		at   string // the cleaned input from Offset on
	}{
		{"plain", Default, "http://x.com:99999/", "99999/"},
		{"leading space", Default, "  http://x.com:99999/", "99999/"},
		{"host:port", Fixed, "cdn.example.com:65536", "65536"},
		{"angle brackets", Fixed, "<cdn.example.com:99999>", "99999>"},
		{"angle brackets and space", Fixed, "<  http://x.com:9x/ >", "9x/ >"},
		{"embedded URL", Fixed, "youtube-dl:https://[::1]:99999/", "99999/"},
		{"embedded URL, padded", Fixed, " youtube-dl:http://x.com:9x/ ", "9x/"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.p.Canonicalize(tc.in)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrInvalidPort) {
				t.Fatalf("err = %v, want an *Error wrapping ErrInvalidPort", err)
			}
			clean := trimSpaceASCII(tc.in)
			if e.URL != tc.in || e.Offset > len(clean) {
				t.Fatalf("Error{URL: %q, Offset: %d}", e.URL, e.Offset)
			}
			if d := cmp.Diff(tc.at, clean[e.Offset:]); d != "" {
				t.Errorf("text at Offset (-want +got):\n%s", d)
			}
		})
	}
}

// TestConcurrentCanonicalize: profiles and the scratch pool are safe for
// concurrent use (run with -race); every goroutine gets the keys a
// sequential run gets, huge URLs (whose buffers leave the pool) included.
func TestConcurrentCanonicalize(t *testing.T) {
	urls := []string{"http://www.Example.com:80/a/b/?y=2&X=1#top", "http://[fe80::1%25eth0]:8080/a", "cdn.example.com:443",
		"http://bücher.ch/%E2%98%83", "youtube-dl:http://www.example.pt/A", "http://x.com/" + strings.Repeat("a/", 40000)[:70000], "http://x:99999/"}
	profiles := []*Profile{Default, Fixed, WithScheme, FixedWithScheme}
	want := make([]string, 0, len(urls)*len(profiles))
	for _, p := range profiles {
		for _, u := range urls {
			k, _ := p.Canonicalize(u)
			want = append(want, k)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for round := 0; round < 4; round++ {
				i := 0
				for _, p := range profiles {
					for _, u := range urls {
						buf, _ = p.AppendCanonical(buf[:0], u)
						if string(buf) != want[i] {
							select {
							case errs <- fmt.Sprintf("%v %.40q: got %.60q, want %.60q", p, u, buf, want[i]):
							default:
							}
							return
						}
						i++
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestFixedHostFromPath: where the standard takes an http URL's host from
// its path (scheme-relative and extra-slash URLs), Fixed reads it as an
// authority; Default keeps the standard's keys (checked against a run of
// the Python reference).
func TestFixedHostFromPath(t *testing.T) {
	tests := []struct {
		name, in   string
		fixed, std string
	}{
		{"scheme-relative with port", "//example.com:8080/a", "com,example:8080)/a", "com:8080,example)/a"},
		{"scheme-relative default port", "//www.example.com:80/a", "com,example)/a", "com:80,example)/a"},
		{"extra slash", "http:///example.com:8080/", "com,example:8080)/", "com:8080,example)/"},
		{"no slashes", "http:example.com:8080/x", "com,example:8080)/x", "com:8080,example)/x"},
		{"user info", "//user:p@ss@example.com/", "com,example)/", "com,user:p@ss@example)/"},
		{"bracketed", "http:///[2001:DB8::1]:8080/a", "[2001:db8::1]:8080)/a", "[2001:db8::1]:8080)/a"},
		{"bracketed default port", "http:///[::1]:80/a", "[::1])/a", "[::1]:80)/a"},
		{"trailing colon", "//example.com:/a", "com,example)/a", "com:,example)/a"},
		{"plain", "//example.com/a", "com,example)/a", "com,example)/a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := Fixed.Canonicalize(tc.in); err != nil || got != tc.fixed {
				t.Errorf("Fixed: %q, %v; want %q", got, err, tc.fixed)
			}
			if got, err := Default.Canonicalize(tc.in); err != nil || got != tc.std {
				t.Errorf("Default: %q, %v; want %q", got, err, tc.std)
			}
		})
	}
	// An invalid port now fails, with its offset in the input.
	_, err := Fixed.Canonicalize("//host:8_0/a")
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalidPort) || e.Offset != 7 {
		t.Errorf("Fixed(%q): %v, want ErrInvalidPort at byte 7", "//host:8_0/a", err)
	}
}
