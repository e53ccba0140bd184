package columnar

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/summary"
	"github.com/mementokit/mementokit/timestamp"
)

// badSampleLines is the number of lines of the shipped index files that are
// not captures a table can hold: the five lines of ipwb's TimeMap, whose JSON
// is invalid ("datetime"="...").
const badSampleLines = 5

// exportSamples writes every shipped index file to a table at path.
func exportSamples(t *testing.T, path string, opts *Options) Stats {
	t.Helper()
	tb, err := Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.ReadIndex(context.Background(), cdxj.NewStream(name, bytes.NewReader(b), nil), name, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Commit(); err != nil {
		t.Fatal(err)
	}
	return tb.Stats()
}

// sampleRecords returns, for every line of the shipped index files that is a
// record, its input name and a copy of the record, in file order; bad
// counts the records whose JSON block is malformed.
func sampleRecords(t *testing.T) (recs []*cdxj.Record, inputs []string, bad int) {
	t.Helper()
	for _, name := range sampledata.IndexFiles() {
		b, _ := sampledata.ReadFile(name)
		rd := cdxj.NewReader(bytes.NewReader(b))
		for rec, err := range rd.All() {
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if rec.CheckJSON() != nil {
				bad++
				continue
			}
			recs = append(recs, rec)
			inputs = append(inputs, name)
		}
	}
	return recs, inputs, bad
}

func readAll(t *testing.T, path string) []*Row {
	t.Helper()
	var rows []*Row
	for r, err := range ReadRows(path) {
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestRoundTripSampleData: every record of the shipped real index files
// comes back from the Parquet file with its values, checked against the
// record's own accessors and against the Converter's row.
func TestRoundTripSampleData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "captures.parquet")
	st := exportSamples(t, path, &Options{RowGroupRows: 500})
	recs, inputs, bad := sampleRecords(t)
	if bad != badSampleLines || st.BadLines != badSampleLines {
		t.Errorf("bad lines: reader %d, table %d, want %d", bad, st.BadLines, badSampleLines)
	}
	rows := readAll(t, path)
	if len(rows) != len(recs) || st.Rows != int64(len(recs)) {
		t.Fatalf("%d rows read back, %d written, want %d records", len(rows), st.Rows, len(recs))
	}
	conv := NewConverter(nil)
	noLength, noStatus := 0, 0
	for i, rec := range recs {
		got := rows[i]
		// Values straight from the record.
		wantKey, err := SURTKey(nil, rec)
		if err != nil {
			t.Fatal(err)
		}
		status := int16(summary.RecordStatus(rec))
		if status == 0 {
			status = -1
			noStatus++
		}
		off, ok := rec.Offset()
		if !ok {
			off = -1
		}
		length, ok := rec.Length()
		if !ok || length > summary.MaxRecordLength {
			length = -1
			noLength++
		}
		ts14 := string(rec.Timestamp())
		ts14 = ts14[:min(14, len(ts14))]
		org := summary.UnknownOrg
		if f := rec.Filename(); f != nil {
			org = summary.OrgByPrefix(string(f))
		}
		type core struct {
			Key, URL, Digest, MIME, Redirect, File, RecordKey, Org, Category, Input string
			Status                                                                  int16
			Offset, Length, Line                                                    int64
			Time                                                                    string
			Digits                                                                  int8
			Revisit                                                                 bool
		}
		want := core{string(wantKey), string(rec.URL()), string(rec.Digest()), string(rec.MIME()), string(rec.Redirect()), string(rec.Filename()),
			summary.RecordID(string(rec.URL()), ts14, string(rec.Filename())), org, summary.CategorizeMIME(string(rec.MIME())).String(), inputs[i],
			status, off, length, rec.LineNumber(), rec.Time().String(), int8(len(rec.Timestamp())), rec.IsRevisit()}
		have := core{got.URLSurtKey, got.URL, got.ContentDigest, got.ContentMIMEType, got.FetchRedirect, got.WARCFilename,
			got.RecordKey, got.Organization, got.ContentMIMECategory, got.InputFile,
			got.FetchStatus, got.WARCRecordOffset, got.WARCRecordLength, got.InputLine, got.FetchTime.String(), got.FetchTimeDigits, got.Revisit}
		if diff := cmp.Diff(want, have); diff != "" {
			t.Errorf("%s line %d (-record +row):\n%s", inputs[i], rec.LineNumber(), diff)
		}
		// The timestamp as written is the first digits of fetch_time.
		if ts := timestamp.Format(got.FetchTime.Add(0)); !strings.HasPrefix(ts+"000", string(rec.Timestamp())) {
			t.Errorf("%s line %d: timestamp %s does not come back from %v", inputs[i], rec.LineNumber(), rec.Timestamp(), got.FetchTime)
		}
		// Every column, as the Converter filled it.
		var conv1 Row
		if err := conv.Row(&conv1, rec, inputs[i]); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&conv1, got); diff != "" {
			t.Errorf("%s line %d (-converted +read back):\n%s", inputs[i], rec.LineNumber(), diff)
		}
	}
	if st.NoLength != int64(noLength) {
		t.Errorf("Stats.NoLength = %d, want %d", st.NoLength, noLength)
	}
	if st.NoStatus != int64(noStatus) {
		t.Errorf("Stats.NoStatus = %d, want %d", st.NoStatus, noStatus)
	}
}

// TestSampleRowValues pins derived columns of real lines, one per shape.
func TestSampleRowValues(t *testing.T) {
	path := filepath.Join(t.TempDir(), "captures.parquet")
	exportSamples(t, path, nil)
	byLine := map[string]*Row{}
	for _, r := range readAll(t, path) {
		byLine[fmt.Sprintf("%s:%d", r.InputFile, r.InputLine)] = r
	}
	tests := []struct {
		name, at string
		check    func(r *Row) any
		want     any
	}{
		{"Common Crawl host parts", "real/cc_commoncrawl-org_from-cdxapi.cdxj:1", func(r *Row) any {
			return []string{r.URLHostName, r.URLHostTLD, r.URLHost2ndLastPart, r.URLHost3rdLastPart, r.URLHostRegisteredDomain, r.URLHostNameReversed, r.URLProtocol, r.URLPath}
		}, []string{"www.example.com", "com", "example", "www", "example.com", "com.example.www", "http", "/"}},
		{"Common Crawl WARC path", "real/cc_commoncrawl-org_from-cdxapi.cdxj:1", func(r *Row) any {
			return []string{r.Crawl, r.WARCSegment, r.Subset, r.Organization, r.ContentMIMEDetected, r.ContentLanguages, r.ContentCharset}
		}, []string{"CC-MAIN-2025-33", "1754151279521.11", "warc", "CC", "text/html", "eng", "UTF-8"}},
		{"IA CDX port and revisit", "real/openwayback_archive-org.cdx:1", func(r *Row) any {
			return []any{r.URLPort, r.FetchStatus, r.Organization, r.WARCRecordLength, r.WARCRecordOffset}
		}, []any{int32(80), int16(200), "51_25_20120101120954_crawl101", int64(6655), int64(65291135)}},
		{"warcinfo line without URL", "real/cdxjindexer_example-warc_all-records.cdxj:1", func(r *Row) any {
			return []any{r.URLSurtKey, r.URL, r.URLHostName, r.FetchStatus, r.ContentMIMECategory, r.Organization}
		}, []any{"-", "", "", int16(-1), "other", "example"}},
		{"revisit with status", "real/cdxjindexer_example-warc_all-records.cdxj:5", func(r *Row) any {
			return []any{r.Revisit, r.FetchStatus, r.ContentMIMECategory}
		}, []any{true, int16(200), "other"}},
		{"ipwb line: host from the SURT", "real/ipwb_sample-1.cdxj:3", func(r *Row) any {
			return []any{r.URL, r.URLHostName, r.URLHostRegisteredDomain, r.FetchStatus, r.WARCRecordLength, r.Organization}
		}, []any{"", "search.yahoo.com", "yahoo.com", int16(302), int64(-1), "-"}},
		{"POST key and query", "real/cdxjindexer_post-append.cdxj:3", func(r *Row) any {
			return []any{r.URLSurtKey, r.URLQuery, r.URLProtocol}
		}, []any{"org,httpbin)/post?__wb_method=post&data=^&foo=bar", "foo=bar", "http"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := byLine[tt.at]
			if r == nil {
				t.Fatalf("no row for %s", tt.at)
			}
			if diff := cmp.Diff(tt.want, tt.check(r)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestPartitioned: year and crawl partitions hold the same rows as one file,
// each row in the folder of its own value, in Hive's layout.
func TestPartitioned(t *testing.T) {
	dir := t.TempDir()
	exportSamples(t, filepath.Join(dir, "all.parquet"), nil)
	single := readAll(t, filepath.Join(dir, "all.parquet"))
	key := func(r *Row) string { return r.InputFile + fmt.Sprint(r.InputLine) }
	sorted := func(rows []*Row) []*Row {
		return slices.SortedFunc(slices.Values(rows), func(a, b *Row) int { return strings.Compare(key(a), key(b)) })
	}
	for _, tt := range []struct {
		name   string
		part   Partition
		folder func(r *Row) string
		want   []string
	}{
		{"year", ByYear, func(r *Row) string { return fmt.Sprintf("year=%d", r.FetchTime.Year()) },
			[]string{"year=2002", "year=2008", "year=2012", "year=2013", "year=2014", "year=2017", "year=2020", "year=2025"}},
		{"crawl", ByCrawl, func(r *Row) string { return "crawl=" + hiveEscape(r.Crawl) },
			[]string{"crawl=CC-MAIN-2017-34", "crawl=CC-MAIN-2017-51", "crawl=CC-MAIN-2025-33", "crawl=" + HiveNull}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(dir, tt.name)
			st := exportSamples(t, out, &Options{Partition: tt.part, RowGroupRows: 100})
			files, err := Files(out)
			if err != nil {
				t.Fatal(err)
			}
			var folders []string
			var rows []*Row
			for _, f := range files {
				rel, _ := filepath.Rel(out, f)
				folder, base := filepath.Split(rel)
				folder = strings.TrimSuffix(folder, "/")
				if base != "part-00000.parquet" {
					t.Errorf("file %s: want part-00000.parquet", rel)
				}
				folders = append(folders, folder)
				for r, err := range ReadRows(f) {
					if err != nil {
						t.Fatal(err)
					}
					if got := tt.folder(r); got != folder {
						t.Errorf("%s line %d in %s, want %s", r.InputFile, r.InputLine, folder, got)
					}
					rows = append(rows, r)
				}
			}
			slices.Sort(folders)
			if diff := cmp.Diff(tt.want, folders); diff != "" {
				t.Errorf("folders (-want +got):\n%s", diff)
			}
			if st.Files != len(tt.want) {
				t.Errorf("Stats.Files = %d, want %d", st.Files, len(tt.want))
			}
			if diff := cmp.Diff(sorted(single), sorted(rows)); diff != "" {
				t.Errorf("rows differ from the single file (-single +partitioned):\n%s", diff)
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, "."+tt.name+".tmp-*"))
			if len(leftovers) > 0 {
				t.Errorf("temporary folders left: %v", leftovers)
			}
			filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".parquet") {
					t.Errorf("stray file %s in the table", p)
				}
				return nil
			})
		})
	}
}

// TestMaxOpenPartitions: past the bound, a partition's file is finished and
// its next row starts a new part file; no row is lost.
func TestMaxOpenPartitions(t *testing.T) {
	out := filepath.Join(t.TempDir(), "t")
	tb, err := Create(out, &Options{Partition: ByYear, MaxOpenPartitions: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	in := "com,a)/ 20120101000000 {\"url\": \"http://a.com/\"}\ncom,a)/ 20130101000000 {\"url\": \"http://a.com/\"}\ncom,a)/ 20120202000000 {\"url\": \"http://a.com/\"}\n"
	if err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(in), nil), "in.cdxj", false); err != nil {
		t.Fatal(err)
	}
	if err := tb.Commit(); err != nil {
		t.Fatal(err)
	}
	files, _ := Files(out)
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(out, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	want := []string{"year=2012/part-00000.parquet", "year=2012/part-00001.parquet", "year=2013/part-00000.parquet"}
	if diff := cmp.Diff(want, rel); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if n := len(readAll(t, out)); n != 3 {
		t.Errorf("%d rows, want 3", n)
	}
}

// TestRowGroups: a file holds ceil(rows / RowGroupRows) row groups.
func TestRowGroups(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.parquet")
	st := exportSamples(t, path, &Options{RowGroupRows: 100})
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
	want := int((st.Rows + 99) / 100)
	if got := len(pf.RowGroups()); got != want {
		t.Errorf("%d row groups, want %d", got, want)
	}
	for i, rg := range pf.RowGroups() {
		if n := rg.NumRows(); n > 100 || (i < want-1 && n != 100) {
			t.Errorf("row group %d: %d rows", i, n)
		}
	}
}

// TestColumnCodecs: every column chunk is Zstandard but the bit-packed
// fetch_time, warc_record_offset and warc_record_length and the
// DELTA_BYTE_ARRAY url_surtkey, url, url_path and url_query, uncompressed;
// record_key's pages (Huffman-coded literals, huffmanCodec) hold less than
// the 32-character keys (5 bits of each 8).
func TestColumnCodecs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.parquet")
	exportSamples(t, path, nil)
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
	checked := 0
	for _, rg := range pf.Metadata().RowGroups {
		for _, cc := range rg.Columns {
			name := strings.Join(cc.MetaData.PathInSchema, ".")
			want := format.Zstd
			switch name {
			case "fetch_time", "warc_record_offset", "warc_record_length", "url_surtkey", "url", "url_path", "url_query":
				want = format.Uncompressed
			case "record_key":
				if m := cc.MetaData; m.TotalCompressedSize >= m.TotalUncompressedSize*7/8 {
					t.Errorf("record_key: %d bytes compressed of %d", m.TotalCompressedSize, m.TotalUncompressedSize)
				}
			}
			if cc.MetaData.Codec != want {
				t.Errorf("column %s: codec %v, want %v", name, cc.MetaData.Codec, want)
			}
			checked++
		}
	}
	if checked < len(schema.Fields()) {
		t.Fatalf("%d column chunks checked", checked)
	}
}

// TestCommitAndClose: nothing appears at the path before Commit, Close
// without Commit leaves nothing, a file output replaces an older one with
// its mode, and a partitioned table refuses a non-empty folder.
func TestCommitAndClose(t *testing.T) {
	dir := t.TempDir()
	line := "com,a)/ 20120101000000 {\"url\": \"http://a.com/\"}\n"
	entries := func() []string {
		es, _ := os.ReadDir(dir)
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		return names
	}
	t.Run("abandoned", func(t *testing.T) {
		for _, part := range []Partition{NoPartition, ByYear} {
			tb, err := Create(filepath.Join(dir, "gone"), &Options{Partition: part})
			if err != nil {
				t.Fatal(err)
			}
			tb.ReadIndex(context.Background(), cdxj.NewStream("x", strings.NewReader(line), nil), "x", false)
			if _, err := os.Stat(filepath.Join(dir, "gone")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%v: the table is visible before Commit", part)
			}
			tb.Close()
			if e := entries(); len(e) != 0 {
				t.Errorf("%v: left behind: %v", part, e)
			}
		}
	})
	t.Run("replace file", func(t *testing.T) {
		p := filepath.Join(dir, "old.parquet")
		os.WriteFile(p, []byte("old"), 0o600)
		tb, err := Create(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		tb.ReadIndex(context.Background(), cdxj.NewStream("x", strings.NewReader(line), nil), "x", false)
		if err := tb.Commit(); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(p)
		if fi.Mode().Perm() != 0o600 || len(readAll(t, p)) != 1 {
			t.Errorf("mode %v, want 0600 and one row", fi.Mode().Perm())
		}
		os.Remove(p)
	})
	t.Run("non-empty folder", func(t *testing.T) {
		p := filepath.Join(dir, "busy")
		os.MkdirAll(filepath.Join(p, "year=2012"), 0o755)
		if _, err := Create(p, &Options{Partition: ByYear}); err == nil || !strings.Contains(err.Error(), "not empty") {
			t.Errorf("Create over a non-empty folder: err = %v", err)
		}
		os.RemoveAll(p)
	})
	t.Run("empty folder", func(t *testing.T) {
		p := filepath.Join(dir, "empty")
		os.Mkdir(p, 0o755)
		tb, err := Create(p, &Options{Partition: ByYear})
		if err != nil {
			t.Fatal(err)
		}
		tb.ReadIndex(context.Background(), cdxj.NewStream("x", strings.NewReader(line), nil), "x", false)
		if err := tb.Commit(); err != nil {
			t.Fatal(err)
		}
		if n := len(readAll(t, p)); n != 1 {
			t.Errorf("%d rows, want 1", n)
		}
	})
}

// TestBadLines: a bad line stops the export with its place, or is counted.
func TestBadLines(t *testing.T) {
	in := "com,a)/ 20120101000000 {\"url\": \"http://a.com/\"}\n" +
		"com,a)/ 20120101000000 {\"url\": \"http://a.com/\", \"x\"=1}\n" + // malformed JSON
		"com,a)/ 2012x {\"url\": \"http://a.com/\"}\n" + // bad timestamp
		"com,a)/ 20120102000000 {\"url\": \"http://a.com/\"}\n"
	dir := t.TempDir()
	tb, _ := Create(filepath.Join(dir, "strict.parquet"), nil)
	err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(in), nil), "in.cdxj", false)
	var pe *cdxj.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || strings.Count(err.Error(), "in.cdxj") != 1 {
		t.Errorf("strict: err = %v, want a *cdxj.ParseError on line 2 naming in.cdxj once", err)
	}
	tb.Close()
	tb, _ = Create(filepath.Join(dir, "skip.parquet"), nil)
	if err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(in), nil), "in.cdxj", true); err != nil {
		t.Fatal(err)
	}
	if err := tb.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := tb.Stats(); st.Rows != 2 || st.BadLines != 2 {
		t.Errorf("stats = %+v, want 2 rows and 2 bad lines", st)
	}
	var lines []int64
	for _, r := range readAll(t, filepath.Join(dir, "skip.parquet")) {
		lines = append(lines, r.InputLine)
	}
	if diff := cmp.Diff([]int64{1, 4}, lines); diff != "" {
		t.Errorf("input lines (-want +got):\n%s", diff)
	}
}

// TestNotUTF8Refused: a line with bytes that are not UTF-8 (a URL in
// Latin-1, a NUL-free binary file name) is a bad line naming its line and
// byte, skipped and counted under skipBad; every string of the table is
// UTF-8. Before, the bytes went into the STRING columns as they were, and
// DuckDB refuses such a file whole ("Invalid string encoding found in
// Parquet file").
func TestNotUTF8Refused(t *testing.T) {
	in := "com,a)/ 20120101000000 {\"url\": \"http://a.com/\"}\n" +
		"com,a)/caf%e9 20120101000000 {\"url\": \"http://a.com/caf\xe9\"}\n" +
		"com,a)/ 20120102000000 {\"url\": \"http://a.com/\", \"filename\": \"x\xff\xfe.warc.gz\"}\n" +
		"com,a)/ 20120103000000 {\"url\": \"http://a.com/\", \"mime\": \"text/html; charset=\u00e9\xe2\x82\xac\"}\n"
	dir := t.TempDir()
	tb, _ := Create(filepath.Join(dir, "strict.parquet"), nil)
	err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(in), nil), "in.cdxj", false)
	var pe *cdxj.ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || !errors.Is(err, ErrNotUTF8) || !strings.Contains(err.Error(), "byte 54 of the line") {
		t.Errorf("strict: err = %v, want a *cdxj.ParseError on line 2 wrapping ErrNotUTF8 at byte 54", err)
	}
	tb.Close()
	tb, _ = Create(filepath.Join(dir, "skip.parquet"), nil)
	if err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(in), nil), "in.cdxj", true); err != nil {
		t.Fatal(err)
	}
	if err := tb.Commit(); err != nil {
		t.Fatal(err)
	}
	if st := tb.Stats(); st.Rows != 2 || st.BadLines != 2 {
		t.Errorf("stats = %+v, want 2 rows and 2 bad lines", st)
	}
	var lines []int64
	for _, r := range readAll(t, filepath.Join(dir, "skip.parquet")) {
		lines = append(lines, r.InputLine)
		v := reflect.ValueOf(*r)
		for i := range v.NumField() {
			if s, ok := v.Field(i).Interface().(string); ok && !utf8.ValidString(s) {
				t.Errorf("line %d: %s = %q is not UTF-8", r.InputLine, v.Type().Field(i).Name, s)
			}
		}
	}
	if diff := cmp.Diff([]int64{1, 4}, lines); diff != "" {
		t.Errorf("input lines (-want +got):\n%s", diff)
	}
}

// TestReadErrorNamed: a truncated gzip input is an error naming the input,
// not a silent end.
func TestReadErrorNamed(t *testing.T) {
	b, _ := sampledata.ReadFile("real/openwayback_archive-org.cdx")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(b)
	zw.Close()
	cut := gz.Bytes()[:gz.Len()/2]
	zr, err := cdxj.NewDecompressor(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	tb, _ := Create(filepath.Join(t.TempDir(), "x.parquet"), nil)
	defer tb.Close()
	err = tb.ReadIndex(context.Background(), cdxj.NewStream("cut.cdx.gz", zr, nil), "cut.cdx.gz", true)
	if err == nil || !strings.Contains(err.Error(), "cut.cdx.gz") || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("err = %v, want an unexpected EOF naming cut.cdx.gz", err)
	}
}

// TestNotACaptureTable: ReadRows refuses a Parquet file of another layout.
func TestNotACaptureTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.parquet")
	f, _ := os.Create(path)
	w := parquet.NewGenericWriter[struct{ A int64 }](f)
	w.Write([]struct{ A int64 }{{1}})
	w.Close()
	f.Close()
	for _, err := range ReadRows(path) {
		if !errors.Is(err, ErrNotCaptureTable) {
			t.Errorf("err = %v, want ErrNotCaptureTable", err)
		}
		return
	}
	t.Error("no error")
}

// TestExportZipNumCluster: a ZipNum cluster (several parts, blocks of 100
// lines) opened with cdxj.Open exports the same rows as its lines read from
// one file, record for record.
func TestExportZipNumCluster(t *testing.T) {
	dir := t.TempDir()
	b, _ := sampledata.ReadFile("real/openwayback_archive-org.cdx")
	cw, err := cdxj.CreateCluster(dir, "ia", &cdxj.ClusterOptions{LinesPerBlock: 100, BlocksPerPart: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.WriteLines(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	if err := cw.Commit(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	export := func(out, in string) []*Row {
		ix, err := cdxj.Open(ctx, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer ix.Close()
		tb, err := Create(out, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tb.Close()
		if err := tb.ReadIndex(ctx, ix, "ia", false); err != nil {
			t.Fatal(err)
		}
		if err := tb.Commit(); err != nil {
			t.Fatal(err)
		}
		return readAll(t, out)
	}
	flat := filepath.Join(dir, "ia.cdx")
	os.WriteFile(flat, b, 0o644)
	fromFile := export(filepath.Join(dir, "file.parquet"), flat)
	fromCluster := export(filepath.Join(dir, "cluster.parquet"), cw.IdxPath())
	if len(fromFile) != 2144 || len(fromCluster) != len(fromFile) {
		t.Fatalf("%d rows from the cluster, %d from the file, want 2144", len(fromCluster), len(fromFile))
	}
	// Line numbers are the source's own; every other column agrees.
	noLine := cmp.Transformer("noLine", func(r *Row) Row { c := *r; c.InputLine = 0; return c })
	if diff := cmp.Diff(fromFile, fromCluster, noLine); diff != "" {
		t.Errorf("cluster rows differ (-file +cluster):\n%s", diff)
	}
}

// TestReusedStringBlocks: a table of one file lets its Converter write its
// string block again once parquet-go holds copies of the rows; over
// thousands of generated lines (many batches and block reuses), in one file
// and in partitions (whose Converter takes fresh blocks), every row read
// back equals the row a fresh Converter makes of its line.
func TestReusedStringBlocks(t *testing.T) {
	var idx bytes.Buffer
	if _, err := cdxgen.New(cdxgen.Config{Lines: 5000, Seed: 7}).Write(&idx); err != nil {
		t.Fatal(err)
	}
	var want []Row
	conv := NewConverter(nil)
	for rec, err := range cdxj.NewReader(bytes.NewReader(idx.Bytes())).All() {
		if err != nil {
			t.Fatal(err)
		}
		var r Row
		if err := conv.Row(&r, rec, "gen.cdxj"); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	for _, part := range []Partition{NoPartition, ByYear} {
		t.Run(part.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "t")
			tb, err := Create(out, &Options{Partition: part, RowGroupRows: 1500})
			if err != nil {
				t.Fatal(err)
			}
			defer tb.Close()
			if err := tb.ReadIndex(context.Background(), cdxj.NewStream("gen.cdxj", bytes.NewReader(idx.Bytes()), nil), "gen.cdxj", false); err != nil {
				t.Fatal(err)
			}
			if err := tb.Commit(); err != nil {
				t.Fatal(err)
			}
			got := make([]Row, len(want))
			n := 0
			for r, err := range ReadRows(out) {
				if err != nil {
					t.Fatal(err)
				}
				if r.InputLine < 1 || r.InputLine > int64(len(want)) {
					t.Fatalf("row with input_line %d", r.InputLine)
				}
				got[r.InputLine-1] = *r
				n++
			}
			if n != len(want) {
				t.Fatalf("%d rows read back, want %d", n, len(want))
			}
			for i := range want {
				if diff := cmp.Diff(&want[i], &got[i]); diff != "" {
					t.Fatalf("line %d (-converted +read back):\n%s", i+1, diff)
				}
			}
		})
	}
}

// TestOutOfRangeStatus: a status that is not a three-digit HTTP status (one
// of 20 digits, which once became -1 uncounted, one above int16, a
// negative one) is -1 in fetch_status and counted in Stats.NoStatus, as a
// missing one ("-") is, and the row names its input line; a valid status
// is kept.
func TestOutOfRangeStatus(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.parquet")
	tb, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	cdxjIn := `com,a)/1 20120101000000 {"url": "http://a.com/1", "status": "200", "length": "10"}
com,a)/2 20120101000000 {"url": "http://a.com/2", "status": "99999999999999999999", "length": "10"}
com,a)/3 20120101000000 {"url": "http://a.com/3", "status": 99999999999999999999, "length": "10"}
com,a)/4 20120101000000 {"url": "http://a.com/4", "status": "70000", "length": "10"}
com,a)/5 20120101000000 {"url": "http://a.com/5", "status": "-200", "length": "10"}
com,a)/6 20120101000000 {"url": "http://a.com/6", "status": "-", "length": "10"}
`
	cdxIn := " CDX N b a m s k r M S V g\n" +
		"com,b)/1 20120101000000 http://b.com/1 text/html 301 AAAA - - 10 0 f.warc.gz\n" +
		"com,b)/2 20120101000000 http://b.com/2 text/html 99999999999999999999 AAAA - - 10 0 f.warc.gz\n"
	if err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdxj", strings.NewReader(cdxjIn), nil), "in.cdxj", false); err != nil {
		t.Fatal(err)
	}
	if err := tb.ReadIndex(context.Background(), cdxj.NewStream("in.cdx", strings.NewReader(cdxIn), nil), "in.cdx", false); err != nil {
		t.Fatal(err)
	}
	if err := tb.Commit(); err != nil {
		t.Fatal(err)
	}
	type row struct {
		File   string
		Line   int64
		Status int16
	}
	var got []row
	for _, r := range readAll(t, path) {
		got = append(got, row{r.InputFile, r.InputLine, r.FetchStatus})
	}
	want := []row{
		{"in.cdxj", 1, 200}, {"in.cdxj", 2, -1}, {"in.cdxj", 3, -1}, {"in.cdxj", 4, -1}, {"in.cdxj", 5, -1}, {"in.cdxj", 6, -1},
		{"in.cdx", 2, 301}, {"in.cdx", 3, -1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if st := tb.Stats(); st.NoStatus != 6 || st.Rows != 8 || st.NoLength != 0 {
		t.Errorf("Stats = %+v, want 8 rows, NoStatus 6, NoLength 0", st)
	}
}
