package cdxj

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/klauspost/compress/gzip"
)

// damagedCluster builds a cluster of 20 lines in blocks of 5 (one part) and
// lets damage rewrite its secondary index lines; it returns the opened
// cluster and the lines.
func damagedCluster(t *testing.T, damage func(idx []string) []string) (*Cluster, []string) {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("com,example)/%02d 2014 {}", i))
	}
	cw, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if err := cw.WriteLine([]byte(l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := cw.Commit(); err != nil {
		t.Fatal(err)
	}
	idxPath := filepath.Join(dir, "c.idx")
	b, err := os.ReadFile(idxPath)
	if err != nil {
		t.Fatal(err)
	}
	idx := damage(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
	if err := os.WriteFile(idxPath, []byte(strings.Join(idx, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCluster(idxPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, lines
}

// setField sets tab-separated field i of an index line.
func setField(line string, i int, v string) string {
	f := strings.Split(line, "\t")
	f[i] = v
	return strings.Join(f, "\t")
}

// TestClusterDamagedIndex: a secondary index whose lengths or order do not
// match the part file must give an error naming where, never wrong lines.
// Before the fix a block length running into the following blocks read
// them too (a prefix query returned 35 lines of 20, with duplicates, and
// no error), and an unsorted index silently answered nothing for a key it
// holds.
func TestClusterDamagedIndex(t *testing.T) {
	tests := []struct {
		name    string
		damage  func([]string) []string
		q       Query
		wantErr string // substring of the error; "" for none
		want    int    // lines before the error (or in all)
	}{
		{"length runs into the next blocks", func(l []string) []string { l[0] = setField(l[0], 3, "100000"); return l },
			Query{Key: "com,example)/", Match: MatchPrefix}, "block at c-00000.gz:0+100000: it ends at byte 100000, past the end of the part file", 0},
		{"length one byte too long", func(l []string) []string { l[1] = setField(l[1], 3, "63"); return l },
			Query{Key: "com,example)/0", Match: MatchPrefix}, "ends 1 bytes before the length", 10},
		{"length cut short", func(l []string) []string { l[0] = setField(l[0], 3, "20"); return l },
			Query{Key: "com,example)/03"}, "block at c-00000.gz:0+20", 0},
		{"offset past the end of the part", func(l []string) []string { l[3] = setField(l[3], 2, "99999"); return l },
			Query{Key: "com,example)/15"}, "block at c-00000.gz:99999+62", 0},
		{"unsorted index, key in a moved block", func(l []string) []string { l[1], l[3] = l[3], l[1]; return l },
			Query{Key: "com,example)/15"}, "the secondary index is not sorted", 0},
		{"unsorted index, prefix scan", func(l []string) []string { l[1], l[3] = l[3], l[1]; return l },
			Query{Key: "com,example)/", Match: MatchPrefix}, "c.idx line 2 (byte 39)", 5},
		{"length past the block limit, key", func(l []string) []string { l[0] = setField(l[0], 3, "99999999"); return l },
			Query{Key: "com,example)/03"}, "c.idx line 1 (byte 0): malformed ZipNum cluster: block at c-00000.gz:0+99999999: its length is more than the limit of 67108864 bytes", 0},
		{"length past the block limit, prefix scan", func(l []string) []string { l[0] = setField(l[0], 3, "99999999"); return l },
			Query{Key: "com,example)/", Match: MatchPrefix}, "c.idx line 1 (byte 0): malformed ZipNum cluster: block at c-00000.gz:0+99999999: its length is more than the limit of 67108864 bytes", 0},
		{"sound index still answers", func(l []string) []string { return l },
			Query{Key: "com,example)/", Match: MatchPrefix}, "", 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := damagedCluster(t, tc.damage)
			n := 0
			var gotErr error
			seen := map[string]bool{}
			for line, err := range c.Lines(tc.q) {
				if err != nil {
					gotErr = err
					break
				}
				if seen[string(line)] {
					t.Errorf("line %q yielded twice", line)
				}
				seen[string(line)] = true
				n++
			}
			if tc.wantErr == "" {
				if gotErr != nil {
					t.Fatalf("unexpected error %v", gotErr)
				}
			} else {
				if gotErr == nil || !errors.Is(gotErr, ErrZipNum) || !strings.Contains(gotErr.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want ErrZipNum containing %q", gotErr, tc.wantErr)
				}
			}
			if diff := cmp.Diff(tc.want, n); diff != "" {
				t.Errorf("lines (-want +got):\n%s", diff)
			}
		})
	}
}

// TestClusterOrderCheckToleratesBadLineBefore: the order check reads the
// index entry before a query's first block; a malformed line there must not
// fail a query that does not need it.
func TestClusterOrderCheckToleratesBadLineBefore(t *testing.T) {
	c, _ := damagedCluster(t, func(l []string) []string { l[1] = setField(l[1], 2, "x"); return l })
	n := 0
	for _, err := range c.Lines(Query{Key: "com,example)/12"}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 {
		t.Errorf("%d lines, want 1", n)
	}
}

// bombMember gzips, at level 9, one line repeated to n bytes: a block that
// is small on disk and decompresses to n bytes.
func bombMember(t *testing.T, line string, n int) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	chunk := []byte(strings.Repeat(line, (1<<20)/len(line)))
	for w := 0; w < n; w += len(chunk) {
		zw.Write(chunk)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bombCluster writes a cluster of 12 good lines in blocks of 3 and appends
// block as a fifth block keyed "com,example)/zz 2014"; it returns the open
// cluster, the good lines and the bomb block's offset in its part.
func bombCluster(t *testing.T, block []byte) (*Cluster, []string, int64) {
	t.Helper()
	dir := t.TempDir()
	var lines []string
	for i := 0; i < 12; i++ {
		lines = append(lines, fmt.Sprintf("com,example)/%02d 2014 {}", i))
	}
	w, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 3})
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
	part := filepath.Join(dir, "c-00000.gz")
	st, err := os.Stat(part)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(part, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(block); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	idx, err := os.OpenFile(w.IdxPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(idx, "com,example)/zz 2014\tc-00000.gz\t%d\t%d\t5\n", st.Size(), len(block))
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := OpenCluster(w.IdxPath(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, lines, st.Size()
}

// TestClusterBlockBombBounded: a block that decompresses past the limit (4
// × MaxBlockSize) is an error naming its part and offset, found with
// allocations near the limit, not the doubling buffer's (the block was
// read whole into a bytes.Buffer: a 1.3 MB block refused at 256 MiB cost
// 1.07 GB resident first). With the gzip trailer telling the true length
// the buffer is allocated once; with a trailer saying 0 it grows by
// doubling, capped at the limit. ReadBlocks is bounded the same way.
func TestClusterBlockBombBounded(t *testing.T) {
	const maxBlock = 1 << 20 // limit 4 MiB
	const limit = 4 * maxBlock
	bomb := bombMember(t, "com,example)/zz 2014 {}\n", 64<<20)
	if len(bomb) > maxBlock {
		t.Fatalf("bomb is %d bytes compressed, want at most %d", len(bomb), maxBlock)
	}
	lying := bytes.Clone(bomb)
	copy(lying[len(lying)-4:], []byte{0, 0, 0, 0})
	for _, tc := range []struct {
		name  string
		block []byte
	}{{"true trailer", bomb}, {"trailer says 0", lying}} {
		t.Run(tc.name, func(t *testing.T) {
			c, lines, at := bombCluster(t, tc.block)
			c.MaxBlockSize = maxBlock

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			n := 0
			var gotErr error
			for _, err := range c.Lines(Query{Key: "com,example)/", Match: MatchPrefix}) {
				if err != nil {
					gotErr = err
					break
				}
				n++
			}
			runtime.ReadMemStats(&after)
			if n != len(lines) {
				t.Errorf("%d lines before the error, want the %d of the good blocks", n, len(lines))
			}
			want := fmt.Sprintf("block at c-00000.gz:%d+%d: decompresses to more than %d bytes", at, len(tc.block), limit)
			if gotErr == nil || !errors.Is(gotErr, ErrZipNum) || !strings.Contains(gotErr.Error(), want) {
				t.Errorf("error %v, want one wrapping ErrZipNum with %q", gotErr, want)
			}
			if got := after.TotalAlloc - before.TotalAlloc; got > 2*limit+1<<20 {
				t.Errorf("query allocated %d bytes, want at most 2 × the %d limit + 1 MiB", got, limit)
			}
		})
	}
	t.Run("ReadBlocks", func(t *testing.T) {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		var gotErr error
		for _, err := range ReadBlocks(bytes.NewReader(bomb), limit) {
			if err != nil {
				gotErr = err
				break
			}
		}
		runtime.ReadMemStats(&after)
		want := fmt.Sprintf("member at byte 0: decompresses to more than %d bytes", limit)
		if gotErr == nil || !strings.Contains(gotErr.Error(), want) {
			t.Errorf("error %v, want %q", gotErr, want)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 2*limit+1<<20 {
			t.Errorf("ReadBlocks allocated %d bytes, want at most 2 × the %d limit + 1 MiB", got, limit)
		}
	})
}

// TestClusterFirstBlocksBombBounded: the blocks a query streams (its first
// two, every block with one worker, and BlockLines) are bounded as the
// blocks read ahead are: more than 4 × MaxBlockSize decompressed is an
// error wrapping ErrZipNum naming the part and offset, with the same
// wording, not a read of the whole bomb.
func TestClusterFirstBlocksBombBounded(t *testing.T) {
	const maxBlock = 64 << 10 // limit 256 KiB
	const limit = 4 * maxBlock
	bomb := bombMember(t, "com,example)/zz 2014 {}\n", 16<<20)
	if len(bomb) > maxBlock {
		t.Fatalf("bomb is %d bytes compressed, want at most %d", len(bomb), maxBlock)
	}
	c, _, at := bombCluster(t, bomb)
	c.MaxBlockSize = maxBlock
	want := fmt.Sprintf("block at c-00000.gz:%d+%d: decompresses to more than %d bytes", at, len(bomb), limit)
	check := func(t *testing.T, seq iter.Seq2[[]byte, error]) {
		t.Helper()
		n := 0
		var gotErr error
		for _, err := range seq {
			if err != nil {
				gotErr = err
				break
			}
			n++
		}
		if gotErr == nil || !errors.Is(gotErr, ErrZipNum) || !strings.Contains(gotErr.Error(), want) {
			t.Errorf("error %v after %d lines, want one wrapping ErrZipNum with %q", gotErr, n, want)
		}
		if max := limit/len("com,example)/zz 2014 {}\n") + 12; n > max {
			t.Errorf("%d lines before the error, want at most %d (the limit's worth)", n, max)
		}
	}
	t.Run("first blocks of a query", func(t *testing.T) {
		check(t, c.Lines(Query{Key: "com,example)/zz"}))
	})
	t.Run("one worker", func(t *testing.T) {
		c.opt.Workers = 1
		defer func() { c.opt.Workers = 0 }()
		check(t, c.Lines(Query{Key: "com,example)/", Match: MatchPrefix}))
	})
	t.Run("BlockLines", func(t *testing.T) {
		var last IdxEntry
		for e, err := range c.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			last = e
		}
		check(t, c.BlockLines(last))
	})
}

// TestClusterErrorsOnePrefix: an error of a damaged cluster says "cdxj: "
// once, at its front, and names the secondary index by line and byte or
// the part. Before, a missing part read "cdxj: ZipNum part "c-00000.gz":
// cdxj: malformed ZipNum cluster: part "c-00000.gz": no location opens;
// ...", and an index line "c.idx line 3 (byte 40): cdxj: malformed ...".
func TestClusterErrorsOnePrefix(t *testing.T) {
	write := func(t *testing.T) (dir, idx string) {
		dir = t.TempDir()
		w, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 3})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 12 {
			if err := w.WriteLine(fmt.Appendf(nil, "com,example)/%02d 2014 {}", i)); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		return dir, w.IdxPath()
	}
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir, idx string)
		want   string
	}{
		{"missing part", func(t *testing.T, dir, idx string) {
			os.Remove(filepath.Join(dir, "c-00000.gz"))
		}, `cdxj: malformed ZipNum cluster: part "c-00000.gz": no location opens; tried `},
		{"bad index line", func(t *testing.T, dir, idx string) {
			f, _ := os.OpenFile(idx, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("garbage\n")
			f.Close()
		}, "c.idx line 5 (byte "},
		{"gap in the part", func(t *testing.T, dir, idx string) {
			b, _ := os.ReadFile(idx)
			lines := strings.SplitAfter(string(b), "\n")
			os.WriteFile(idx, []byte(strings.Join(append(lines[:1:1], lines[2:]...), "")), 0o644)
		}, "c.idx line 2 (byte "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, idx := write(t)
			tc.damage(t, dir, idx)
			c, err := OpenCluster(idx, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			var gotErr error
			for _, err := range c.Records(Query{}) {
				if err != nil {
					gotErr = err
					break
				}
			}
			if gotErr == nil || !errors.Is(gotErr, ErrZipNum) {
				t.Fatalf("err = %v, want one wrapping ErrZipNum", gotErr)
			}
			msg := gotErr.Error()
			if !strings.HasPrefix(msg, "cdxj: ") || strings.Count(msg, "cdxj: ") != 1 || !strings.Contains(msg, tc.want) {
				t.Errorf("error %q: want \"cdxj: \" once, at the front, and %q", msg, tc.want)
			}
		})
	}
}

// cutCluster copies the commoncrawl fixture cluster (testdata/zipnum) to a
// folder of its own and lets damage change its part file's bytes.
func cutCluster(t *testing.T, damage func(part []byte) []byte) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"commoncrawl.idx", "commoncrawl-00000.gz"} {
		b, err := os.ReadFile(filepath.Join("testdata", "zipnum", name))
		if err != nil {
			t.Fatal(err)
		}
		if name != "commoncrawl.idx" {
			b = damage(b)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "commoncrawl.idx")
}

// TestClusterBlockErrorOneMessage: a part file cut short (at byte 3000,
// inside the block of .idx line 7 at 2563+658) gives one error, whether a
// walk on one worker or several meets it, a query or a plan: it names the
// .idx file and the block's line, the part and the block's byte offset.
// A block damaged inside (not gzip data) is named so too, by either way of
// reading a block.
func TestClusterBlockErrorOneMessage(t *testing.T) {
	idx := cutCluster(t, func(b []byte) []byte { return b[:3000] })
	want := "cdxj: " + idx + " line 7 (byte 426): malformed ZipNum cluster: block at commoncrawl-00000.gz:2563+658: it ends at byte 3221, past the end of the part file "
	walkErr := func(workers int, q Query) (int, error) {
		c, err := OpenCluster(idx, &OpenOptions{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		n := 0
		for _, err := range c.Records(q) {
			if err != nil {
				return n, err
			}
			n++
		}
		return n, nil
	}
	for _, w := range []int{1, 4} {
		n, err := walkErr(w, Query{})
		if err == nil || !errors.Is(err, ErrZipNum) || !strings.HasPrefix(err.Error(), want) || n != 25 {
			t.Errorf("%d workers: a walk read %d records, then %v; want the 25 records of the first 5 blocks, then %q...", w, n, err, want)
		}
	}
	if _, err := walkErr(1, Query{Key: "org,commoncrawl)/2012/03/data-2-0-summit"}); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("a query of the block: %v, want %q...", err, want)
	}
	c, err := OpenCluster(idx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := Plan(context.Background(), []Index{c}, 3); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Plan: %v, want %q...", err, want)
	}

	// Block 3 (line 4, 1057+485) not gzip data past its header.
	idx = cutCluster(t, func(b []byte) []byte {
		for i := 1057 + 20; i < 1057+60; i++ {
			b[i] ^= 0xff
		}
		return b
	})
	want = "cdxj: " + idx + " line 4 (byte 207): malformed ZipNum cluster: block at commoncrawl-00000.gz:1057+485: "
	for _, w := range []int{1, 4} {
		if _, err := walkErr(w, Query{}); err == nil || !errors.Is(err, ErrZipNum) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%d workers: a damaged block gave %v, want %q...", w, err, want)
		}
	}
}
