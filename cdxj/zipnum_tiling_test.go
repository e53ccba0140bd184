package cdxj

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyCluster copies the named files of a cluster from folder from (the
// fixtures in testdata/zipnum) into a new temporary folder and returns it.
func copyCluster(t *testing.T, from string, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(from, n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// editIdx rewrites the secondary index at path: edit gets its lines
// (without line ends) and returns the new ones.
func editIdx(t *testing.T, path string, edit func([]string) []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := edit(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
	out := strings.Join(lines, "\n")
	if len(lines) > 0 {
		out += "\n"
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
}

// without returns lines without line number n (1-based).
func without(n int) func([]string) []string {
	return func(l []string) []string { return append(l[:n-1:n-1], l[n:]...) }
}

// recordsUntilError reads every record of c and returns how many came before the first
// error, and that error.
func recordsUntilError(c *Cluster) (int, error) {
	n := 0
	for _, err := range c.Records(Query{}) {
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// ccLayoutCluster writes a cluster in the Common Crawl layout (cluster.idx
// beside cdx-00000.gz, cdx-00001.gz, ...) of the shipped Common Crawl CDX
// API answer: 34 lines, 5 per block, 2 blocks per part.
func ccLayoutCluster(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "zipnum", "commoncrawl-00000.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	w, err := CreateCluster(dir, "cdx", &ClusterOptions{LinesPerBlock: 5, BlocksPerPart: 2})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewDecompressor(strings.NewReader(string(src)))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteLines(r); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "cdx.idx"), filepath.Join(dir, "cluster.idx")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestClusterIdxLineMissing: a secondary index with a line deleted leaves
// bytes of a part in no block. Reading the cluster whole (Records,
// PartRecords through Plan) must end with an error naming the .idx file
// and line after the lines of the blocks before the gap, never answer
// without the block's lines.
func TestClusterIdxLineMissing(t *testing.T) {
	zipnum := filepath.Join("testdata", "zipnum")
	ow := []string{"openwayback.idx", "openwayback.loc", "openwayback-00000.gz"}
	cc := []string{"commoncrawl.idx", "commoncrawl-00000.gz"}
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		idx     string
		edit    func([]string) []string
		want    int    // records before the error
		wantErr string // in the error, after the .idx path
	}{
		// openwayback.idx: 22 blocks of 100 lines (the last of 44), tab-separated, with a .loc file.
		{"tab idx, middle line", func(t *testing.T) string { return copyCluster(t, zipnum, ow...) }, "openwayback.idx",
			without(11), 1000, "openwayback.idx line 11 (byte "},
		{"tab idx, first line", func(t *testing.T) string { return copyCluster(t, zipnum, ow...) }, "openwayback.idx",
			without(1), 0, "openwayback.idx line 1 (byte 0): malformed ZipNum cluster: the block at openwayback-00000.gz:5868+6004 is the first listed of its part"},
		{"tab idx, last line", func(t *testing.T) string { return copyCluster(t, zipnum, ow...) }, "openwayback.idx",
			without(22), 2100, "openwayback.idx line 21 (byte "},
		// commoncrawl.idx: !meta header, then 7 blocks of 5 lines (the last of 4) in CDXJ form.
		{"CDXJ idx, middle line", func(t *testing.T) string { return copyCluster(t, zipnum, cc...) }, "commoncrawl.idx",
			without(4), 10, "commoncrawl.idx line 4 (byte "},
		{"CDXJ idx, last line", func(t *testing.T) string { return copyCluster(t, zipnum, cc...) }, "commoncrawl.idx",
			without(8), 30, "commoncrawl.idx line 7 (byte "},
		// Common Crawl layout: 7 blocks in 4 parts, 2 blocks a part (the
		// last line lists the only block of cdx-00003.gz).
		{"CC layout, last line of a part", ccLayoutCluster, "cluster.idx",
			without(2), 5, "cluster.idx line 1 (byte 0): malformed ZipNum cluster: the block at cdx-00000.gz:0+"},
		{"CC layout, first line of a part", ccLayoutCluster, "cluster.idx",
			without(3), 10, "cluster.idx line 3 (byte "},
		{"CC layout, last line", ccLayoutCluster, "cluster.idx",
			without(7), 30, "cluster.idx lists no block of its part "},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			idx := filepath.Join(dir, tc.idx)
			c, err := OpenCluster(idx, nil)
			if err != nil {
				t.Fatal(err)
			}
			total, err := recordsUntilError(c)
			c.Close()
			if err != nil {
				t.Fatalf("sound cluster: %v", err)
			}
			editIdx(t, idx, tc.edit)

			ix, err := Open(context.Background(), idx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			c = ix.(*Cluster)
			n, err := recordsUntilError(c)
			if err == nil {
				t.Fatalf("Records: %d of %d records and no error", n, total)
			}
			if !errors.Is(err, ErrZipNum) || !strings.Contains(err.Error(), idx[:len(idx)-len(tc.idx)]+tc.wantErr) {
				t.Fatalf("Records: err = %v, want ErrZipNum with %q", err, tc.wantErr)
			}
			if n != tc.want {
				t.Errorf("Records: %d records before the error, want %d", n, tc.want)
			}
			if _, err := Plan(context.Background(), []Index{c}, 2); err == nil || !errors.Is(err, ErrZipNum) {
				t.Errorf("Plan: err = %v, want ErrZipNum", err)
			}
			// A part of one block at a time, as a worker would read a
			// plan made before the damage: the parts together give every
			// record or an error.
			got, failed := 0, false
			for i := int64(0); i < 22; i++ {
				for _, err := range PartRecords(c, Part{Source: idx, Kind: PartBlocks, Start: i, End: i + 1}) {
					if err != nil {
						failed = true
						break
					}
					got++
				}
			}
			if !failed {
				t.Errorf("PartRecords: %d of %d records and no error", got, total)
			}
		})
	}
}

// TestClusterIdxGapKeyQuery: a key-range query over blocks around a
// missing .idx line fails too, and Pages, which reads only the secondary
// index, sees the gap between two listed blocks.
func TestClusterIdxGapKeyQuery(t *testing.T) {
	dir := copyCluster(t, filepath.Join("testdata", "zipnum"), "openwayback.idx", "openwayback.loc", "openwayback-00000.gz")
	idx := filepath.Join(dir, "openwayback.idx")
	editIdx(t, idx, without(11))
	c, err := OpenCluster(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	q := Query{Key: "org,archive)/", Match: MatchPrefix}
	var qerr error
	for _, err := range c.Lines(q) {
		if err != nil {
			qerr = err
			break
		}
	}
	if qerr == nil || !strings.Contains(qerr.Error(), "openwayback.idx line 11 (byte ") {
		t.Errorf("Lines: err = %v, want the gap at line 11", qerr)
	}
	if _, _, err := c.Pages(q, 5); err == nil || !errors.Is(err, ErrZipNum) {
		t.Errorf("Pages: err = %v, want ErrZipNum", err)
	}
	// A query whose blocks all lie before the gap still answers.
	first := ""
	for e, err := range c.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		first = e.Key
		break
	}
	n := 0
	for _, err := range c.Lines(Query{Key: strings.Fields(first)[0], From: "2012", To: "20120101122052"}) {
		if err != nil {
			t.Fatalf("query before the gap: %v", err)
		}
		n++
	}
	if n == 0 {
		t.Error("query before the gap: no lines")
	}
}

// TestClusterIdxEmpty: a secondary index without a block line is an empty
// cluster only when its parts are absent or empty; beside a part that
// holds data it is an error naming the .idx and the part.
func TestClusterIdxEmpty(t *testing.T) {
	zipnum := filepath.Join("testdata", "zipnum")
	tests := []struct {
		name    string
		files   []string
		idx     string
		keep    int      // leading .idx lines kept (the !meta header)
		remove  []string // part files removed
		empty   bool     // truncate the part files to 0 bytes
		wantErr string   // "" for an empty cluster
	}{
		{"tab idx with .loc", []string{"openwayback.idx", "openwayback.loc", "openwayback-00000.gz"}, "openwayback.idx", 0, nil, false,
			"openwayback.idx lists no blocks, but its part "},
		{"CDXJ idx, !meta header only", []string{"commoncrawl.idx", "commoncrawl-00000.gz"}, "commoncrawl.idx", 1, nil, false,
			"commoncrawl.idx lists no blocks, but its part "},
		{"tab idx, no .loc, part beside it", []string{"openwayback.idx", "openwayback-00000.gz"}, "openwayback.idx", 0, nil, false,
			"openwayback-00000.gz holds 103049 bytes"},
		{"parts absent", []string{"openwayback.idx", "openwayback.loc", "openwayback-00000.gz"}, "openwayback.idx", 0, []string{"openwayback-00000.gz"}, false, ""},
		{"parts empty", []string{"commoncrawl.idx", "commoncrawl-00000.gz"}, "commoncrawl.idx", 1, nil, true, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyCluster(t, zipnum, tc.files...)
			idx := filepath.Join(dir, tc.idx)
			editIdx(t, idx, func(l []string) []string { return l[:tc.keep] })
			for _, r := range tc.remove {
				if err := os.Remove(filepath.Join(dir, r)); err != nil {
					t.Fatal(err)
				}
			}
			if tc.empty {
				for _, f := range tc.files[1:] {
					if err := os.Truncate(filepath.Join(dir, f), 0); err != nil {
						t.Fatal(err)
					}
				}
			}
			ix, err := Open(context.Background(), idx, nil)
			if tc.wantErr != "" {
				if err == nil {
					ix.Close()
					t.Fatalf("opened, want an error with %q", tc.wantErr)
				}
				if !errors.Is(err, ErrZipNum) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrZipNum with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			n, err := recordsUntilError(ix.(*Cluster))
			if err != nil || n != 0 {
				t.Errorf("empty cluster: %d records, err %v; want none", n, err)
			}
		})
	}
}

func ExampleCluster_missingIdxLine() {
	dir, _ := os.MkdirTemp("", "cdxj-example-")
	defer os.RemoveAll(dir)
	w, _ := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 2})
	for _, l := range []string{"com,a)/ 2014 {}", "com,b)/ 2014 {}", "com,c)/ 2014 {}", "com,d)/ 2014 {}", "com,e)/ 2014 {}"} {
		w.WriteLine([]byte(l))
	}
	w.Commit()
	idx := filepath.Join(dir, "c.idx")
	b, _ := os.ReadFile(idx)
	lines := strings.SplitAfter(string(b), "\n")
	os.WriteFile(idx, []byte(lines[0]+lines[2]), 0o644) // the second block's line is lost
	c, _ := OpenCluster(idx, nil)
	defer c.Close()
	for r, err := range c.Records(Query{}) {
		if err != nil {
			fmt.Println(strings.Replace(err.Error(), dir+string(filepath.Separator), "", 1))
			break
		}
		fmt.Println(string(r.Key()))
	}
	// Output:
	// com,a)/
	// com,b)/
	// cdxj: c.idx line 2 (byte 31): malformed ZipNum cluster: the block at c-00000.gz:90+40 follows the block at c-00000.gz:0+45, which ends at byte 45: bytes 45 to 90 of the part are in no block listed (a missing or wrong line in the secondary index)
}
