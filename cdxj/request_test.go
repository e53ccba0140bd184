package cdxj

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseRequest(t *testing.T) {
	cases := []struct {
		name  string
		query string
		want  Request // Filters compared by String
		err   string
	}{
		{"exact", "url=example.com", Request{URL: "example.com"}, ""},
		{"prefix wildcard", "url=example.com/a/*", Request{URL: "example.com/a/", Match: MatchPrefix}, ""},
		{"domain wildcard", "url=*.example.com", Request{URL: "example.com", Match: MatchDomain}, ""},
		{"explicit matchType takes url as it is", "url=example.com/a*&matchType=prefix", Request{URL: "example.com/a*", Match: MatchPrefix}, ""},
		{"explicit exact", "url=example.com/*&matchType=exact", Request{URL: "example.com/*"}, ""},
		{"host", "url=example.com/path&matchType=host", Request{URL: "example.com/path", Match: MatchHost}, ""},
		{"from to limit", "url=example.com&from=2014&to=2015&limit=-3", Request{URL: "example.com", From: "2014", To: "2015", Limit: -3}, ""},
		{"reverse", "url=example.com&sort=reverse", Request{URL: "example.com", Sort: SortReverse}, ""},
		{"reverse=true", "url=example.com&reverse=true", Request{URL: "example.com", Sort: SortReverse}, ""},
		{"closest alone", "url=example.com&closest=20140101", Request{URL: "example.com", Sort: SortClosest, Closest: "20140101"}, ""},
		{"filters", "url=example.com&filter=!=status:200&filter=~mime:text/.*&filter=digest:ABC",
			Request{URL: "example.com", Filters: []Filter{{Negate: true, Op: FilterExact, Field: "status", Value: "200"},
				{Op: FilterRegexp, Field: "mime", Value: "text/.*"}, {Field: "digest", Value: "ABC"}}}, ""},
		{"IA filter names", "url=example.com&filter=!statuscode:200&filter=mimetype:text/html",
			Request{URL: "example.com", Filters: []Filter{{Negate: true, Field: "status", Value: "200"}, {Field: "mime", Value: "text/html"}}}, ""},
		{"collapse", "url=example.com&collapse=timestamp:10&collapse=digest", Request{URL: "example.com", Collapse: []Collapse{{"timestamp", 10}, {"digest", 0}}}, ""},
		{"fl and output", "url=example.com&fl=urlkey,timestamp,original&output=json", Request{URL: "example.com", Fields: []string{"urlkey", "timestamp", "url"}, Output: OutputJSON}, ""},
		{"fields= is fl", "url=example.com&fields=urlkey,status&output=text", Request{URL: "example.com", Fields: []string{"urlkey", "status"}, Output: OutputText}, ""},
		{"paging", "url=*.example.com&page=3&pageSize=4&showNumPages=true&showPagedIndex=1",
			Request{URL: "example.com", Match: MatchDomain, Paged: true, Page: 3, PageSize: 4, ShowNumPages: true, ShowPagedIndex: true}, ""},
		{"no url", "matchType=prefix", Request{}, "url= parameter is required"},
		{"bad matchType", "url=example.com&matchType=foo", Request{}, "matchType=foo"},
		{"bad output", "url=example.com&output=foo", Request{}, "output=foo"},
		{"bad limit", "url=example.com&limit=ten", Request{}, "limit=ten"},
		{"bad from", "url=example.com&from=2014-01", Request{}, "from=2014-01"},
		{"from after to", "url=example.com&from=2015&to=2014", Request{}, "is after to"},
		{"bad closest", "url=example.com&closest=yesterday", Request{}, "closest=yesterday"},
		{"closest sort without closest", "url=example.com&sort=closest", Request{}, "needs closest="},
		{"bad sort", "url=example.com&sort=up", Request{}, "sort=up"},
		{"bad regex", "url=example.com&filter=~mime:(", Request{}, "missing closing )"},
		{"empty filter", "url=example.com&filter=!", Request{}, "nothing to match"},
		{"bad collapse", "url=example.com&collapse=timestamp:x", Request{}, "collapse"},
		{"bad page", "url=example.com&page=-1", Request{}, "page=-1"},
		{"bad pageSize", "url=example.com&pageSize=0", Request{}, "pageSize=0"},
		{"bad bool", "url=example.com&showNumPages=maybe", Request{}, "showNumPages=maybe"},
		{"bad fl", "url=example.com&fl=urlkey,a b", Request{}, "not a field name"},
		{"url that is only a wildcard", "url=*", Request{}, "nothing left"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			r, err := ParseRequest(v)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrQuery) {
					t.Fatalf("err = %v, want an ErrQuery saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, *r, cmp.Comparer(func(a, b Filter) bool { return a.String() == b.String() })); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// Values is the inverse of ParseRequest.
			back, err := ParseRequest(r.Values())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(*r, *back, cmp.Comparer(func(a, b Filter) bool { return a.String() == b.String() })); diff != "" {
				t.Errorf("Values round trip (-first +second):\n%s", diff)
			}
		})
	}
}

func TestRequestQuery(t *testing.T) {
	cases := []struct {
		query string
		key   string
		m     MatchType
	}{
		{"url=http://example.com/path/file.html", "com,example)/path/file.html", MatchExact},
		{"url=http://example.com/path/*", "com,example)/path/", MatchPrefix},
		{"url=http://example.com/path*&matchType=prefix", "com,example)/path", MatchPrefix},
		{"url=http://example.com/path?&matchType=prefix", "com,example)/path?", MatchPrefix},
		{"url=http://example.com/path/?&matchType=prefix", "com,example)/path?", MatchPrefix},
		{"url=*.example.com", "com,example)/", MatchDomain},
		{"url=example.com:8080/x", "com,example:8080)/x", MatchExact},
		{"url=example.com/path_part_ignored/&matchType=host", "com,example)/path_part_ignored", MatchHost},
	}
	for _, tc := range cases {
		v, _ := url.ParseQuery(tc.query)
		r, err := ParseRequest(v)
		if err != nil {
			t.Fatal(err)
		}
		q, err := r.Query()
		if err != nil || q.Key != tc.key || q.Match != tc.m {
			t.Errorf("%s: Query() = %+v, %v; want key %q, %v", tc.query, q, err, tc.key, tc.m)
		}
	}
}

// sortedFile writes lines to a temporary file and opens it as a Sorted.
func sortedFile(t testing.TB, lines []string) *Sorted {
	t.Helper()
	p := filepath.Join(t.TempDir(), "index.cdxj")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	return NewSorted(f, st.Size())
}

func runLines(t testing.TB, r *Request, s Searcher) ([]string, error) {
	t.Helper()
	var out []string
	for rec, err := range r.Run(s, nil) {
		if err != nil {
			return out, err
		}
		out = append(out, string(rec.Line()))
	}
	return out, nil
}

func parseReq(t testing.TB, q string) *Request {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseRequest(v)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// recordedLines returns the CDXJ lines of a recorded pywb output=json
// answer.
func recordedLines(t testing.TB, rec recorded) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(rec.Body), "\n") {
		b, err := appendObjectLine(nil, []byte(l))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestRunRestatesCommonCrawl runs the requests of recorded Common Crawl
// answers over the flat file of the same crawl's lines and gets the
// server's answer: filters (pywb's syntax, "!status:200" a negated
// substring test), and sort=closest with from/to and a limit. The flat
// file holds every line of those answers, and every line of the crawl
// that sorts before their last one, so the answers are complete.
func TestRunRestatesCommonCrawl(t *testing.T) {
	s := sortedFile(t, flatLines(t, "cc_commoncrawl-org_from-cdxapi.cdxj"))
	cases := []struct {
		file, crawl string
	}{
		{"cdxtoolkit_test_multi_cc1_slow_7.jsonl", "CC-MAIN-2025-33"},
		{"cdxtoolkit_test_multi_cc2.jsonl", "CC-MAIN-2017-34"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			rec := loadRecorded(t, tc.file)[0]
			v := url.Values{}
			for k := range rec.Params {
				switch k {
				case "output", "page":
					continue
				case "filter":
					for _, f := range rec.Params[k].([]any) {
						v.Add("filter", f.(string))
					}
					continue
				}
				if p := rec.param(k); p != "" {
					v.Set(k, p)
				}
			}
			if tc.file == "cdxtoolkit_test_multi_cc1_slow_7.jsonl" {
				v.Del("from") // cdx_toolkit's default "one year back" from its recording day
			}
			v.Add("filter", "filename:"+tc.crawl) // the flat file mixes crawls
			r, err := ParseRequest(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := runLines(t, r, s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recordedLines(t, rec), got); diff != "" {
				t.Errorf("Run over the flat file (-server +ours):\n%s", diff)
			}
		})
	}
}

// TestRunSemantics checks each step of Run over the Internet Archive
// README's archive.org lines.
func TestRunSemantics(t *testing.T) {
	s := sortedFile(t, iaArchiveOrg)
	exact := iaArchiveOrg[:7]
	rev := slices.Clone(exact)
	slices.Reverse(rev)
	cases := []struct {
		name, query string
		want        []string
	}{
		{"limit", "url=archive.org&limit=5", exact[:5]},
		{"last N", "url=archive.org&limit=-2", exact[5:]},
		{"reverse", "url=archive.org&sort=reverse", rev},
		{"reverse limit", "url=archive.org&sort=reverse&limit=2", rev[:2]},
		{"reverse=1 limit", "url=archive.org&reverse=1&limit=1", rev[:1]},
		{"from to", "url=archive.org&from=1997&to=199712", exact[:4]},
		{"closest", "url=archive.org&closest=19980110&limit=3", []string{exact[4], exact[5], exact[6]}},
		{"closest tie keeps index order", "url=archive.org&closest=19971211122953&limit=2", []string{exact[2], exact[3]}},
		{"closest no limit", "url=archive.org&sort=closest&closest=19700101", exact},
		{"collapse digest", "url=archive.org&collapse=digest", []string{exact[0], exact[1]}},
		{"collapse timestamp:4", "url=archive.org&collapse=timestamp:4", []string{exact[0], exact[4]}},
		{"collapse urlkey prefix", "url=archive.org/*&collapse=urlkey", []string{exact[0], iaArchiveOrg[7]}},
		{"filter contains", "url=archive.org&filter=original:www", []string{exact[0], exact[1], exact[2], exact[3], exact[6]}},
		{"filter exact", "url=archive.org&filter==length:1405", []string{exact[2], exact[3], exact[6]}},
		{"filter exact is whole", "url=archive.org&filter==length:140", nil},
		{"filter negated exact", "url=archive.org&filter=!=length:1405", []string{exact[0], exact[1], exact[4], exact[5]}},
		{"filter regex anchored at start", "url=archive.org&filter=~digest:XAH", exact[1:]},
		{"filter regex not at start", "url=archive.org&filter=~digest:AHD", nil},
		{"filter negated regex", "url=archive.org&filter=!~timestamp:1998", exact[:4]},
		{"filter whole line", "url=archive.org&filter=XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3%201402", []string{exact[1], exact[4], exact[5]}},
		{"a colon names a field", "url=archive.org&filter=http://archive.org:80/", nil},
		{"filters and", "url=archive.org&filter=mimetype:html&filter=!statuscode:200", nil},
		{"filter then limit", "url=archive.org&filter=!original:www&limit=1", exact[4:5]},
		{"prefix", "url=archive.org/*", iaArchiveOrg},
		{"prefix slash", "url=archive.org/a*", iaArchiveOrg[7:]},
		{"host", "url=archive.org/x&matchType=host", iaArchiveOrg},
		{"domain", "url=*.archive.org", iaArchiveOrg},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runLines(t, parseReq(t, tc.query), s)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunLimits(t *testing.T) {
	s := sortedFile(t, iaArchiveOrg)
	o := &RunOptions{MaxBuffered: 3}
	// limit=-9223372036854775808 is math.MinInt, whose negation overflows.
	for _, q := range []string{"url=archive.org&sort=reverse", "url=archive.org&limit=-4", "url=archive.org&closest=1998",
		"url=archive.org&limit=-9223372036854775808", "url=archive.org&closest=1998&limit=-9223372036854775808"} {
		var err error
		for _, e := range parseReq(t, q).Run(s, o) {
			if e != nil {
				err = e
				break
			}
		}
		if !errors.Is(err, ErrTooManyLines) {
			t.Errorf("%s with 3 lines held at most: %v, want ErrTooManyLines", q, err)
		}
	}
	// Within the bound it works.
	var n int
	for _, err := range parseReq(t, "url=archive.org&sort=reverse&limit=3").Run(s, o) {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d lines", n)
	}
	// Paging needs a cluster.
	for _, err := range parseReq(t, "url=archive.org&page=0").Run(s, nil) {
		if !errors.Is(err, ErrNoPaging) {
			t.Errorf("paged over a sorted file: %v", err)
		}
	}
	if _, err := parseReq(t, "url=archive.org&showNumPages=true").NumPages(s, nil); !errors.Is(err, ErrNoPaging) {
		t.Errorf("page count over a sorted file: %v", err)
	}
}

func TestRunBadLines(t *testing.T) {
	lines := []string{
		"org,archive)/ 19970126045828 http://www.archive.org:80/ text/html 200 Q4YULN754FHV2U6Q5JUT6Q2P57WEWNNY 1415",
		"org,archive)/ 1997x http://www.archive.org:80/ text/html 200 X 1402",
		"org,archive)/ 19980109140106 http://archive.org:80/ text/html 200 XAHDNHZ5P3GSSSNJ3DMEOJF7BMCCPZR3 1402",
	}
	s := sortedFile(t, lines)
	var got []string
	var errs []error
	for rec, err := range parseReq(t, "url=archive.org").Run(s, nil) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, string(rec.Line()))
	}
	var pe *ParseError
	if len(errs) != 1 || !errors.As(errs[0], &pe) || !strings.Contains(errs[0].Error(), "byte") {
		t.Errorf("errors %v: want one *ParseError naming its byte offset", errs)
	}
	if !slices.Equal(got, []string{lines[0], lines[2]}) {
		t.Errorf("lines %q", got)
	}
}

func TestAppendRecord(t *testing.T) {
	cdx, err := ParseLine([]byte("org,iana)/ 20140126200624 http://www.iana.org/ text/html 200 OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB - - 2258 334 iana.warc.gz"), nil)
	if err != nil {
		t.Fatal(err)
	}
	cdxjLine := `org,commoncrawl)/ 20250804103329 {"url": "https://www.commoncrawl.org/", "mime": "text/html", "mime-detected": "text/html", "status": "301", "length": "560", "redirect": "https://commoncrawl.org/"}`
	cj, err := ParseLine([]byte(cdxjLine), nil)
	if err != nil {
		t.Fatal(err)
	}
	odd, err := ParseLine([]byte(`com,x)/a%20b 20200101000000 {"url": "http://x.com/a b", "mime": "text/html; charset=utf-8", "status": "-", "digest": "", "length": 12, "extra": {"a": [1, 2]}, "note": "a\nb"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, query string
		rec         *Record
		want        string
	}{
		{"cdxj of cdx", "url=x", cdx, `org,iana)/ 20140126200624 {"url": "http://www.iana.org/", "mime": "text/html", "status": "200", "digest": "OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB", "redirect": "-", "robotflags": "-", "length": "2258", "offset": "334", "filename": "iana.warc.gz"}`},
		{"cdxj of cdxj", "url=x", cj, cdxjLine},
		{"cdxj fields", "url=x&fl=urlkey,timestamp,status,mime-detected", cj, `org,commoncrawl)/ 20250804103329 {"status": "301", "mime-detected": "text/html"}`},
		{"json of cdx", "url=x&output=json", cdx, `{"urlkey": "org,iana)/", "timestamp": "20140126200624", "url": "http://www.iana.org/", "mime": "text/html", "status": "200", "digest": "OSSAPWJ23L56IYVRW3GFEAR4MCJMGPTB", "redirect": "-", "robotflags": "-", "length": "2258", "offset": "334", "filename": "iana.warc.gz"}`},
		{"json of cdxj", "url=x&output=json", cj, `{"urlkey": "org,commoncrawl)/", "timestamp": "20250804103329", "url": "https://www.commoncrawl.org/", "mime": "text/html", "mime-detected": "text/html", "status": "301", "length": "560", "redirect": "https://commoncrawl.org/"}`},
		{"json fields", "url=x&output=json&fl=urlkey,timestamp,status", cdx, `{"urlkey": "org,iana)/", "timestamp": "20140126200624", "status": "200"}`},
		{"json fields absent left out", "url=x&output=json&fl=timestamp,digest,filename", cj, `{"timestamp": "20250804103329"}`},
		{"text of cdx", "url=x&output=text", cdx, string(cdx.Line())},
		{"text of cdxj", "url=x&output=text", cj, "org,commoncrawl)/ 20250804103329 https://www.commoncrawl.org/ text/html text/html 301 560 https://commoncrawl.org/"},
		{"text of cdxj, odd values", "url=x&output=text", odd, "com,x)/a%20b 20200101000000 http://x.com/a%20b text/html; charset=utf-8 - - 12 {\"a\":%20[1,%202]} a%0Ab"},
		{"text fields of cdxj", "url=x&output=text&fl=timestamp,mime,digest,mime-detected", odd, "20200101000000 text/html; charset=utf-8 - -"},
		{"text fields", "url=x&output=text&fl=timestamp,original,statuscode", cdx, "20140126200624 http://www.iana.org/ 200"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseReq(t, tc.query).AppendRecord([]byte("keep:"), tc.rec)
			if err != nil {
				t.Fatal(err)
			}
			if want := "keep:" + tc.want + "\n"; string(got) != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
	// output=json lines are JSON, and the client turns them back into the
	// CDXJ form.
	for _, rec := range []*Record{cdx, cj} {
		j, _ := parseReq(t, "url=x&output=json").AppendRecord(nil, rec)
		if !json.Valid(j) {
			t.Errorf("not JSON: %s", j)
		}
		back, err := appendObjectLine(nil, bytes.TrimSpace(j))
		if err != nil {
			t.Fatal(err)
		}
		c, _ := parseReq(t, "url=x").AppendRecord(nil, rec)
		if string(back)+"\n" != string(c) {
			t.Errorf("json back to cdxj:\n%s\nwant\n%s", back, c)
		}
	}
	// A malformed JSON block is an error, and nothing is appended.
	bad, _ := ParseLine([]byte(`com,x)/ 20200101000000 {"url": "x", "mime": }`), nil)
	for _, q := range []string{"url=x", "url=x&output=json", "url=x&output=text"} {
		got, err := parseReq(t, q).AppendRecord([]byte("keep"), bad)
		var pe *ParseError
		if !errors.As(err, &pe) || string(got) != "keep" {
			t.Errorf("%s: %q, %v", q, got, err)
		}
	}
	// So is a string with a bad escape, which text output decodes.
	esc, _ := ParseLine([]byte(`com,x)/ 20200101000000 {"url": "http://x.com/", "note": "a\qb"}`), nil)
	got, err := parseReq(t, "url=x&output=text").AppendRecord([]byte("keep"), esc)
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrJSON) || string(got) != "keep" {
		t.Errorf("bad escape: %q, %v", got, err)
	}
}

func TestMerge(t *testing.T) {
	a := sortedFile(t, iaArchiveOrg[:4])
	b := sortedFile(t, iaArchiveOrg[2:])
	m := Merge(a, b)
	got, err := collectLines(t, m.Lines(Query{Match: MatchPrefix}))
	if err != nil {
		t.Fatal(err)
	}
	want := append(slices.Clone(iaArchiveOrg), iaArchiveOrg[2:4]...)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	got, _ = runLines(t, parseReq(t, "url=archive.org&limit=3&sort=reverse"), m)
	if len(got) != 3 || got[0] != iaArchiveOrg[6] {
		t.Errorf("merged reverse: %q", got)
	}
	if Merge(a) != Searcher(a) {
		t.Error("Merge of one index is not that index")
	}
}

// TestRunContext: a Run whose RunOptions.Context is done stops within 1024
// index records with the context's cause, where it read on to the end of
// the url's range (here 5000 records, of which the filter passes none).
func TestRunContext(t *testing.T) {
	var lines []string
	for i := range 5000 {
		ts := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("20060102150405")
		lines = append(lines, fmt.Sprintf(`com,example)/ %s {"url": "http://example.com/", "status": "200"}`, ts))
	}
	s := countingSearcher{Searcher: sortedFile(t, lines), read: new(int)}
	ctx, cancel := context.WithCancelCause(context.Background())
	gone := errors.New("client gone")
	cancel(gone)
	var err error
	for _, e := range parseReq(t, "url=example.com&filter=status:404").Run(s, &RunOptions{Context: ctx}) {
		if e != nil {
			err = e
			break
		}
	}
	if !errors.Is(err, gone) || *s.read > 1024 {
		t.Errorf("after reading %d of 5000 records: %v, want the context's cause within 1024", *s.read, err)
	}
	// Without a Context the run reads to the end and answers nothing.
	*s.read = 0
	for _, e := range parseReq(t, "url=example.com&filter=status:404").Run(s, nil) {
		t.Errorf("without a context: %v", e)
	}
	if *s.read != 5000 {
		t.Errorf("without a context: read %d records", *s.read)
	}
}

// countingSearcher counts the records its Searcher yields.
type countingSearcher struct {
	Searcher
	read *int
}

func (c countingSearcher) Records(q Query) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		for rec, err := range c.Searcher.Records(q) {
			*c.read++
			if !yield(rec, err) {
				return
			}
		}
	}
}

// TestRunHold: RunOptions.Hold sees every byte a held answer takes
// (HeldBytes of each line held) and gets all of it back however the
// iteration ends; the most held at once is |limit| lines' worth, and an
// error from Hold ends Run before any record. Each record held costs its
// line and heldOverhead, not a parsed Record (1.3 KB and more a line).
func TestRunHold(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, fmt.Sprintf(`com,example)/ 2020010100%04d {"url": "http://example.com/", "status": "200"}`, i))
	}
	s := sortedFile(t, lines)
	per := HeldBytes(len(lines[0]))
	for _, tc := range []struct {
		q    string
		n    int   // records answered
		peak int64 // most held at once
	}{
		{"url=example.com&limit=-5", 5, 5 * per},
		{"url=example.com&sort=reverse", 50, 50 * per},
		{"url=example.com&sort=reverse&limit=7", 7, 7 * per},
		{"url=example.com&closest=20200101000010&limit=3", 3, 3 * per},
		{"url=example.com&closest=20200101000010", 50, 50 * per},
		{"url=example.com&limit=5", 5, 0},
	} {
		var cur, peak int64
		o := &RunOptions{Hold: func(n int64) error {
			if cur += n; cur > peak {
				peak = cur
			}
			return nil
		}}
		n := 0
		for _, err := range parseReq(t, tc.q).Run(s, o) {
			if err != nil {
				t.Fatalf("%s: %v", tc.q, err)
			}
			n++
		}
		if n != tc.n || peak != tc.peak || cur != 0 {
			t.Errorf("%s: %d records, %d bytes held at most and %d after, want %d records, %d bytes at most and 0 after", tc.q, n, peak, cur, tc.n, tc.peak)
		}
		// Stopped early, everything is given back too.
		cur, peak = 0, 0
		for range parseReq(t, tc.q).Run(s, o) {
			break
		}
		if cur != 0 {
			t.Errorf("%s stopped after one record: %d bytes not given back", tc.q, cur)
		}
	}
	// A refusal ends Run before any record, and what was taken comes back.
	full := errors.New("full")
	var cur int64
	o := &RunOptions{Hold: func(n int64) error {
		if n > 0 && cur+n > 4*per {
			return full
		}
		cur += n
		return nil
	}}
	var errs []error
	n := 0
	for _, err := range parseReq(t, "url=example.com&sort=reverse").Run(s, o) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if n != 0 || len(errs) != 1 || !errors.Is(errs[0], full) || cur != 0 {
		t.Errorf("refused at the 5th line: %d records, errors %v, %d bytes not given back; want 0, [full], 0", n, errs, cur)
	}
}
