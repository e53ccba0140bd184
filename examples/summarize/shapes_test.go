package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/clustertest"
)

// summarize gives the same summary from every shape of one index. Before
// a gzip member end counted as a line end, the pywb-shaped part lost
// captures and the .idx gave an empty summary, both with exit status 0.
func TestSummarizeClusterShapes(t *testing.T) {
	s := clustertest.Write(t, t.TempDir(), clustertest.SampleLines(t, 190))
	clustertest.CheckMembers(t, s.PywbPart, clustertest.PywbBlocks)
	for _, args := range [][]string{nil, {"-monthly", "-fullhost"}} {
		want, _, err := runCmd(t, append(args, s.Flat)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, "archive.org {") || strings.Contains(want, "!meta") {
			t.Fatalf("flat file: summary %q", want)
		}
		for _, in := range s.Inputs()[1:] {
			got, _, err := runCmd(t, append(args, in.Path)...)
			if err != nil {
				t.Fatalf("%s: %v", in.Name, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%v summary (-flat +%s):\n%s", args, in.Name, diff)
			}
		}
	}
	daily, _, err := runCmd(t, "daily", s.Flat)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range s.Inputs()[1:] {
		got, _, err := runCmd(t, "daily", in.Path)
		if err != nil {
			t.Fatalf("daily %s: %v", in.Name, err)
		}
		if diff := cmp.Diff(daily, got); diff != "" {
			t.Errorf("daily (-flat +%s):\n%s", in.Name, diff)
		}
	}
}

// An input summarize cannot read is an error, never exit 0 with an empty
// summary; lines skipped are recorded in the summary's !meta line.
func TestSummarizeUnreadable(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 20))
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string
	}{
		{"a summary given as an index", write("a.summary.txt", "archive.org {\"2012\": {\"n_total\": 1}}\n"), "no line could be read"},
		{"a cluster whose part is missing", func() string {
			os.Rename(filepath.Join(s.CCDir, "cdx-00000.gz"), filepath.Join(dir, "moved.gz"))
			return s.CCIdx
		}(), "cdx-00000.gz"},
		{"a truncated gzip file", write("cut.cdx.gz", "\x1f\x8b\x08\x00\x00\x00"), "cut.cdx.gz"},
		{"an empty .gz file", write("empty.cdx.gz", ""), "empty file, not gzip data"},
		{"a folder without a cluster", dir, "secondary index"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := runCmd(t, tt.path)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("summarize = %v (output %q), want an error containing %q", err, out, tt.want)
			}
		})
	}
	// A bad line among good ones is skipped and recorded.
	lines := append(clustertest.SampleLines(t, 20), "org,archive)/x 2012XX01 http://archive.org/x text/html 200 X - - 100 5 f.arc.gz")
	p := write("one-bad.cdx", strings.Join(lines, "\n")+"\n")
	out, stderr, err := runCmd(t, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, `!meta {"skipped_lines":1,"skipped_examples":["`+p+": line 21") || !strings.Contains(stderr, "1 malformed lines") {
		t.Errorf("summary %q, stderr %q: want a !meta line naming the skipped line", out, stderr)
	}
	// The file and line are named once ("cdxj: FILE: line 21, column 16: ..."),
	// not again in front ("FILE:21: cdxj: FILE: line 21, ...").
	if _, _, err := runCmd(t, "-strict", p); err == nil || !strings.Contains(err.Error(), p+": line 21, column 16: invalid timestamp") || strings.Count(err.Error(), p) != 1 {
		t.Errorf("-strict: %v, want one error naming %s: line 21 once", err, p)
	}
}
