package surt

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHxPx(t *testing.T) {
	tests := map[string]string{
		"com,example)/a?b=c": "com,example)/a",
		"com,example)/":      "com,example)/",
		"com,example)/?a=1":  "com,example)/",
		"dns:archive.org":    "dns:archive.org",
		"com,example)/a?b?c": "com,example)/a",
		"":                   "",
	}
	for in, want := range tests {
		if got := HxPx(in); got != want {
			t.Errorf("HxPx(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLookupKeys follows internal/spec/MEMENTOMAP.md, section Keys.
func TestLookupKeys(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"spec path", "com,example)/a/b", []string{"com,example)/a/b", "com,example)/a/b/*", "com,example)/a/*", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"spec root", "com,example)/", []string{"com,example)/", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"query cut", "com,example)/a?x=1", []string{"com,example)/a", "com,example)/a/*", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"commas in path are path characters", "com,example)/a,b/c", []string{"com,example)/a,b/c", "com,example)/a,b/c/*", "com,example)/a,b/*", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"no comma", "localhost)/a", []string{"localhost)/a", "localhost)/a/*", "localhost)/*", "localhost,*", "*"}},
		{"ipv6 default", "2001:db8::1:8080)/a", []string{"2001:db8::1:8080)/a", "2001:db8::1:8080)/a/*", "2001:db8::1:8080)/*", "2001:db8::1:8080,*", "*"}},
		{"ipv6 fixed", "[2001:db8::1]:8080)/", []string{"[2001:db8::1]:8080)/", "[2001:db8::1]:8080)/*", "[2001:db8::1]:8080,*", "*"}},
		{"ip not reversed", "1.2.3.4)/x", []string{"1.2.3.4)/x", "1.2.3.4)/x/*", "1.2.3.4)/*", "1.2.3.4,*", "*"}},
		{"port", "com,example:8080)/", []string{"com,example:8080)/", "com,example:8080)/*", "com,example:8080,*", "com,*", "*"}},
		{"trailing comma", "com,example,)/a", []string{"com,example,)/a", "com,example,)/a/*", "com,example,)/*", "com,example,*", "com,*", "*"}},
		{"stripped root form", "com,example)", []string{"com,example)", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"path wildcard", "com,example)/a/*", []string{"com,example)/a/*", "com,example)/*", "com,example,*", "com,*", "*"}},
		{"host wildcard", "com,example,*", []string{"com,example,*", "com,*", "*"}},
		{"tld wildcard", "com,*", []string{"com,*", "*"}},
		{"star", "*", []string{"*"}},
		{"empty", "", []string{"*"}},
		{"pseudo-URI", "dns:archive.org", []string{"dns:archive.org", "*"}},
		{"with scheme", "http://(com,example)/a", []string{"http://(com,example)/a", "http://(com,example)/a/*", "http://(com,example)/*", "http://(com,example,*", "http://(com,*", "*"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := LookupKeys(nil, tc.in)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("LookupKeys(%q) (-want +got):\n%s", tc.in, d)
			}
		})
	}
	// dst is appended to.
	got := LookupKeys([]string{"x"}, "com,*")
	if d := cmp.Diff([]string{"x", "com,*", "*"}, got); d != "" {
		t.Errorf("append (-want +got):\n%s", d)
	}
}

func TestParseKey(t *testing.T) {
	type view struct {
		HxPx, Prefix, Host, Port, Path, Query string
		Labels, Segments                      []string
		HasHost, Wildcard                     bool
		HostPrefix2, PathPrefix1              string
	}
	see := func(k Key) view {
		v := view{HxPx: k.HxPx(), Prefix: k.Prefix(), Host: k.Host(), Port: k.Port(), Path: k.Path(), Query: k.Query(),
			HasHost: k.HasHost(), Wildcard: k.IsWildcard(), PathPrefix1: k.PathPrefix(1)}
		for i := 0; i < k.NumLabels(); i++ {
			v.Labels = append(v.Labels, k.Label(i))
		}
		for i := 0; i < k.NumSegments(); i++ {
			v.Segments = append(v.Segments, k.Segment(i))
		}
		if k.NumLabels() >= 2 {
			v.HostPrefix2 = k.HostPrefix(2)
		}
		return v
	}
	tests := []struct {
		in   string
		want view
	}{
		{"com,example,www)/a/b,c?x=1", view{HxPx: "com,example,www)/a/b,c", Host: "com,example,www", Path: "/a/b,c", Query: "x=1",
			Labels: []string{"com", "example", "www"}, Segments: []string{"a", "b,c"}, HasHost: true, HostPrefix2: "com,example", PathPrefix1: "com,example,www)/a"}},
		{"com,example)/", view{HxPx: "com,example)/", Host: "com,example", Path: "/", Labels: []string{"com", "example"}, HasHost: true, HostPrefix2: "com,example", PathPrefix1: "com,example)/"}},
		{"com,example:8080,)/x/", view{HxPx: "com,example:8080,)/x/", Host: "com,example:8080,", Port: "8080", Path: "/x/", Labels: []string{"com", "example"}, Segments: []string{"x"}, HasHost: true, HostPrefix2: "com,example", PathPrefix1: "com,example:8080,)/x/"}},
		{"http://(org,archive)/", view{HxPx: "http://(org,archive)/", Prefix: "http://(", Host: "org,archive", Path: "/", Labels: []string{"org", "archive"}, HasHost: true, HostPrefix2: "org,archive", PathPrefix1: "http://(org,archive)/"}},
		{"[2001:db8::1]:8080)/a", view{HxPx: "[2001:db8::1]:8080)/a", Host: "[2001:db8::1]:8080", Port: "8080", Path: "/a", Labels: []string{"[2001:db8::1]"}, Segments: []string{"a"}, HasHost: true, PathPrefix1: "[2001:db8::1]:8080)/a"}},
		{"2001:db8::1:8080)/a", view{HxPx: "2001:db8::1:8080)/a", Host: "2001:db8::1:8080", Path: "/a", Labels: []string{"2001:db8::1:8080"}, Segments: []string{"a"}, HasHost: true, PathPrefix1: "2001:db8::1:8080)/a"}},
		{"com,example,*", view{HxPx: "com,example,*", Host: "com,example", Labels: []string{"com", "example"}, HasHost: true, Wildcard: true, HostPrefix2: "com,example"}},
		{"com,example)/a/*", view{HxPx: "com,example)/a/*", Host: "com,example", Path: "/a/*", Labels: []string{"com", "example"}, Segments: []string{"a", "*"}, HasHost: true, Wildcard: true, HostPrefix2: "com,example", PathPrefix1: "com,example)/a"}},
		{"*", view{HxPx: "*", HasHost: true, Wildcard: true}},
		{"dns:archive.org", view{HxPx: "dns:archive.org"}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			k, err := ParseKey(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if k.String() != tc.in {
				t.Errorf("String() = %q", k.String())
			}
			if d := cmp.Diff(tc.want, see(k)); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	for _, bad := range []string{"", "com,example)/a b", "com,example)/\n", "a\x00"} {
		if _, err := ParseKey(bad); !errors.Is(err, ErrKey) {
			t.Errorf("ParseKey(%q) err = %v, want ErrKey", bad, err)
		}
	}
}

func TestIsPublicSuffix(t *testing.T) {
	tests := []struct {
		key            string
		all, icannOnly bool
	}{
		{"uk,co", true, true},
		{"com,blogspot", true, false},
		{"io,github", true, false},
		{"com", true, true},
		{"com,example", false, false},
		{"uk,co,bbc", false, false},
		{"uk,co,", true, true},
		{"uk,co,*", true, true},
		{"com,example:8080", false, false},
		{"4,3,2,1", false, false},
		{"", false, false},
		{"com,example)/", false, false},
		// A '*' label is no host name: "*" covers every host.
		{"*", false, false},
		{"*,com", false, false},
		{"com,*,*", false, false},
		{",*", false, false},
		{"com,", true, true},
		{"uk,co:80", true, true},
	}
	for _, tc := range tests {
		if got := IsPublicSuffix(tc.key); got != tc.all {
			t.Errorf("IsPublicSuffix(%q) = %t, want %t", tc.key, got, tc.all)
		}
		if got := (SuffixList{ICANNOnly: true}).IsPublicSuffix(tc.key); got != tc.icannOnly {
			t.Errorf("ICANNOnly IsPublicSuffix(%q) = %t, want %t", tc.key, got, tc.icannOnly)
		}
	}
}

func TestRegisteredDomain(t *testing.T) {
	tests := []struct {
		host        string
		icann       bool
		domain, sub string
	}{
		{"www.images.amazon.co.uk", false, "amazon.co.uk", "www.images"},
		{"foo.bar.blogspot.com", false, "bar.blogspot.com", "foo"},
		{"foo.bar.blogspot.com", true, "blogspot.com", "foo.bar"},
		{"co.uk", false, "", ""},
		{"example.com.", false, "example.com", ""},
		{"", false, "", ""},
		{"localhost", false, "", ""},
		{"a.b.example", false, "b.example", "a"},
	}
	for _, tc := range tests {
		d, s := SuffixList{ICANNOnly: tc.icann}.RegisteredDomain(tc.host)
		if d != tc.domain || s != tc.sub {
			t.Errorf("RegisteredDomain(%q, icann=%t) = %q, %q; want %q, %q", tc.host, tc.icann, d, s, tc.domain, tc.sub)
		}
	}
}

// TestKeyAdversarial holds keys that once made a Key method panic or
// LookupKeys take memory quadratic in the key's length.
func TestKeyAdversarial(t *testing.T) {
	t.Run("zero Key", func(t *testing.T) {
		var k Key
		got := []any{k.String(), k.HxPx(), k.HasHost(), k.IsWildcard(), k.Prefix(), k.Host(), k.NumLabels(),
			k.HostPrefix(1), k.Port(), k.Path(), k.NumSegments(), k.PathPrefix(0), k.PathPrefix(1), k.Query()}
		want := []any{"", "", false, false, "", "", 0, "", "", "", 0, "", "", ""}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("zero Key (-want +got):\n%s", d)
		}
	})
	t.Run("star with query", func(t *testing.T) {
		k, err := ParseKey("*?x")
		if err != nil {
			t.Fatal(err)
		}
		got := []string{k.Host(), k.HxPx(), k.Query(), k.Port()}
		if d := cmp.Diff([]string{"", "*", "x", ""}, got); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("host wildcard with query", func(t *testing.T) {
		k, err := ParseKey("com,example:80,*?x")
		if err != nil {
			t.Fatal(err)
		}
		got := []string{k.Host(), k.Port(), k.HostPrefix(9)}
		if d := cmp.Diff([]string{"com,example:80", "80", "com,example"}, got); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("HostPrefix past the labels", func(t *testing.T) {
		k, err := ParseKey("com,example:8080)/a")
		if err != nil {
			t.Fatal(err)
		}
		if got := k.HostPrefix(5); got != "com,example" {
			t.Errorf("HostPrefix(5) = %q", got)
		}
	})
	t.Run("deep path", func(t *testing.T) {
		// 200,000 segments: every wildcard level would be 40 GB.
		key := "com,example)" + strings.Repeat("/a", 200000)
		keys := LookupKeys(nil, key)
		if len(keys) != MaxLookupDepth+5 {
			t.Fatalf("%d keys, want %d", len(keys), MaxLookupDepth+5)
		}
		want := []string{key, "com,example)" + strings.Repeat("/a", MaxLookupDepth) + "/*"}
		if d := cmp.Diff(want, keys[:2]); d != "" {
			t.Errorf("most specific keys (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]string{"com,example)/a/*", "com,example)/*", "com,example,*", "com,*", "*"}, keys[len(keys)-5:]); d != "" {
			t.Errorf("least specific keys (-want +got):\n%s", d)
		}
	})
	t.Run("deep host", func(t *testing.T) {
		key := strings.Repeat("a,", 300000) + "b)/"
		keys := LookupKeys(nil, key)
		if len(keys) != MaxLookupDepth+3 {
			t.Fatalf("%d keys, want %d", len(keys), MaxLookupDepth+3)
		}
		if want := strings.Repeat("a,", MaxLookupDepth) + "*"; keys[2] != want {
			t.Errorf("deepest host wildcard = %.80q..., want %.80q...", keys[2], want)
		}
		if d := cmp.Diff([]string{"a,*", "*"}, keys[len(keys)-2:]); d != "" {
			t.Errorf("least specific keys (-want +got):\n%s", d)
		}
	})
	t.Run("exactly MaxLookupDepth levels", func(t *testing.T) {
		host := strings.TrimSuffix(strings.Repeat("a,", MaxLookupDepth), ",")
		key := host + ")" + strings.Repeat("/b", MaxLookupDepth)
		keys := LookupKeys(nil, key)
		// key, 64 path wildcards and the root one, 64 host wildcards, "*".
		if len(keys) != 1+MaxLookupDepth+1+MaxLookupDepth+1 {
			t.Fatalf("%d keys", len(keys))
		}
		if keys[1] != key+"/*" || keys[MaxLookupDepth+2] != host+",*" {
			t.Errorf("deepest wildcards %q, %q", keys[1], keys[MaxLookupDepth+2])
		}
	})
}

// FuzzParseKey: no key makes ParseKey or a Key method panic, and the parts
// put together give the key back.
func FuzzParseKey(f *testing.F) {
	for _, s := range []string{"com,example,www)/a/b,c?x=1", "com,example)/", "com,example:8080,)/x/", "http://(org,archive)/",
		"[2001:db8::1]:8080)/a", "com,example,*", "com,example)/a/*", "*", "*?x", "dns:archive.org", ")", ")/", ",*", "a)b)/c", "com,example:80,*?q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := ParseKey(s)
		if err != nil {
			if !errors.Is(err, ErrKey) {
				t.Fatalf("error %v does not wrap ErrKey", err)
			}
			return
		}
		if k.String() != s {
			t.Fatalf("String() = %q", k.String())
		}
		back := k.HxPx()
		if k.HxPx() != s {
			back += "?" + k.Query()
		}
		if back != s {
			t.Fatalf("HxPx %q + query %q != %q", k.HxPx(), k.Query(), s)
		}
		labels := make([]string, k.NumLabels())
		for i := range labels {
			labels[i] = k.Label(i)
		}
		if got := strings.Join(labels, ","); got != k.HostPrefix(k.NumLabels()) {
			t.Fatalf("labels %q, HostPrefix %q", labels, k.HostPrefix(k.NumLabels()))
		}
		for n := -1; n <= k.NumSegments()+1; n++ {
			if p := k.PathPrefix(n); !strings.HasPrefix(k.HxPx(), p) {
				t.Fatalf("PathPrefix(%d) = %q is not a prefix of %q", n, p, k.HxPx())
			}
		}
		for i := 0; i < k.NumSegments(); i++ {
			if !strings.Contains(k.Path(), k.Segment(i)) {
				t.Fatalf("Segment(%d) = %q not in path %q", i, k.Segment(i), k.Path())
			}
		}
		_, _, _, _, _ = k.HasHost(), k.IsWildcard(), k.Prefix(), k.Host(), k.Port()
		keys := LookupKeys(nil, s)
		if len(keys) == 0 || keys[len(keys)-1] != "*" || len(keys) > 2*MaxLookupDepth+4 {
			t.Fatalf("LookupKeys(%q) = %q", s, keys)
		}
	})
}
