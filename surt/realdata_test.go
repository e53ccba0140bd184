package surt

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// keyedURL is one index line's key and original URL.
type keyedURL struct {
	file string
	line int
	key  string
	url  string
}

// realKeyedURLs reads the (key, URL) pairs of the shipped real index files:
// the 3rd column of CDX lines and the JSON "url" of CDXJ lines. Files whose
// keys are not plain SURTs of the URL are left out: cdxj-indexer's POST
// index (request bodies appended to the key) and ipwb's (no URL field).
func realKeyedURLs(t testing.TB) []keyedURL {
	t.Helper()
	var out []keyedURL
	for _, name := range sampledata.IndexFiles() {
		if strings.Contains(name, "post-append") || strings.Contains(name, "ipwb") {
			continue
		}
		data, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			if line == "" || strings.HasPrefix(line, " CDX") || strings.HasPrefix(line, "!") {
				continue
			}
			key, rest, _ := strings.Cut(line, " ")
			if key == "-" {
				continue
			}
			var u string
			if j := strings.IndexByte(rest, '{'); strings.HasSuffix(name, ".cdxj") && j >= 0 {
				var rec struct {
					URL string `json:"url"`
				}
				if err := json.Unmarshal([]byte(rest[j:]), &rec); err != nil {
					t.Fatalf("%s:%d: %v", name, i+1, err)
				}
				u = rec.URL
			} else {
				f := strings.Fields(line)
				if len(f) < 3 {
					t.Fatalf("%s:%d: %d fields", name, i+1, len(f))
				}
				u = f[2]
			}
			if u == "" {
				continue
			}
			out = append(out, keyedURL{name, i + 1, key, u})
		}
	}
	return out
}

// TestRealIndexKeys checks that the default profile gives, for every URL in
// the shipped real indexes (Internet Archive, OpenWayback, Common Crawl,
// cdxj-indexer), exactly the key the archive's own indexer wrote.
func TestRealIndexKeys(t *testing.T) {
	pairs := realKeyedURLs(t)
	if len(pairs) < 2000 {
		t.Fatalf("only %d keyed URLs read", len(pairs))
	}
	files := map[string]int{}
	for _, p := range pairs {
		got, err := Canonicalize(p.url)
		if err != nil {
			t.Errorf("%s:%d: Canonicalize(%q): %v", p.file, p.line, p.url, err)
			continue
		}
		if got != p.key {
			t.Errorf("%s:%d: Canonicalize(%q) = %q, index key %q", p.file, p.line, p.url, got, p.key)
		}
		// Fixed must agree on these ordinary URLs too.
		if f, err := Fixed.Canonicalize(p.url); err != nil || f != got {
			t.Errorf("%s:%d: Fixed gives %q, %v; Default %q", p.file, p.line, f, err, got)
		}
		files[p.file]++
	}
	if len(files) < 5 {
		t.Errorf("keys from only %d files: %v", len(files), files)
	}
}
