package summary

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// Pieces that steer the original's expressions onto their edge cases:
// labels, the SURT and host stops, Python whitespace beyond ASCII, Unicode
// digits, scheme prefixes and JSON.
var matchPieces = []string{
	"com", "example", "a", ",", ",", ")", ")/", ":", ":8080", "/", " ", " ", "  ", "\t", "\u00a0", "\u2003", "\x1c", "\u3000",
	"2020", "01", "0101120000", "20200101120000", "١", "٢٠", "9", "http://", "https://", "https:/", "http", "-",
	"text/html", "application/warc-fields", "200", "2", "404", "12345", "½", "x", "é", "\"}", "{", "\n",
}

func randomLine(r *rand.Rand) string {
	var b strings.Builder
	// Most lines start like an index line, so that the deeper groups are reached.
	if r.IntN(3) > 0 {
		b.WriteString([]string{"com,example)/", "com,example,www)/a", "example.com/", "uk,co,bbc:80)/", "a"}[r.IntN(5)])
		b.WriteString([]string{" ", "  ", "\t", "\u00a0"}[r.IntN(4)])
		b.WriteString([]string{"20200101120000", "2020010112000١", "202001", "2020", "20200101120000x"}[r.IntN(5)])
		b.WriteString([]string{" ", " ", "\u2003", ""}[r.IntN(4)])
		if r.IntN(2) == 0 {
			b.WriteString([]string{"http://a.example/ text/html 200 ABC 123", "https://b/ text/html 404 - - - - 99 1 f.warc.gz", "https:// x 200 d 1", "- text/html 200 - 7"}[r.IntN(4)])
		}
	}
	for n := r.IntN(14); n > 0; n-- {
		b.WriteString(matchPieces[r.IntN(len(matchPieces))])
	}
	if r.IntN(2) == 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// matchFast, where it is sure, finds the groups the original's expressions
// find (Go's RE2 with Python's character classes, the reference the golden
// outputs were checked with against the original tool).
func TestMatchFastAgreesWithExpressions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	formats := []compatFormat{fmtCDX7, fmtCDXJ, fmtCDXNbams, fmtCDXNbamskrMSVg}
	sure := map[compatFormat]int{}
	for n := 0; n < 60000; n++ {
		line := randomLine(r)
		for _, f := range formats {
			checkMatch(t, f, line, sure)
		}
	}
	// Real shapes: the shipped index files' lines.
	for _, line := range realLines(t) {
		for _, f := range formats {
			checkMatch(t, f, line, sure)
		}
	}
	for _, f := range formats {
		if sure[f] < 1000 {
			t.Errorf("format %d: matchFast sure on only %d lines: the generator misses the common case", f, sure[f])
		}
	}
}

func checkMatch(t *testing.T, f compatFormat, line string, sure map[compatFormat]int) {
	t.Helper()
	fast, ok := matchFast(f, line)
	if !ok {
		return
	}
	sure[f]++
	want, matched := matchRegexp(f, line)
	if !matched {
		t.Fatalf("format %d, line %q: matchFast matched, the expression does not", f, line)
	}
	if d := cmp.Diff(want, fast, cmp.AllowUnexported(compatGroups{})); d != "" {
		t.Fatalf("format %d, line %q: (-expression +matchFast):\n%s", f, line, d)
	}
}

func realLines(t *testing.T) []string {
	var lines []string
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.SplitAfter(string(b), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// scanFlatJSON accepts only valid JSON, and then reads the members parse_line
// reads as a JSON decoder does (the last duplicate wins).
func TestScanFlatJSON(t *testing.T) {
	pieces := []string{"{", "}", `"status"`, `"mime"`, `"length"`, `"url"`, `"x"`, `"200"`, `"text/html"`, `"a\"b"`, `"\u00e9"`, "\"a\x01\"", "\"\t\"",
		":", ",", " ", "\t", "200", "-1.5e3", "01", "1.", "true", "false", "null", "nul", "[", "]", `"`, "\x01", "é", "NaN"}
	r := rand.New(rand.NewPCG(3, 4))
	accepted := 0
	check := func(s string) {
		var f jsonFields
		if !scanFlatJSON(s, &f) {
			return
		}
		accepted++
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatalf("%q: accepted, but %v", s, err)
		}
		get := func(k string) (string, bool) {
			v, ok := m[k]
			if !ok {
				return "", false
			}
			str, isStr := v.(string)
			if !isStr {
				t.Fatalf("%q: accepted with %s = %v, not a string", s, k, v)
			}
			return str, true
		}
		var want jsonFields
		want.status, want.hasStatus = get("status")
		want.mime, want.hasMime = get("mime")
		want.length, want.hasLength = get("length")
		want.url, want.hasURL = get("url")
		if want != f {
			t.Fatalf("%q: got %+v, want %+v", s, f, want)
		}
	}
	for n := 0; n < 200000; n++ {
		var b strings.Builder
		if r.IntN(4) > 0 {
			b.WriteString(`{"url": "http://a/", `)
		}
		for k := r.IntN(10); k > 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		if r.IntN(2) == 0 {
			b.WriteString(`"status": "200"}`)
		}
		check(b.String())
	}
	// Edges of the grammar, each either read as a decoder reads it or left
	// to the decoder.
	for _, s := range []string{`{}`, ` { } `, `{"x": "a` + "\x01" + `"}`, `{"x": "` + "\t" + `"}`, `{"x": 01}`, `{"x": 1.}`, `{"x": -}`,
		`{"x": 1e}`, `{"x": -0.5E+7}`, `{"x": tru}`, `{"x": "y",}`, `{"x": "y"} x`, `{"x" "y"}`, `{"status": "200", "status": 200}`,
		`{"status": 200, "status": "200"}`, `{"url": "http://a/", "mime": "text/html", "length": "12"}`, `{"x": NaN}`, `{"x": [1]}`} {
		check(s)
	}
	for _, l := range realLines(t) {
		if i := strings.IndexByte(l, '{'); i >= 0 {
			check(strings.TrimSuffix(l[i:], "\n"))
		}
	}
	if accepted < 1000 {
		t.Errorf("only %d blocks accepted: the generator misses the common case", accepted)
	}
}

func FuzzMatchFast(f *testing.F) {
	f.Add(`com,example)/ 20200101120000 {"url": "http://example.com/"}` + "\n")
	f.Add("com,example)/ 20200101120000 http://example.com/ text/html 200 ABC 1234\n")
	f.Add("example.com/ 20200101120000 http://example.com/ text/html 200 - - - 99 0 f.warc.gz\n")
	f.Fuzz(func(t *testing.T, line string) {
		for _, fm := range []compatFormat{fmtCDX7, fmtCDXJ, fmtCDXNbams, fmtCDXNbamskrMSVg} {
			checkMatch(t, fm, line, map[compatFormat]int{})
		}
	})
}
