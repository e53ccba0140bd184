package cdxj

import (
	"bytes"
	"compress/gzip"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
)

var update = flag.Bool("update", false, "rewrite the ZipNum fixtures in testdata/zipnum")

// buildCluster writes lines as a ZipNum cluster in dir and opens it.
func buildCluster(t testing.TB, dir, name string, lines []string, opt *ClusterOptions) *Cluster {
	t.Helper()
	w, err := CreateCluster(dir, name, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, l := range lines {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCluster(w.IdxPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestClusterMatchesReference(t *testing.T) {
	lines := corpus(t)
	qs := queries(lines)
	want := make([][]string, len(qs))
	for i, q := range qs {
		want[i] = reference(t, lines, q)
	}
	// A quarter of the queries against one layout, fewer against the
	// others (the whole set takes a minute with -race on a loaded machine;
	// FuzzClusterQuery explores further).
	tests := []struct {
		name  string
		opt   *ClusterOptions
		every int
	}{
		{"7 lines, 5 blocks per part, loc", &ClusterOptions{LinesPerBlock: 7, BlocksPerPart: 5, WriteLoc: true}, 4},
		{"defaults (one block)", nil, 20},
		{"one line per block", &ClusterOptions{LinesPerBlock: 1}, 25},
		{"100 lines, CDXJ index", &ClusterOptions{LinesPerBlock: 100, CDXJIndex: true}, 10},
		{"3 lines, CDXJ index, parts of 10 blocks", &ClusterOptions{LinesPerBlock: 3, CDXJIndex: true, BlocksPerPart: 10}, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := buildCluster(t, t.TempDir(), "cluster", lines, tt.opt)
			for i, q := range qs {
				if i%tt.every != 0 {
					continue
				}
				got := collect(t, c, q)
				if slices.Equal(want[i], got) {
					continue
				}
				t.Fatalf("query %+v (-want +got):\n%s", q, cmp.Diff(want[i], got))
			}
			// Every line comes back, in order, from a full scan.
			if got := collect(t, c, Query{Match: MatchPrefix}); !slices.Equal(got, lines) {
				t.Errorf("full scan: %d lines, want %d", len(got), len(lines))
			}
		})
	}
}

// The secondary index agrees with the part files read member by member.
func TestClusterEntriesMatchBlocks(t *testing.T) {
	lines := corpus(t)
	dir := t.TempDir()
	for _, cdxjIdx := range []bool{false, true} {
		name := fmt.Sprint("c", cdxjIdx)
		c := buildCluster(t, dir, name, lines, &ClusterOptions{LinesPerBlock: 50, BlocksPerPart: 20, CDXJIndex: cdxjIdx})
		var fromIdx []IdxEntry
		for e, err := range c.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			e.At = 0
			fromIdx = append(fromIdx, e)
		}
		var fromParts []IdxEntry
		var all []string
		for p := 0; ; p++ {
			part := fmt.Sprintf("%s-%05d.gz", name, p)
			f, err := os.Open(filepath.Join(dir, part))
			if errors.Is(err, os.ErrNotExist) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			for b, err := range ReadBlocks(f, 0) {
				if err != nil {
					t.Fatal(err)
				}
				blockLines := strings.Split(strings.TrimSuffix(string(b.Data), "\n"), "\n")
				all = append(all, blockLines...)
				f := strings.SplitN(blockLines[0], " ", 3)
				k := f[0]
				if len(f) > 1 && !strings.HasPrefix(f[1], "{") {
					k += " " + f[1]
				}
				fromParts = append(fromParts, IdxEntry{Key: k, Part: part, Offset: b.Offset, Length: b.Length, Block: int64(len(fromParts) + 1)})
			}
			f.Close()
		}
		if diff := cmp.Diff(fromParts, fromIdx); diff != "" {
			t.Errorf("CDXJIndex=%v: entries (-parts +idx):\n%s", cdxjIdx, diff)
		}
		if !slices.Equal(all, lines) {
			t.Errorf("CDXJIndex=%v: blocks hold %d lines, want %d", cdxjIdx, len(all), len(lines))
		}
		wantBlocks := (len(lines) + 49) / 50
		if len(fromIdx) != wantBlocks {
			t.Errorf("%d blocks, want %d", len(fromIdx), wantBlocks)
		}
		if cdxjIdx && c.Format() != FormatCDXJGzip {
			t.Errorf("Format() = %q", c.Format())
		}
	}
}

// gzipMember compresses s as one gzip member.
func gzipMember(t testing.TB, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

// A hand-made cluster in the shapes found in the field: blocks whose last
// line has no "\n", a CDXJ secondary index with string-valued numbers and
// a default filename, a .loc file pointing into a sub-folder, CRLF lines.
func TestClusterFieldShapes(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "parts"), 0o755)
	blocks := []string{
		"com,example)/ 20140101000000 {\"a\": 1}\ncom,example)/ 20150101000000 {\"a\": 2}",    // no final newline
		"com,example)/ 20160101000000 {\"a\": 3}\r\ncom,example)/a 20140101000000 {\"a\": 4}", // CRLF, no final newline
		"com,example,www)/ 20140101000000 {\"a\": 5}\n",
	}
	var part bytes.Buffer
	var idx strings.Builder
	idx.WriteString("!meta 0 {\"format\": \"cdxj-gzip-1.0\", \"filename\": \"p0.gz\"}\n")
	for i, b := range blocks {
		off := part.Len()
		part.Write(gzipMember(t, b))
		first := strings.Join(strings.SplitN(b, " ", 3)[:2], " ")
		fmt.Fprintf(&idx, "%s {\"offset\": \"%d\", \"length\": %d, \"lineno\": %d}\n", first, off, part.Len()-off, i+1)
	}
	os.WriteFile(filepath.Join(dir, "parts", "data-0.gz"), part.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "x.idx"), []byte(idx.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "x.loc"), []byte("p0.gz\tmissing/p0.gz\tparts/data-0.gz\n"), 0o644)
	c, err := OpenCluster(filepath.Join(dir, "x.idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tests := []struct {
		q    Query
		want []string
	}{
		{Query{Key: "com,example)/"}, []string{`com,example)/ 20140101000000 {"a": 1}`, `com,example)/ 20150101000000 {"a": 2}`, `com,example)/ 20160101000000 {"a": 3}`}},
		{Query{Key: "com,example)/", From: "2015"}, []string{`com,example)/ 20150101000000 {"a": 2}`, `com,example)/ 20160101000000 {"a": 3}`}},
		{Query{Key: "com,example)/", To: "2015"}, []string{`com,example)/ 20140101000000 {"a": 1}`, `com,example)/ 20150101000000 {"a": 2}`}},
		{Query{Key: "com,example)/a", Match: MatchHost}, []string{`com,example)/ 20140101000000 {"a": 1}`, `com,example)/ 20150101000000 {"a": 2}`, `com,example)/ 20160101000000 {"a": 3}`, `com,example)/a 20140101000000 {"a": 4}`}},
		{Query{Key: "com,example", Match: MatchDomain, From: "2014", To: "2014"}, []string{`com,example)/ 20140101000000 {"a": 1}`, `com,example)/a 20140101000000 {"a": 4}`, `com,example,www)/ 20140101000000 {"a": 5}`}},
		{Query{Key: "com,example,www)/"}, []string{`com,example,www)/ 20140101000000 {"a": 5}`}},
		{Query{Key: "org,example)/"}, nil},
		{Query{Key: "a", Match: MatchPrefix}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, collect(t, c, tt.q)); diff != "" {
			t.Errorf("%+v (-want +got):\n%s", tt.q, diff)
		}
	}
	var n int
	for rec, err := range c.Records(Query{Key: "com,example)/", Limit: 2}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if v, ok, err := rec.Field("a"); err != nil || !ok || v != fmt.Sprint(n) {
			t.Errorf("record %d: field a = %q, %v, %v", n, v, ok, err)
		}
	}
	if n != 2 {
		t.Errorf("Records with Limit 2 yielded %d", n)
	}
}

func TestClusterErrors(t *testing.T) {
	dir := t.TempDir()
	good := gzipMember(t, "a 2014\n")
	os.WriteFile(filepath.Join(dir, "p.gz"), append(good, []byte("not gzip at all")...), 0o644)
	tests := []struct {
		name, idx string
		want      string
	}{
		{"bad offset", "a 2014\tp.gz\tx\t5\t1\n", "bad offset"},
		{"too few fields", "a 2014\tp.gz\t0\n", "tab-separated fields"},
		{"missing part", "a 2014\tq.gz\t0\t10\t1\n", "q.gz"},
		{"part name with a slash", "a 2014\t../p.gz\t0\t10\t1\n", "not a file name"},
		{"not gzip where the index says", fmt.Sprintf("a 2014\tp.gz\t%d\t15\t1\n", len(good)), "malformed ZipNum"},
		{"CDXJ line without filename", "a 2014 {\"offset\": 0, \"length\": 5}\n", "filename"},
		{"neither form", "a 2014 p.gz 0 5\n", "neither"},
		{"block too large", "a 2014\tp.gz\t0\t999999999999\t1\n", "more than"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, fmt.Sprintf("c%d.idx", i))
			os.WriteFile(path, []byte(tt.idx), 0o644)
			c, err := OpenCluster(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var errs []error
			for _, err := range c.Lines(Query{Key: "a"}) {
				if err != nil {
					errs = append(errs, err)
				}
			}
			if len(errs) != 1 || !strings.Contains(errs[0].Error(), tt.want) {
				t.Errorf("errors %v, want one containing %q", errs, tt.want)
			}
		})
	}
	if _, err := OpenCluster(filepath.Join(dir, "nope.idx"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenCluster(missing) = %v", err)
	}
	os.WriteFile(filepath.Join(dir, "m.idx"), []byte("!meta 0 {bad json}\n"), 0o644)
	if _, err := OpenCluster(filepath.Join(dir, "m.idx"), nil); !errors.Is(err, ErrZipNum) {
		t.Errorf("bad !meta: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "l.idx"), []byte(""), 0o644)
	os.WriteFile(filepath.Join(dir, "l.loc"), []byte("\tpart-00000.gz\n"), 0o644)
	if _, err := OpenCluster(filepath.Join(dir, "l.idx"), nil); !errors.Is(err, ErrZipNum) {
		t.Errorf("bad .loc: %v", err)
	}
}

func TestClusterWriterRefusals(t *testing.T) {
	dir := t.TempDir()
	w, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{"b 2014", "b 2014", "c 2014"} {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
	}
	if err := w.WriteLine([]byte("a 2014")); !errors.Is(err, ErrUnsorted) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("unsorted line: %v", err)
	}
	// Lines equal in SortKey may differ in order of the rest.
	for _, l := range []string{`c 2014 {"url": "http://c/", "mime": "text/html"}`, `c 2014 {"url": "http://c/"}`} {
		if err := w.WriteLine([]byte(l)); err != nil {
			t.Fatalf("%q after a line of the same key and timestamp: %v", l, err)
		}
	}
	if err := w.WriteLine([]byte("c 2013")); !errors.Is(err, ErrUnsorted) || !strings.Contains(err.Error(), "line 6") {
		t.Errorf("a timestamp going back: %v", err)
	}
	for _, bad := range []string{"", "  ", "!meta {}", " CDX N b", "d 1\ne 2"} {
		if err := w.WriteLine([]byte(bad)); err == nil {
			t.Errorf("WriteLine(%q) accepted", bad)
		}
	}
	if w.Lines() != 5 || w.Blocks() != 2 {
		t.Errorf("Lines %d Blocks %d, want 5 and 2", w.Lines(), w.Blocks())
	}
	// Nothing is visible before Commit; Close leaves nothing behind.
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("temporary files: %v", entries)
	}
	for _, e := range mustReadDir(t, dir) {
		if !strings.HasPrefix(e, ".") {
			t.Errorf("visible file %s before Commit", e)
		}
	}
	w.Close()
	if got := mustReadDir(t, dir); len(got) != 0 {
		t.Errorf("after Close: %v", got)
	}
	if err := w.Commit(); err == nil {
		t.Error("Commit after Close succeeded")
	}
	if _, err := CreateCluster(dir, "a/b", nil); err == nil {
		t.Error("CreateCluster accepted a name with a slash")
	}
	// An empty cluster commits and answers nothing.
	c := buildCluster(t, dir, "empty", nil, &ClusterOptions{WriteLoc: true, CDXJIndex: true})
	if got := collect(t, c, Query{Match: MatchPrefix}); len(got) != 0 {
		t.Errorf("empty cluster gave %v", got)
	}
}

func mustReadDir(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The clusters in testdata/zipnum were built by ClusterWriter from the
// shipped real index files (see testdata/zipnum/README.md); go test
// -run TestZipNumFixtures -update rebuilds them. Reading them checks that
// clusters written by an earlier build still read the same.
func TestZipNumFixtures(t *testing.T) {
	fixtures := []struct {
		name, source string
		opt          ClusterOptions
	}{
		{"openwayback", "real/openwayback_archive-org.cdx", ClusterOptions{LinesPerBlock: 100, WriteLoc: true}},
		{"commoncrawl", "real/cc_commoncrawl-org_from-cdxapi.cdxj", ClusterOptions{LinesPerBlock: 5, CDXJIndex: true}},
	}
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			src, err := sampledata.ReadFile(fx.source)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, l := range strings.Split(string(src), "\n") {
				if !isBlankLine([]byte(l)) && !isHeaderLine([]byte(l)) {
					lines = append(lines, l)
				}
			}
			slices.Sort(lines) // the source is sorted already; keep it so
			dir := filepath.Join("testdata", "zipnum")
			if *update {
				w, err := CreateCluster(dir, fx.name, &fx.opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range lines {
					if err := w.WriteLine([]byte(l)); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			c, err := OpenCluster(filepath.Join(dir, fx.name+".idx"), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if got := collect(t, c, Query{Match: MatchPrefix}); !slices.Equal(got, lines) {
				t.Fatalf("full scan: %d lines, want %d", len(got), len(lines))
			}
			for i, q := range queries(lines) {
				if i%3 != 0 {
					continue
				}
				want := reference(t, lines, q)
				if got := collect(t, c, q); !slices.Equal(got, want) {
					t.Fatalf("query %+v (-want +got):\n%s", q, cmp.Diff(want, got))
				}
			}
		})
	}
}

func TestParseIdxLine(t *testing.T) {
	tests := []struct {
		line string
		want IdxEntry
	}{
		{"com,example)/ 20140101000000\tcdx-00000.gz\t0\t186016\t1", IdxEntry{Key: "com,example)/ 20140101000000", Part: "cdx-00000.gz", Length: 186016, Block: 1}},
		{"com,example)/ 20140101000000\tpart-a\t10\t20", IdxEntry{Key: "com,example)/ 20140101000000", Part: "part-a", Offset: 10, Length: 20}},
		{`com,example)/ 20201007212236 {"offset": 0, "length": 194}`, IdxEntry{Key: "com,example)/ 20201007212236", Part: "index.cdx.gz", Length: 194}},
		{`com,example)/ 20201007212236 {"offset": "7", "length": "194", "filename": "b.gz", "lineno": 3, "digest": "sha256:x"}`, IdxEntry{Key: "com,example)/ 20201007212236", Part: "b.gz", Offset: 7, Length: 194, Block: 3}},
	}
	for _, tt := range tests {
		got, err := ParseIdxLine([]byte(tt.line), "index.cdx.gz")
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestReadBlocksErrors(t *testing.T) {
	data := append(gzipMember(t, "a 1\n"), gzipMember(t, strings.Repeat("b 2\n", 100))...)
	var n int
	for _, err := range ReadBlocks(bytes.NewReader(data), 100) {
		n++
		if n == 2 && (err == nil || !strings.Contains(err.Error(), "more than 100")) {
			t.Errorf("second member: %v", err)
		}
	}
	if n != 2 {
		t.Errorf("%d yields, want 2", n)
	}
	for _, err := range ReadBlocks(strings.NewReader("garbage"), 0) {
		if !errors.Is(err, ErrZipNum) {
			t.Errorf("garbage: %v", err)
		}
	}
}

// ReadBlocks and ClusterWriter.WriteLines read io.Readers: they give the
// same results through the testing/iotest readers.
func TestZipNumIOTestReaders(t *testing.T) {
	lines := corpus(t)
	text := strings.Join(lines, "\n") + "\n"
	dir := t.TempDir()
	c := buildCluster(t, dir, "ref", lines, &ClusterOptions{LinesPerBlock: 97})
	part, err := os.ReadFile(filepath.Join(dir, "ref-00000.gz"))
	if err != nil {
		t.Fatal(err)
	}
	var want []IdxEntry
	for e, err := range c.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, IdxEntry{Key: e.Key, Offset: e.Offset, Length: e.Length})
	}
	for name, wrap := range map[string]func(io.Reader) io.Reader{
		"OneByteReader": iotest.OneByteReader,
		"DataErrReader": iotest.DataErrReader,
		"HalfReader":    iotest.HalfReader,
	} {
		t.Run(name, func(t *testing.T) {
			var got []IdxEntry
			var all []string
			for b, err := range ReadBlocks(wrap(bytes.NewReader(part)), 0) {
				if err != nil {
					t.Fatal(err)
				}
				ls := strings.Split(strings.TrimSuffix(string(b.Data), "\n"), "\n")
				all = append(all, ls...)
				got = append(got, IdxEntry{Key: string(blockKey([]byte(ls[0]))), Offset: b.Offset, Length: b.Length})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("blocks (-idx +read):\n%s", diff)
			}
			if !slices.Equal(all, lines) {
				t.Errorf("read %d lines, want %d", len(all), len(lines))
			}
			w, err := CreateCluster(t.TempDir(), "w", &ClusterOptions{LinesPerBlock: 97})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			if err := w.WriteLines(wrap(strings.NewReader(" CDX N b a\n" + text))); err != nil {
				t.Fatal(err)
			}
			if w.Lines() != int64(len(lines)) {
				t.Errorf("WriteLines wrote %d lines, want %d", w.Lines(), len(lines))
			}
		})
	}
}

// The pages of a query, read one by one, give the lines of the query.
func TestClusterPages(t *testing.T) {
	lines := corpus(t)
	c := buildCluster(t, t.TempDir(), "p", lines, &ClusterOptions{LinesPerBlock: 10})
	for _, q := range []Query{
		{Key: "org,archive", Match: MatchDomain},
		{Key: "org,archive)/", From: "2013"},
		{Key: "com,example)/", Match: MatchHost},
		{Key: "zzz"},
		{Match: MatchPrefix},
	} {
		for _, size := range []int{1, 3, 50} {
			pages, blocks, err := c.Pages(q, size)
			if err != nil {
				t.Fatal(err)
			}
			if pages != (blocks+size-1)/size {
				t.Errorf("%+v size %d: %d pages for %d blocks", q, size, pages, blocks)
			}
			var got []string
			for p := 0; p <= pages; p++ { // one page past the end: empty
				for line, err := range c.Page(q, p, size) {
					if err != nil {
						t.Fatal(err)
					}
					if p == pages {
						t.Errorf("%+v: page %d past the end yielded %q", q, p, line)
					}
					got = append(got, string(line))
				}
			}
			if want := reference(t, lines, q); !slices.Equal(got, want) {
				t.Errorf("%+v size %d: pages give %d lines, want %d", q, size, len(got), len(want))
			}
		}
	}
	if _, _, err := c.Pages(Query{Key: "a"}, 0); !errors.Is(err, ErrQuery) {
		t.Errorf("Pages with size 0: %v", err)
	}
	for _, err := range c.Page(Query{Key: "a"}, -1, 5) {
		if !errors.Is(err, ErrQuery) {
			t.Errorf("Page -1: %v", err)
		}
	}
}

// TestCreateClusterFolder: a cluster folder that does not exist, or is a
// file, is refused by an error naming the folder (not the temporary file
// CreateCluster would make in it), and a missing one wraps fs.ErrNotExist.
func TestCreateClusterFolder(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-folder")
	_, err := CreateCluster(missing, "c", nil)
	if err == nil {
		t.Fatal("CreateCluster in a missing folder succeeded")
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v does not wrap fs.ErrNotExist", err)
	}
	if want := "cdxj: cluster folder " + missing + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
	if strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %q names a temporary file", err)
	}
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = CreateCluster(file, "c", nil)
	if err == nil || err.Error() != "cdxj: cluster folder "+file+" is not a folder" {
		t.Errorf("CreateCluster in a file: %v", err)
	}
	if got := mustReadDir(t, dir); len(got) != 1 {
		t.Errorf("folder holds %v after the refusals", got)
	}
}
