package mementomap

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/surt"
)

// TestSimpleSURTMatchesIsSound: the fast check never accepts a key that
// is not surt.Canonicalize of the URL, on hand-made, generated and
// shipped real URLs, and it does accept the canonical key of plain URLs.
func TestSimpleSURTMatchesIsSound(t *testing.T) {
	urls := []string{
		"http://example.com/", "http://example.com", "https://example.com/a/b", "http://example.com/a/b/",
		"http://www.example.com/a", "http://www2.example.com/a", "http://Example.com/a", "http://example.com/A",
		"http://example.com:80/a", "http://example.com:8080/a", "http://u@example.com/a", "http://example.com/a?b=1",
		"http://example.com/a#f", "http://example.com/./a", "http://example.com/a/../b", "http://example.com//a",
		"http://example.com/a/.", "http://example.com/a/..", "http://127.0.0.1/a", "http://1.2.3.4/", "http://0x7f.1/",
		"http://xn--bcher-kva.de/", "http://example.com./a", "http://.example.com/a", "http://example..com/a",
		"http://example.com/a;jsessionid=1", "http://example.com/%41", "http://example.com/a.b-c_d/e.html",
		"http://a-b.co.uk/x", "http://example.com/index.html", "http://localhost/", "http://example.com/a b",
		"http://example.com/a/./b", "http://example.com/..a/b", "http://example.com/a..", "HTTP://example.com/a",
		"http://example.com/~u", "http://com/", "http://example.com/a,b", "http://example.com/a)b",
		"http://example.com/a?id=1", "http://example.com/a?b=1&a=2", "http://example.com/a?a=1&a=1", "http://example.com/a?sid=1",
		"http://example.com/a?jsessionid=1&x=2", "http://example.com/a/?id=1", "http://example.com?id=1", "http://example.com/a?",
		"http://example.com/a?id=1&", "http://example.com/a?a=1&b=2", "http://example.com/a?a&b", "http://example.com/a?ID=1",
	}
	for _, name := range sampledata.IndexFiles() {
		data, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			for _, f := range strings.FieldsFunc(sc.Text(), func(r rune) bool { return r == ' ' || r == '"' }) {
				if strings.HasPrefix(f, "http") {
					urls = append(urls, f)
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	parts := []string{"a", "b", "www", "xn--", "0", "9", "-", ".", "/", "//", "..", "_", "A", "%2f", "?", ":80", "#", ";", "~", "com", "org", "?id=1", "&", "=", "&b=2", "?a=1", "sid", "jsessionid=", "?phpsessid=x", "?utm_source=x", "&&", "?=", "cftoken", "aspsessionidabcdefgh=1", "?z", "&a"}
	for range 20000 {
		var b strings.Builder
		b.WriteString([]string{"http://", "https://"}[rng.IntN(2)])
		for range 1 + rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		urls = append(urls, b.String())
	}
	accepted := 0
	for _, u := range urls {
		c, err := surt.Canonicalize(u)
		keys := []string{c, c + "/", strings.TrimSuffix(c, "/"), strings.ToLower(c), c + ","}
		if err != nil {
			keys = []string{u, "-"}
		}
		for _, k := range keys {
			if simpleSURTMatches([]byte(k), []byte(u)) {
				if err != nil || k != c {
					t.Fatalf("simpleSURTMatches(%q, %q) = true; surt.Canonicalize gives %q, %v", k, u, c, err)
				}
				accepted++
			}
		}
	}
	for _, u := range []string{"http://example.com/", "https://example.com/a/b", "http://example.com/a?a=1&b=2", "http://a-b.co.uk/x", "http://example.com/a.b-c_d/e.html"} {
		c, _ := surt.Canonicalize(u)
		if !simpleSURTMatches([]byte(c), []byte(u)) {
			t.Errorf("simpleSURTMatches(%q, %q) = false for a plain URL", c, u)
		}
	}
	if accepted < 100 {
		t.Errorf("the fast check accepted %d keys of %d URLs; want at least 100", accepted, len(urls))
	}
	// The builder's check, which skips the host half for a host it has
	// just taken, answers as simpleSURTMatches on the URLs in order (their
	// hosts neighbours) and on URLs that only begin like the host before.
	slices.Sort(urls)
	b := newBuilder(BuildOptions{})
	cached := 0
	for i, u := range urls {
		c, _ := surt.Canonicalize(u)
		prev := urls[max(i-1, 0)]
		for _, k := range []string{c, c + "/", strings.TrimSuffix(c, "/"), c + ","} {
			for _, uu := range []string{u, prev + "x", prev + ".x", prev + "/x"} {
				want := simpleSURTMatches([]byte(k), []byte(uu))
				if len(b.hostURL) > 0 && strings.HasPrefix(uu, string(b.hostURL)) {
					cached++
				}
				if got := b.simpleMatch([]byte(k), []byte(uu)); got != want {
					t.Fatalf("builder.simpleMatch(%q, %q) = %v after host %q, simpleSURTMatches %v", k, uu, got, b.hostURL, want)
				}
			}
		}
	}
	if cached < 1000 {
		t.Errorf("%d checks began with the host before; want at least 1000", cached)
	}
	key, u := []byte("org,example)/a/b.html"), []byte("http://example.org/a/b.html")
	if n := testing.AllocsPerRun(100, func() { simpleSURTMatches(key, u) }); n != 0 {
		t.Errorf("simpleSURTMatches allocates %.0f times", n)
	}
}

// TestBuildRekeysEveryLine: keys of another canonicalizer (trailing
// slashes, "www.", upper case) on any line, not only sampled ones, are
// replaced by the canonical SURT, counted in !meta, and every URL of the
// index is found by a lookup of the map.
func TestBuildRekeysEveryLine(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 300 {
		u := fmt.Sprintf("http://example.com/p%03d", i)
		key := fmt.Sprintf("com,example)/p%03d", i)
		switch i % 100 {
		case 37:
			u += "/"
			key += "/"
		case 71:
			u = fmt.Sprintf("http://www.example.com/P%03d", i)
			key = fmt.Sprintf("com,example,www)/P%03d", i)
		}
		fmt.Fprintf(&b, "%s 20200101000000 {\"url\": %q}\n", key, u)
		want = append(want, u)
	}
	// ipwb's CDXJ: no URL, only the key with its trailing slash.
	b.WriteString("org,x)/blogs/feed/ 20130411205457 {\"mime_type\": \"text/html\"}\n")
	want = append(want, "http://x.org/blogs/feed/")
	m, st := buildString(t, BuildOptions{}, b.String())
	if st.Checked != 301 || st.Mismatched != 7 {
		t.Errorf("checked %d, rekeyed %d; want 301, 7 (%v)", st.Checked, st.Mismatched, st.MismatchExamples)
	}
	if !strings.Contains(m, `"rekeyed_lines":7`) {
		t.Errorf("!meta does not count the rekeyed lines:\n%.400s", m)
	}
	mp := FromBytes([]byte(m))
	for _, u := range want {
		res, err := mp.Lookup(u)
		if err != nil || !res.Present() {
			t.Errorf("Lookup(%q) = %+v, %v: a false negative", u, res, err)
		}
	}
}

// TestBuildIPWBSample: ipwb's sample index keys "…/feed/" and "…/mrss/";
// the map answers a lookup of every URL its keys stand for.
func TestBuildIPWBSample(t *testing.T) {
	data, err := sampledata.ReadFile("real/ipwb_sample-1.cdxj")
	if err != nil {
		t.Fatal(err)
	}
	m, st := buildString(t, BuildOptions{}, string(data))
	if st.Mismatched != 2 {
		t.Errorf("rekeyed %d keys, want 2 (%v)", st.Mismatched, st.MismatchExamples)
	}
	mp := FromBytes([]byte(m))
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '!' {
			continue
		}
		u := string(appendURLFromSURT(nil, []byte(strings.Fields(line)[0])))
		res, err := mp.Lookup(u)
		if err != nil || !res.Present() {
			t.Errorf("Lookup(%q) = %+v, %v: a false negative", u, res, err)
		}
		n++
	}
	for _, u := range []string{"http://bitchmagazine.org/blogs/feed/", "http://search.yahoo.com/mrss/"} {
		if res, err := mp.Lookup(u); err != nil || !res.Present() {
			t.Errorf("Lookup(%q) = %+v, %v: a false negative", u, res, err)
		}
	}
	if n != 65 {
		t.Errorf("looked up %d URLs, want 65", n)
	}
}

// TestBuildKeyCheckOfRepeatedURLs: consecutive captures of one URL are
// checked as the first one was (the builder remembers the last canonical
// key and URL): a line whose key or URL differs from its neighbour's is
// checked again, so every mismatching line is counted and rekeyed, with
// and without Rekey.
func TestBuildKeyCheckOfRepeatedURLs(t *testing.T) {
	type capture struct{ key, url string }
	groups := []capture{
		{"com,example)/a", "http://example.com/a"},         // canonical
		{"com,example)/a", "http://example.com/z"},         // same key, another URL: not canonical
		{"com,example)/a", "http://example.com/a"},         // canonical again
		{"com,example)/a/", "http://example.com/a/"},       // canonical, not the simple form
		{"com,example)/b", "http://example.com/b"},         // canonical
		{"com,example,www)/b", "http://example.com/b"},     // same URL, another key
		{"com,example,www)/c", "http://www.example.com/c"}, // not canonical
	}
	var b strings.Builder
	var mismatched int64
	ts := 20200101000000
	for _, g := range groups {
		canon, err := surt.Default.AppendCanonical(nil, g.url)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			fmt.Fprintf(&b, "%s %d {\"url\": %q}\n", g.key, ts, g.url)
			ts++
			if string(canon) != g.key {
				mismatched++
			}
		}
	}
	n := int64(3 * len(groups))
	for _, o := range []BuildOptions{{}, {Rekey: true}} {
		m, st := buildString(t, o, b.String())
		if st.Used != n {
			t.Errorf("Rekey %v: used %d lines, want %d", o.Rekey, st.Used, n)
		}
		if !o.Rekey && (st.Checked != n || st.Mismatched != mismatched) {
			t.Errorf("checked %d, rekeyed %d; want %d, %d (%v)", st.Checked, st.Mismatched, n, mismatched, st.MismatchExamples)
		}
		mp := FromBytes([]byte(m))
		for _, g := range groups {
			res, err := mp.Lookup(g.url)
			if err != nil || !res.Present() {
				t.Errorf("Rekey %v: Lookup(%q) = %+v, %v: a false negative", o.Rekey, g.url, res, err)
			}
		}
		if o.Rekey {
			continue
		}
		want, _ := buildString(t, BuildOptions{Rekey: true}, b.String())
		if d := cmp.Diff(dataLines(want), dataLines(m)); d != "" {
			t.Errorf("checked map differs from the rekeyed one (-rekey +check):\n%s", d)
		}
	}
}
