package cdxj

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/timestamp"
)

// gz returns the gzip members holding parts, one member each.
func gz(t testing.TB, parts ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range parts {
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// bgzf returns data as BGZF members (the "BC" extra subfield) of at most
// size bytes each, cut wherever that falls.
func bgzf(t testing.TB, data []byte, size int) []byte {
	t.Helper()
	var b bytes.Buffer
	for len(data) > 0 {
		n := min(size, len(data))
		zw := gzip.NewWriter(&b)
		zw.Extra = []byte{'B', 'C', 2, 0, 0, 0} // BSIZE is not read here
		zw.Write(data[:n])
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = data[n:]
	}
	return b.Bytes()
}

// walkAll returns every record of s (as key, timestamp and status) and the
// errors met, by Records(Query{}).
func walkAll(t testing.TB, s Searcher) (recs []string, errs []error) {
	t.Helper()
	for rec, err := range s.Records(Query{}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		recs = append(recs, fmt.Sprintf("%s %s %d", rec.Key(), rec.Timestamp(), rec.Status()))
	}
	return recs, errs
}

// writeFile writes data at dir/name and returns the path.
func writeFile(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// pywbLines is an index of the shape of pywb's ZipNum sample: 38 blocks of
// 5 lines (the last block shorter), with keys repeating across blocks.
func pywbLines() []string {
	var lines []string
	for i := range 187 {
		lines = append(lines, fmt.Sprintf("org,iana)/_css/%03d.css 2014012620%02d%02d {\"url\": \"http://www.iana.org/_css/%03d.css\", \"mime\": \"text/css\", \"status\": \"200\", \"length\": \"%d\", \"offset\": \"%d\", \"filename\": \"iana.warc.gz\"}", i/3, i/60, i%60, i/3, 500+i, 1000*i))
	}
	return lines
}

func TestOpenResolves(t *testing.T) {
	lines := pywbLines()
	flat := []byte(strings.Join(lines, "\n") + "\n")
	want, _ := walkAll(t, NewStream("flat", bytes.NewReader(flat), nil))
	if len(want) != len(lines) {
		t.Fatalf("flat file: %d records, want %d", len(want), len(lines))
	}
	dir := t.TempDir()
	// A cluster of pywb's shape: blocks without a final newline, and a
	// .loc whose first location is bad.
	pywb := filepath.Join(dir, "pywb")
	os.MkdirAll(pywb, 0o755)
	w, err := CreateCluster(pywb, "zipnum", &ClusterOptions{LinesPerBlock: 5, NoFinalNewline: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		w.WriteLine([]byte(l))
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if w.Blocks() != 38 {
		t.Fatalf("%d blocks, want 38", w.Blocks())
	}
	writeFile(t, pywb, "zipnum.loc", []byte("bar\t./invalid\nfoo2\nzipnum-00000.gz\t./x-bad-path-to-ignore-x\tzipnum-00000.gz\n"))
	// The Common Crawl layout: cluster.idx beside cdx-00000.gz, cdx-00001.gz.
	cc := filepath.Join(dir, "cc", "indexes")
	os.MkdirAll(cc, 0o755)
	w, err = CreateCluster(cc, "cdx", &ClusterOptions{LinesPerBlock: 7, BlocksPerPart: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		w.WriteLine([]byte(l))
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(cc, "cdx.idx"), filepath.Join(cc, "cluster.idx")); err != nil {
		t.Fatal(err)
	}
	members := make([]string, 0, 38)
	for i := 0; i < len(lines); i += 5 {
		members = append(members, strings.Join(lines[i:min(i+5, len(lines))], "\n"))
	}

	tests := []struct {
		name  string
		path  string
		stdin []byte
		kind  string
	}{
		{"plain file", writeFile(t, dir, "flat.cdxj", flat), nil, "*cdxj.File"},
		{"plain file without final newline", writeFile(t, dir, "nonl.cdxj", flat[:len(flat)-1]), nil, "*cdxj.File"},
		{"gzip file", writeFile(t, dir, "flat.cdxj.gz", gz(t, string(flat))), nil, "*cdxj.File"},
		{"gzip members without final newline", writeFile(t, dir, "zipnum-sample.cdx.gz", gz(t, members...)), nil, "*cdxj.File"},
		{"gzip file without .gz name", writeFile(t, dir, "index.cdxj", gz(t, members...)), nil, "*cdxj.File"},
		{"BGZF cut mid-line", writeFile(t, dir, "bgzf.cdxj.gz", bgzf(t, flat, 1000)), nil, "*cdxj.File"},
		{"pywb part file", filepath.Join(pywb, "zipnum-00000.gz"), nil, "*cdxj.File"},
		{"pywb cluster by its .idx", filepath.Join(pywb, "zipnum.idx"), nil, "*cdxj.Cluster"},
		{"pywb cluster by its folder", pywb, nil, "*cdxj.Cluster"},
		{"Common Crawl cluster.idx", filepath.Join(cc, "cluster.idx"), nil, "*cdxj.Cluster"},
		{"Common Crawl folder", cc, nil, "*cdxj.Cluster"},
		{"Common Crawl part", filepath.Join(cc, "cdx-00001.gz"), nil, "*cdxj.File"},
		{"standard input, gzip", "-", gz(t, members...), "*cdxj.Stream"},
		{"standard input, plain", "-", flat, "*cdxj.Stream"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := &OpenOptions{Workers: 3}
			if tt.stdin != nil {
				opt.Stdin = bytes.NewReader(tt.stdin)
			}
			before, _ := os.ReadFile(tt.path)
			ix, err := Open(context.Background(), tt.path, opt)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			if got := fmt.Sprintf("%T", ix); got != tt.kind {
				t.Errorf("Open gives a %s, want %s", got, tt.kind)
			}
			got, errs := walkAll(t, ix)
			if len(errs) > 0 {
				t.Fatalf("errors %v", errs)
			}
			wantHere := want
			if strings.Contains(tt.name, "part") {
				// One part of the cluster: its blocks are a run of the lines.
				if len(got) == 0 || !slices.Contains(want, got[0]) {
					t.Fatalf("part gives %d records", len(got))
				}
				i := slices.Index(want, got[0])
				wantHere = want[i:min(i+len(got), len(want))]
			}
			if diff := cmp.Diff(wantHere, got); diff != "" {
				t.Errorf("records (-flat +%s):\n%s", tt.name, diff)
			}
			if tt.stdin == nil && !strings.Contains(tt.kind, "Cluster") {
				if after, _ := os.ReadFile(tt.path); !bytes.Equal(before, after) {
					t.Error("the input changed")
				}
			}
		})
	}

	t.Run("key query on every source", func(t *testing.T) {
		q := Query{Key: "org,iana)/_css/017.css", Match: MatchPrefix}
		var wantLines []string
		for _, l := range lines {
			if strings.HasPrefix(l, q.Key) {
				wantLines = append(wantLines, l)
			}
		}
		for _, tt := range tests {
			if tt.stdin != nil || strings.Contains(tt.name, "part") {
				continue
			}
			ix, err := Open(context.Background(), tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(wantLines, collect(t, ix, q)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, diff)
			}
			ix.Close()
		}
	})
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "two/a.idx", nil)
	writeFile(t, dir, "two/b.idx", nil)
	os.MkdirAll(filepath.Join(dir, "none"), 0o755)
	tests := []struct {
		name, path string
		want       string
		is         error
	}{
		{"missing file", filepath.Join(dir, "nope.cdxj"), "no such file", os.ErrNotExist},
		{"folder with two secondary indexes", filepath.Join(dir, "two"), "a.idx, b.idx", nil},
		{"folder without a secondary index", filepath.Join(dir, "none"), "without a ZipNum secondary index", nil},
		{"not a URL Open reads", "ftp://127.0.0.1/x.cdx", "no such file", os.ErrNotExist},
		{"standard input not given", "-", "standard input", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Open(context.Background(), tt.path, nil)
			if err == nil {
				ix.Close()
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("error %q, want one containing %q (is %v)", err, tt.want, tt.is)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Open(ctx, filepath.Join(dir, "two"), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// Every location of a part is tried in order, and when none opens the error
// names each of them.
func TestClusterLocations(t *testing.T) {
	dir := t.TempDir()
	c := buildCluster(t, dir, "c", []string{"a 2014 {}", "b 2015 {}"}, nil)
	c.Close()
	part := filepath.Join(dir, "c-00000.gz")
	moved := filepath.Join(dir, "elsewhere", "c-00000.gz")
	os.MkdirAll(filepath.Dir(moved), 0o755)
	if err := os.Rename(part, moved); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "c.loc", []byte("c-00000.gz\thttp://example.com/c-00000.gz\t./missing-1.gz\t"+filepath.Join(dir, "missing-2.gz")+"\n"))
	ix, err := Open(context.Background(), filepath.Join(dir, "c.idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := walkAll(t, ix)
	ix.Close()
	if len(errs) != 1 {
		t.Fatalf("errors %v, want one", errs)
	}
	for _, s := range []string{"http://example.com/c-00000.gz", filepath.Join(dir, "missing-1.gz"), "missing-1.gz (", filepath.Join(dir, "missing-2.gz")} {
		if !strings.Contains(errs[0].Error(), s) {
			t.Errorf("error %q does not name %q", errs[0], s)
		}
	}
	if !errors.Is(errs[0], ErrZipNum) {
		t.Errorf("error %v does not wrap ErrZipNum", errs[0])
	}
	writeFile(t, dir, "c.loc", []byte("c-00000.gz\t./missing-1.gz\telsewhere/c-00000.gz\n"))
	ix, err = Open(context.Background(), filepath.Join(dir, "c.idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if got, errs := walkAll(t, ix); len(got) != 2 || len(errs) > 0 {
		t.Errorf("with a good second location: %q, %v", got, errs)
	}
}

// A bad line is reported with its source and line, and the walk goes on.
func TestWalkNamesBadLines(t *testing.T) {
	dir := t.TempDir()
	lines := []string{"a 2014 {}", "b 2015 {}", "c 20x5 {}", "d 2016 {}", "e 2017 {}", "f 2018 {}"}
	flat := strings.Join(lines, "\n") + "\n"
	w, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 2, NoFinalNewline: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		w.WriteLine([]byte(l))
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, where string
	}{
		{"plain", writeFile(t, dir, "x.cdxj", []byte(flat)), filepath.Join(dir, "x.cdxj") + ": line 3"},
		{"gzip", writeFile(t, dir, "x.cdxj.gz", gz(t, lines[0]+"\n"+lines[1], lines[2]+"\n"+lines[3], lines[4]+"\n"+lines[5])), filepath.Join(dir, "x.cdxj.gz") + ": line 3"},
		{"cluster", filepath.Join(dir, "c.idx"), "c-00000.gz, block at byte "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ix, err := Open(context.Background(), tt.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			got, errs := walkAll(t, ix)
			if len(got) != 5 || len(errs) != 1 {
				t.Fatalf("records %q, errors %v; want 5 and 1", got, errs)
			}
			var pe *ParseError
			if !errors.As(errs[0], &pe) || !errors.Is(errs[0], timestamp.ErrInvalid) || !strings.Contains(errs[0].Error(), tt.where) {
				t.Errorf("error %q, want a *ParseError naming %q", errs[0], tt.where)
			}
			if tt.name == "cluster" && pe.Line != 1 {
				t.Errorf("line %d in the block, want 1", pe.Line)
			}
		})
	}
}

func TestGzipMemberEnds(t *testing.T) {
	lines := []string{"a 2014 {}", "b 2015 {}", "c 2016 {}"}
	tests := []struct {
		name string
		data []byte
		want []string
		bad  int
	}{
		{"members without final newline", gz(t, lines[0], lines[1]+"\n"+lines[2]), []string{"a 2014 0", "b 2015 0", "c 2016 0"}, 0},
		{"empty members between", gz(t, lines[0], "", lines[1], "", lines[2]), []string{"a 2014 0", "b 2015 0", "c 2016 0"}, 0},
		{"CRLF member ends", gz(t, lines[0]+"\r\n", lines[1]+"\r\n"+lines[2]), []string{"a 2014 0", "b 2015 0", "c 2016 0"}, 0},
		// A line cut across two plain gzip members is two lines: a member
		// end is a line end.
		{"a line cut across members", gz(t, lines[0]+"\nb 20", "15 {}\n"+lines[2]+"\n"), []string{"a 2014 0", "c 2016 0"}, 2},
		{"BGZF cut mid-line", bgzf(t, []byte(strings.Join(lines, "\n")+"\n"), 7), []string{"a 2014 0", "b 2015 0", "c 2016 0"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := walkAll(t, NewStream("t", bytes.NewReader(tt.data), nil))
			if diff := cmp.Diff(tt.want, got); diff != "" || len(errs) != tt.bad {
				t.Errorf("errors %v (want %d); records (-want +got):\n%s", errs, tt.bad, diff)
			}
			d, err := NewDecompressor(bytes.NewReader(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			got2, _ := readAll(t, NewReader(d))
			if len(got2) != len(tt.want) {
				t.Errorf("NewDecompressor: %d records, want %d", len(got2), len(tt.want))
			}
		})
	}
	t.Run("truncated", func(t *testing.T) {
		data := gz(t, strings.Repeat(lines[0]+"\n", 1000))
		path := writeFile(t, t.TempDir(), "cut.cdxj.gz", data[:len(data)/2])
		ix, err := Open(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		got, errs := walkAll(t, ix)
		if len(errs) != 1 || !strings.Contains(errs[0].Error(), path) || !strings.Contains(errs[0].Error(), "gzip member at byte 0") {
			t.Errorf("%d records, errors %v; want one naming the file and the member", len(got), errs)
		}
	})
	t.Run("garbage after a member", func(t *testing.T) {
		data := append(gz(t, lines[0]+"\n"), "not gzip"...)
		got, errs := walkAll(t, NewStream("g", bytes.NewReader(data), nil))
		if len(got) != 1 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "member at byte ") {
			t.Errorf("records %q, errors %v", got, errs)
		}
	})
}

func TestStreamReadOnce(t *testing.T) {
	s := NewStream("once", strings.NewReader("a 2014 {}\n"), nil)
	if got, errs := walkAll(t, s); len(got) != 1 || len(errs) != 0 {
		t.Fatalf("first walk: %q %v", got, errs)
	}
	if _, errs := walkAll(t, s); len(errs) != 1 || !errors.Is(errs[0], ErrStreamRead) {
		t.Errorf("second walk: %v, want ErrStreamRead", errs)
	}
}

// A whole-cluster walk reads blocks ahead in parallel and yields the same
// records in the same order whatever the number of workers, including when
// the loop stops early.
func TestClusterParallelWalk(t *testing.T) {
	lines := corpus(t)
	dir := t.TempDir()
	c := buildCluster(t, dir, "c", lines, &ClusterOptions{LinesPerBlock: 13, BlocksPerPart: 9})
	c.Close()
	var want []string
	for _, workers := range []int{1, 2, 3, 8} {
		ix, err := OpenCluster(filepath.Join(dir, "c.idx"), &OpenOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		got := collect(t, ix, Query{})
		if workers == 1 {
			want = got
			if len(want) != len(lines) {
				t.Fatalf("%d lines, want %d", len(want), len(lines))
			}
		} else if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d workers (-1 worker +%d):\n%s", workers, workers, diff)
		}
		n := 0
		for _, err := range ix.Records(Query{}) {
			if err != nil {
				t.Fatal(err)
			}
			if n++; n == 100 {
				break
			}
		}
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
	}
}

func TestClusterWriterNoFinalNewline(t *testing.T) {
	dir := t.TempDir()
	c := buildCluster(t, dir, "p", []string{"a 1", "b 2", "c 3"}, &ClusterOptions{LinesPerBlock: 2, NoFinalNewline: true})
	var datas []string
	f, err := os.Open(filepath.Join(dir, "p-00000.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for b, err := range ReadBlocks(f, 0) {
		if err != nil {
			t.Fatal(err)
		}
		datas = append(datas, string(b.Data))
	}
	if diff := cmp.Diff([]string{"a 1\nb 2", "c 3"}, datas); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	if got := collect(t, c, Query{}); !slices.Equal(got, []string{"a 1", "b 2", "c 3"}) {
		t.Errorf("lines %q", got)
	}
}

// A CDX server URL opens as a *Server whose whole walk (Records(Query{}))
// reads the part its URL names: here recorded Common Crawl answers served
// on 127.0.0.1.
func TestOpenServerURL(t *testing.T) {
	rp := &replay{t: t, recs: loadRecorded(t, "cdxtoolkit_test_multi_misc_not_ia_slow_4.jsonl", "cdxtoolkit_test_multi_cc1_slow_1.jsonl")}
	ts := httptest.NewServer(rp)
	defer ts.Close()
	so := fast()
	so.Flavor = FlavorPywb
	ix, err := Open(context.Background(), ts.URL+"/CC-MAIN-2025-33-index?url=commoncrawl.org/*", &OpenOptions{Server: so})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, ok := ix.(*Server); !ok {
		t.Fatalf("Open gives a %T, want *Server", ix)
	}
	got, errs := walkAll(t, ix)
	if len(got) != 11 || len(errs) > 0 {
		t.Errorf("records %q, errors %v; want the 11 recorded", got, errs)
	}
}

// TestOpenFileOneKind: for a regular index file Open gives the *File that
// OpenFile gives, and a CDXJ file named ".idx" is read by OpenFile as
// CDXJ lines where Open reads it as a ZipNum secondary index (a named pipe:
// TestOpenFileNamedPipe).
func TestOpenFileOneKind(t *testing.T) {
	dir := t.TempDir()
	const line = `com,example)/ 20170306040206 {"url": "http://example.com/"}` + "\n"
	plain := filepath.Join(dir, "index.cdxj")
	idx := filepath.Join(dir, "lines.idx")
	for _, p := range []string{plain, idx} {
		if err := os.WriteFile(p, []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := Open(context.Background(), plain, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := ix.(*File); !ok || f.Path() != plain {
		t.Errorf("Open(%s) = %T, want the *File OpenFile gives", plain, ix)
	}
	ix.Close()

	f, err := OpenFile(idx, nil)
	if err != nil {
		t.Fatalf("OpenFile(.idx): %v", err)
	}
	var keys []string
	for rec, err := range f.Records(Query{}) {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(rec.Key()))
	}
	f.Close()
	if !slices.Equal(keys, []string{"com,example)/"}) {
		t.Errorf("OpenFile(.idx) records %q, want the CDXJ line's key", keys)
	}
	if ix, err := Open(context.Background(), idx, nil); err == nil {
		if _, ok := ix.(*Cluster); !ok {
			t.Errorf("Open(.idx) = %T, want a *Cluster", ix)
		}
		ix.Close()
	}

}
