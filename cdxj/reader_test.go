package cdxj

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/timestamp"
)

// summary is what a test compares of a Record.
type summary struct {
	Line      int64
	Key, TS   string
	Time      time.Time
	URL, MIME string
	Status    int
	Digest    string
	Length    int64 // -1: unknown
	Offset    int64 // -1: unknown
	Filename  string
	Revisit   bool
	KeySURT   bool
	CDXJ      bool
}

func summarize(r *Record) summary {
	l, ok := r.Length()
	if !ok {
		l = -1
	}
	o, ok := r.Offset()
	if !ok {
		o = -1
	}
	return summary{
		Line: r.LineNumber(), Key: string(r.Key()), TS: string(r.Timestamp()), Time: r.Time(),
		URL: string(r.URL()), MIME: string(r.MIME()), Status: r.Status(), Digest: string(r.Digest()),
		Length: l, Offset: o, Filename: string(r.Filename()), Revisit: r.IsRevisit(),
		KeySURT: r.KeyIsSURT(), CDXJ: r.IsCDXJ(),
	}
}

// badLine is what a test compares of a *ParseError.
type badLine struct {
	Line  int64
	Cause error
}

func causeOf(err error) error {
	for _, s := range []error{ErrLineTooLong, ErrFieldCount, timestamp.ErrInvalid, ErrJSON, ErrHeader} {
		if errors.Is(err, s) {
			return s
		}
	}
	return err
}

// readAll reads everything, collecting records and bad lines; it fails the
// test on any error that is not a *ParseError.
func readAll(t *testing.T, r *Reader) ([]summary, []badLine) {
	t.Helper()
	var recs []summary
	var bad []badLine
	for rec, err := range r.All() {
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Read: %v", err)
			}
			if !strings.Contains(pe.Error(), "line ") {
				t.Errorf("error %q does not name its line", pe)
			}
			bad = append(bad, badLine{pe.Line, causeOf(err)})
			continue
		}
		recs = append(recs, summarize(rec))
	}
	return recs, bad
}

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// publicCase returns the input column of a row of cases/public_cases.tsv,
// with its "\n" escapes turned into line breaks.
func publicCase(t *testing.T, id string) string {
	t.Helper()
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if len(f) >= 3 && f[0] == id {
			return strings.ReplaceAll(f[2], `\n`, "\n") + "\n"
		}
	}
	t.Fatalf("no case %s", id)
	return ""
}

func TestReader(t *testing.T) {
	const cdx11 = "org,example)/ 20140401000000 http://example.org/ text/html 200 AAAA - - 67 134 a.warc.gz\n"
	tests := []struct {
		name   string
		input  string
		setup  func(*Reader)
		want   []summary
		bad    []badLine
		header []string
	}{
		{
			name:  "cdxj",
			input: `com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:G7HR", "length": "1242", "offset": "784", "filename": "example.warc.gz"}` + "\n",
			want: []summary{{Line: 1, Key: "com,example)/", TS: "20170306040206", Time: ts("2017-03-06T04:02:06Z"), URL: "http://example.com/",
				MIME: "text/html", Status: 200, Digest: "sha1:G7HR", Length: 1242, Offset: 784, Filename: "example.warc.gz", KeySURT: true, CDXJ: true}},
		},
		{
			name:  "cdxj compact JSON, numbers, escapes, CRLF, no final newline",
			input: "!meta {\"x\":1}\r\n\r\ncom,example)/a 20170306040206 {\"url\":\"http://example.com/a?b=1\\u0026c=\\\"2\\\"\",\"mime\":\"text/html\",\"status\":301,\"length\":12,\"offset\":0}\r\n",
			want: []summary{{Line: 3, Key: "com,example)/a", TS: "20170306040206", Time: ts("2017-03-06T04:02:06Z"), URL: `http://example.com/a?b=1&c="2"`,
				MIME: "text/html", Status: 301, Length: 12, Offset: 0, KeySURT: true, CDXJ: true}},
			header: []string{`!meta {"x":1}`},
		},
		{
			name: "cdxj with a run of spaces after the key: the spaces separate, they are not part of the key",
			input: "com,example)/  20170306040206 {\"url\": \"http://example.com/\"}\n" + "com,example)/a b   20170306040207  {\"url\": \"http://example.com/a b\"}\n" +
				// 10 space-separated fields: not to be taken for a 10-field CDX line
				"com,example)/c  20170306040208  {\"url\": \"http://example.com/c\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"5\"}\n",
			want: []summary{
				{Line: 1, Key: "com,example)/", TS: "20170306040206", Time: ts("2017-03-06T04:02:06Z"), URL: "http://example.com/", Length: -1, Offset: -1, KeySURT: true, CDXJ: true},
				{Line: 2, Key: "com,example)/a b", TS: "20170306040207", Time: ts("2017-03-06T04:02:07Z"), URL: "http://example.com/a b", Length: -1, Offset: -1, KeySURT: true, CDXJ: true},
				{Line: 3, Key: "com,example)/c", TS: "20170306040208", Time: ts("2017-03-06T04:02:08Z"), URL: "http://example.com/c", MIME: "text/html", Status: 200, Length: 5, Offset: -1, KeySURT: true, CDXJ: true},
			},
		},
		{
			name: "CDXJ lines after a CDX legend (a CDX and a CDXJ file concatenated)",
			input: " CDX N b a m s k r M S V g\n" + cdx11 +
				// 11 space-separated fields, as many as the legend's columns
				"com,example)/c 20170306040208 {\"url\": \"http://example.com/c\", \"mime\": \"text/html\", \"status\": \"200\", \"length\": \"5\"}\n" +
				"com,example)/d 20170306040209 {\"url\": \"http://example.com/d\"}  \n",
			want: []summary{
				{Line: 2, Key: "org,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.org/",
					MIME: "text/html", Status: 200, Digest: "AAAA", Length: 67, Offset: 134, Filename: "a.warc.gz", KeySURT: true},
				{Line: 3, Key: "com,example)/c", TS: "20170306040208", Time: ts("2017-03-06T04:02:08Z"), URL: "http://example.com/c", MIME: "text/html", Status: 200, Length: 5, Offset: -1, KeySURT: true, CDXJ: true},
				{Line: 4, Key: "com,example)/d", TS: "20170306040209", Time: ts("2017-03-06T04:02:09Z"), URL: "http://example.com/d", Length: -1, Offset: -1, KeySURT: true, CDXJ: true},
			},
			header: []string{" CDX N b a m s k r M S V g"},
		},
		{
			name:  "classic CDX without header, 11 fields",
			input: cdx11,
			want: []summary{{Line: 1, Key: "org,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.org/",
				MIME: "text/html", Status: 200, Digest: "AAAA", Length: 67, Offset: 134, Filename: "a.warc.gz", KeySURT: true}},
		},
		{
			name: "headerless 7, 9, 10 and 14 fields",
			input: "com,example)/ 2002 http://example.com:80/ text/html 200 HT2D 1792\n" +
				"com,example)/ 200201 http://example.com/ text/html 200 HT2D - 784 a.warc.gz\n" +
				"com,example)/ 20020120 http://example.com/ text/html 200 HT2D - - 785 b.warc.gz\n" +
				"com,example)/ 2002012014 http://example.com/ warc/revisit - HT2D - - 10 786 c.warc.gz 1792 0 d.warc.gz\n",
			want: []summary{
				{Line: 1, Key: "com,example)/", TS: "2002", Time: ts("2002-01-01T00:00:00Z"), URL: "http://example.com:80/", MIME: "text/html", Status: 200, Digest: "HT2D", Length: 1792, Offset: -1, KeySURT: true},
				{Line: 2, Key: "com,example)/", TS: "200201", Time: ts("2002-01-01T00:00:00Z"), URL: "http://example.com/", MIME: "text/html", Status: 200, Digest: "HT2D", Length: -1, Offset: 784, Filename: "a.warc.gz", KeySURT: true},
				{Line: 3, Key: "com,example)/", TS: "20020120", Time: ts("2002-01-20T00:00:00Z"), URL: "http://example.com/", MIME: "text/html", Status: 200, Digest: "HT2D", Length: -1, Offset: 785, Filename: "b.warc.gz", KeySURT: true},
				{Line: 4, Key: "com,example)/", TS: "2002012014", Time: ts("2002-01-20T14:00:00Z"), URL: "http://example.com/", MIME: "warc/revisit", Digest: "HT2D", Length: 10, Offset: 786, Filename: "c.warc.gz", Revisit: true, KeySURT: true},
			},
		},
		{
			name:  "header without leading space sets the layout",
			input: "CDX N b a m s k r V g\ncom,example)/ 20170306040206 http://example.com/ text/html 200 G7HR - 784 example.warc.gz\n",
			want: []summary{{Line: 2, Key: "com,example)/", TS: "20170306040206", Time: ts("2017-03-06T04:02:06Z"), URL: "http://example.com/",
				MIME: "text/html", Status: 200, Digest: "G7HR", Length: -1, Offset: 784, Filename: "example.warc.gz", KeySURT: true}},
			header: []string{"CDX N b a m s k r V g"},
		},
		{
			name:  "wget layout keys by original URL",
			input: " CDX a b a m s k r M V g u\nhttp://example.com/ 20240101120000 http://example.com/ text/html 200 XYZ - - 0 x.warc.gz <urn:uuid:1>\n",
			want: []summary{{Line: 2, Key: "http://example.com/", TS: "20240101120000", Time: ts("2024-01-01T12:00:00Z"), URL: "http://example.com/",
				MIME: "text/html", Status: 200, Digest: "XYZ", Length: -1, Offset: 0, Filename: "x.warc.gz"}},
			header: []string{" CDX a b a m s k r M V g u"},
		},
		{
			name: "MIME type with a space, with and without header",
			input: "com,example)/ 20140401000000 http://example.com/ text/plain; charset=utf-8 200 AAAA - - 67 134 a.warc.gz\n" +
				" CDX N b a m s k r V g\ncom,example)/ 20140401000000 http://example.com/ text/html ;charset=utf-8 200 AAAA - 134 a.warc.gz\n",
			want: []summary{
				{Line: 1, Key: "com,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.com/", MIME: "text/plain; charset=utf-8", Status: 200, Digest: "AAAA", Length: 67, Offset: 134, Filename: "a.warc.gz", KeySURT: true},
				{Line: 3, Key: "com,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.com/", MIME: "text/html ;charset=utf-8", Status: 200, Digest: "AAAA", Length: -1, Offset: 134, Filename: "a.warc.gz", KeySURT: true},
			},
			header: []string{" CDX N b a m s k r V g"},
		},
		{
			name:  "Layout setting for a headerless file",
			input: "com,example)/ 20140401000000 http://example.com/ text/html 200 AAAA 99\n",
			setup: func(r *Reader) { r.Layout = mustLayout("CDX N b a m s k n") },
			want: []summary{{Line: 1, Key: "com,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.com/",
				MIME: "text/html", Status: 200, Digest: "AAAA", Length: 99, Offset: -1, KeySURT: true}},
		},
		{
			name:  "bad lines are reported and reading goes on",
			input: "com,example)/ 20140401000000 a b c d e f\n" + "com,example)/ 20141301000000 {}\n" + "lonely\n" + " CDX\n" + cdx11 + "x 2014 {\"a\": 1}\n" + "x notatime {}\n",
			want: []summary{
				{Line: 5, Key: "org,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.org/", MIME: "text/html", Status: 200, Digest: "AAAA", Length: 67, Offset: 134, Filename: "a.warc.gz", KeySURT: true},
				{Line: 6, Key: "x", TS: "2014", Time: ts("2014-01-01T00:00:00Z"), Length: -1, Offset: -1, CDXJ: true},
			},
			bad: []badLine{{1, ErrFieldCount}, {2, timestamp.ErrInvalid}, {3, ErrFieldCount}, {4, ErrHeader}, {7, timestamp.ErrInvalid}},
		},
		{
			name:  "SkipBad counts instead",
			input: "a b\n" + cdx11 + "x 20141301000000 {}\n",
			setup: func(r *Reader) { r.SkipBad = true },
			want: []summary{
				{Line: 2, Key: "org,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.org/", MIME: "text/html", Status: 200, Digest: "AAAA", Length: 67, Offset: 134, Filename: "a.warc.gz", KeySURT: true},
			},
		},
		{
			name:  "line over MaxLineSize is an error, the next line reads",
			input: "com,example)/ 20140401000000 {\"url\": \"" + strings.Repeat("x", 300) + "\"}\n" + cdx11 + strings.Repeat("y", 300),
			setup: func(r *Reader) { r.MaxLineSize = 200 },
			want: []summary{
				{Line: 2, Key: "org,example)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), URL: "http://example.org/", MIME: "text/html", Status: 200, Digest: "AAAA", Length: 67, Offset: 134, Filename: "a.warc.gz", KeySURT: true},
			},
			bad: []badLine{{1, ErrLineTooLong}, {3, ErrLineTooLong}},
		},
		{
			name:  "CDX-01 URL with a space, error text, good lines around",
			input: publicCase(t, "CDX-01"),
			want: []summary{
				{Line: 1, Key: "org,example)/a", TS: "20150302104601", Time: ts("2015-03-02T10:46:01Z"), URL: "http://example.org/a", MIME: "text/html", Status: 200, Digest: "AAAA", Length: 10, Offset: 0, Filename: "rec-example.warc.gz", KeySURT: true, CDXJ: true},
				{Line: 2, Key: "file:///ABCD-1234/source/Signal VIP.jpg", TS: "20150302104602", Time: ts("2015-03-02T10:46:02Z"), URL: "file:///ABCD-1234/source/Signal VIP.jpg", MIME: "image/jpeg", Digest: "N3OHGGHEBEJUMNUQRQXGGVCAS5IGPZ2D", Length: 3352, Offset: 2997372, Filename: "rec-example.warc.gz", CDXJ: true},
				{Line: 4, Key: "org,example)/b", TS: "20150302104603", Time: ts("2015-03-02T10:46:03Z"), URL: "http://example.org/b", MIME: "text/html", Status: 200, Digest: "BBBB", Length: 11, Offset: 10, Filename: "rec-example.warc.gz", KeySURT: true, CDXJ: true},
			},
			bad: []badLine{{3, timestamp.ErrInvalid}},
		},
		{
			name:  "CDX-03a revisit with status =",
			input: publicCase(t, "CDX-03a"),
			want: []summary{{Line: 1, Key: "org,example)/images/off.gif", TS: "20170926143801", Time: ts("2017-09-26T14:38:01Z"), URL: "https://example.org/images/off.gif",
				MIME: "warc/revisit", Digest: "BBPXBYN55CPDZMX3VEURJJT5M74TZCG4", Length: 651, Offset: 250168698, Filename: "example-20170926.warc.gz", Revisit: true, KeySURT: true}},
		},
		{
			name:  "CDX-03b revisit with status 0",
			input: publicCase(t, "CDX-03b"),
			want: []summary{{Line: 1, Key: "org,example)/css/s.css", TS: "20190829224752", Time: ts("2019-08-29T22:47:52Z"), URL: "https://example.org/css/S.css",
				MIME: "warc/revisit", Digest: "HXYLQDAFKQIJ6URMQI5MSSHOKGX7MYRJ", Length: 0, Offset: 1005125301, Filename: "example.warc.gz", Revisit: true, KeySURT: true}},
		},
		{
			name:  "CDX-03c status html>",
			input: publicCase(t, "CDX-03c"),
			want: []summary{{Line: 1, Key: "org,example)/mg?id=3246", TS: "20180614210133", Time: ts("2018-06-14T21:01:33Z"), URL: "https://example.org/mg?ID=3246",
				Digest: "VSNDFFRW22AHHOIFLZDLLMITL3O2JTGO", Length: 2479, Offset: 598530890, Filename: "example.warc.gz", KeySURT: true}},
		},
		{
			name:  "CDX-04a 12 digits, CDX-04c 17 digits, CDX-04d month 18",
			input: "com,example)/ 200101011200 {}\ncom,example)/ 20230426095158263 {}\ncom,example)/ 201018122054100 {}\n",
			want: []summary{
				{Line: 1, Key: "com,example)/", TS: "200101011200", Time: ts("2001-01-01T12:00:00Z"), Length: -1, Offset: -1, KeySURT: true, CDXJ: true},
				{Line: 2, Key: "com,example)/", TS: "20230426095158263", Time: ts("2023-04-26T09:51:58.263Z"), Length: -1, Offset: -1, KeySURT: true, CDXJ: true},
			},
			bad: []badLine{{3, timestamp.ErrInvalid}},
		},
		{
			name:  "ORS TimeMap line needs a datetime key",
			input: "20130202100000 {\"uri\": \"u\"}\ncom,example)/ {\"uri\": \"u\"}\n",
			want:  []summary{{Line: 1, Key: "20130202100000", TS: "20130202100000", Time: ts("2013-02-02T10:00:00Z"), Length: -1, Offset: -1, CDXJ: true}},
			bad:   []badLine{{2, timestamp.ErrInvalid}},
		},
		{
			name:  "IA full SURT key",
			input: "http://(org,example,)/ 20140401000000 {}\n",
			want:  []summary{{Line: 1, Key: "http://(org,example,)/", TS: "20140401000000", Time: ts("2014-04-01T00:00:00Z"), Length: -1, Offset: -1, KeySURT: true, CDXJ: true}},
		},
	}
	for _, tt := range tests {
		for _, reuse := range []bool{false, true} {
			name := tt.name
			if reuse {
				name += "/reuse"
			}
			t.Run(name, func(t *testing.T) {
				r := NewReader(strings.NewReader(tt.input))
				r.ReuseRecord = reuse
				if tt.setup != nil {
					tt.setup(r)
				}
				got, bad := readAll(t, r)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("records (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.bad, bad, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
					t.Errorf("bad lines (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.header, r.Header()); diff != "" {
					t.Errorf("headers (-want +got):\n%s", diff)
				}
				if r.SkipBad && r.Skipped() == 0 {
					t.Errorf("Skipped() = 0 with SkipBad on bad input")
				}
			})
		}
	}
}

// TestNonReusedRecordsSurvive: without ReuseRecord, a record stays valid
// after later reads; with it, Clone keeps a copy.
func TestNonReusedRecordsSurvive(t *testing.T) {
	input := readSample(t, "cc_commoncrawl-org_from-cdxapi.cdxj")
	var want []summary
	r := NewReader(bytes.NewReader(input))
	var kept []*Record
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, rec)
	}
	r = NewReader(bytes.NewReader(input))
	r.ReuseRecord = true
	var clones []*Record
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, summarize(rec))
		clones = append(clones, rec.Clone())
	}
	var got, gotClones []summary
	for i := range kept {
		got = append(got, summarize(kept[i]))
		gotClones = append(gotClones, summarize(clones[i]))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kept records (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, gotClones); diff != "" {
		t.Errorf("clones (-want +got):\n%s", diff)
	}
}

// TestReaderIOTest reads every shipped file through iotest.OneByteReader,
// iotest.DataErrReader and iotest.HalfReader and expects the records of a
// plain read.
func TestReaderIOTest(t *testing.T) {
	wrappers := []struct {
		name string
		wrap func(io.Reader) io.Reader
	}{
		{"OneByteReader", iotest.OneByteReader},
		{"DataErrReader", iotest.DataErrReader},
		{"HalfReader", iotest.HalfReader},
		{"OneByte+DataErr", func(r io.Reader) io.Reader { return iotest.DataErrReader(iotest.OneByteReader(r)) }},
	}
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := readAll(t, NewReader(bytes.NewReader(b)))
		for _, w := range wrappers {
			t.Run(name+"/"+w.name, func(t *testing.T) {
				r := NewReader(w.wrap(bytes.NewReader(b)))
				r.ReuseRecord = true
				got, bad := readAll(t, r)
				if len(bad) != 0 {
					t.Errorf("bad lines %v", bad)
				}
				if diff := cmp.Diff(base, got); diff != "" {
					t.Errorf("(-plain +wrapped):\n%s", diff)
				}
			})
		}
	}
}

// TestReaderIOError: an error of the underlying reader ends the input, is
// returned after the complete lines before it, and stays.
func TestReaderIOError(t *testing.T) {
	boom := errors.New("boom")
	in := io.MultiReader(strings.NewReader("com,a)/ 2014 {}\ncom,b)/ 20"), iotest.ErrReader(boom))
	r := NewReader(iotest.OneByteReader(in))
	rec, err := r.Read()
	if err != nil || string(rec.Key()) != "com,a)/" {
		t.Fatalf("first Read = %v, %v", rec, err)
	}
	for range 2 {
		if _, err := r.Read(); err != boom {
			t.Fatalf("Read error = %v, want %v", err, boom)
		}
	}
	n := 0
	for _, err := range NewReader(io.MultiReader(strings.NewReader("com,a)/ 2014 {}\n"), iotest.ErrReader(boom))).All() {
		n++
		if n == 2 && err != boom {
			t.Errorf("All: second element error %v, want %v", err, boom)
		}
	}
	if n != 2 {
		t.Errorf("All yielded %d elements, want 2 (a record, then the error)", n)
	}
}

// TestLongLines: lines over 64 KiB (bufio.Scanner's default) read; a line
// over the maximum is reported with its number and does not stop reading.
func TestLongLines(t *testing.T) {
	long := "com,example)/post?__wb_method=post&data=" + strings.Repeat("A", 200<<10)
	var in strings.Builder
	in.WriteString(long + " 20200101000000 {\"url\": \"http://example.com/post\"}\n")
	in.WriteString("com,example)/ 20200101000000 {\"pad\": \"" + strings.Repeat("B", 600<<10) + "\"}\n")
	in.WriteString("com,example)/z 20200101000000 {}\n")
	for _, tc := range []struct {
		name    string
		max     int
		records int
		bad     []badLine
	}{
		{"default maximum", 0, 3, nil},
		{"maximum 512 KiB", 512 << 10, 2, []badLine{{2, ErrLineTooLong}}},
		{"maximum 100 KiB", 100 << 10, 1, []badLine{{1, ErrLineTooLong}, {2, ErrLineTooLong}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(iotest.HalfReader(strings.NewReader(in.String())))
			r.MaxLineSize = tc.max
			recs, bad := readAll(t, r)
			if len(recs) != tc.records {
				t.Errorf("%d records, want %d", len(recs), tc.records)
			}
			if diff := cmp.Diff(tc.bad, bad, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
				t.Errorf("bad lines (-want +got):\n%s", diff)
			}
			if recs[len(recs)-1].Key != "com,example)/z" {
				t.Errorf("last record %q, want the line after the long ones", recs[len(recs)-1].Key)
			}
			if tc.max == 0 && recs[0].Key != long {
				t.Errorf("long key lost: %d bytes", len(recs[0].Key))
			}
		})
	}
}

// TestInputOffset: each record knows where its line starts.
func TestInputOffset(t *testing.T) {
	input := "!meta {}\ncom,a)/ 2014 {}\n\ncom,b)/ 2015 {}\n"
	r := NewReader(strings.NewReader(input))
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		off := rec.InputOffset()
		if !strings.HasPrefix(input[off:], string(rec.Line())+"\n") {
			t.Errorf("line %d at offset %d: input there is %q", rec.LineNumber(), off, input[off:])
		}
	}
	if r.InputOffset() != int64(len(input)) {
		t.Errorf("InputOffset at end = %d, want %d", r.InputOffset(), len(input))
	}
}

// TestReadZeroAllocs: with ReuseRecord, reading a line and taking its key,
// timestamp, MIME type, status and length allocates nothing once warm.
func TestReadZeroAllocs(t *testing.T) {
	for name, data := range map[string][]byte{
		"cdxj":  benchLines(200),
		"cdx11": readSample(t, "openwayback_archive-org.cdx"),
	} {
		t.Run(name, func(t *testing.T) {
			r := NewReader(&cycle{data: data})
			r.ReuseRecord = true
			read := func() {
				rec, err := r.Read()
				if err != nil {
					t.Fatal(err)
				}
				_, _ = rec.Length()
				_, _ = rec.Key(), rec.Timestamp()
				_, _ = rec.MIME(), rec.Status()
			}
			for range 1000 {
				read() // warm up: buffer and JSON index reach their size
			}
			if n := testing.AllocsPerRun(2000, read); n != 0 {
				t.Errorf("%v allocations per line, want 0", n)
			}
		})
	}
}

// TestSkipBadLogs: under SkipBad the Logger gets one Warn per skipped line.
func TestSkipBadLogs(t *testing.T) {
	var logs bytes.Buffer
	r := NewReader(strings.NewReader("bad\ncom,a)/ 2014 {}\nx 2014023 {}\n"))
	r.SkipBad = true
	r.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	n := 0
	for _, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 1 || r.Skipped() != 2 {
		t.Errorf("%d records, %d skipped; want 1 and 2", n, r.Skipped())
	}
	if got := strings.Count(logs.String(), "level=WARN"); got != 2 || !strings.Contains(logs.String(), "line=3") {
		t.Errorf("log:\n%s\nwant two warnings, one for line 3", logs.String())
	}
}

func TestByteOrderMark(t *testing.T) {
	r := NewReader(strings.NewReader("\xEF\xBB\xBFcom,a)/ 2014 {}\n\xEF\xBB\xBFcom,b)/ 2014 {}\n"))
	var keys []string
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(rec.Key()))
	}
	// Only the mark at the start of the input is dropped.
	if diff := cmp.Diff([]string{"com,a)/", "\xEF\xBB\xBFcom,b)/"}, keys); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestPublicCasesCovered fails when cases/public_cases.tsv gains a cdx row
// that no test here names, so that every row keeps a test.
func TestPublicCasesCovered(t *testing.T) {
	covered := map[string]string{
		"CDX-01":  "TestReader, TestWriter, examples/cdxj TestBadLines",
		"CDX-03a": "TestReader",
		"CDX-03b": "TestReader",
		"CDX-03c": "TestReader",
		"CDX-04a": "TestReader, timestamp TestParse, timestamp TestOrder",
		"CDX-04b": "timestamp TestBounds, timestamp TestInRange",
		"CDX-04c": "TestReader, timestamp TestParse, timestamp TestInRange, timestamp TestOrder",
		"CDX-04d": "TestReader, timestamp TestParse",
	}
	b, err := sampledata.ReadFile("cases/public_cases.tsv")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Split(line, "\t"); len(f) > 1 && f[1] == "cdx" {
			rows = append(rows, f[0])
			if covered[f[0]] == "" {
				t.Errorf("public case %s has no test", f[0])
			}
		}
	}
	if len(rows) != len(covered) {
		t.Errorf("cdx rows %v, tests name %d", rows, len(covered))
	}
}
