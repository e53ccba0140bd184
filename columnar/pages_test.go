package columnar

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/encoding/delta"
	"github.com/parquet-go/parquet-go/format"
)

// pagesRows makes n rows whose columns cross page and row group
// boundaries: hosts repeating over runs of rows, values NULL in some rows
// and whole pages, keys longer than a page's worth in some rows, negative
// numbers, both booleans.
func pagesRows(n int) []Row {
	rows := make([]Row, n)
	t0 := time.Date(1996, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		host := fmt.Sprintf("h%d.example.org", i/97)
		r := Row{
			URLSurtKey:          fmt.Sprintf("org,example,h%d)/p/%07d", i/97, i),
			URL:                 fmt.Sprintf("http://%s/p/%07d", host, i),
			URLHostName:         host,
			URLHostTLD:          "org",
			URLHost2ndLastPart:  "example",
			URLHost3rdLastPart:  fmt.Sprintf("h%d", i/97),
			URLProtocol:         "http",
			URLPath:             fmt.Sprintf("/p/%07d", i),
			FetchTime:           t0.Add(time.Duration(i*7919%100003) * time.Second),
			FetchStatus:         int16([]int{200, 404, -1, 301}[i%4]),
			ContentMIMEType:     []string{"text/html", "image/png", ""}[i%3],
			WARCFilename:        fmt.Sprintf("crawl-%05d.warc.gz", i*31%5003),
			WARCRecordOffset:    int64(i*1_000_003%7_000_001) - 5,
			WARCRecordLength:    -1,
			RecordKey:           fmt.Sprintf("%032d", i),
			Organization:        "crawl",
			ContentMIMECategory: "other",
			Revisit:             i%5 == 0,
			FetchTimeDigits:     14,
			InputFile:           "in.cdxj",
			InputLine:           int64(i + 1),
		}
		if i%11 == 0 {
			r.URLPort = int32(8000 + i%3)
			r.URLQuery = fmt.Sprintf("q=%d", i)
		}
		if i >= 30_000 && i < 60_000 { // NULL over a whole row group
			r.ContentMIMEType = ""
		}
		if i%1000 == 1 {
			r.FetchRedirect = string(make([]byte, 70_000)) // a value larger than a page
		}
		rows[i] = r
	}
	return rows
}

// TestPagesRoundTrip: rows written by the Writer come back from parquet-go
// with every value, over several pages per column and several row groups,
// and each page's header agrees with the offset index.
func TestPagesRoundTrip(t *testing.T) {
	for _, opts := range []*Options{{RowGroupRows: 30_000}, {RowGroupRows: 30_000, BufferDir: t.TempDir()}} {
		rows := pagesRows(70_001)
		path := filepath.Join(t.TempDir(), "p.parquet")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := NewWriter(f, opts)
		for i := range rows {
			if err := w.Write(&rows[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		got := readAll(t, path)
		if len(got) != len(rows) {
			t.Fatalf("%d rows back, want %d", len(got), len(rows))
		}
		for i := range rows {
			if !reflect.DeepEqual(*got[i], rows[i]) {
				t.Fatalf("row %d:\n got %+v\nwant %+v", i, *got[i], rows[i])
			}
		}
		checkPageLocations(t, path, 3)
		if opts.BufferDir != "" {
			if left, _ := os.ReadDir(opts.BufferDir); len(left) > 0 {
				t.Errorf("%d page buffers left in %s", len(left), opts.BufferDir)
			}
		}
	}
}

// checkPageLocations checks that the file has groups row groups, that
// every column chunk has at least one page, and that each offset index
// entry points at a page header of its column chunk.
func checkPageLocations(t *testing.T, path string, groups int) {
	t.Helper()
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
	if len(pf.RowGroups()) != groups {
		t.Fatalf("%d row groups, want %d", len(pf.RowGroups()), groups)
	}
	multi := 0
	for g, rg := range pf.RowGroups() {
		for c, cc := range rg.ColumnChunks() {
			oi, err := cc.OffsetIndex()
			if err != nil || oi.NumPages() == 0 {
				t.Fatalf("row group %d column %d: offset index %v, %v", g, c, oi, err)
			}
			if oi.NumPages() > 1 {
				multi++
			}
			md := pf.Metadata().RowGroups[g].Columns[c].MetaData
			if oi.Offset(0) != md.DataPageOffset || oi.FirstRowIndex(0) != 0 {
				t.Errorf("row group %d column %d: first page at %d (row %d), data pages at %d", g, c, oi.Offset(0), oi.FirstRowIndex(0), md.DataPageOffset)
			}
			if md.Codec != format.Uncompressed && md.TotalCompressedSize <= 0 {
				t.Errorf("row group %d column %d: %d bytes", g, c, md.TotalCompressedSize)
			}
		}
	}
	if multi == 0 {
		t.Error("no column chunk of more than one page")
	}
}

// TestEncodeDeltaAsParquetGo: the DELTA_BYTE_ARRAY encoding of a page is
// parquet-go's, byte for byte, for values sharing prefixes of every length
// (none, under and over 8 bytes, whole values, empty values).
func TestEncodeDeltaAsParquetGo(t *testing.T) {
	vals := []string{"", "a", "abcdefghij", "abcdefghijk", "abcdefghijk", "abcdefgh", "abcdefgh", "b", "", "bcdefghijklmnopqrstuvwxyz0", "bcdefghijklmnopqrstuvwxyz1", "x"}
	c := newBytesColumn(chunk{encoding: format.DeltaByteArray})
	for _, v := range vals {
		c.values = append(c.values, v...)
		c.offsets = append(c.offsets, uint32(len(c.values)))
	}
	got, err := c.encodeDelta()
	if err != nil {
		t.Fatal(err)
	}
	var e delta.ByteArrayEncoding
	want, err := e.EncodeByteArray(nil, c.values, c.offsets)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("encoding\n got %x\nwant %x", got, want)
	}
	for _, tc := range []struct {
		a, b string
		n    int
	}{{"", "x", 0}, {"abc", "abd", 2}, {"abcdefgh", "abcdefgh", 8}, {"abcdefghij", "abcdefghiX", 9}, {"abcdefgh12345678", "abcdefgh1234567", 15}} {
		if n := commonPrefix([]byte(tc.a), []byte(tc.b)); n != tc.n {
			t.Errorf("commonPrefix(%q, %q) = %d, want %d", tc.a, tc.b, n, tc.n)
		}
	}
}
