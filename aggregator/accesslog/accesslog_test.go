package accesslog

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/timestamp"
)

// readAll reads the files with a fresh Reader and returns the lookups as
// "URI-R" or "URI-R DATETIME" and the stats.
func readAll(t *testing.T, o *Options, paths ...string) ([]string, Stats) {
	t.Helper()
	rd := NewReader(o)
	var got []string
	for _, p := range paths {
		err := rd.ReadFile(context.Background(), p, func(l Lookup) error {
			s := l.URIR
			if !l.Datetime.IsZero() {
				s += " " + timestamp.Format(l.Datetime)
			}
			got = append(got, s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got, rd.Stats()
}

func badLines(st Stats) []string {
	var out []string
	for _, b := range st.BadLines {
		out = append(out, b.String())
	}
	return out
}

func TestCombined(t *testing.T) {
	got, st := readAll(t, nil, "testdata/combined.log")
	want := []string{
		"http://example.com/",
		"http://example.com/a",
		"http://example.com/",
		"http://example.com/b?x=1 20100101000000",
		"http://example.com/nothere 20110101000000",
		"http://example.com/ 20100101000000",
		"http://example.com/no-newline",
	}
	if !slices.Equal(got, want) {
		t.Errorf("lookups\n%q\nwant\n%q", got, want)
	}
	if st.Lines != 14 || st.Lookups != 7 || st.WithDatetime != 3 || st.Other != 3 || st.Bad != 2 || st.Refused != 1 || st.Blank != 1 {
		t.Errorf("stats %+v", st)
	}
	if !slices.Equal(st.Formats, []Format{Combined}) || len(st.Archives) != 0 {
		t.Errorf("formats %v, archives %v", st.Formats, st.Archives)
	}
	bad := badLines(st)
	wantBad := []string{"testdata/combined.log:9: combined log: no [time] after host ident user",
		"testdata/combined.log:12: datetime \"20101301\"", "testdata/combined.log:13: combined log: time \"32/Oct/2020:13:55:46 +0000\""}
	if len(bad) != len(wantBad) {
		t.Fatalf("bad lines %q", bad)
	}
	for i := range bad {
		if !strings.HasPrefix(bad[i], wantBad[i]) {
			t.Errorf("bad line %q, want it to start with %q", bad[i], wantBad[i])
		}
	}
	// Read as Common, the same lines are lookups (the extra fields are ignored).
	got, st = readAll(t, &Options{Format: Common}, "testdata/combined.log")
	if !slices.Equal(got, want) || st.Bad != 2 {
		t.Errorf("as common: %q, %+v", got, st)
	}
	// As MemGator's, every non-blank line is bad.
	_, st = readAll(t, &Options{Format: MemGator, MaxBadLines: -1}, "testdata/combined.log")
	if st.Bad != 13 || st.Lookups != 0 || len(st.BadLines) != 0 {
		t.Errorf("as memgator: %+v", st)
	}
}

func TestMemGator(t *testing.T) {
	got, st := readAll(t, nil, "testdata/memgator.log")
	want := []string{"http://example.com/", "http://example.com/a", "http://example.com/many"}
	if !slices.Equal(got, want) {
		t.Errorf("lookups %q, want %q", got, want)
	}
	if st.Lines != 21 || st.Lookups != 3 || st.Other != 7 || st.Bad != 2 || st.Refused != 0 {
		t.Errorf("stats %+v", st)
	}
	wantArchives := []ArchiveCounts{
		{Archive: "arquivo", Requests: 3, Misses: 1, Errors: 2},
		{Archive: "bl", Requests: 2, Errors: 2, Slept: 1},
		{Archive: "ia", Requests: 3, Hits: 2, Misses: 1},
	}
	if !reflect.DeepEqual(st.Archives, wantArchives) {
		t.Errorf("Table 3\n%+v\nwant\n%+v", st.Archives, wantArchives)
	}
	if b := badLines(st); len(b) != 2 || !strings.HasPrefix(b[0], "testdata/memgator.log:19: ") || !strings.HasPrefix(b[1], "testdata/memgator.log:20: memgator log: time") {
		t.Errorf("bad lines %q", b)
	}
}

func TestAggregatorLog(t *testing.T) {
	got, st := readAll(t, nil, "testdata/aggregator.log")
	want := []string{"http://example.com/", "http://example.com/", "http://example.com/a 20060101000000", "http://example.com/nothere 20110101000000"}
	if !slices.Equal(got, want) {
		t.Errorf("lookups %q, want %q", got, want)
	}
	if st.Lines != 10 || st.Lookups != 4 || st.WithDatetime != 2 || st.Searched != 3 || st.FromCache != 1 ||
		st.Other != 2 || st.Refused != 1 || st.Bad != 2 {
		t.Errorf("stats %+v", st)
	}
	wantArchives := []ArchiveCounts{
		{Archive: "arquivo", Requests: 3, Hits: 1, Misses: 2},
		{Archive: "bl", Requests: 3, Misses: 1, Errors: 1, Dormant: 1, Slept: 1},
		{Archive: "ia", Requests: 3, Hits: 2, Misses: 1},
		{Archive: "ukwa", Requests: 3, Misses: 1, Skipped: 2},
	}
	if !reflect.DeepEqual(st.Archives, wantArchives) {
		t.Errorf("Table 3\n%+v\nwant\n%+v", st.Archives, wantArchives)
	}
	b := badLines(st)
	if len(b) != 3 || !strings.HasPrefix(b[0], "testdata/aggregator.log:7: ") ||
		b[1] != `testdata/aggregator.log:9: aggregator log: archives: "ia=lost": unknown status "lost"` ||
		!strings.HasPrefix(b[2], "testdata/aggregator.log:10: aggregator log: not a JSON record") {
		t.Errorf("bad lines %q", b)
	}
}

// TestSeveralFiles reads the three logs with one Reader, each in its own
// detected format, and counts them together.
func TestSeveralFiles(t *testing.T) {
	got, st := readAll(t, nil, "testdata/memgator.log", "testdata/aggregator.log", "testdata/combined.log")
	if len(got) != 3+4+7 || st.Files != 3 || !slices.Equal(st.Formats, []Format{MemGator, Aggregator, Combined}) {
		t.Errorf("%d lookups, %+v", len(got), st)
	}
	if st.Lines != 21+10+14 || st.Bad != 2+2+2 || st.Refused != 1+1 {
		t.Errorf("stats %+v", st)
	}
	if n := len(st.Archives); n != 4 || st.Archives[2].Requests != 6 || st.Archives[2].Hits != 4 {
		t.Errorf("archives %+v", st.Archives)
	}
}

func TestParseTarget(t *testing.T) {
	for _, tc := range []struct {
		target, root string
		urir, dt     string
		ok           bool
	}{
		{"/timemap/link/http://a.org/x?y=1", "", "http://a.org/x?y=1", "", true},
		{"/timemap/cdxj/3/http://a.org/", "", "http://a.org/", "", true},
		{"/timemap/index/a.org", "", "a.org", "", true},
		{"/timemap/xml/http://a.org/", "", "", "", false},
		{"/timegate/http://a.org/", "", "http://a.org/", "", true},
		{"/memento/2010/http://a.org/", "", "http://a.org/", "2010", true},
		{"/memento/proxy/2010/http://a.org/", "", "http://a.org/", "2010", true},
		{"/api/json/20100101/http://a.org/", "", "http://a.org/", "20100101", true},
		{"/list/2010/http://a.org/", "", "http://a.org/", "2010", true},
		{"/web/2010id_/http://a.org/", "", "http://a.org/", "2010", true},
		{"/web/*/http://a.org/", "", "http://a.org/", "", true},
		{"/web/static/x.css", "", "", "", false},
		{"/mg/timegate/http://a.org/", "/mg", "http://a.org/", "", true},
		{"/timegate/http://a.org/", "/mg", "", "", false},
		{"/mgx/timegate/http://a.org/", "/mg", "", "", false},
		{"/", "", "", "", false},
		{"/timegate/", "", "", "", false},
		{"timegate/http://a.org/", "", "", "", false},
	} {
		u, dt, ok := ParseTarget(tc.target, tc.root)
		if u != tc.urir || dt != tc.dt || ok != tc.ok {
			t.Errorf("ParseTarget(%q, %q) = %q, %q, %v; want %q, %q, %v", tc.target, tc.root, u, dt, ok, tc.urir, tc.dt, tc.ok)
		}
	}
}

func TestLongLine(t *testing.T) {
	long := `127.0.0.1 - - [10/Oct/2020:13:55:36 -0700] "GET /timegate/http://a.org/` + strings.Repeat("x", 200<<10) + ` HTTP/1.1" 200 1` + "\n"
	in := long + `127.0.0.1 - - [10/Oct/2020:13:55:36 -0700] "GET /timegate/http://a.org/ HTTP/1.1" 200 1` + "\n"
	rd := NewReader(&Options{MaxLineLength: 100 << 10})
	var got []string
	if err := rd.Read(context.Background(), strings.NewReader(in), "x.log", func(l Lookup) error { got = append(got, l.URIR); return nil }); err != nil {
		t.Fatal(err)
	}
	st := rd.Stats()
	if !slices.Equal(got, []string{"http://a.org/"}) || st.Bad != 1 || st.Lines != 2 || badLines(st)[0] != "x.log:1: line longer than 102400 bytes" {
		t.Errorf("%q %+v", got, st)
	}
}

func TestOverlap(t *testing.T) {
	rd := NewReader(nil)
	q := NewRequests()
	if err := rd.ReadFile(context.Background(), "testdata/combined.log", func(l Lookup) error { q.Add(l.URIR); return nil }); err != nil {
		t.Fatal(err)
	}
	ix, err := cdxj.Open(context.Background(), "testdata/holdings.cdxj", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ov, err := ComputeOverlap(context.Background(), q, []cdxj.Searcher{ix}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{-1, 2}, {0, 3}, {1, 0}}
	if !reflect.DeepEqual(ov.Cells, want) || !slices.Equal(ov.Bins, []string{"Zero", "Ones", "Tens"}) {
		t.Errorf("cells %v bins %v, want %v", ov.Cells, ov.Bins, want)
	}
	if ov.Archived != 4 || ov.Requested != 5 || ov.Both != 3 || ov.Lookups != 7 || ov.Index.Records != 15 {
		t.Errorf("overlap %+v", ov)
	}
	if q.Count("com,example)/") != 3 {
		t.Errorf("requests changed: %d", q.Count("com,example)/"))
	}
}

func TestBin(t *testing.T) {
	for n, want := range map[int64]int{0: 0, -3: 0, 1: 1, 9: 1, 10: 2, 99: 2, 100: 3, 1_000_000: 7} {
		if got := Bin(n); got != want {
			t.Errorf("Bin(%d) = %d, want %d", n, got, want)
		}
	}
	if BinName(0) != "Zero" || BinName(2) != "Tens" || BinName(12) != "10^11+" {
		t.Error(BinName(0), BinName(2), BinName(12))
	}
}

func TestContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	in := strings.Repeat(`127.0.0.1 - - [10/Oct/2020:13:55:36 -0700] "GET /timegate/http://a.org/ HTTP/1.1" 200 1`+"\n", 5000)
	err := NewReader(nil).Read(ctx, strings.NewReader(in), "x", func(Lookup) error { return nil })
	if err == nil {
		t.Error("a canceled read returned nil")
	}
}

// A member the reader does not use may be of any type (another version of
// the aggregator, another logger's fields); a member it uses of the wrong
// type makes the line bad, named with file and line.
func TestAggregatorLogUnusedMembers(t *testing.T) {
	log := `{"time":"2024-01-01T00:00:00Z","msg":"access","method":"GET","target":"/timemap/link/http://example.com/","urir":"http://example.com/","status":"200","duration":{"ms":3},"archives":"ia=found:2"}
{"msg":"archive dormant","archive":"bl","status":[1,2],"until":17}
{"msg":"access","method":"GET","target":"/timemap/link/http://example.com/x","urir":7}
`
	rd := NewReader(&Options{Format: Aggregator})
	var got []string
	if err := rd.Read(context.Background(), strings.NewReader(log), "agg.log", func(l Lookup) error {
		got = append(got, l.URIR)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st := rd.Stats()
	if !slices.Equal(got, []string{"http://example.com/"}) || st.Lookups != 1 || st.Bad != 1 {
		t.Errorf("lookups %q, stats %+v; want the first line's lookup and the third line bad", got, st)
	}
	if b := badLines(st); len(b) != 1 || !strings.HasPrefix(b[0], `agg.log:3: aggregator log: member "urir": `) {
		t.Errorf("bad lines %q", b)
	}
	if len(st.Archives) != 2 || st.Archives[1].Archive != "ia" || st.Archives[1].Hits != 1 || st.Archives[0].Slept != 1 {
		t.Errorf("archives %+v", st.Archives)
	}
}
