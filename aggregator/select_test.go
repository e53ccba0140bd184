package aggregator

import (
	"bufio"
	"bytes"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/memento"
)

func TestNavigate(t *testing.T) {
	d := func(s string) time.Time { return ts(t, s) }
	ms := []memento.Memento{
		{URIM: "m1999", Datetime: d("19990125093000")},
		{URIM: "m2001", Datetime: d("20010911084600")},
		{URIM: "m2005a", Datetime: d("20050301120000")},
		{URIM: "m2005b", Datetime: d("20050301120000")},
		{URIM: "m2012", Datetime: d("20120615080910")},
	}
	for _, tc := range []struct {
		name string
		at   time.Time
		want nav
	}{
		{"before the first", d("19900101000000"), nav{first: 0, last: 4, closest: 0, prev: -1, next: 1}},
		{"after the last", d("20300101000000"), nav{first: 0, last: 4, closest: 4, prev: 2, next: -1}},
		{"exact, duplicated second: first of the group", d("20050301120000"), nav{first: 0, last: 4, closest: 2, prev: 1, next: 4}},
		{"tie between two: the later wins", d("20000519090800"), nav{first: 0, last: 4, closest: 1, prev: 0, next: 2}},
		{"one second before the midpoint: the earlier", d("20000519090759"), nav{first: 0, last: 4, closest: 0, prev: -1, next: 1}},
		{"just after a duplicated group", d("20050301120001"), nav{first: 0, last: 4, closest: 2, prev: 1, next: 4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, navigate(ms, tc.at), cmp.AllowUnexported(nav{})); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
	if n := navigate(nil, time.Now()); n.closest != -1 || n.first != -1 {
		t.Errorf("empty: %+v", n)
	}
	if got := sameSecond(ms, 3); !cmp.Equal(got, []string{"m2005a", "m2005b"}) {
		t.Errorf("sameSecond = %v", got)
	}
}

func TestNormalizeURIR(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"http://example.com/", "http://example.com/", ""},
		{"example.com", "http://example.com", ""},
		{"HTTP://example.com/", "http://example.com/", ""},
		{"https://www.example.com/", "https://www.example.com/", ""},
		{"http%3A%2F%2Fexample.com%2F", "http://example.com/", ""},
		{"http://http://example.com/", "http://example.com/", ""},
		{"http://https://example.com/", "https://example.com/", ""},
		{"http:/example.com/a", "http://example.com/a", ""},
		{"http://example.com/search?q=a%26b&x=%20", "http://example.com/search?q=a%26b&x=%20", ""},
		{"http://Greensboro.com", "http://greensboro.com", ""},
		{"http://example.com/a<b>\"c\" d|é", "http://example.com/a%3Cb%3E%22c%22%20d%7C%C3%A9", ""},
		{"", "", "empty"},
		{"ftp://example.com/", "", "scheme"},
		{"http:///path", "", "host"},
		{"http://" + strings.Repeat("a", MaxURIRLen), "", "longer"},
		{"http%3A%2F%2Fexa%ZZ", "", "invalid"},
		{"http://example.com:8080/a", "http://example.com:8080/a", ""},
		{"http://example.com:65535/", "http://example.com:65535/", ""},
		{"http://example.com:99999/", "", "port"},
		{"http://example.com:0/", "", "port"},
		{"http://[2001:db8::1]:65536/", "", "port"},
	} {
		got, err := NormalizeURIR(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("NormalizeURIR(%q) = %q, %v; want an error about %q", tc.in, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("NormalizeURIR(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestParsePathDatetime(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{"2005", "20050101000000", true},
		{"200503", "20050301000000", true},
		{"20050301", "20050301000000", true},
		{"2005030112", "20050301120000", true},
		{"200503011234", "20050301123400", true},
		{"20050301123456", "20050301123456", true},
		{"Tue, 01 Mar 2005 12:00:00 GMT", "20050301120000", true},
		{"2005-03-01T12:00:00Z", "20050301120000", true},
		{"20051", "", false},
		{"200513", "", false},
		{"20050431", "", false},
		{"soon", "", false},
	} {
		got, err := ParsePathDatetime(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParsePathDatetime(%q): err %v, want ok=%v", tc.in, err, tc.ok)
			continue
		}
		if tc.ok && got.Format("20060102150405") != tc.want {
			t.Errorf("ParsePathDatetime(%q) = %v, want %s", tc.in, got, tc.want)
		}
	}
}

// Every aggregator row of the public cases has a test here; a new row
// without one fails.
func TestPublicCasesCovered(t *testing.T) {
	covered := map[string]string{
		"AGG-01": "TestAGG01TimeGateRedirectStyles",
		"AGG-03": "TestAGG03Timeouts, TestDormancy, TestBudgetsUnderSynctest",
		"AGG-04": "TestAGG04StableOrder, TestNavigate",
		"AGG-06": "TestAGG06Sequence, TestCacheScenarios, TestMySQLScenarios",
	}
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 2 || f[1] != "aggregator" {
			continue
		}
		n++
		if _, ok := covered[f[0]]; !ok {
			t.Errorf("public case %s has no aggregator test", f[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n != len(covered) {
		t.Errorf("%d aggregator rows in public_cases.tsv, %d covered", n, len(covered))
	}
}

// awkwardURIRs are request URI-Rs at the edges of NormalizeURIR's rules:
// IPv6 literals and ports, userinfo, '\\', stray '%' in every part,
// controls, DEL, non-ASCII hosts and paths.
var awkwardURIRs = []string{
	"http://[2001:DB8::1]/", "http://[::ffff:192.0.2.1]:80/a", "http://[::1]:/", "http://a.example:/x", "http://a.example:0080/",
	"http://user:pass@a.example/", "http://a.example@b.example/", "http://a.example\\b/c", "http://a.example/%zz#%zz",
	"http://a.example/?q=%#f%", "http://a.example/#frag%2", "http://a.example/a\tb\nc\x7fd", "http://b\u00fccher.example/\u00e9",
	"http://A.EXAMPLE./", "http://a..example/", "http://_dmarc.a.example/", "http://192.168.000.001/", "http://0x7f.1/",
	"https://a.example:443/", "http://a.example/?", "http://a.example#", "http://a.example/%", "http://[fe80::1%25eth0]/",
}

// TestNormalizeURIRParses: every URI-R NormalizeURIR accepts, from the
// awkward inputs, parses as a URL (what the archives and the link
// format's readers are given).
func TestNormalizeURIRParses(t *testing.T) {
	accepted := 0
	for _, in := range awkwardURIRs {
		got, err := NormalizeURIR(in)
		if err != nil {
			continue
		}
		accepted++
		if _, err := url.Parse(got); err != nil {
			t.Errorf("NormalizeURIR(%q) = %q, which does not parse as a URL: %v", in, got, err)
		}
	}
	if accepted < len(awkwardURIRs)/2 {
		t.Errorf("only %d of %d awkward URI-Rs accepted", accepted, len(awkwardURIRs))
	}
}

func FuzzNormalizeURIR(f *testing.F) {
	for _, s := range []string{"http://example.com/", "example.com", "http%3A%2F%2Fa%2F", "http://http://a/", "HTTP://A/?q=%26", "http:/a", "://", "%"} {
		f.Add(s)
	}
	for _, s := range awkwardURIRs {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := NormalizeURIR(in)
		if err != nil {
			return
		}
		if !strings.HasPrefix(got, "http://") && !strings.HasPrefix(got, "https://") {
			t.Fatalf("NormalizeURIR(%q) = %q: no http(s) scheme", in, got)
		}
		if _, err := url.Parse(got); err != nil {
			t.Fatalf("NormalizeURIR(%q) = %q, which does not parse as a URL: %v", in, got, err)
		}
		if again, err := NormalizeURIR(got); err != nil || again != got && !strings.HasPrefix(strings.ToLower(got[strings.Index(got, "://")+3:]), "http") {
			t.Fatalf("not idempotent: %q → %q → %q, %v", in, got, again, err)
		}
	})
}

func FuzzParsePathDatetime(f *testing.F) {
	for _, s := range []string{"2005", "20050301123456", "Tue, 01 Mar 2005 12:00:00 GMT", "20051", "200513"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		tm, err := ParsePathDatetime(in)
		if err == nil && tm.Location() != time.UTC {
			t.Fatalf("ParsePathDatetime(%q) = %v, not UTC", in, tm)
		}
	})
}

// TestPathDatetimeFormsStated: the 400 answer to a malformed {datetime}
// and /about state PathDatetimeForms, and each form it names is read: a
// timestamp of each listed length, an RFC 1123 date, an RFC 3339 instant.
func TestPathDatetimeFormsStated(t *testing.T) {
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://127.0.0.1:1/tm/", TimeGate: "http://127.0.0.1:1/tg/"}}})
	h := ag.Handler()
	resp, body := do(t, h, "GET", "/memento/20051301/http://example.com/")
	if resp.StatusCode != 400 || !strings.Contains(body, "Expected "+PathDatetimeForms+"\n") {
		t.Errorf("malformed datetime: %d %q, want 400 stating %q", resp.StatusCode, body, PathDatetimeForms)
	}
	if _, body := do(t, h, "GET", "/about"); !strings.Contains(body, "{DATETIME}        => "+PathDatetimeForms+"\n") {
		t.Errorf("/about does not state the datetime forms %q:\n%s", PathDatetimeForms, body)
	}
	for _, form := range []string{"YYYY[MM[DD[hh[mm[ss]]]]]", "RFC 1123", "RFC 3339"} {
		if !strings.Contains(PathDatetimeForms, form) {
			t.Errorf("PathDatetimeForms %q does not name %s", PathDatetimeForms, form)
		}
	}
	for _, s := range []string{"2005", "200503", "20050301", "2005030112", "200503011200", "20050301120000",
		"Tue, 01 Mar 2005 12:00:00 GMT", "2005-03-01T12:00:00Z"} {
		if _, err := ParsePathDatetime(s); err != nil {
			t.Errorf("ParsePathDatetime(%q), a form PathDatetimeForms names: %v", s, err)
		}
	}
}
