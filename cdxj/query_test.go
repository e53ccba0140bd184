package cdxj

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/timestamp"
)

// corpus returns the data lines of every shipped index file, sorted
// byte-wise and de-duplicated: a mixed CDX/CDXJ index of about 2,300
// lines with keys from org,archive)/ (2012-2014), com,example)/,
// org,commoncrawl)/ and more.
func corpus(t testing.TB) []string {
	t.Helper()
	var lines []string
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimRight(l, "\r")
			if isBlankLine([]byte(l)) || isHeaderLine([]byte(l)) {
				continue
			}
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return slices.Compact(lines)
}

// reference answers q by scanning every line, with none of the search
// code: the oracle the searches are compared with.
func reference(t testing.TB, lines []string, q Query) []string {
	t.Helper()
	lo, hi, err := timestamp.Bounds(q.From, q.To)
	if err != nil {
		t.Fatal(err)
	}
	k := strings.TrimSuffix(q.Key, "*")
	host, _, _ := strings.Cut(k, ")")
	var out []string
	for _, l := range lines {
		key, rest, _ := strings.Cut(l, " ")
		ts, _, _ := strings.Cut(rest, " ")
		var ok bool
		switch q.Match {
		case MatchExact:
			ok = key == k
		case MatchPrefix:
			ok = strings.HasPrefix(key, k)
		case MatchHost:
			ok = strings.HasPrefix(key, host+")")
		case MatchDomain:
			ok = strings.HasPrefix(key, host+")") || strings.HasPrefix(key, host+",")
		}
		if ok && (lo != "" || hi != "") {
			ok = timestamp.InRange([]byte(ts), lo, hi)
		}
		if ok {
			out = append(out, l)
			if q.Limit > 0 && len(out) == q.Limit {
				break
			}
		}
	}
	return out
}

// queries returns a broad set of queries over lines: every key exactly,
// prefixes of keys, hosts and domains, keys that are absent (before the
// first, after the last, in between), with several time bounds.
func queries(lines []string) []Query {
	var all []string
	for _, l := range lines {
		k, _, _ := strings.Cut(l, " ")
		all = append(all, k)
	}
	all = slices.Compact(all)
	// About 20 keys spread over the corpus, the first and the last
	// included, keep the test fast (the search code has no special case
	// for any key; the absent keys below probe the gaps).
	var keys []string
	step := max(1, len(all)/20)
	for i := 0; i < len(all); i += step {
		keys = append(keys, all[i])
	}
	keys = append(keys, all[len(all)-1])
	var qs []Query
	bounds := [][2]string{{"", ""}, {"2014", "2014"}, {"2012", ""}, {"", "2013"}, {"20120101122052", "20120101122052"}, {"2002", "2008"}, {"20130411", "201304112055"}}
	add := func(key string, m MatchType) {
		bs := bounds
		if m != MatchExact {
			bs = bounds[:4]
		}
		for _, b := range bs {
			qs = append(qs, Query{Key: key, Match: m, From: b[0], To: b[1]})
		}
	}
	for _, k := range keys {
		add(k, MatchExact)
		if len(k) > 3 {
			add(k[:len(k)/2], MatchPrefix)
			add(k[:len(k)-1], MatchPrefix)
		}
		add(k, MatchHost)
		host, _, _ := strings.Cut(k, ")")
		add(host, MatchDomain)
		if i := strings.LastIndexByte(host, ','); i > 0 {
			add(host[:i], MatchDomain)
		}
	}
	for _, k := range []string{"", "!", "0", "a", "com,example)/zzz", "com,example", "com,examplf", "org,archive)/x", "zzzz", "~"} {
		add(k, MatchPrefix)
		if k != "" {
			add(k, MatchExact)
		}
	}
	qs = append(qs, Query{Key: "org,archive)/", Match: MatchExact, Limit: 5}, Query{Key: "org,archive", Match: MatchDomain, From: "2013", Limit: 1}, Query{Key: "org,archive)/*", Match: MatchPrefix, To: "2012"})
	sort.Slice(qs, func(i, j int) bool { return fmt.Sprint(qs[i]) < fmt.Sprint(qs[j]) })
	return qs
}

func collect(t testing.TB, s Searcher, q Query) []string {
	t.Helper()
	var got []string
	for line, err := range s.Lines(q) {
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		got = append(got, string(line))
	}
	return got
}

// writeVariant writes lines as a file in one of the shapes a sorted index
// comes in.
func writeVariant(t testing.TB, dir, variant string, lines []string) string {
	t.Helper()
	if variant == "gzip-members" {
		// As pywb writes a ZipNum part: gzip members of 5 lines, none
		// ending in "\n".
		var members []string
		for i := 0; i < len(lines); i += 5 {
			members = append(members, strings.Join(lines[i:min(i+5, len(lines))], "\n"))
		}
		path := filepath.Join(dir, variant+".cdxj.gz")
		if err := os.WriteFile(path, gz(t, members...), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var b strings.Builder
	switch variant {
	case "legend":
		b.WriteString(" CDX N b a m s k r M S V g\n")
	case "headers":
		b.WriteString("!context [\"http://oduwsdl.github.io/contexts/cdxj\"]\n!meta {\"generator\": \"test\"}\n")
	}
	for i, l := range lines {
		b.WriteString(l)
		switch {
		case variant == "crlf":
			b.WriteString("\r\n")
		case variant == "no-final-newline" && i == len(lines)-1:
		case variant == "blank-lines" && i%7 == 0:
			b.WriteString("\n\n\r\n") // blank lines: passed over and counted (a line of spaces is a bad line)
		default:
			b.WriteString("\n")
		}
	}
	path := filepath.Join(dir, variant+".cdxj")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestSortedMatchesReference(t *testing.T) {
	lines := corpus(t)
	qs := queries(lines)
	want := make([][]string, len(qs))
	for i, q := range qs {
		want[i] = reference(t, lines, q)
	}
	dir := t.TempDir()
	for vi, variant := range []string{"plain", "crlf", "no-final-newline", "blank-lines", "legend", "headers", "gzip-members"} {
		t.Run(variant, func(t *testing.T) {
			s, err := OpenFile(writeVariant(t, dir, variant, lines), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i, q := range qs {
				if vi > 0 && i%4 != 0 {
					continue // every query on the plain file, a sample on the others
				}
				got := collect(t, s, q)
				if slices.Equal(want[i], got) {
					continue
				}
				if diff := cmp.Diff(want[i], got); diff != "" {
					t.Fatalf("query %+v (-want +got):\n%s", q, diff)
				}
			}
		})
	}
}

func TestSortedSmallFiles(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		content string
		q       Query
		want    []string
	}{
		{"empty file", "", Query{Key: "a", Match: MatchPrefix}, nil},
		{"only headers", "!meta {}\n CDX N b\n", Query{Key: "", Match: MatchPrefix}, nil},
		{"one line no newline, found", "a 2014", Query{Key: "a"}, []string{"a 2014"}},
		{"one line, absent before", "b 2014\n", Query{Key: "a"}, nil},
		{"one line, absent after", "b 2014\n", Query{Key: "c"}, nil},
		{"first line", "a 1999\nb 2000\nc 2001\n", Query{Key: "a"}, []string{"a 1999"}},
		{"last line", "a 1999\nb 2000\nc 2001\n", Query{Key: "c"}, []string{"c 2001"}},
		{"blank lines everywhere", "\n\na 1999\n\n\nb 2000\n\n\n\nc 2001\n\n", Query{Key: "b"}, []string{"b 2000"}},
		{"prefix spanning everything", "a 1\nab 2\nabc 3\nb 4\n", Query{Key: "a", Match: MatchPrefix}, []string{"a 1", "ab 2", "abc 3"}},
		{"exact is not prefix", "a 1\nab 2\na! 3\n", Query{Key: "a"}, []string{"a 1"}},
		{"host excludes subdomains", "com,example)/ 1\ncom,example)/a 2\ncom,example,www)/ 3\ncom,example-shop)/ 4\n",
			Query{Key: "com,example)/a", Match: MatchHost}, []string{"com,example)/ 1", "com,example)/a 2"}},
		{"domain includes subdomains only", "com,example)/ 1\ncom,example)/a 2\ncom,example,www)/ 3\ncom,example-shop)/ 4\ncom,examplefoo)/ 5\n",
			Query{Key: "com,example", Match: MatchDomain}, []string{"com,example)/ 1", "com,example)/a 2", "com,example,www)/ 3"}},
		{"long lines", "a " + strings.Repeat("1", 10000) + "\nb 2\nc " + strings.Repeat("3", 10000) + "\n", Query{Key: "b"}, []string{"b 2"}},
		{"17 and 12 digit timestamps", "k 200101011200 {}\nk 20010101115959 {}\nk 20140101000000 {}\nk 20141231235959 {}\nk 20141231235959999 {}\nk 20150101000000 {}\n",
			Query{Key: "k", From: "2014", To: "2014"}, []string{"k 20140101000000 {}", "k 20141231235959 {}", "k 20141231235959999 {}"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprint(i))
			os.WriteFile(path, []byte(tt.content), 0o644)
			s, err := OpenFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if diff := cmp.Diff(tt.want, collect(t, s, tt.q)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// A query reads a few kilobytes of a large file, not the file.
func TestSortedDoesNotReadTheWholeFile(t *testing.T) {
	data := syntheticIndex(30_000)
	cr := &countingReaderAt{r: bytes.NewReader(data)}
	s := NewSorted(cr, int64(len(data)))
	for _, key := range []string{"com,example00000000)/", "com,example00015000)/page/3", "com,example00029999)/page/9", "com,example00123456)/"} {
		cr.n.Store(0)
		got := collect(t, s, Query{Key: key})
		want := 2
		if strings.Contains(key, "123456") {
			want = 0
		}
		if len(got) != want {
			t.Errorf("%s: %d lines, want %d", key, len(got), want)
		}
		if read := cr.n.Load(); read > 64<<10 {
			t.Errorf("%s: read %d bytes of a %d-byte file", key, read, len(data))
		}
	}
}

// syntheticIndex returns n keys × 2 captures of sorted CDXJ.
func syntheticIndex(n int) []byte {
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		for _, path := range []string{"", "page/3", "page/9"} {
			if (i+len(path))%3 == 1 {
				continue
			}
			for _, ts := range []string{"20140102030405", "20190102030405"} {
				fmt.Fprintf(&b, "com,example%08d)/%s %s {\"url\": \"http://example%08d.com/%s\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"1234\"}\n", i, path, ts, i, path)
			}
		}
	}
	return b.Bytes()
}

// Public case CDX-04b: from=2014 to=2014 is 20140101000000..20141231235959
// inclusive.
func TestPublicCaseCDX04b(t *testing.T) {
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var input, expected string
	for _, row := range strings.Split(string(b), "\n") {
		if f := strings.Split(row, "\t"); len(f) > 3 && f[0] == "CDX-04b" {
			input, expected = f[2], f[3]
		}
	}
	var from, to, lo, hi string
	if _, err := fmt.Sscanf(input, "query from=%s to=%s", &from, &to); err != nil {
		t.Fatalf("case input %q: %v", input, err)
	}
	if _, err := fmt.Sscanf(expected, "inclusive bounds %s .. %s", &lo, &hi); err != nil {
		t.Fatalf("case expected %q: %v", expected, err)
	}
	content := strings.Join([]string{
		"k " + prevSecond(lo), "k " + lo, "k " + lo[:8] + "120000", "k " + hi, "k " + hi + "999", "k " + nextSecond(hi),
	}, "\n") + "\n"
	s := NewSorted(strings.NewReader(content), int64(len(content)))
	got := collect(t, s, Query{Key: "k", From: from, To: to})
	want := []string{"k " + lo, "k " + lo[:8] + "120000", "k " + hi, "k " + hi + "999"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("from=%s to=%s (-want +got):\n%s", from, to, diff)
	}
}

func prevSecond(ts string) string { return "20131231235959" }
func nextSecond(ts string) string { return "20150101000000" }

func TestQueryErrors(t *testing.T) {
	s := NewSorted(strings.NewReader("a 1\n"), 4)
	for _, q := range []Query{
		{Key: "a b"},
		{Key: "a", From: "20141" + "3"},
		{Key: "a", From: "2015", To: "2014"},
		{Key: "", Match: MatchHost},
		{Key: "a", Match: MatchType(9)},
		{Key: "a", Limit: -1},
	} {
		var n int
		for _, err := range s.Lines(q) {
			n++
			if !errors.Is(err, ErrQuery) {
				t.Errorf("%+v: error %v, want ErrQuery", q, err)
			}
		}
		if n != 1 {
			t.Errorf("%+v: %d yields, want one error", q, n)
		}
	}
}

func TestParseMatchType(t *testing.T) {
	for i, name := range []string{"exact", "prefix", "host", "domain"} {
		m, err := ParseMatchType(name)
		if err != nil || m != MatchType(i) || m.String() != name {
			t.Errorf("ParseMatchType(%q) = %v, %v", name, m, err)
		}
	}
	if m, err := ParseMatchType(""); err != nil || m != MatchExact {
		t.Errorf(`ParseMatchType("") = %v, %v`, m, err)
	}
	if _, err := ParseMatchType("regex"); !errors.Is(err, ErrQuery) {
		t.Errorf("ParseMatchType(regex) error = %v", err)
	}
}

func TestQueryForURL(t *testing.T) {
	tests := []struct {
		url  string
		m    MatchType
		want Query
	}{
		{"http://www.example.com/a/b?x=1", MatchExact, Query{Key: "com,example)/a/b?x=1"}},
		{"example.com/a/*", MatchExact, Query{Key: "com,example)/a/", Match: MatchPrefix}},
		{"example.com/a*", MatchExact, Query{Key: "com,example)/a", Match: MatchPrefix}},
		{"example.com", MatchPrefix, Query{Key: "com,example)/", Match: MatchPrefix}},
		{"*.example.com", MatchExact, Query{Key: "com,example)/", Match: MatchDomain}},
		{"example.com/x", MatchHost, Query{Key: "com,example)/x", Match: MatchHost}},
	}
	for _, tt := range tests {
		got, err := QueryForURL(tt.url, tt.m)
		if err != nil {
			t.Errorf("QueryForURL(%q): %v", tt.url, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("QueryForURL(%q) (-want +got):\n%s", tt.url, diff)
		}
	}
}

func TestSortedRecords(t *testing.T) {
	b, err := sampledata.ReadFile("real/cdxjindexer_example-warc.cdx9")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSorted(bytes.NewReader(b), int64(len(b)))
	var got []string
	for rec, err := range s.Records(Query{Key: "com,example)/"}) {
		if err != nil {
			t.Fatal(err)
		}
		off, _ := rec.Offset()
		got = append(got, fmt.Sprintf("%s %s %s %d", rec.Key(), rec.Timestamp(), rec.MIME(), off))
	}
	want := []string{"com,example)/ 20170306040206 text/html 784", "com,example)/ 20170306040348 warc/revisit 2635"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// A line longer than MaxLineSize is an error naming its offset, whether
// the binary search or the sequential read meets it; never a silent stop.
func TestSortedLineTooLong(t *testing.T) {
	long := "b " + strings.Repeat("9", 5000)
	content := "a 1\n" + long + "\nc 3\n"
	for _, tt := range []struct {
		name string
		q    Query
	}{
		{"met by the sequential read", Query{Key: "", Match: MatchPrefix}},
		{"met by the search", Query{Key: "b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSorted(strings.NewReader(content), int64(len(content)))
			s.MaxLineSize = 1000
			var errs []error
			var lines []string
			for line, err := range s.Lines(tt.q) {
				if err != nil {
					errs = append(errs, err)
					continue
				}
				lines = append(lines, string(line))
			}
			if len(errs) != 1 || !errors.Is(errs[0], ErrLineTooLong) || !strings.Contains(errs[0].Error(), "byte 4") {
				t.Errorf("lines %q, errors %v; want one ErrLineTooLong at byte 4", lines, errs)
			}
		})
	}
}
