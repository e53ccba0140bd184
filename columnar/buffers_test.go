package columnar

import (
	"bufio"
	"bytes"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TestPageFile: what is written through the buffer, in pieces smaller and
// larger than it, reads back whole after a Seek, twice (as a row group's
// pages are written, copied out, then the buffer is reused); the pool
// removes its files.
func TestPageFile(t *testing.T) {
	dir := t.TempDir()
	pool := newFilePagePool(dir)
	rng := rand.New(rand.NewPCG(1, 2))
	b := pool.GetBuffer()
	for round := 0; round < 2; round++ {
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		var want []byte
		for _, n := range []int{0, 17, 300, pageFileBuffer - 1, 5, pageFileBuffer, 3 * pageFileBuffer, 1, 0, 900} {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(rng.Uint32())
			}
			if m, err := b.Write(p); m != n || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", n, m, err)
			}
			want = append(want, p...)
		}
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(io.LimitReader(b, int64(len(want))))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("round %d: read %d bytes back, differing from the %d written", round, len(got), len(want))
		}
		// io.Copy, as parquet-go copies a row group's pages out: through
		// WriteTo, to a file behind a bufio.Writer (holding a header
		// already) and to memory.
		if _, err := b.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(t.TempDir(), "out"))
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriterSize(out, 1024)
		bw.WriteString("PAR1")
		if n, err := io.Copy(bw, b); n != int64(len(want)) || err != nil {
			t.Fatalf("round %d: io.Copy to a file = %d, %v; want %d bytes", round, n, err, len(want))
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		out.Close()
		if got, err := os.ReadFile(out.Name()); err != nil || !bytes.Equal(got, append([]byte("PAR1"), want...)) {
			t.Fatalf("round %d: the file copy has %d bytes, %v, differing from the %d written", round, len(got), err, 4+len(want))
		}
		if _, err := b.Seek(int64(len(want)-900), io.SeekStart); err != nil {
			t.Fatal(err)
		}
		var mem bytes.Buffer
		if n, err := io.Copy(&mem, b); n != 900 || err != nil || !bytes.Equal(mem.Bytes(), want[len(want)-900:]) {
			t.Fatalf("round %d: io.Copy of the last 900 bytes to memory = %d, %v", round, n, err)
		}
	}
	pool.PutBuffer(b)
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
	bad := newFilePagePool(filepath.Join(dir, "missing"))
	if _, err := bad.GetBuffer().Write([]byte("x")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("a buffer in a missing folder: %v", err)
	}
}

// TestBounds: with no statistics in the page headers, every column that
// keeps bounds has them in its column chunk's statistics and in the column
// index, and they are the least and greatest values written.
func TestBounds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.parquet")
	exportSamples(t, path, &Options{RowGroupRows: 1000})
	var keys []string
	var times []time.Time
	for _, r := range readAll(t, path) {
		keys = append(keys, r.URLSurtKey)
		times = append(times, r.FetchTime)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	var minKey, maxKey string
	var minTime, maxTime int64
	withBounds := 0
	for g, rg := range pf.Metadata().RowGroups {
		for c, cc := range rg.Columns {
			name := cc.MetaData.PathInSchema[0]
			st := cc.MetaData.Statistics
			if slices.Contains(noBounds, name) {
				continue
			}
			withBounds++
			ci, err := pf.RowGroups()[g].ColumnChunks()[c].ColumnIndex()
			if err != nil || ci.NumPages() == 0 {
				t.Errorf("row group %d, %s: column index %v, %v", g, name, ci, err)
			}
			if cc.MetaData.NumValues > st.NullCount && (st.MinValue == nil || st.MaxValue == nil) {
				t.Errorf("row group %d, %s: no bounds in the column chunk statistics", g, name)
				continue
			}
			switch name {
			case "url_surtkey":
				if g == 0 || string(st.MinValue) < minKey {
					minKey = string(st.MinValue)
				}
				maxKey = max(maxKey, string(st.MaxValue))
			case "fetch_time":
				lo, hi := parquet.Int64Type.Kind().Value(st.MinValue).Int64(), parquet.Int64Type.Kind().Value(st.MaxValue).Int64()
				if g == 0 || lo < minTime {
					minTime = lo
				}
				maxTime = max(maxTime, hi)
			}
		}
	}
	if withBounds < 10*len(pf.RowGroups()) {
		t.Fatalf("%d column chunks with bounds", withBounds)
	}
	if minKey != slices.Min(keys) || maxKey != slices.Max(keys) {
		t.Errorf("url_surtkey bounds %q to %q, want %q to %q", minKey, maxKey, slices.Min(keys), slices.Max(keys))
	}
	lo := slices.MinFunc(times, time.Time.Compare).UnixMilli()
	hi := slices.MaxFunc(times, time.Time.Compare).UnixMilli()
	if minTime != lo || maxTime != hi {
		t.Errorf("fetch_time bounds %d to %d, want %d to %d", minTime, maxTime, lo, hi)
	}
}
