package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/timestamp"
)

// sample writes a shipped index file into dir and returns its path.
func sample(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := sampledata.ReadFile("real/" + name)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runCmd(t *testing.T, stdin string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), err
}

// checkCDXJ reads out as CDXJ and returns its keys.
func checkCDXJ(t *testing.T, out string) []string {
	t.Helper()
	r := cdxj.NewReader(strings.NewReader(out))
	var keys []string
	for rec, err := range r.All() {
		if err != nil {
			t.Fatalf("output line: %v", err)
		}
		if !rec.IsCDXJ() {
			t.Fatalf("output line %d is not CDXJ: %s", rec.LineNumber(), rec.Line())
		}
		if err := rec.CheckJSON(); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, string(rec.Key()))
	}
	if len(r.Header()) > 0 {
		t.Errorf("output has header lines %v", r.Header())
	}
	return keys
}

func lines(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name      string
		files     []string
		records   int
		firstLine string
	}{
		{"CDX 11 without header", []string{"openwayback_archive-org.cdx"}, 2144,
			`org,archive)/ 20120101122052 {"url": "http://www.archive.org:80/", "mime": "text/html", "status": "200", "digest": "TT2LXC77TGBKVVBN5P2J3YPT5MOQHIH6", "length": "6655", "offset": "65291135", "filename": "alexa20120102-05/51_25_20120101120954_crawl101.arc.gz"}`},
		{"CDX 7 and 9, CDXJ", []string{"ia_cdxapi_from-json.cdx7", "cdxjindexer_example-warc.cdx9", "cc_commoncrawl-org_from-cdxapi.cdxj"}, 11 + 2 + 34,
			`com,example)/ 20020120142510 {"url": "http://example.com:80/", "mime": "text/html", "status": "200", "digest": "HT2DYGA5UKZCPBSFVCV3JOBXGW2G5UUA", "length": "1792"}`},
		{"ipwb keeps its keys", []string{"ipwb_sample-1.cdxj"}, 65,
			`com,yahoo,search)/mrss/ 20130411205500 {"mime": "text/html", "status": "302", "locator": "urn:ipfs/Qmd7gw1C84eaDqEcuGTQRj5CA2jKkiEE7ZVCa9pfkrruRY/QmVFeyXN7T3265XMwTrn86tbovTHzJJeHnus2HFCwmbaYh"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var args []string
			for _, f := range tt.files {
				args = append(args, sample(t, dir, f))
			}
			out, stderr, err := runCmd(t, "", args...)
			if err != nil {
				t.Fatalf("run: %v (stderr %q)", err, stderr)
			}
			if keys := checkCDXJ(t, out); len(keys) != tt.records {
				t.Errorf("%d records, want %d", len(keys), tt.records)
			}
			if got := lines(out)[0]; got != tt.firstLine {
				t.Errorf("first line:\n got %s\nwant %s", got, tt.firstLine)
			}
		})
	}
}

func TestSURTKeysComputed(t *testing.T) {
	in := " CDX a b a m s k r M V g u\n" +
		"http://Www.Example.com/a?b=2&a=1 20240101120000 http://Www.Example.com/a?b=2&a=1 text/html 200 XYZ - - 0 x.warc.gz u1\n"
	out, _, err := runCmd(t, in) // stdin
	if err != nil {
		t.Fatal(err)
	}
	want := `com,example)/a?a=1&b=2 20240101120000 {"url": "http://Www.Example.com/a?b=2&a=1", "mime": "text/html", "status": "200", "digest": "XYZ", "offset": "0", "filename": "x.warc.gz", "warc_record_id": "u1"}` + "\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWgetRecordIDKept converts the CDX GNU Wget wrote (its legend ends in
// u, the WARC-Record-ID): every record id reaches the output.
func TestWgetRecordIDKept(t *testing.T) {
	in := filepath.Join("..", "..", "cdxj", "testdata", "wget", "wgsample.cdx")
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "-sort", in)
	if err != nil {
		t.Fatal(err)
	}
	checkCDXJ(t, out)
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		f := strings.Fields(l)
		ids = append(ids, f[len(f)-1])
	}
	if len(ids) != 3 {
		t.Fatalf("%d ids in the input", len(ids))
	}
	for _, id := range ids {
		if !strings.Contains(out, `"warc_record_id": "`+id+`"`) {
			t.Errorf("record id %s missing from the output:\n%s", id, out)
		}
	}
}

func TestBadLines(t *testing.T) {
	cdx01 := "org,example)/a 20150302104601 {\"url\":\"http://example.org/a\",\"mime\":\"text/html\"}\n" +
		"file:///ABCD-1234/source/Signal VIP.jpg 20150302104602 {\"url\":\"file:///ABCD-1234/source/Signal VIP.jpg\",\"mime\":\"image/jpeg\"}\n" +
		"<urlopen error [Errno -3] Temporary failure in name resolution>\n" +
		"org,example)/b 20150302104603 {\"url\":\"http://example.org/b\"}\n"
	dir := t.TempDir()
	p := filepath.Join(dir, "cdx01.cdxj")
	if err := os.WriteFile(p, []byte(cdx01), 0o644); err != nil {
		t.Fatal(err)
	}
	timemap := sample(t, dir, "ipwb_5mementos-timemap.cdxj")

	t.Run("stops with file and line", func(t *testing.T) {
		_, _, err := runCmd(t, "", p)
		if err == nil || !strings.Contains(err.Error(), p+":3:") || !errors.Is(err, timestamp.ErrInvalid) {
			t.Fatalf("run = %v, want an error at %s:3 wrapping timestamp.ErrInvalid", err, p)
		}
		_, _, err = runCmd(t, "", timemap)
		if err == nil || !strings.Contains(err.Error(), timemap+":7:") || !errors.Is(err, cdxj.ErrJSON) {
			t.Fatalf("run = %v, want an error at %s:7 wrapping ErrJSON", err, timemap)
		}
	})
	t.Run("skip-bad counts", func(t *testing.T) {
		out, stderr, err := runCmd(t, "", "-skip-bad", p, timemap)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "skipped 6 bad lines") {
			t.Errorf("stderr %q, want the count of 6 skipped lines (1 + 5)", stderr)
		}
		if !strings.Contains(stderr, "cdxj: skipped "+p+":3:10: invalid timestamp") || !strings.Contains(stderr, "cdxj: skipped "+timemap+":7:") {
			t.Errorf("stderr %q, want each skipped line named by file and line", stderr)
		}
		keys := checkCDXJ(t, out)
		// The key of line 2 is a URL: it is replaced by its SURT, whose
		// space is written %20.
		fileKey, err := surt.Canonicalize("file:///ABCD-1234/source/Signal VIP.jpg")
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"org,example)/a", strings.ReplaceAll(fileKey, " ", "%20"), "org,example)/b"}
		if diff := cmp.Diff(want, keys); diff != "" {
			t.Errorf("keys (-want +got):\n%s", diff)
		}
	})
}

func TestSort(t *testing.T) {
	dir := t.TempDir()
	var args []string
	for _, f := range []string{"openwayback_archive-org.cdx", "cdxjindexer_post-append.cdxj", "cdxjindexer_bad-arc.cdx", "cc_commoncrawl-org_from-cdxapi.cdxj", "ipwb_sample-1.cdxj"} {
		args = append(args, sample(t, dir, f))
	}
	// A gzip file of two members, the first without its final newline, as
	// pywb writes ZipNum parts.
	b, err := sampledata.ReadFile("real/ia_cdxapi_from-json.cdx7")
	if err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	cut := 300 + bytes.IndexByte(b[300:], '\n')
	for _, part := range [][]byte{b[:cut], b[cut+1:]} {
		zw := gzip.NewWriter(&z)
		zw.Write(part)
		zw.Close()
	}
	gz := filepath.Join(dir, "ia.cdx.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	args = append(args, gz)

	unsorted, _, err := runCmd(t, "", args...)
	if err != nil {
		t.Fatal(err)
	}
	want := lines(unsorted)
	slices.Sort(want) // byte-wise, as LC_ALL=C sort
	if slices.IsSorted(lines(unsorted)) {
		t.Fatal("test input is already sorted")
	}
	for _, mem := range []string{"1000000000", "50000", "4000"} {
		t.Run("mem="+mem, func(t *testing.T) {
			tmp := t.TempDir()
			out, _, err := runCmd(t, "", append([]string{"-sort", "-mem", mem, "-tmpdir", tmp}, args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, lines(out)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			left, _ := os.ReadDir(tmp)
			if len(left) != 0 {
				t.Errorf("%d temporary files left behind", len(left))
			}
		})
	}
}

func TestUsageAndCancel(t *testing.T) {
	if _, _, err := runCmd(t, "", "-bogus"); !errors.As(err, new(cli.Usage)) {
		t.Errorf("unknown flag: %v, want a usage error", err)
	}
	if _, _, err := runCmd(t, "", "-mem", "0"); !errors.As(err, new(cli.Usage)) {
		t.Errorf("-mem 0: %v, want a usage error", err)
	}
	if _, _, err := runCmd(t, "", filepath.Join(t.TempDir(), "missing.cdx")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out bytes.Buffer
	err := run(ctx, nil, strings.NewReader("com,a)/ 2014 {}\n"), &out, &out)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run = %v, want context.Canceled", err)
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	in := sample(t, dir, "cdxjindexer_bad-arc.cdx")
	out := filepath.Join(dir, "out.cdxj")
	if _, _, err := runCmd(t, "", "-sort", "-o", out, in); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if keys := checkCDXJ(t, string(b)); len(keys) != 3 || !slices.IsSorted(lines(string(b))) {
		t.Errorf("output %q: want 3 sorted records", b)
	}

	// A failed run leaves the previous output alone and no temporary file.
	bad := filepath.Join(dir, "bad.cdx")
	if err := os.WriteFile(bad, []byte("not a cdx line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runCmd(t, "", "-o", out, bad); err == nil {
		t.Fatal("bad input succeeded")
	}
	after, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(after, b) {
		t.Errorf("output changed by a failed run: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}

	// The output may not be an input.
	before, _ := os.ReadFile(in)
	if _, _, err := runCmd(t, "", "-o", in, in); !errors.As(err, new(cli.Usage)) {
		t.Errorf("-o onto an input: %v, want a usage error", err)
	}
	if now, _ := os.ReadFile(in); !bytes.Equal(before, now) {
		t.Error("input modified")
	}
}

// TestReadErrorLocated checks that a damaged input (truncated gzip, gzip
// followed by garbage) stops the command with an error that says how far the
// input was good, not a bare "unexpected EOF".
func TestReadErrorLocated(t *testing.T) {
	var plain bytes.Buffer
	for i := range 5000 {
		fmt.Fprintf(&plain, "com,example)/p%05d 20170306040206 {\"url\": \"http://example.com/p%05d\"}\n", i, i)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(plain.Bytes())
	zw.Close()
	dir := t.TempDir()
	cases := []struct {
		name string
		data []byte
	}{
		{"truncated gzip", gz.Bytes()[:gz.Len()/2]},
		{"gzip then garbage", append(slices.Clone(gz.Bytes()), "garbage\n"...)},
		{"gzip cut in its trailer", gz.Bytes()[:gz.Len()-4]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_")+".gz")
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, skip := range []bool{false, true} {
				args := []string{p}
				if skip {
					args = []string{"-skip-bad", p}
				}
				_, _, err := runCmd(t, "", args...)
				if err == nil {
					t.Fatalf("run %v = nil, want an error", args)
				}
				if !strings.Contains(err.Error(), p+": after line ") || !strings.Contains(err.Error(), "of the decompressed input") {
					t.Errorf("run %v = %q, want the file, the last good line and the byte offset", args, err)
				}
			}
		})
	}
}

// TestOutputMode: -o writes through a temporary file, whose owner-only mode
// must not end up on the output: a new output is rw-r--r--, a replaced one
// keeps its mode.
func TestOutputMode(t *testing.T) {
	dir := t.TempDir()
	in := sample(t, dir, "cdxjindexer_example-warc.cdx9")
	existing := filepath.Join(dir, "existing.cdxj")
	if err := os.WriteFile(existing, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(existing, 0o640); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, out string
		want      os.FileMode
	}{
		{"new output", filepath.Join(dir, "new.cdxj"), 0o644},
		{"replaced output keeps its mode", existing, 0o640},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if _, _, err := runCmd(t, "", "-o", c.out, in); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(c.out)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Mode().Perm(); got != c.want {
				t.Errorf("mode %v, want %v", got, c.want)
			}
		})
	}
}

// TestKeyCases: the key written for records whose key is not a SURT.
func TestKeyCases(t *testing.T) {
	cases := []struct {
		name, in string
		wantKey  string // "" when the line is bad
		wantErr  string // substring, with the line and column
	}{
		{"URL key without url member", `http://Www.Example.com/a 20170306040206 {"mime": "text/html"}`, "com,example)/a", ""},
		{"URL key with empty url", `https://example.com/b 20170306040206 {"url": ""}`, "com,example)/b", ""},
		{"bad escape in url", `http://example.com/ 20170306040206 {"url": "\u00"}`, "", "stdin:1:44: invalid JSON block: bad escape"},
		{"datetime key kept", `20170306040206 {"url": "-"}`, "20170306040206", ""},
		{"dash key kept", `- 20170306040206 {"mime": "application/warc-fields"}`, "-", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, _, err := runCmd(t, c.in+"\n")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("run = %v, want an error with %q", err, c.wantErr)
				}
				out, stderr, err := runCmd(t, c.in+"\n", "-skip-bad")
				if err != nil || out != "" || !strings.Contains(stderr, "skipped 1 bad lines") {
					t.Errorf("-skip-bad: out %q, stderr %q, err %v; want the line skipped and counted", out, stderr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if key, _, _ := strings.Cut(out, " "); key != c.wantKey {
				t.Errorf("key %q, want %q (output %q)", key, c.wantKey, out)
			}
		})
	}
}

// TestOutputDash: "-o -" is standard output, as "-" is standard input, not
// a file named "-".
func TestOutputDash(t *testing.T) {
	dir := t.TempDir()
	in := sample(t, dir, "cdxjindexer_example-warc.cdx9")
	t.Chdir(dir)
	out, _, err := runCmd(t, "", "-o", "-", in)
	if err != nil {
		t.Fatal(err)
	}
	if keys := checkCDXJ(t, out); len(keys) == 0 {
		t.Errorf("stdout %q: want the records", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "-")); err == nil {
		t.Error(`a file named "-" was written`)
	}
}

// TestBlankLinesReported: blank lines (a trailing one, a "\r\n" one) stop
// nothing, -skip-bad or not, and are reported by their count; a line of
// spaces is a bad line, named by its file and line.
func TestBlankLinesReported(t *testing.T) {
	in := "com,example)/ 20140101000000 {\"url\": \"http://example.com/\"}\n\r\n" +
		"com,example)/a 20140101000000 {\"url\": \"http://example.com/a\"}\n\n"
	out, stderr, err := runCmd(t, in)
	if err != nil || strings.Count(out, "\n") != 2 || !strings.Contains(stderr, "cdxj: passed over 2 blank lines") {
		t.Errorf("run = %v, stdout %q, stderr %q; want 2 records and the 2 blank lines counted", err, out, stderr)
	}
	_, _, err = runCmd(t, strings.Replace(in, "\r\n", "  \n", 1))
	if err == nil || !strings.Contains(err.Error(), "stdin:2:") {
		t.Errorf("a line of spaces: %v, want an error naming stdin:2", err)
	}
}
