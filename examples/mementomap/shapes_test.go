package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/clustertest"
)

// dataLines returns the data lines of a map (its headers left out: !meta
// holds the build time).
func dataLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		if !strings.HasPrefix(l, "!") {
			out = append(out, l)
		}
	}
	return out
}

// build gives the same map from every shape of one index. Before a gzip
// member end counted as a line end, build -skip-bad of the pywb-shaped
// cluster gave a map that lacked keys the archive holds (false negatives)
// and exited 0.
func TestBuildClusterShapes(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	clustertest.CheckMembers(t, s.PywbPart, clustertest.PywbBlocks)
	var want []string
	for i, in := range s.Inputs() {
		t.Run(in.Name, func(t *testing.T) {
			out := filepath.Join(dir, "map.ukvs")
			if _, stderr, err := runCmd(t, "", "build", "-q", "-o", out, in.Path); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			got := dataLines(t, out)
			if i == 0 {
				want = got
				if len(want) < 10 {
					t.Fatalf("flat file: %d keys", len(want))
				}
				return
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("map (-flat +%s):\n%s", in.Name, diff)
			}
		})
	}
}

// A build that meets a bad line refuses to write a map unless -skip-bad,
// and then the map's !meta says how many lines it skipped.
func TestBuildSkippedLines(t *testing.T) {
	dir := t.TempDir()
	lines := clustertest.SampleLines(t, 40)
	lines[7] = "org,archive)/bad 2012XX01 http://archive.org/bad text/html 200 X - - 100 5 f.arc.gz"
	slices.Sort(lines)
	s := clustertest.Write(t, dir, lines)
	for _, in := range []string{s.Flat, s.PywbIdx, s.CCDir} {
		out := filepath.Join(dir, "m.ukvs")
		os.Remove(out)
		_, _, err := runCmd(t, "", "build", "-q", "-o", out, in)
		if err == nil || !strings.Contains(err.Error(), "invalid timestamp") {
			t.Errorf("%s: build = %v, want the bad line's error", in, err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: a map was written despite the bad line", in)
		}
		_, stderr, err := runCmd(t, "", "build", "-skip-bad", "-o", out, in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(out)
		if !strings.Contains(string(b), `"skipped_lines":1`) || !strings.Contains(stderr, "skipped_lines=1") {
			t.Errorf("%s: map headers %q, stderr %q: want skipped_lines 1 in both", in, strings.SplitN(string(b), "\n", 5)[:4], stderr)
		}
	}
}
