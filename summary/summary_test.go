package summary

import (
	"bytes"
	"context"
	"flag"
	"github.com/mementokit/mementokit/cdxj"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/sampledata"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// summarize runs the default summarizer over in and returns its output.
func summarize(t *testing.T, in string, opts *Options) (string, Stats) {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	if opts.MaxYear == 0 {
		opts.MaxYear = 2030
	}
	s := New(opts)
	if err := s.ReadIndex(context.Background(), cdxj.NewStream("test", strings.NewReader(in), nil), true); err != nil {
		t.Fatalf("ReadIndex: %v", err)
	}
	var out bytes.Buffer
	if _, err := s.WriteTo(&out); err != nil {
		t.Fatal(err)
	}
	return out.String(), s.Stats()
}

// compat runs the emulation of the original over in.
func compat(t *testing.T, in string, monthly, fullhost, compact bool) string {
	t.Helper()
	c := NewCompat(monthly, fullhost, nil)
	_ = c.ReadFile("test", strings.NewReader(in))
	var out bytes.Buffer
	var err error
	if compact {
		_, err = c.WriteCompactTo(&out)
	} else {
		_, err = c.WriteTo(&out)
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// line builds an expected summary line from a key, a period and the
// non-zero counters.
func line(key, period string, kv map[string]int64) string {
	var c Counters
	for k, v := range kv {
		i, ok := CounterIndex(k)
		if !ok {
			panic("bad counter " + k)
		}
		c[i] = v
	}
	p, err := ParsePeriod(period)
	if err != nil {
		panic(err)
	}
	return string(AppendLine(nil, &Line{Key: key, Periods: []PeriodCounters{{p, c}}}, false))
}

// The summary rows of internal/sampledata/cases/public_cases.tsv.
var publicCases = []struct {
	id               string
	input            string
	want, wantCompat string
	compatFullhost   bool
}{
	{
		id: "SUM-02",
		input: `org,example)/a 20200101000000 {"url": "http://example.org/a", "mime": "text/html; charset=utf-8", "status": "200", "length": "1000"}
org,example)/b 20200101000000 {"url": "http://example.org/b", "mime": "TEXT/HTML", "status": "200", "length": "100"}
org,example)/c 20200101000000 {"url": "http://example.org/c", "status": "200", "length": "7"}
`,
		want: line("example.org", "2020", map[string]int64{"n_html": 2, "s_html": 1100, "n_other": 1, "s_other": 7,
			"n_http": 3, "s_http": 1107, "n_total": 3, "s_total": 1107}),
		wantCompat: line("example.org", "2020", map[string]int64{"n_other": 3, "s_other": 1107,
			"n_http": 3, "s_http": 1107, "n_total": 3, "s_total": 1107}),
	},
	{
		id: "SUM-03",
		input: `uk,co,example)/ 20200101000000 {"url": "http://example.co.uk/", "mime": "text/html", "status": "200", "length": "10"}
uk,co,other)/ 20200101000000 {"url": "http://other.co.uk/", "mime": "text/html", "status": "200", "length": "20"}
`,
		want: line("example.co.uk", "2020", map[string]int64{"n_html": 1, "s_html": 10, "n_http": 1, "s_http": 10, "n_total": 1, "s_total": 10}) +
			line("other.co.uk", "2020", map[string]int64{"n_html": 1, "s_html": 20, "n_http": 1, "s_http": 20, "n_total": 1, "s_total": 20}),
		wantCompat: line("co.uk", "2020", map[string]int64{"n_html": 2, "s_html": 30, "n_http": 2, "s_http": 30, "n_total": 2, "s_total": 30}),
	},
	{
		id: "SUM-04 (CDX)",
		input: ` CDX N b a m s k r M S V g
org,example)/b 20200101000000 http://example.org/b warc/revisit - AAAA - - 50 0 x.warc.gz
`,
		want:       "",
		wantCompat: "",
	},
	{
		id: "SUM-04 (CDXJ)",
		input: `org,example)/b 20200101000000 {"url": "http://example.org/b", "mime": "warc/revisit", "digest": "AAAA", "length": "50", "offset": "0", "filename": "x.warc.gz"}
`,
		want: "",
		wantCompat: line("example.org", "2020", map[string]int64{"n_other": 1, "s_other": 50,
			"n_http": 1, "s_http": 50, "n_total": 1, "s_total": 50}),
	},
}

func TestPublicCases(t *testing.T) {
	for _, tc := range publicCases {
		t.Run(tc.id, func(t *testing.T) {
			got, _ := summarize(t, tc.input, nil)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("default mode (-want +got):\n%s", d)
			}
			gotC := compat(t, tc.input, false, tc.compatFullhost, false)
			if d := cmp.Diff(tc.wantCompat, gotC); d != "" {
				t.Errorf("compat mode (-want +got):\n%s", d)
			}
		})
	}
	// SUM-03 also asks for per-host keys with -fullhost.
	got, _ := summarize(t, publicCases[1].input, &Options{Keys: KeyHost})
	if d := cmp.Diff(publicCases[1].want, got); d != "" {
		t.Errorf("SUM-03 KeyHost (-want +got):\n%s", d)
	}
}

// Every SUM row of the shipped cases file has a case above.
func TestPublicCasesCovered(t *testing.T) {
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.SplitN(l, "\t", 3); len(f) == 3 && f[1] == "summary" {
			ids = append(ids, f[0])
		}
	}
	if len(ids) == 0 {
		t.Fatal("no summary rows in public_cases.tsv")
	}
	for _, id := range ids {
		found := false
		for _, tc := range publicCases {
			if strings.HasPrefix(tc.id, id) {
				found = true
			}
		}
		if !found {
			t.Errorf("public case %s has no test", id)
		}
	}
}

// goldenModes are the outputs kept in testdata/golden for every shipped index file.
var goldenModes = []struct {
	suffix string
	run    func(t *testing.T, in []byte) string
}{
	{"default", func(t *testing.T, in []byte) string { s, _ := summarize(t, string(in), nil); return s }},
	{"default-host-monthly-compact", func(t *testing.T, in []byte) string {
		s, _ := summarize(t, string(in), &Options{Keys: KeyHost, Monthly: true, Compact: true})
		return s
	}},
	{"compat", func(t *testing.T, in []byte) string { return compat(t, string(in), false, false, false) }},
	{"compat-fullhost-monthly-compact", func(t *testing.T, in []byte) string { return compat(t, string(in), true, true, true) }},
}

func TestGolden(t *testing.T) {
	files := sampledata.IndexFiles()
	if len(files) == 0 {
		t.Fatal("no sample files")
	}
	for _, name := range files {
		in, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range goldenModes {
			t.Run(filepath.Base(name)+"/"+m.suffix, func(t *testing.T) {
				got := m.run(t, in)
				path := filepath.Join("testdata", "golden", filepath.Base(name)+"."+m.suffix+".summary")
				if *update {
					if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatalf("%v (run go test -update)", err)
				}
				if d := cmp.Diff(string(want), got); d != "" {
					t.Errorf("%s (-want +got):\n%s", path, d)
				}
			})
		}
	}
}

func TestCategorizeMIME(t *testing.T) {
	tests := []struct {
		mime         string
		want, compat Category
	}{
		{"text/html", HTML, HTML},
		{"text/html; charset=utf-8", HTML, Other},
		{"TEXT/HTML", HTML, Other},
		{" text/plain ", HTML, Other},
		{"application/xhtml+xml", HTML, HTML},
		{"text/css", CSS, CSS},
		{"image/png", Image, Image},
		{"Image/PNG", Image, Other},
		{"video/mp4", Video, Video},
		{"audio/mpeg", Audio, Audio},
		{"application/pdf", PDF, PDF},
		{"application/javascript", JS, JS},
		{"text/javascript;charset=UTF-8", JS, Other},
		{"application/x-javascript", JS, JS},
		{"application/json", JSON, JSON},
		{"text/json", JSON, JSON},
		{"font/woff2", Font, Font},
		{"application/font-woff", Font, Font},
		{"application/x-font-ttf", Font, Font},
		{"application/vnd.ms-fontobject", Font, Font},
		{"warc/revisit", Other, Other},
		{"unk", Other, Other},
		{"-", Other, Other},
		{"", Other, Other},
		{"application/http;msgtype=response", Other, Other},
		{"image/" + strings.Repeat("x", 100), Image, Image},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", Other, Other},
	}
	for _, tc := range tests {
		t.Run(tc.mime, func(t *testing.T) {
			if got := CategorizeMIME(tc.mime); got != tc.want {
				t.Errorf("CategorizeMIME(%q) = %v, want %v", tc.mime, got, tc.want)
			}
			if got := compatCategory(tc.mime); got != tc.compat {
				t.Errorf("compatCategory(%q) = %v, want %v", tc.mime, got, tc.compat)
			}
		})
	}
}

func TestKey(t *testing.T) {
	tests := []struct {
		name, indexKey, url   string
		domain, host, lastTwo string
	}{
		{"surt", "uk,co,bbc,news)/a", "http://news.bbc.co.uk/a", "bbc.co.uk", "news.bbc.co.uk", "co.uk"},
		{"surt port", "com,example:8080)/", "http://example.com:8080/", "example.com", "example.com", "example.com"},
		{"surt upper", "COM,Example)/", "", "example.com", "example.com", "example.com"},
		{"private suffix", "com,blogspot,foo)/", "", "foo.blogspot.com", "foo.blogspot.com", "blogspot.com"},
		{"public suffix itself", "uk,co)/", "http://co.uk/", "co.uk", "co.uk", "co.uk"},
		{"single label", "localhost)/", "http://localhost/", "localhost", "localhost", "localhost"},
		{"ipv4 surt", "192,0,2,1)/", "http://192.0.2.1/", "192.0.2.1", "192.0.2.1", "192.0.2.1"},
		{"ipv4 url only", "-", "http://192.0.2.1:8080/x", "192.0.2.1", "192.0.2.1", "192.0.2.1"},
		{"ipv6 url", "[2001:db8::1])/", "http://[2001:db8::1]/", "[2001:db8::1]", "[2001:db8::1]", "[2001:db8::1]"},
		{"dns pseudo", "dns:www.example.com", "dns:www.example.com", "dns:", "dns:", "dns:"},
		{"warcinfo pseudo", "-", "warcinfo:/x.warc.gz", "warcinfo:", "warcinfo:", "warcinfo:"},
		{"dns key only", "dns:example.com", "", "dns:", "dns:", "dns:"},
		{"no host", "-", "", NoHostKey, NoHostKey, NoHostKey},
		{"massaged url", "www.example.co.uk/a", "", "example.co.uk", "www.example.co.uk", "co.uk"},
		{"url without surt", "20130202100000", "https://Www.Example.com/", "example.com", "www.example.com", "example.com"},
		{"host:port not a scheme", "example.com:80/", "", "example.com", "example.com", "example.com"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []struct {
				mode KeyMode
				want string
			}{{KeyDomain, tc.domain}, {KeyHost, tc.host}, {KeyLastTwo, tc.lastTwo}} {
				if got := HostKey(tc.indexKey, tc.url, m.mode); got != m.want {
					t.Errorf("Key(%q, %q, %v) = %q, want %q", tc.indexKey, tc.url, m.mode, got, m.want)
				}
			}
		})
	}
}

func TestDefaultFixes(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		opts  Options
		want  string
		stats Stats
	}{
		{
			name:  "json number status and length",
			in:    `org,example)/ 20200101000000 {"url": "https://example.org/", "mime": "text/html", "status": 200, "length": 10}` + "\n",
			want:  line("example.org", "2020", map[string]int64{"n_html": 1, "s_html": 10, "n_https": 1, "s_https": 10, "n_total": 1, "s_total": 10}),
			stats: Stats{Counted: 1, Keys: 1},
		},
		{
			name: "non-utf8 bytes keep the rest",
			in: "org,example)/\xff 20200101000000 {\"url\": \"http://example.org/\xff\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"1\"}\n" +
				`org,example)/b 20200101000000 {"url": "http://example.org/b", "mime": "text/html", "status": "200", "length": "2"}` + "\n",
			want:  line("example.org", "2020", map[string]int64{"n_html": 2, "s_html": 3, "n_http": 2, "s_http": 3, "n_total": 2, "s_total": 3}),
			stats: Stats{Counted: 2, Keys: 1},
		},
		{
			name: "year out of range reported",
			in: `org,example)/ 19800101000000 {"url": "http://example.org/", "mime": "text/html", "status": "200", "length": "1"}` + "\n" +
				`org,example)/ 20990101000000 {"url": "http://example.org/", "mime": "text/html", "status": "200", "length": "1"}` + "\n",
			want:  "",
			stats: Stats{BadTimestamp: 2},
		},
		{
			name:  "scheme case-insensitive, monthly",
			in:    `org,example)/ 20200315000000 {"url": "HTTPS://example.org/", "mime": "image/png", "status": "206", "length": "5"}` + "\n",
			opts:  Options{Monthly: true},
			want:  line("example.org", "202003", map[string]int64{"n_image": 1, "s_image": 5, "n_https": 1, "s_https": 5, "n_total": 1, "s_total": 5}),
			stats: Stats{Counted: 1, Keys: 1},
		},
		{
			name: "404 and unknown status not counted",
			in: `org,example)/ 20200101000000 {"url": "http://example.org/", "mime": "text/html", "status": "404", "length": "1"}` + "\n" +
				`org,example)/ 20200101000000 {"url": "http://example.org/", "mime": "text/html", "length": "1"}` + "\n",
			want:  "",
			stats: Stats{NotOK: 2},
		},
		{
			name:  "bad json line skipped and counted",
			in:    `org,example)/ 20200101000000 {"url"="http://example.org/"}` + "\n",
			want:  `!meta {"skipped_lines":1,"skipped_examples":["test: line 1, column 36: invalid JSON block: expected ':' after key \"url\""]}` + "\n",
			stats: Stats{BadLines: 1, BadExamples: []string{`test: line 1, column 36: invalid JSON block: expected ':' after key "url"`}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := tc.opts
			got, st := summarize(t, tc.in, &opts)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("output (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.stats, st); d != "" {
				t.Errorf("stats (-want +got):\n%s", d)
			}
		})
	}
}

func TestReadIndexBadLineError(t *testing.T) {
	s := New(nil)
	err := s.ReadIndex(context.Background(), cdxj.NewStream("x.cdxj", strings.NewReader("org,example)/ 20200101000000 {\"status\"=1}\n"), nil), false)
	var pe *ParseError
	if err == nil || !errorsAs(err, &pe) || pe.Line != 1 || pe.Name != "x.cdxj" {
		t.Fatalf("ReadIndex error = %v, want a ParseError for x.cdxj line 1", err)
	}
}

func TestReadIndexOneByteReader(t *testing.T) {
	in, err := sampledata.ReadFile("real/cc_commoncrawl-org_from-cdxapi.cdxj")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := summarize(t, string(in), nil)
	s := New(&Options{MaxYear: 2030})
	if err := s.ReadIndex(context.Background(), cdxj.NewStream("x", iotest.OneByteReader(bytes.NewReader(in)), nil), true); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	s.WriteTo(&got)
	if d := cmp.Diff(want, got.String()); d != "" {
		t.Errorf("one-byte reads differ (-want +got):\n%s", d)
	}
	s = New(nil)
	if err := s.ReadIndex(context.Background(), cdxj.NewStream("x", iotest.DataErrReader(iotest.TimeoutReader(bytes.NewReader(in))), nil), true); err == nil {
		t.Error("ReadIndex hid a read error")
	}
}

func TestGrouped(t *testing.T) {
	in := `com,a)/ 20200101000000 {"url": "http://a.com/", "mime": "text/html", "status": "200", "length": "1"}
com,a,www)/ 20210101000000 {"url": "http://www.a.com/", "mime": "text/html", "status": "200", "length": "2"}
com,b)/ 20200101000000 {"url": "http://b.com/", "mime": "text/html", "status": "200", "length": "3"}
`
	want, _ := summarize(t, in, nil)
	var out bytes.Buffer
	s := New(&Options{Grouped: true, Out: &out, MaxYear: 2030})
	if err := s.ReadIndex(context.Background(), cdxj.NewStream("x", strings.NewReader(in), nil), false); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, out.String()); d != "" {
		t.Errorf("grouped output differs (-want +got):\n%s", d)
	}
	if len(s.entries) != 0 {
		t.Errorf("grouped summarizer still holds %d keys", len(s.entries))
	}
	if err := New(&Options{Grouped: true}).Flush(); err != ErrNoOut {
		t.Errorf("Flush without Out = %v, want ErrNoOut", err)
	}
}

func TestLoggerWarnsOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	in := strings.Repeat(`org,example)/ 20200101000000 {"url": "http://example.org/", "status": "404"}`+"\n", 3)
	summarize(t, in, &Options{Logger: log})
	if n := strings.Count(buf.String(), "status not 2xx"); n != 1 {
		t.Errorf("logged %d warnings, want 1:\n%s", n, buf.String())
	}
	// The message speaks of the captures, not of Go fields.
	if want := `msg="summary: capture not counted: status not 2xx or unknown (first occurrence; the others are counted, not logged)"`; !strings.Contains(buf.String(), want) {
		t.Errorf("log %q, want %s", buf.String(), want)
	}
}
