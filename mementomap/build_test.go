package mementomap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/sampledata"
)

var fixedNow = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func buildString(t *testing.T, o BuildOptions, idx ...string) (string, BuildStats) {
	t.Helper()
	var ins []cdxj.Searcher
	for i, s := range idx {
		ins = append(ins, cdxj.NewStream(fmt.Sprintf("in%d", i), strings.NewReader(s), nil))
	}
	if o.Now == nil {
		o.Now = fixedNow
	}
	var out bytes.Buffer
	st, err := Build(context.Background(), &out, ins, &o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return out.String(), st
}

func dataLines(m string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(m, "\n") {
		if l != "" && l[0] != '!' {
			b.WriteString(l)
		}
	}
	return b.String()
}

const cdxjSmall = `com,example)/ 20200101000000 {"url": "http://example.com/", "mime": "text/html", "status": "200"}
com,example)/ 20200102000000 {"url": "https://example.com/", "mime": "text/html", "status": "200"}
com,example)/a/b 20200101000000 {"url": "http://example.com/a/b", "mime": "image/png", "status": "200"}
com,example)/a?x=1 20200101000000 {"url": "http://example.com/a?x=1", "mime": "text/html", "status": "200"}
com,example)/a?y=2 20200101000000 {"url": "http://example.com/a?y=2", "mime": "warc/revisit", "status": "-"}
com,example)/robots.txt 20200101000000 {"url": "http://example.com/robots.txt", "mime": "text/plain", "status": "200"}
com,example)/z 20200101000000 {"url": "http://example.com/z", "mime": "text/html", "status": "404"}
`

func TestBuildHeaders(t *testing.T) {
	got, _ := buildString(t, BuildOptions{ArchiveID: "https://archive.example/", Name: "test"}, "")
	want := `!context ["https://oduwsdl.github.io/contexts/ukvs"]
!id {"uri":"https://archive.example/"}
!fields {"keys": ["surt"], "values": ["frequency"]}
!meta {"name":"test","type":"MementoMap","updated_at":"2026-01-02T03:04:05Z"}
`
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("headers (-want +got):\n%s", d)
	}
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name string
		o    BuildOptions
		in   []string
		want string
	}{
		{
			// "com,example)/a?x=1" sorts after "com,example)/a/b" in the
			// index, but its HxPx key "com,example)/a" sorts before: the
			// reference writes it out of order (never re-sorted).
			name: "query cut and re-sorted",
			in:   []string{cdxjSmall},
			want: lines("com,example)/ 2/1", "com,example)/a 2/2", "com,example)/a/b 1/1", "com,example)/robots.txt 1/1", "com,example)/z 1/1"),
		},
		{
			name: "paper baseline filters",
			o:    BuildOptions{StatusClasses: []int{2}, MIMETypes: []string{"text/html"}},
			in:   []string{cdxjSmall},
			want: lines("com,example)/ 2/1", "com,example)/a 1/1"),
		},
		{
			name: "exclude revisits and robots",
			o:    BuildOptions{ExcludeRevisits: true, ExcludeRobots: true},
			in:   []string{cdxjSmall},
			want: lines("com,example)/ 2/1", "com,example)/a 1/1", "com,example)/a/b 1/1", "com,example)/z 1/1"),
		},
		{
			name: "MIME wildcard",
			o:    BuildOptions{MIMETypes: []string{"image/*"}},
			in:   []string{cdxjSmall},
			want: lines("com,example)/a/b 1/1"),
		},
		{
			name: "unsorted inputs, several files",
			in: []string{
				"org,b)/ 20200101000000 {\"url\": \"http://b.org/\"}\ncom,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\n",
				"com,a)/ 20210101000000 {\"url\": \"http://a.com/\"}\nnet,c)/x 20200101000000 {\"url\": \"http://c.net/x\"}\n",
			},
			want: lines("com,a)/ 2/1", "net,c)/x 1/1", "org,b)/ 1/1"),
		},
		{
			name: "non-HTTP pseudo-URIs left out",
			in: []string{"- 20200101000000 {\"url\": \"warcinfo:/x.warc.gz\", \"mime\": \"application/warc-fields\"}\n" +
				"com,a)/ 20200101000000 {\"url\": \"ftp://a.com/\"}\n" +
				"dns:a.com 20200101000000 {\"url\": \"dns:a.com\"}\n" +
				"com,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\n"},
			want: lines("com,a)/ 1/1"),
		},
		{
			name: "URL-keyed CDX is canonicalized",
			in:   []string{" CDX a b m s k r M S V g\nhttp://www.Example.com/A?b=1&a=2 20200101000000 text/html 200 X - - 10 0 f.warc.gz\n"},
			want: lines("com,example)/a 1/1"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := buildString(t, tt.o, tt.in...)
			if d := cmp.Diff(tt.want, dataLines(got)); d != "" {
				t.Errorf("Build (-want +got):\n%s", d)
			}
		})
	}
}

func TestBuildSpillsAndMerges(t *testing.T) {
	// A tiny memory limit forces many runs; the result must equal the
	// in-memory build.
	var b strings.Builder
	for i := range 3000 {
		h := (i * 7919) % 500
		fmt.Fprintf(&b, "com,h%03d)/p%d?q=%d 20200101000000 {\"url\": \"http://h%03d.com/p%d?q=%d\"}\n", h, i%3, i%5, h, i%3, i%5)
	}
	in := b.String()
	want, st1 := buildString(t, BuildOptions{}, in)
	got, st2 := buildString(t, BuildOptions{MemoryLimit: 4096, TempDir: t.TempDir()}, in)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("spilled build differs (-mem +spill):\n%s", d)
	}
	if st1.Runs != 0 || st2.Runs < 5 {
		t.Errorf("runs = %d and %d, want 0 and many", st1.Runs, st2.Runs)
	}
	if st2.Used != 3000 {
		t.Errorf("Used = %d, want 3000", st2.Used)
	}
}

func TestBuildKeyCheckAndRekey(t *testing.T) {
	// Keys made by another canonicalizer (here: "www." kept, upper case).
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "com,example,www)/Page%03d 20200101000000 {\"url\": \"http://www.example.com/Page%03d\"}\n", i, i)
	}
	plain, st := buildString(t, BuildOptions{}, b.String())
	if !strings.HasPrefix(dataLines(plain), "com,example)/page000 1/1\n") {
		t.Errorf("map without Rekey starts %q, not with the canonical key", dataLines(plain)[:40])
	}
	if st.Checked != 500 || st.Mismatched != 500 || len(st.MismatchExamples) != 5 {
		t.Errorf("check: %d checked, %d mismatched, %d examples; want 500, 500, 5", st.Checked, st.Mismatched, len(st.MismatchExamples))
	}
	got, _ := buildString(t, BuildOptions{Rekey: true}, b.String())
	if !strings.HasPrefix(dataLines(got), "com,example)/page000 1/1\n") {
		t.Errorf("rekeyed map starts %q", dataLines(got)[:40])
	}
}

func TestBuildRealIndexes(t *testing.T) {
	for _, name := range sampledata.IndexFiles() {
		t.Run(name, func(t *testing.T) {
			data, err := sampledata.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			st, err := Build(context.Background(), &out, []cdxj.Searcher{cdxj.NewStream(name, bytes.NewReader(data), nil)}, &BuildOptions{SkipBad: true, Now: fixedNow})
			if err != nil {
				t.Fatal(err)
			}
			if st.Records == 0 {
				t.Fatalf("no records read")
			}
			if st.Used+st.Filtered+st.NonHTTP+st.Bad != st.Records {
				t.Errorf("records %d != used %d + filtered %d + non-HTTP %d + bad %d", st.Records, st.Used, st.Filtered, st.NonHTTP, st.Bad)
			}
			// The map is valid and sorted: compaction with infinite
			// weights checks order and copies it.
			if _, err := Compact(&bytes.Buffer{}, bytes.NewReader(out.Bytes()), opts(1e308, 1e308, false)); err != nil {
				t.Errorf("built map does not compact: %v", err)
			}
		})
	}
}

func TestBuildOpenWayback(t *testing.T) {
	// 2144 captures of one URI-R in several spellings (http, :80, www.),
	// all keyed "org,archive)/" (expected/openwayback_archive-org.expect.json).
	data, err := sampledata.ReadFile("real/openwayback_archive-org.cdx")
	if err != nil {
		t.Fatal(err)
	}
	got, st := buildString(t, BuildOptions{}, string(data))
	if d := cmp.Diff(lines("org,archive)/ 2144/1"), dataLines(got)); d != "" {
		t.Errorf("map (-want +got):\n%s (stats %+v)", d, st)
	}
}

func TestBuildCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var b strings.Builder
	for i := range 70000 {
		fmt.Fprintf(&b, "com,h%d)/ 20200101000000 {\"url\": \"http://h%d.com/\"}\n", i, i)
	}
	_, err := Build(ctx, &bytes.Buffer{}, []cdxj.Searcher{cdxj.NewStream("x", strings.NewReader(b.String()), nil)}, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestBuildBadLine(t *testing.T) {
	in := "com,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\ncom,b)/ 2020130100 {\"url\": \"http://b.com/\"}\n"
	_, err := Build(context.Background(), &bytes.Buffer{}, []cdxj.Searcher{cdxj.NewStream("bad.cdxj", strings.NewReader(in), nil)}, nil)
	if err == nil || !strings.Contains(err.Error(), "bad.cdxj") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v, want it to name bad.cdxj line 2", err)
	}
	_, st := buildString(t, BuildOptions{SkipBad: true}, in)
	if st.Bad != 1 || st.Used != 1 {
		t.Errorf("SkipBad: bad %d used %d, want 1 and 1", st.Bad, st.Used)
	}
}

// TestBuildMalformedJSON: a CDXJ line whose JSON block is malformed after
// the url member is a bad line: it stops the build naming its line and
// column, and under SkipBad it is counted, recorded in !meta and left out
// of the map; the Keyer refuses it too.
func TestBuildMalformedJSON(t *testing.T) {
	in := "com,a)/ 20200101000000 {\"url\": \"http://a.com/\"}\n" +
		"com,b)/ 20200101000000 {\"url\": \"http://b.com/\", \"mime\": \"text/html\n" +
		"com,c)/ 20200101000000 {\"url\": \"http://c.com/\"}\n"
	_, err := Build(context.Background(), &bytes.Buffer{}, []cdxj.Searcher{cdxj.NewStream("bad.cdxj", strings.NewReader(in), nil)}, nil)
	var pe *cdxj.ParseError
	if !errors.Is(err, cdxj.ErrJSON) || !errors.As(err, &pe) || pe.Source != "bad.cdxj" || pe.Line != 2 || pe.Column == 0 {
		t.Fatalf("err = %v, want a cdxj.ErrJSON ParseError at bad.cdxj line 2 with its column", err)
	}
	got, st := buildString(t, BuildOptions{SkipBad: true}, in)
	if st.Records != 3 || st.Bad != 1 || st.Used != 2 || len(st.BadExamples) != 1 || !strings.Contains(st.BadExamples[0], "line 2") {
		t.Errorf("SkipBad: records %d bad %d used %d examples %q, want 3, 1, 2 and one naming line 2", st.Records, st.Bad, st.Used, st.BadExamples)
	}
	if d := cmp.Diff("com,a)/ 1/1\ncom,c)/ 1/1\n", dataLines(got)); d != "" {
		t.Errorf("SkipBad map (-want +got):\n%s", d)
	}
	if !strings.Contains(got, `"skipped_lines":1`) {
		t.Errorf("!meta does not record the skipped line:\n%s", got)
	}
	rec, err := cdxj.ParseLine([]byte(strings.Split(in, "\n")[1]), nil)
	if err != nil {
		t.Fatal(err)
	}
	if hx, _, err := NewKeyer(nil).Key(rec); !errors.Is(err, cdxj.ErrJSON) || hx != nil {
		t.Errorf("Keyer.Key = %q, %v; want no key and cdxj.ErrJSON", hx, err)
	}
}

// TestBuildRefusesKeyTooLong: an index key too long for a map line (read
// from an index opened with a larger line limit) is refused with the input
// and line, not written into a map that every reader would refuse; a key
// that fits is written.
func TestBuildRefusesKeyTooLong(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int // key length
		ok   bool
	}{{"too long", MaxLineLength - 3, false}, {"just fits", MaxLineLength - 4, true}} {
		t.Run(tc.name, func(t *testing.T) {
			key := "com,b)/" + strings.Repeat("x", tc.n-len("com,b)/"))
			in := "com,a)/ 20200101000000 {}\n" + key + " 2020 {}\n"
			var out bytes.Buffer
			_, err := Build(context.Background(), &out, []cdxj.Searcher{cdxj.NewStream("long.cdxj", strings.NewReader(in), &cdxj.OpenOptions{MaxLineSize: 2 * MaxLineLength})}, nil)
			if !tc.ok {
				if !errors.Is(err, ErrLineTooLong) || !strings.Contains(err.Error(), "long.cdxj") || !strings.Contains(err.Error(), "line 2") {
					t.Fatalf("err = %v, want ErrLineTooLong naming long.cdxj line 2", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bytes.SplitAfter(out.Bytes(), []byte("\n")) {
				if bodyLen(l) > MaxLineLength {
					t.Errorf("a map line of %d bytes was written", bodyLen(l))
				}
			}
			if !bytes.Contains(out.Bytes(), []byte("xxx 1/1\n")) {
				t.Error("the key that fits is not in the map")
			}
		})
	}
}
