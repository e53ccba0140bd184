package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/sampledata"
)

// sampleFiles writes the shipped index files into a temporary folder.
func sampleFiles(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	var paths []string
	for _, name := range sampledata.IndexFiles() {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

func runCmd(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

const sampleCDXJ = `uk,co,bbc,news)/ 20200101000000 {"url": "https://news.bbc.co.uk/", "mime": "text/html", "status": "200", "length": "100", "filename": "BBC-1.warc.gz"}
uk,co,bbc,www)/ 20210101000000 {"url": "http://www.bbc.co.uk/", "mime": "image/png", "status": "200", "length": "10", "filename": "IA-2.warc.gz"}
`

func TestSummarize(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "a.cdxj")
	if err := os.WriteFile(plain, []byte(sampleCDXJ), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(sampleCDXJ))
	zw.Close()
	gzPath := filepath.Join(dir, "a.cdxj.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"default", []string{"-compact", plain}, `bbc.co.uk {"2020": {"n_html": 1, "n_https": 1, "n_total": 1, "s_html": 100, "s_https": 100, "s_total": 100}, "2021": {"n_image": 1, "n_http": 1, "n_total": 1, "s_image": 10, "s_http": 10, "s_total": 10}}` + "\n"},
		{"gzip", []string{"-compact", gzPath}, `bbc.co.uk {"2020": {"n_html": 1, "n_https": 1, "n_total": 1, "s_html": 100, "s_https": 100, "s_total": 100}, "2021": {"n_image": 1, "n_http": 1, "n_total": 1, "s_image": 10, "s_http": 10, "s_total": 10}}` + "\n"},
		{"fullhost monthly grouped", []string{"-compact", "-fullhost", "-monthly", "-grouped", plain}, `news.bbc.co.uk {"202001": {"n_html": 1, "n_https": 1, "n_total": 1, "s_html": 100, "s_https": 100, "s_total": 100}}` + "\n" +
			`www.bbc.co.uk {"202101": {"n_image": 1, "n_http": 1, "n_total": 1, "s_image": 10, "s_http": 10, "s_total": 10}}` + "\n"},
		{"compat", []string{"-compat", "-compact", plain, gzPath}, `co.uk {"2020": {"n_html": 2, "n_https": 2, "n_total": 2, "s_html": 200, "s_https": 200, "s_total": 200}, "2021": {"n_image": 2, "n_http": 2, "n_total": 2, "s_image": 20, "s_http": 20, "s_total": 20}}` + "\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runCmd(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, out); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

// The compat goldens of package summary, over all shipped files at once,
// must match what one run of the command gives file by file.
func TestSummarizeSampleFiles(t *testing.T) {
	files := sampleFiles(t)
	timemap := ""
	var indexes []string // the samples that are indexes (not the TimeMap)
	for _, f := range files {
		if strings.Contains(f, "5mementos") {
			timemap = f
		} else {
			indexes = append(indexes, f)
		}
	}
	out, stderr, err := runCmd(t, indexes...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "archive.org {") || strings.Contains(out, "!meta") || !strings.Contains(stderr, " 0 malformed lines") {
		t.Errorf("default run over the samples:\n%s\nstderr:\n%s", out, stderr)
	}
	// The TimeMap (CDXJ whose every JSON block is malformed) cannot be
	// read as an index: an error, never an empty summary.
	if out, _, err := runCmd(t, append(indexes, timemap)...); err == nil || !strings.Contains(err.Error(), timemap+": no line could be read") {
		t.Errorf("with the TimeMap: error %v, output %q", err, out)
	}
	out, stderr, err = runCmd(t, append([]string{"-compat"}, files...)...)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "archive.org {") || !strings.Contains(stderr, "Unsupported cdx format") {
		t.Errorf("compat run should skip the headerless CDX file:\n%s\nstderr:\n%s", out, stderr)
	}
	if _, _, err := runCmd(t, "-strict", timemap); err == nil {
		t.Error("-strict accepted the TimeMap with invalid JSON")
	}
}

func TestSubcommands(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "a.cdxj")
	if err := os.WriteFile(idx, []byte(sampleCDXJ), 0o644); err != nil {
		t.Fatal(err)
	}
	sumA := filepath.Join(dir, "a.summary")
	out, _, err := runCmd(t, "-fullhost", idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sumA, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	sumB := filepath.Join(dir, "b.summary") // www.bbc.co.uk only
	if err := os.WriteFile(sumB, []byte(out[strings.Index(out, "www."):]), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		contains string
	}{
		{"combine", []string{"combine", "-rekey", "domain", "-compact", sumA}, `bbc.co.uk {"2020": {"n_html": 1,`},
		{"overlap", []string{"overlap", sumA, sumB}, "period  combination  keys  a:n_total  a:s_total  b:n_total  b:s_total\n2020    a            1     1          100        -          -\n"},
		{"overlap csv", []string{"overlap", "-format", "csv", sumA, sumB}, "period,combination,keys,a:n_total,a:s_total,b:n_total,b:s_total\n2020,a,1,1,100,,\n"},
		{"overlap json", []string{"overlap", "-format", "json", sumA, sumB}, `{"period": "2021", "combination": "a AND b", "keys": 1, "a:n_total": 1, "a:s_total": 10, "b:n_total": 1, "b:s_total": 10}`},
		{"overlap tables", []string{"overlap", "-format", "tables", sumA}, "Hosts:\n"},
		{"totals", []string{"totals", sumA}, "key period n_total s_total\nnews.bbc.co.uk 2020 1 100\n"},
		{"totals noheader", []string{"totals", "-noheader", sumA}, "news.bbc.co.uk 2020 1 100\nwww.bbc.co.uk 2021 1 10\n"},
		{"totals two csv", []string{"totals", "-format", "csv", sumA, sumB}, "summary,key,period,n_total,s_total\n" + sumA + ",news.bbc.co.uk,2020,1,100\n"},
		{"totals json", []string{"totals", "-format", "json", "-noyear", sumA}, "[\n{\"key\": \"news.bbc.co.uk\", \"n_total\": 1, \"s_total\": 100},"},
		{"totals noyear", []string{"totals", "-noyear", "-nototal", sumA}, "www.bbc.co.uk\n"},
		{"csv", []string{"csv", sumA}, "key,period,n_html"},
		{"daily", []string{"daily", idx}, `20200101 {"BBC": {"count": 1, "size": 100, "okcount": 1, "oksize": 100}, "toturis": 1`},
		{"daily regexp", []string{"daily", "-org-regexp", `^([A-Z]+)-`, idx}, `20210101 {"IA": {`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, stderr, err := runCmd(t, tc.args...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if !strings.Contains(out, tc.contains) {
				t.Errorf("output lacks %q:\n%s", tc.contains, out)
			}
		})
	}
	for _, kind := range chartKinds {
		img := filepath.Join(dir, kind+".svg")
		in := sumA
		if strings.HasPrefix(kind, "daily") {
			in = idx
		}
		if _, stderr, err := runCmd(t, "chart", "-kind", kind, "-o", img, in); err != nil {
			t.Fatalf("chart %s: %v\n%s", kind, err, stderr)
		}
		if b, err := os.ReadFile(img); err != nil || !bytes.Contains(b, []byte("<svg")) {
			t.Errorf("chart %s: %v", kind, err)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-nosuchflag", "x"},
		{"combine", "-rekey", "bogus", "x"},
		{"chart", "x"},
		{"chart", "-o", "x.gif", "x"},
		{"chart", "-kind", "pie", "-o", "x.svg", "x"},
		{"chart", "-kind", "html", "-o", "x.svg", "x"},
		{"overlap", "-format", "xml", "x"},
		{"totals", "-format", "json", "-noheader", "x"},
		{"overlap", "x", "x"},
		{"daily", "-org-regexp", "(", "x"},
		{"-min-year", "2030", "-max-year", "2000", "x"},
		{"-min-year", "-1", "x"},
		{"-min-year", "3000", "x"}, // after the default -max-year, next year
		{"-max-year", "1990", "x"}, // before the default -min-year, 1991
	} {
		_, _, err := runCmd(t, args...)
		var ue cli.Usage
		if !errors.As(err, &ue) {
			t.Errorf("run(%q) = %v, want a usage error", args, err)
		}
	}
	if _, _, err := runCmd(t, filepath.Join(t.TempDir(), "missing.cdxj")); err == nil {
		t.Error("a missing file is not an error")
	}
	// No input file: the message names the command it is missing for.
	for cmd, want := range map[string]string{"": "no input files", "combine": "combine: no input files", "export": "export: no input files"} {
		args := []string{}
		if cmd != "" {
			args = append(args, cmd)
		}
		_, _, err := runCmd(t, args...)
		var printed strings.Builder
		if code := cli.Status("summarize", err, &printed); code != 2 || printed.String() != "summarize: "+want+" (run with -h for usage)\n" {
			t.Errorf("summarize %s with no file: exit %d, %q; want 2, %q", cmd, code, printed.String(), "summarize: "+want)
		}
	}
}

func TestCancelled(t *testing.T) {
	files := sampleFiles(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if err := run(ctx, files, strings.NewReader(""), &out, &errOut); !errors.Is(err, context.Canceled) {
		t.Errorf("run with a cancelled context = %v, want context.Canceled", err)
	}
}

// On the Internet Archive sample, the daily chart folds the WARC-name
// prefixes into 7 and "other (59)"; -org-regexp decides the organizations
// (names it does not match count as "unmatched").
func TestDailyChartOrgRegexp(t *testing.T) {
	var ia string
	for _, f := range sampleFiles(t) {
		if strings.HasSuffix(f, "openwayback_archive-org.cdx") {
			ia = f
		}
	}
	dir := t.TempDir()
	plain, re := filepath.Join(dir, "plain.svg"), filepath.Join(dir, "re.svg")
	if _, stderr, err := runCmd(t, "chart", "-kind", "daily-captures", "-o", plain, ia); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if _, stderr, err := runCmd(t, "chart", "-kind", "daily-captures", "-org-regexp", `^([A-Z]+)[-_]`, "-o", re, ia); err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for path, want := range map[string][]string{
		plain: {"other (59)", "top_domains", "66 organizations"},
		re:    {"unmatched", "other (10)", "17 organizations"},
	} {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !bytes.Contains(b, []byte(w)) {
				t.Errorf("%s lacks %q", path, w)
			}
		}
	}
}

// A daily series (summarize daily's output, lines "20120101 {json}") is not
// an index: daily, chart -kind daily-* and summarizing refuse it with an
// error that names the file and says why, instead of reading its dates
// as ipwb TimeMap keys; an index with such lines among its captures skips
// and counts them.
func TestDailySeriesIsNotAnIndex(t *testing.T) {
	var ia string
	for _, f := range sampleFiles(t) {
		if strings.HasSuffix(f, "openwayback_archive-org.cdx") {
			ia = f
		}
	}
	series, stderr, err := runCmd(t, "daily", ia)
	if err != nil {
		t.Fatalf("daily: %v\n%s", err, stderr)
	}
	dir := t.TempDir()
	dailyFile := filepath.Join(dir, "ia.daily")
	if err := os.WriteFile(dailyFile, []byte(series), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"daily", dailyFile},
		{"chart", "-kind", "daily-captures", "-o", filepath.Join(dir, "c.png"), dailyFile},
		{"chart", "-kind", "daily-bytes", "-o", filepath.Join(dir, "b.svg"), dailyFile},
		{"chart", "-kind", "daily-2xx", "-o", filepath.Join(dir, "o.svg"), dailyFile},
		{dailyFile},
	} {
		out, stderr, err := runCmd(t, args...)
		if err == nil {
			t.Errorf("%q: no error; out:\n%.300s", args, out)
			continue
		}
		msg := err.Error() + "\n" + stderr
		for _, want := range []string{dailyFile, "not a capture", "is it an index?"} {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: message lacks %q:\n%s", args, want, msg)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "c.png")); err == nil {
		t.Error("chart wrote a chart of a daily series")
	}
	// Captures with series lines among them: the captures count, the
	// series lines are skipped and counted.
	mixed := filepath.Join(dir, "mixed.cdxj")
	lines := strings.SplitAfter(series, "\n")
	if err := os.WriteFile(mixed, []byte(sampleCDXJ+lines[0]+lines[1]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, "daily", mixed)
	if err != nil {
		t.Fatalf("daily of captures and series lines: %v\n%s", err, stderr)
	}
	if n := strings.Count(out, "\n"); n != 3 || !strings.HasPrefix(out, `!meta {"skipped_lines":2,`) || !strings.Contains(out, "\n20200101 ") || !strings.Contains(out, "\n20210101 ") {
		t.Errorf("daily of two captures and two series lines:\n%s", out)
	}
	if !strings.Contains(stderr, "2 bad lines") || !strings.Contains(stderr, "not a capture") {
		t.Errorf("the two series lines were not reported as skipped:\n%s", stderr)
	}
}

// summarize daily over an index with a bad line writes the series with a
// !meta note line first that records it, says so on stderr, and the
// series still makes a report (ReadDays passes over the note).
func TestDailyRecordsSkippedLines(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "bad.cdxj")
	in := sampleCDXJ + "uk,co,bbc)/ 2021 {\"url\": \"http://bbc.co.uk/\", \"filename\": \"IA-3.warc.gz\"}\n"
	if err := os.WriteFile(idx, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, err := runCmd(t, "daily", idx)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	lines := strings.Split(out, "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], `!meta {"skipped_lines":1,`) || !strings.Contains(lines[0], "bad.cdxj: line 3") ||
		!strings.HasPrefix(lines[1], "20200101 {") || !strings.HasPrefix(lines[2], "20210101 {") {
		t.Errorf("series:\n%s\nwant a !meta note of the skipped line 3, then two days", out)
	}
	if !strings.Contains(stderr, "1 bad lines") || !strings.Contains(stderr, "!meta line records") {
		t.Errorf("stderr does not report the skipped line:\n%s", stderr)
	}
	series := filepath.Join(dir, "bad.daily")
	if err := os.WriteFile(series, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "r.html")
	if _, stderr, err := runCmd(t, "report", "-o", page, "-daily", series); err != nil {
		t.Fatalf("report -daily of the series: %v\n%s", err, stderr)
	}
	if b, err := os.ReadFile(page); err != nil || !bytes.Contains(b, []byte("Daily activity")) || !bytes.Contains(b, []byte("IA")) {
		t.Errorf("the report of the series has no daily section with the IA organization (%v)", err)
	}
}

// TestUnknownCommand: a first argument that is a word naming no command
// and no file is a mistyped command, a usage error naming it (exit 2),
// while a word that names a file in the current folder is read as an
// index, and a missing file that is no word is an error naming it (exit 1).
func TestUnknownCommand(t *testing.T) {
	t.Chdir(t.TempDir())
	_, _, err := runCmd(t, "nosuchcmd")
	if got := cli.Status("summarize", err, new(bytes.Buffer)); got != 2 || err == nil ||
		err.Error() != `unknown command "nosuchcmd" (commands: combine, overlap, totals, csv, daily, chart, report, export; run with -h for usage)` {
		t.Errorf("summarize nosuchcmd: status %d, %v; want 2 and the unknown command named", got, err)
	}
	if err := os.WriteFile("index", []byte(sampleCDXJ), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "index")
	if err != nil || !strings.Contains(out, "bbc.co.uk") {
		t.Errorf("summarize index (a file): %v, output %q", err, out)
	}
	_, _, err = runCmd(t, "missing.cdxj")
	if got := cli.Status("summarize", err, new(bytes.Buffer)); got != 1 || err == nil || !strings.Contains(err.Error(), "missing.cdxj") {
		t.Errorf("summarize missing.cdxj: status %d, %v; want 1 naming the file", got, err)
	}
}
