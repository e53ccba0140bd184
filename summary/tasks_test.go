package summary

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"encoding/json"
	"errors"
	"github.com/mementokit/mementokit/cdxj"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func counters(kv map[string]int64) Counters {
	var c Counters
	for k, v := range kv {
		i, ok := CounterIndex(k)
		if !ok {
			panic(k)
		}
		c[i] = v
	}
	return c
}

func TestParseLine(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *Line
		err  bool
	}{
		{"full", line("a.com", "2020", map[string]int64{"n_html": 1, "s_html": 5}), &Line{Key: "a.com", Periods: []PeriodCounters{{2020, counters(map[string]int64{"n_html": 1, "s_html": 5})}}}, false},
		{"compact, monthly", `a.com {"202001": {"n_total": 2}, "201912": {}}`, &Line{Key: "a.com", Periods: []PeriodCounters{{202001, counters(map[string]int64{"n_total": 2})}, {201912, Counters{}}}}, false},
		{"empty key", ` {"2020": {"n_total": 1}}`, &Line{Key: "", Periods: []PeriodCounters{{2020, counters(map[string]int64{"n_total": 1})}}}, false},
		{"unknown counter", `a {"2020": {"n_foo": 1}}`, nil, true},
		{"bad period", `a {"20x0": {}}`, nil, true},
		{"float", `a {"2020": {"n_total": 1.5}}`, nil, true},
		{"no json", `a.com`, nil, true},
		{"trailing", `a {"2020": {}} x`, nil, true},
		{"truncated", `a {"2020": {"n_total": 1}`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseLine([]byte(strings.TrimSuffix(tc.in, "\n")))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error %v", err, tc.err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	_, err := ReadSummary(strings.NewReader("a {\"2020\": {}}\n\nb\n"), "s.summary")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || pe.Name != "s.summary" {
		t.Errorf("ReadSummary error = %v, want s.summary line 3", err)
	}
}

const summaryA = `www.bbc.co.uk {"2019": {"n_html": 1, "n_total": 1, "s_html": 10, "s_total": 10}}
news.bbc.co.uk {"201912": {"n_image": 2, "n_total": 2, "s_image": 20, "s_total": 20}, "202001": {"n_total": 1, "s_total": 1}}
`

func TestCombine(t *testing.T) {
	tests := []struct {
		name string
		opts CombineOptions
		want string
	}{
		{"none", CombineOptions{Compact: true},
			`news.bbc.co.uk {"201912": {"n_image": 2, "n_total": 2, "s_image": 20, "s_total": 20}, "202001": {"n_total": 1, "s_total": 1}}
www.bbc.co.uk {"2019": {"n_html": 1, "n_total": 1, "s_html": 10, "s_total": 10}}
`},
		{"yearly domain", CombineOptions{Compact: true, Yearly: true, Rekey: RekeyDomain},
			`bbc.co.uk {"2019": {"n_html": 1, "n_image": 2, "n_total": 3, "s_html": 10, "s_image": 20, "s_total": 30}, "2020": {"n_total": 1, "s_total": 1}}
`},
		{"lasttwo", CombineOptions{Compact: true, Yearly: true, Rekey: RekeyLastTwo},
			`co.uk {"2019": {"n_html": 1, "n_image": 2, "n_total": 3, "s_html": 10, "s_image": 20, "s_total": 30}, "2020": {"n_total": 1, "s_total": 1}}
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCombiner(&tc.opts)
			if err := c.AddSummary(strings.NewReader(summaryA), "a"); err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := c.WriteTo(&out); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, out.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	// Combining a summary with itself doubles it.
	c := NewCombiner(nil)
	for i := 0; i < 2; i++ {
		if err := c.AddSummary(strings.NewReader(summaryA), "a"); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range c.Lines() {
		for _, p := range l.Periods {
			if p.Counters[NTotal]%2 != 0 {
				t.Errorf("%s %v: n_total %d is not doubled", l.Key, p.Period, p.Counters[NTotal])
			}
		}
	}
}

func TestOverlap(t *testing.T) {
	a := "a.com {\"2019\": {\"n_total\": 1, \"s_total\": 10}, \"2020\": {\"n_total\": 2, \"s_total\": 20}}\nb.com {\"2020\": {\"n_total\": 3, \"s_total\": 30}}\n"
	b := "b.com {\"2020\": {\"n_total\": 4, \"s_total\": 40}}\nc.com {\"2019\": {\"n_total\": 5, \"s_total\": 50}, \"2020\": {\"n_total\": 0}}\n"
	res, err := Overlap([]string{"A", "B"}, []io.Reader{strings.NewReader(a), strings.NewReader(b)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]*OverlapCell{
		"A":       {"2019": {Keys: 1, N: []int64{1}, S: []int64{10}}, "2020": {Keys: 1, N: []int64{2}, S: []int64{20}}},
		"B":       {"2019": {Keys: 1, N: []int64{5}, S: []int64{50}}},
		"A AND B": {"2020": {Keys: 1, N: []int64{3, 4}, S: []int64{30, 40}}},
	}
	if d := cmp.Diff(want, res.Combos); d != "" {
		t.Errorf("combos (-want +got):\n%s", d)
	}
	for _, tc := range []struct {
		format TableFormat
		want   string
	}{
		{FormatText, `period  combination  keys  A:n_total  A:s_total  B:n_total  B:s_total
2019    A            1     1          10         -          -
2019    B            1     -          -          5          50
2020    A            1     2          20         -          -
2020    A AND B      1     3          30         4          40
`},
		{FormatCSV, `period,combination,keys,A:n_total,A:s_total,B:n_total,B:s_total
2019,A,1,1,10,,
2019,B,1,,,5,50
2020,A,1,2,20,,
2020,A AND B,1,3,30,4,40
`},
		{FormatJSON, `[
{"period": "2019", "combination": "A", "keys": 1, "A:n_total": 1, "A:s_total": 10},
{"period": "2019", "combination": "B", "keys": 1, "B:n_total": 5, "B:s_total": 50},
{"period": "2020", "combination": "A", "keys": 1, "A:n_total": 2, "A:s_total": 20},
{"period": "2020", "combination": "A AND B", "keys": 1, "A:n_total": 3, "A:s_total": 30, "B:n_total": 4, "B:s_total": 40}
]
`},
	} {
		var out bytes.Buffer
		if err := res.WriteTable(&out, tc.format); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, out.String()); d != "" {
			t.Errorf("format %d (-want +got):\n%s", tc.format, d)
		}
		if tc.format == FormatJSON {
			var rows []map[string]any
			if err := json.Unmarshal(out.Bytes(), &rows); err != nil || len(rows) != 4 {
				t.Errorf("JSON does not parse back: %v, %d rows", err, len(rows))
			}
		}
	}
	var csvOut bytes.Buffer
	if err := res.WriteCSV(&csvOut); err != nil {
		t.Fatal(err)
	}
	wantCSV := `Hosts:
"Year","A","A AND B","B"
"2019","1","0","1"
"2020","1","1","0"
Count of URLs:
"Year","A","A from (A AND B)","B from (A AND B)","B"
"2019","1","0","0","5"
"2020","2","3","4","0"
Size of compressed records:
"Year","A","A from (A AND B)","B from (A AND B)","B"
"2019","10","0","0","50"
"2020","20","30","40","0"
`
	if d := cmp.Diff(wantCSV, csvOut.String()); d != "" {
		t.Errorf("CSV (-want +got):\n%s", d)
	}
	res, err = Overlap([]string{"A", "B"}, []io.Reader{strings.NewReader(a), strings.NewReader(b)}, &OverlapOptions{NoYear: true})
	if err != nil {
		t.Fatal(err)
	}
	wantNoYear := map[string]map[string]*OverlapCell{
		"A":       {AllPeriods: {Keys: 1, N: []int64{3}, S: []int64{30}}},
		"B":       {AllPeriods: {Keys: 1, N: []int64{5}, S: []int64{50}}},
		"A AND B": {AllPeriods: {Keys: 1, N: []int64{3, 4}, S: []int64{30, 40}}},
	}
	if d := cmp.Diff(wantNoYear, res.Combos); d != "" {
		t.Errorf("no-year combos (-want +got):\n%s", d)
	}
	if _, err := Overlap([]string{"A"}, []io.Reader{strings.NewReader("bad\n")}, nil); err == nil {
		t.Error("Overlap accepted a bad line")
	}
	if _, err := Overlap([]string{"A", "A"}, []io.Reader{strings.NewReader(a), strings.NewReader(b)}, nil); err == nil {
		t.Error("Overlap accepted two summaries of one name")
	}
}

func TestTotalsWriter(t *testing.T) {
	b := "b.org {\"2020\": {\"n_total\": 4, \"s_total\": 40}}\n"
	tests := []struct {
		name   string
		format TableFormat
		opts   TotalsOptions
		want   string
	}{
		{"text", FormatText, TotalsOptions{}, "key period n_total s_total\nwww.bbc.co.uk 2019 1 10\nnews.bbc.co.uk 201912 2 20\nnews.bbc.co.uk 202001 1 1\nb.org 2020 4 40\n"},
		{"text noyear", FormatText, TotalsOptions{NoYear: true}, "key n_total s_total\nwww.bbc.co.uk 1 10\nnews.bbc.co.uk 3 21\nb.org 4 40\n"},
		{"csv with summary", FormatCSV, TotalsOptions{Summary: true, NoTotal: true}, "summary,key,period\na,www.bbc.co.uk,2019\na,news.bbc.co.uk,201912\na,news.bbc.co.uk,202001\nb,b.org,2020\n"},
		{"json", FormatJSON, TotalsOptions{Summary: true, NoYear: true}, `[
{"summary": "a", "key": "www.bbc.co.uk", "n_total": 1, "s_total": 10},
{"summary": "a", "key": "news.bbc.co.uk", "n_total": 3, "s_total": 21},
{"summary": "b", "key": "b.org", "n_total": 4, "s_total": 40}
]
`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			tw := NewTotalsWriter(&out, tc.format, &tc.opts)
			if err := tw.Add(strings.NewReader(summaryA), "a"); err != nil {
				t.Fatal(err)
			}
			if err := tw.Add(strings.NewReader(b), "b"); err != nil {
				t.Fatal(err)
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, out.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	var out bytes.Buffer
	tw := NewTotalsWriter(&out, FormatJSON, nil)
	if err := tw.Close(); err != nil || out.String() != "[]\n" {
		t.Errorf("empty JSON table %q, %v", out.String(), err)
	}
	err := NewTotalsWriter(io.Discard, FormatText, nil).Add(strings.NewReader("a {\"2020\": {\"n_total\": 1}}\nbad\n"), "bad.sum")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 2 || pe.Name != "bad.sum" {
		t.Errorf("error %v, want bad.sum line 2", err)
	}
	for _, s := range []string{"text", "csv", "json"} {
		if _, err := ParseTableFormat(s); err != nil {
			t.Error(err)
		}
	}
	if _, err := ParseTableFormat("xml"); err == nil {
		t.Error("ParseTableFormat accepted xml")
	}
}

func TestTotalsAndCSV(t *testing.T) {
	tests := []struct {
		name string
		opts TotalsOptions
		want string
	}{
		{"default", TotalsOptions{}, "www.bbc.co.uk 2019 1 10\nnews.bbc.co.uk 201912 2 20\nnews.bbc.co.uk 202001 1 1\n"},
		{"noyear", TotalsOptions{NoYear: true}, "www.bbc.co.uk 1 10\nnews.bbc.co.uk 3 21\n"},
		{"nototal", TotalsOptions{NoTotal: true}, "www.bbc.co.uk 2019\nnews.bbc.co.uk 201912\nnews.bbc.co.uk 202001\n"},
		{"both", TotalsOptions{NoTotal: true, NoYear: true}, "www.bbc.co.uk\nnews.bbc.co.uk\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			if err := WriteTotals(&out, strings.NewReader(summaryA), "a", &tc.opts); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, out.String()); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	var out bytes.Buffer
	if err := WriteCSV(&out, strings.NewReader(summaryA), "a"); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4 || lines[0] != strings.Join(CSVHeader(), ",") {
		t.Fatalf("CSV:\n%s", out.String())
	}
	if want := "www.bbc.co.uk,2019,1,0,0,0,0,0,0,0,0,0,0,0,1,10,0,0,0,0,0,0,0,0,0,0,0,10"; lines[1] != want {
		t.Errorf("CSV row = %s\nwant       %s", lines[1], want)
	}
}

func TestRecordID(t *testing.T) {
	// sha1("http://a/20200101000000x.warc.gz") in RFC 4648 base 32.
	got := RecordID("http://a/", "20200101000000", "x.warc.gz")
	if len(got) != 32 || strings.ToUpper(got) != got || !regexp.MustCompile(`^[A-Z2-7]{32}$`).MatchString(got) {
		t.Errorf("RecordID = %q, want 32 base-32 upper-case characters", got)
	}
	if RecordID("http://a/", "20200101000000", "y.warc.gz") == got {
		t.Error("RecordID ignores the filename")
	}
	h := sha1.Sum([]byte("http://a/20200101000000x.warc.gz"))
	if want := base32.StdEncoding.EncodeToString(h[:]); got != want {
		t.Errorf("RecordID = %q, want %q", got, want)
	}
	for _, dst := range [][]byte{nil, []byte("key="), make([]byte, 2, 200)} {
		prefix := string(dst)
		if b := AppendRecordID(dst, "http://a/", "20200101000000", "x.warc.gz"); string(b) != prefix+got {
			t.Errorf("AppendRecordID(%q) = %q, want %q", prefix, b, prefix+got)
		}
	}
}

func TestOrg(t *testing.T) {
	tests := map[string]string{
		"LOC-ENDOFTERM-01-20090119.arc.gz":            "LOC",
		"crawl-data/CC-MAIN-2017/warc/CC-MAIN-x.warc": "CC",
		"example.warc.gz":                             "example",
		"":                                            UnknownOrg,
		"dir/":                                        UnknownOrg,
	}
	for in, want := range tests {
		if got := OrgByPrefix(in); got != want {
			t.Errorf("OrgByPrefix(%q) = %q, want %q", in, got, want)
		}
	}
	re := OrgByRegexp(regexp.MustCompile(`^([A-Z]+)_`))
	if got := re("IA_x-y.warc.gz"); got != "IA" {
		t.Errorf("regexp org = %q", got)
	}
	if got := re("loc-x.warc.gz"); got != UnmatchedOrg {
		t.Errorf("regexp on a name it does not match = %q, want %q", got, UnmatchedOrg)
	}
	opt := OrgByRegexp(regexp.MustCompile(`^(?:([A-Z]+)-)?`)) // an empty first group
	if got := opt("live-1.arc.gz"); got != UnmatchedOrg {
		t.Errorf("regexp with an empty group = %q, want %q", got, UnmatchedOrg)
	}
	m, err := ReadOrgMapping(strings.NewReader("# comment\nLOC Library\nLOC-ENDOFTERM EOT\n"), "map")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"LOC-ENDOFTERM-01.arc.gz": "EOT", "LOC-X.arc.gz": "Library", "CDL-1.warc.gz": "CDL"} {
		if got := m(in); got != want {
			t.Errorf("mapping(%q) = %q, want %q", in, got, want)
		}
	}
	_, err = ReadOrgMapping(strings.NewReader("LOC\n"), "map")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Errorf("bad mapping error = %v", err)
	}
}

func TestDaily(t *testing.T) {
	in := ` CDX N b a m s k r M S V g
gov,loc)/ 20090119120000 http://loc.gov/ text/html 200 D - - 100 0 LOC-ENDOFTERM-01-20090119.arc.gz
gov,loc)/ 20090119120000 http://loc.gov/ text/html 200 D - - 100 0 LOC-ENDOFTERM-01-20090119.arc.gz
gov,loc)/a 20090119130000 http://loc.gov/a text/html 404 D - - 50 100 LOC-ENDOFTERM-01-20090119.arc.gz
gov,loc)/b 20090119130000 http://loc.gov/b warc/revisit - D - - 20 150 LOC-ENDOFTERM-01-20090119.arc.gz
gov,loc)/ 20090119140000 http://loc.gov/ text/html 200 D - - 30 0 CDL-EOT-x.warc.gz
gov,loc)/ 20090120140000 http://loc.gov/ text/html 200 D - - 7 0 IA-x.warc.gz
`
	want := `20090119 {"CDL": {"count": 1, "size": 30, "okcount": 1, "oksize": 30}, "LOC": {"count": 2, "size": 150, "okcount": 1, "oksize": 100}, "toturis": 3, "totsize": 180, "totokcount": 2, "totoksize": 130}
20090120 {"IA": {"count": 1, "size": 7, "okcount": 1, "oksize": 7}, "toturis": 1, "totsize": 7, "totokcount": 1, "totoksize": 7}
`
	for _, adjacent := range []bool{false, true} {
		d := NewDaily(&DailyOptions{AdjacentDuplicates: adjacent})
		if err := d.ReadIndex(context.Background(), cdxj.NewStream("x.cdx", strings.NewReader(in), nil), false); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if _, err := d.WriteTo(&out); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, out.String()); d != "" {
			t.Errorf("adjacent=%v (-want +got):\n%s", adjacent, d)
		}
		if st, want := d.Stats(), (DailyStats{Records: 4, Revisits: 1, Duplicates: 1}); !cmp.Equal(st, want) {
			t.Errorf("stats = %+v, want %+v", st, want)
		}
	}
	d := NewDaily(nil)
	err := d.ReadIndex(context.Background(), cdxj.NewStream("y", strings.NewReader("a)/ 2009 {\"url\": \"http://a/\"}\n"), nil), false)
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 1 {
		t.Errorf("short timestamp error = %v, want line 1", err)
	}
}

func TestReadDays(t *testing.T) {
	d := NewDaily(nil)
	in := "gov,loc)/ 20090119120000 http://loc.gov/ text/html 200 D - - 100 0 LOC-1.arc.gz\n" +
		"gov,loc)/ 20090120120000 http://loc.gov/ text/html 404 D - - 50 0 toturis-1.arc.gz\n" +
		"gov,loc)/ 20090122120000 http://loc.gov/ text/html 200 D - - 7 0 CDL-1.arc.gz\n"
	if err := d.ReadIndex(context.Background(), cdxj.NewStream("x.cdx", strings.NewReader(" CDX N b a m s k r M S V g\n"+in), nil), false); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := d.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	got, err := ReadDays(&out, "daily.txt")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(d.Days(), got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	tests := []struct {
		name, in, want string
	}{
		{"bad day", "20091301 {}\n", "daily.txt:1: day \"20091301\""},
		{"order", "20090102 {}\n20090101 {}\n", "daily.txt:2: day 20090101 after 20090102"},
		{"twice", "20090102 {}\n\n20090102 {}\n", "daily.txt:3:"},
		{"totals", `20090102 {"a": {"count": 1, "size": 1, "okcount": 1, "oksize": 1}, "toturis": 2}` + "\n", "\"toturis\" is 2, the organizations add up to 1"},
		{"duplicate member", `20090102 {"a": {"count": 1, "size": 1, "okcount": 1, "oksize": 1}, "a": {"count": 1, "size": 1, "okcount": 1, "oksize": 1}}` + "\n", `member "a" twice`},
		{"missing field", `20090102 {"a": {"count": 1}}` + "\n", "want non-negative count, size, okcount and oksize"},
		{"trailing text", `20090102 {} x` + "\n", "text after the JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadDays(strings.NewReader(tc.in), "daily.txt")
			var pe *ParseError
			if !errors.As(err, &pe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want a ParseError containing %q", err, tc.want)
			}
		})
	}
}
