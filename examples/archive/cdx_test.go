package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxservertest"
	"github.com/mementokit/mementokit/internal/clustertest"
	"github.com/mementokit/mementokit/internal/sampledata"
)

func getBody(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// The archive serves the CDX API over its indexes: a ZipNum cluster of
// pywb's shape page by page, and a sorted file; at /cdx and /{id}/cdx.
func TestRunServesCDXAPI(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	want := cdxservertest.DomainLines(s.Lines, "org,commoncrawl")
	for _, in := range []struct{ name, path string }{{"cluster", s.PywbIdx}, {"sorted file", s.Flat}} {
		t.Run(in.name, func(t *testing.T) {
			base, stop := startRun(t, "-archive-id", "sample", in.path)
			defer stop()
			for _, p := range []string{"/cdx", "/sample/cdx"} {
				code, body := getBody(t, base+p+"?url=*.commoncrawl.org&output=text")
				got := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
				if code != 200 || len(got) != len(want) {
					t.Errorf("%s: %d, %d lines, want 200 and %d", p, code, len(got), len(want))
				}
			}
			code, body := getBody(t, base+"/cdx?url=*.commoncrawl.org&showNumPages=true&pageSize=2")
			if in.name == "cluster" && (code != 200 || !strings.HasPrefix(body, `{"pages": `)) {
				t.Errorf("page count over the cluster: %d %q", code, body)
			}
			if in.name == "sorted file" && (code != 400 || !strings.Contains(body, "ZipNum")) {
				t.Errorf("page count over a sorted file: %d %q, want pywb's 400", code, body)
			}
			// The Memento endpoints are still there.
			if code, _ := getBody(t, base+"/timemap/link/http://commoncrawl.org/"); code != 200 {
				t.Errorf("TimeMap: %d", code)
			}
		})
	}
}

// An index the CDX API cannot search (a file out of order) turns the API
// off under -cdx auto, and is an error under -cdx on.
func TestRunCDXUnsorted(t *testing.T) {
	dir := t.TempDir()
	lines := clustertest.SampleLines(t, 40)
	slices.Reverse(lines)
	path := cdxservertest.WriteFlat(t, dir, "unsorted.cdx", lines)
	base, stop := startRun(t, path)
	code, _ := getBody(t, base+"/cdx?url=commoncrawl.org")
	if code != 404 {
		t.Errorf("/cdx over an unsorted file: %d, want 404 (the API off)", code)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-cdx", "on", path}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not sorted byte-wise") {
		t.Errorf("-cdx on over an unsorted file: %v", err)
	}
}

// The archive serves a CDX server's captures of the part -domain or
// -url-prefix names (another CDX server over a ZipNum cluster of pywb's
// shape, read page by page) as it serves the same lines from a flat file:
// the same CDX answers, TimeMaps and MementoMap. Without either flag a CDX
// server input is refused, and either flag without a CDX server input.
func TestRunFromCDXServer(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	endpoint, h := cdxservertest.Serve(t, s.PywbIdx)
	cases := []struct {
		name, query, timemap string
		flags                []string
		lines                []string
	}{
		{"domain", "url=*.commoncrawl.org", "http://commoncrawl.org/", []string{"-domain", "commoncrawl.org"}, cdxservertest.DomainLines(s.Lines, "org,commoncrawl")},
		{"url prefix", "url=archive.org/*", "http://archive.org/", []string{"-url-prefix", "http://archive.org/"}, prefixLines(s.Lines, "org,archive)/")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.lines) < 10 || len(tc.lines) == len(s.Lines) {
				t.Fatalf("%d lines of %d to compare", len(tc.lines), len(s.Lines))
			}
			answers := func(base string) []string {
				var out []string
				for _, p := range []string{"/cdx?" + tc.query + "&output=text", "/cdx?" + tc.query + "&output=text&fl=urlkey,timestamp,url,mime,status,digest,length,offset", "/timemap/link/" + tc.timemap, "/.well-known/mementomap"} {
					code, body := getBody(t, base+p)
					if code != 200 {
						t.Errorf("%s: %d", p, code)
					}
					if p == "/.well-known/mementomap" {
						body = mapDataLines(body)
					}
					out = append(out, strings.ReplaceAll(body, base, "http://ARCHIVE"))
				}
				return out
			}
			flat := cdxservertest.WriteFlat(t, dir, tc.name+".cdx", tc.lines)
			base, stop := startRun(t, flat)
			want := answers(base)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			before := h.Stats().Requests
			base, stop = startRun(t, append(append([]string{"-cdx-rate", "0", "-cdx-input-page-size", "2"}, tc.flags...), endpoint)...)
			got := answers(base)
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(got[0], "\n"); n != len(tc.lines) {
				t.Errorf("the CDX answer has %d lines, want %d", n, len(tc.lines))
			}
			// Without fl= a capture stored as a CDX line reads as that line.
			text, classic := strings.Split(strings.TrimSuffix(got[0], "\n"), "\n"), 0
			for i, l := range tc.lines {
				if i < len(text) && !strings.Contains(l, " {") {
					classic++
					if text[i] != l {
						t.Errorf("text line %d is not the stored line:\n%s\nwant:\n%s", i+1, text[i], l)
					}
				}
			}
			if classic < 10 {
				t.Errorf("%d stored CDX lines compared", classic)
			}
			for i, what := range []string{"CDX answer", "CDX answer with fl=", "TimeMap", "MementoMap"} {
				if got[i] != want[i] {
					t.Errorf("%s from the CDX server (%d lines) differs from the flat file's (%d lines):\n%s\nwant:\n%s", what, strings.Count(got[i], "\n"), strings.Count(want[i], "\n"), got[i], want[i])
				}
			}
			if n := h.Stats().Requests - before; n < 3 {
				t.Errorf("%d requests: the cluster was not read page by page", n)
			}
		})
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no scope", []string{endpoint}, "-url-prefix URL or -domain HOST"},
		{"scope without a server", []string{"-domain", "commoncrawl.org", s.Flat}, "no input is one"},
		{"both", []string{"-domain", "commoncrawl.org", "-url-prefix", "http://archive.org/", endpoint}, "give one of them"},
	} {
		err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0"}, tc.args...), strings.NewReader(""), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "ServerOptions") {
			t.Errorf("%s: %v, want an error saying %q (and no Go field)", tc.name, err, tc.want)
		}
	}
}

func prefixLines(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// mapDataLines drops a map's header lines (its !meta has the time of the
// build).
func mapDataLines(m string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(m, "\n") {
		if l != "" && l[0] != '!' {
			b.WriteString(l)
		}
	}
	return b.String()
}

// Lines equal in key and timestamp (a response and its request record) may
// come in any order of their JSON blocks: the file is sorted by the
// module's rule (cdxj.SortKey), the CDX API stays on under -cdx auto and
// -cdx on, and answers both lines for their key, in file order. A file
// whose keys go back is still refused.
func TestRunCDXSameKeyAndTimestamp(t *testing.T) {
	const name = "real/cdxjindexer_example-warc_all-records.cdxj"
	b, err := sampledata.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if string(cdxj.SortKey([]byte(lines[2]))) != string(cdxj.SortKey([]byte(lines[3]))) ||
		lines[3] >= lines[2] {
		t.Fatalf("the sample's lines 3 and 4 are not one key and timestamp with line 4 sorting first whole-line:\n%s\n%s", lines[2], lines[3])
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "all-records.cdxj")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"auto", "on"} {
		base, stop := startRun(t, "-cdx", mode, path)
		code, body := getBody(t, base+"/cdx?url=http://example.com/&from=20170306040206&to=20170306040206")
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if want := lines[2] + "\n" + lines[3] + "\n"; code != 200 || body != want {
			t.Errorf("-cdx %s: /cdx for lines 3 and 4: %d\n%s\nwant 200\n%s", mode, code, body, want)
		}
	}
	swapped := append([]string{}, lines...)
	swapped[2], swapped[4] = swapped[4], swapped[2] // 20170306040348 above 20170306040206
	bad := filepath.Join(dir, "swapped.cdxj")
	if err := os.WriteFile(bad, []byte(strings.Join(swapped, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-cdx", "on", bad}, strings.NewReader(""), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "data line 4: key and timestamp") || !strings.Contains(err.Error(), "not sorted byte-wise") {
		t.Errorf("-cdx on over a file whose timestamps go back: %v", err)
	}
}
