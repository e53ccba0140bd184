package aggregator

import (
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// A blacklisted host is refused in every spelling an archive or a resolver
// would read as the same host, on every endpoint, and no archive is asked.
func TestBlacklistEverySpelling(t *testing.T) {
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://archive.org/": times(t, "20010101000000"),
		"http://127.0.0.1/":   times(t, "20010101000000"),
	}})
	bl, err := ParseBlacklist(strings.NewReader("archive.org\n127.0.0.1\nxn--bcher-kva.example\n"))
	if err != nil {
		t.Fatal(err)
	}
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Blacklist: bl})
	h := ag.Handler()
	spellings := []string{
		"http://archive.org/",
		"http://archive..org/",
		"http://archive.org./",
		"http://archive.org...../",
		"http://.archive.org/",
		"http://ARCHIVE.ORG/",
		"http://www.archive.org./",
		"http://archive.org:80/",
		"https://archive.org:443/",
		"http://user:pw@archive.org/",
		"http://archive%2Eorg/",
		"http://%61rchive.org/",
		"http://archive.org\\@other.example/",
		"archive.org..",
		"//archive.org./",
		"http://127.0.0.1/",
		"http://2130706433/",
		"http://0x7f.0.0.1/",
		"http://0x7f000001/",
		"http://0177.0.0.1/",
		"http://127.1/",
		"http://127.0.0.1./",
		"http://[::ffff:127.0.0.1]/",
		"http://bücher.example/",
		"http://b%C3%BCcher.example/",
		"http://BÜCHER.example./",
		"http://archive．org/",
		"http://ARCHIVE.ORG%2e/",
		"http://archive.org:0080/",
		"http://archive.org:/",
		"http://archive.org#@other.example/",
		"http://archive.org?@other.example/",
		"http://[0:0:0:0:0:ffff:127.0.0.1]/",
		"http://127.000.000.001/",
	}
	for _, s := range spellings {
		for _, prefix := range []string{"/timemap/link/", "/timemap/json/", "/timegate/", "/memento/2005/", "/api/json/2005/", "/list/2005/"} {
			resp, body := do(t, h, http.MethodGet, prefix+s)
			if resp.StatusCode != http.StatusForbidden {
				t.Errorf("GET %s%s: %d, want 403\n%s", prefix, s, resp.StatusCode, body)
			}
		}
	}
	if n := a.Count(""); n != 0 {
		t.Errorf("the archive was asked %d times about blacklisted hosts: %+v", n, a.Requests())
	}
	// The blacklist test itself, for callers of the library.
	for _, s := range []string{"archive..org", "archive.org.", "ARCHIVE.org", "sub.archive.org..", "0x7f000001", "127.1", "bücher.example"} {
		if !bl.BlocksHost(s) {
			t.Errorf("BlocksHost(%q) = false", s)
		}
	}
	for _, s := range []string{"notarchive.org", "archive.org.example", "127.0.0.2", "0.0.1"} {
		if bl.BlocksHost(s) {
			t.Errorf("BlocksHost(%q) = true", s)
		}
	}
}

// The spellings of one host are one URI-R: the archives are asked about the
// normalized form, and the cache has one entry for all of them.
func TestHostSpellingsShareOneURIR(t *testing.T) {
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/a": times(t, "20010101000000", "20020101000000"),
	}})
	c := newMemCache(t)
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Cache: c})
	h := ag.Handler()
	for i, s := range []string{"http://EXAMPLE.com./a", "http://example..com/a", "http://u@example.com:80/a", "example.com./a"} {
		resp, body := do(t, h, http.MethodGet, "/timemap/link/"+s)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d\n%s", s, resp.StatusCode, body)
		}
		if !strings.HasPrefix(body, "<http://example.com/a>; rel=\"original\"") {
			t.Errorf("%s: original is not the normalized URI-R:\n%s", s, body)
		}
		if i == 0 {
			continue
		}
		if n := a.Count("timemap"); n != 1 {
			t.Errorf("after %s the archive was asked %d times, want once (one cache entry for every spelling)", s, n)
		}
	}
	for _, r := range a.Requests() {
		if r.RawPath != "/timemap/link/http://example.com/a" {
			t.Errorf("archive asked %q, want the normalized URI-R", r.RawPath)
		}
	}
	if _, err := c.Get(t.Context(), cache.URIRKeyOf("http://example.com/a")); err != nil {
		t.Errorf("no cache entry under the normalized URI-R: %v", err)
	}
}

func TestNormalizeHost(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"example.com", "example.com", ""},
		{"Example.COM", "example.com", ""},
		{"example.com.", "example.com", ""},
		{"..example...com..", "example.com", ""},
		{"xn--bcher-kva.example", "xn--bcher-kva.example", ""},
		{"bücher.example", "xn--bcher-kva.example", ""},
		{"BÜCHER。example", "xn--bcher-kva.example", ""},
		{"under_score.example", "under_score.example", ""},
		{"127.0.0.1", "127.0.0.1", ""},
		{"2130706433", "127.0.0.1", ""},
		{"0x7F.1", "127.0.0.1", ""},
		{"0177.0.0.01", "127.0.0.1", ""},
		{"127.1", "127.0.0.1", ""},
		{"127.0.0.1.", "127.0.0.1", ""},
		{"0x", "0.0.0.0", ""},
		{"::1", "::1", ""},
		{"::FFFF:7f00:1", "127.0.0.1", ""},
		{"2001:DB8:0:0::1", "2001:db8::1", ""},
		{"", "", "empty"},
		{"...", "", "empty"},
		{"exa mple.com", "", "character"},
		{"exa<mple.com", "", "character"},
		{"256.0.0.1", "", "IPv4"},
		{"1.2.3.4.5", "", "IPv4"},
		{"0x1g", "0x1g", ""}, // not a number: a name (WHATWG)
		{"4294967296", "", "IPv4"},
		{"example.123", "", "IPv4"},
		{"fe80::1%25eth0", "", "zone"},
		{strings.Repeat("a", 64) + ".example", "", "label"},
		{strings.Repeat("abcdefgh.", 32) + "example", "", "long"},
	} {
		got, err := NormalizeHost(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NormalizeHost(%q) = %q, %v; want an error about %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeHost(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
		if again, err := NormalizeHost(got); err != nil || again != got {
			t.Errorf("NormalizeHost(%q) = %q, %v: not idempotent", got, again, err)
		}
	}
}

// The library entry points and the refresh workers apply the same rule as
// the HTTP API: a job taken from a (shared) cache for a blacklisted host in
// any spelling asks no archive and marks the entry blocked.
func TestBlacklistOnLibraryAndRefreshPaths(t *testing.T) {
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://archive.org/": times(t, "20010101000000"),
	}})
	bl, err := ParseBlacklist(strings.NewReader("archive.org\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := newMemCache(t)
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Blacklist: bl, Cache: c})
	ctx := t.Context()
	if _, err := ag.Search(ctx, TimeMapCache, "http://archive..org/", time.Time{}); !errors.Is(err, ErrBlocked) {
		t.Errorf("Search of a blacklisted spelling: %v, want ErrBlocked", err)
	}
	ans, err := ag.Lookup(ctx, FamilyTimeMap, "ARCHIVE.org./", time.Time{}, CacheControl{})
	if err != nil || ans.Status != http.StatusForbidden {
		t.Errorf("Lookup of a blacklisted spelling: %+v, %v; want status 403", ans, err)
	}
	if err := c.Enqueue(ctx, "http://ARCHIVE.org./", cache.PriorityLive, time.Now()); err != nil {
		t.Fatal(err)
	}
	did, err := ag.RunOneJob(ctx, "w")
	if !did || !errors.Is(err, ErrBlocked) {
		t.Errorf("RunOneJob: %v, %v; want a job done with ErrBlocked", did, err)
	}
	e, err := c.Get(ctx, cache.URIRKeyOf("http://archive.org/"))
	if err != nil || e.Status != cache.StatusBlocked {
		t.Errorf("entry after the refresh of a blocked URI-R: %+v, %v; want status blocked", e.Info, err)
	}
	if n := a.Count(""); n != 0 {
		t.Errorf("the archive was asked %d times: %+v", n, a.Requests())
	}
	if _, err := ag.Search(ctx, TimeMapCache, "ftp://x/", time.Time{}); !errors.Is(err, ErrBadURIR) {
		t.Errorf("Search of a bad URI-R: %v, want ErrBadURIR", err)
	}
}

// NormalizeHost is idempotent, and what it returns is made only of the
// bytes a host name may hold (or is an IP address).
func FuzzNormalizeHost(f *testing.F) {
	for _, s := range []string{"archive..org.", "0x7f.1", "BÜCHER。example", "::ffff:1.2.3.4", "a%2Eb", "127.0.0.1", "x_y.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := NormalizeHost(in)
		if err != nil {
			return
		}
		again, err := NormalizeHost(got)
		if err != nil || again != got {
			t.Fatalf("NormalizeHost(%q) = %q, then %q, %v", in, got, again, err)
		}
		if _, perr := netip.ParseAddr(got); perr != nil && !isNormalHost(got) {
			t.Fatalf("NormalizeHost(%q) = %q: not in normal form", in, got)
		}
	})
}
