package duckdbtest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/summary"
)

// duplicates is an input of lines whose record keys repeat with other
// values (status, length): the daily series counts the first line of a
// key, and so must the query. It also holds a revisit and a day with
// revisits only.
const duplicates = `com,example)/dup 20200101000000 {"url": "http://example.com/dup", "mime": "text/html", "status": "200", "length": "100", "filename": "EOT-20200101-0001.warc.gz"}
com,example)/dup 20200101000000 {"url": "http://example.com/dup", "mime": "text/html", "status": "404", "length": "7", "filename": "EOT-20200101-0001.warc.gz"}
com,example)/dup 20200101000000 {"url": "http://example.com/dup", "mime": "text/html", "status": "500", "length": "9", "filename": "LOC-20200101-0001.warc.gz"}
com,example)/rev 20200101000000 {"url": "http://example.com/rev", "mime": "warc/revisit", "length": "50", "filename": "EOT-20200101-0001.warc.gz"}
com,example)/rev 20200102000000 {"url": "http://example.com/rev", "mime": "warc/revisit", "length": "50", "filename": "EOT-20200102-0001.warc.gz"}
com,example)/short 2020 {"url": "http://example.com/short", "mime": "text/html", "status": "200", "length": "5", "filename": "EOT-2020.warc.gz"}
`

// input is one index the tests export and count.
type input struct {
	name string
	data []byte
}

// inputs returns the shipped real index files and the duplicates, in the
// order of their names (the order the query takes for "first").
func inputs(t *testing.T) []input {
	t.Helper()
	var in []input
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, input{name, b})
	}
	in = append(in, input{"zz/duplicates.cdxj", []byte(duplicates)})
	sort.Slice(in, func(i, j int) bool { return in[i].name < in[j].name })
	return in
}

func stream(in input) cdxj.Searcher {
	return cdxj.NewStream(in.name, bytes.NewReader(in.data), nil)
}

// export writes the inputs to a capture table at path.
func export(t *testing.T, path string, part columnar.Partition) {
	t.Helper()
	tb, err := columnar.Create(path, &columnar.Options{Partition: part, RowGroupRows: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for _, in := range inputs(t) {
		if err := tb.ReadIndex(context.Background(), stream(in), in.name, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.Commit(); err != nil {
		t.Fatal(err)
	}
}

// openDB opens an in-memory DuckDB with the view captures over the table
// at path (a file or a partitioned folder).
func openDB(t *testing.T, view, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	src := fmt.Sprintf("read_parquet('%s')", path)
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		src = fmt.Sprintf("read_parquet('%s/**/*.parquet', hive_partitioning = true)", path)
	}
	if _, err := db.Exec(fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM %s", view, src)); err != nil {
		t.Fatal(err)
	}
	return db
}

// query runs the documented query file (its statements in order) and
// returns the rows of the last one, every value as DuckDB gave it.
func query(t *testing.T, db *sql.DB, file string) [][]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "sql", file))
	if err != nil {
		t.Fatal(err)
	}
	var stmts []string
	for _, s := range strings.Split(string(b), ";\n") {
		var lines []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "--") {
				lines = append(lines, l)
			}
		}
		if s := strings.TrimSpace(strings.Join(lines, "\n")); s != "" {
			stmts = append(stmts, s)
		}
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, s := range stmts[:len(stmts)-1] {
		if _, err := conn.ExecContext(context.Background(), s); err != nil {
			t.Fatalf("%s: %v\n%s", file, err, s)
		}
	}
	rows, err := conn.QueryContext(context.Background(), stmts[len(stmts)-1])
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s: no rows", file)
	}
	return out
}

// TestDailySeries: daily.sql over the export gives summary.Daily's series
// of the same inputs, value for value, and its revisit count.
func TestDailySeries(t *testing.T) {
	d := summary.NewDaily(nil)
	for _, in := range inputs(t) {
		if err := d.ReadIndex(context.Background(), stream(in), true); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]summary.DayOrg{}
	for _, day := range d.Days() {
		for org, c := range day.Orgs {
			want[day.Day+" "+org] = c
		}
	}
	st := d.Stats()
	if st.Duplicates == 0 || st.Revisits == 0 || len(want) < 20 {
		t.Fatalf("the inputs do not exercise the series: %+v, %d day-organizations", st, len(want))
	}
	dir := t.TempDir()
	for _, part := range []columnar.Partition{columnar.NoPartition, columnar.ByYear, columnar.ByCrawl} {
		t.Run(part.String(), func(t *testing.T) {
			path := filepath.Join(dir, part.String())
			export(t, path, part)
			rows := query(t, openDB(t, "captures", path), "daily.sql")
			got := map[string]summary.DayOrg{}
			var revisits int64
			for _, r := range rows {
				day, org := r[0].(string), r[1].(string)
				revisits += r[6].(int64)
				c := summary.DayOrg{Count: r[2].(int64), Size: r[3].(int64), OKCount: r[4].(int64), OKSize: r[5].(int64)}
				if c.Count == 0 {
					if r[6].(int64) == 0 {
						t.Errorf("%s %s: a row with neither captures nor revisits", day, org)
					}
					continue // a day of revisits only: not in the series
				}
				got[day+" "+org] = c
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("daily.sql differs from summary.Daily (-Daily +SQL):\n%s", diff)
			}
			if revisits != st.Revisits {
				t.Errorf("revisits: SQL %d, Daily %d", revisits, st.Revisits)
			}
		})
	}
}

// TestTopHosts: top_hosts.sql agrees with the rows read back by columnar.
func TestTopHosts(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.parquet")
	export(t, path, columnar.NoPartition)
	type host struct {
		captures, bytes int64
		urls            map[string]bool
		first, last     int
	}
	hosts := map[string]*host{}
	for r, err := range columnar.ReadRows(path) {
		if err != nil {
			t.Fatal(err)
		}
		if r.URLHostName == "" {
			continue
		}
		h := hosts[r.URLHostName]
		if h == nil {
			h = &host{urls: map[string]bool{}, first: 9999}
			hosts[r.URLHostName] = h
		}
		h.captures++
		h.bytes += max(r.WARCRecordLength, 0)
		if r.URL != "" {
			h.urls[r.URL] = true
		}
		h.first, h.last = min(h.first, r.FetchTime.Year()), max(h.last, r.FetchTime.Year())
	}
	names := make([]string, 0, len(hosts))
	for n := range hosts {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := hosts[names[i]], hosts[names[j]]
		if a.captures != b.captures {
			return a.captures > b.captures
		}
		return names[i] < names[j]
	})
	var want [][]any
	for _, n := range names[:min(20, len(names))] {
		h := hosts[n]
		want = append(want, []any{n, h.captures, h.bytes, int64(len(h.urls)), int64(h.first), int64(h.last)})
	}
	got := query(t, openDB(t, "captures", path), "top_hosts.sql")
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("top_hosts.sql (-rows +SQL):\n%s", diff)
	}
}

// mimeTotals sums a summary's category counters per year over its keys.
func mimeTotals(lines []summary.Line) map[string][2]int64 {
	m := map[string][2]int64{}
	for _, l := range lines {
		for _, p := range l.Periods {
			for c := summary.HTML; c <= summary.Other; c++ {
				n, s := p.Counters[summary.NHTML+int(c)], p.Counters[summary.SHTML+int(c)]
				if n == 0 && s == 0 {
					continue
				}
				k := fmt.Sprintf("%d %s", p.Period.Year(), c)
				m[k] = [2]int64{m[k][0] + n, m[k][1] + s}
			}
		}
	}
	return m
}

// TestMIMEShares: mime_shares.sql over the capture table (one file, and
// partitioned by year and by crawl), and
// summary_mime_shares.sql over the summary table, give the summary's
// per-year category counts and bytes; the shares of a year sum to 1.
func TestMIMEShares(t *testing.T) {
	s := summary.New(nil)
	for _, in := range inputs(t) {
		if err := s.ReadIndex(context.Background(), stream(in), true); err != nil {
			t.Fatal(err)
		}
	}
	lines := s.Lines()
	want := mimeTotals(lines)
	if len(want) < 5 {
		t.Fatalf("only %d year-categories", len(want))
	}
	check := func(name string, rows [][]any, off int) {
		got := map[string][2]int64{}
		shares := map[int64]float64{}
		for _, r := range rows {
			var year int64
			switch v := r[off].(type) {
			case int32:
				year = int64(v)
			case int64:
				year = v
			default:
				t.Fatalf("%s: year %T", name, v)
			}
			got[fmt.Sprintf("%d %s", year, r[off+1])] = [2]int64{r[off+2].(int64), r[off+3].(int64)}
			shares[year] += r[off+4].(float64)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-summary +SQL):\n%s", name, diff)
		}
		for y, sum := range shares {
			if sum < 0.999 || sum > 1.001 {
				t.Errorf("%s: the shares of %d sum to %v", name, y, sum)
			}
		}
	}
	// A table partitioned by year has a hive column named year beside
	// fetch_time's year: the query groups by the same years over it.
	dir := t.TempDir()
	for _, part := range []columnar.Partition{columnar.NoPartition, columnar.ByYear, columnar.ByCrawl} {
		path := filepath.Join(dir, part.String())
		if part == columnar.NoPartition {
			path += ".parquet"
		}
		export(t, path, part)
		check("mime_shares.sql over "+part.String(), query(t, openDB(t, "captures", path), "mime_shares.sql"), 0)
	}

	var text bytes.Buffer
	if _, err := s.WriteTo(&text); err != nil {
		t.Fatal(err)
	}
	sumPath := filepath.Join(t.TempDir(), "s.parquet")
	f, err := os.Create(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	w := columnar.NewSummaryWriter(f, nil)
	if err := w.AddSummary(&text, "sample.summary"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rows := query(t, openDB(t, "summaries", sumPath), "summary_mime_shares.sql")
	for _, r := range rows {
		if r[0] != "sample.summary" {
			t.Fatalf("summary_file %v", r[0])
		}
	}
	check("summary_mime_shares.sql", rows, 1)
}
