package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/clustertest"
)

// Every shape an archive keeps its index in gives the records of the flat
// file: a ZipNum cluster of pywb's shape (blocks without a final newline,
// a .loc whose first location is bad) by its .idx, its folder and its part
// file, and a Common Crawl cluster. Before a gzip member end counted as a
// line end, the part file stopped at line 5 with "21 fields".
func TestClusterShapes(t *testing.T) {
	s := clustertest.Write(t, t.TempDir(), clustertest.SampleLines(t, 190))
	clustertest.CheckMembers(t, s.PywbPart, clustertest.PywbBlocks)
	want, _, err := runCmd(t, "", s.Flat)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(want, "\n"); n != len(s.Lines) {
		t.Fatalf("flat file: %d lines out, want %d", n, len(s.Lines))
	}
	for _, in := range s.Inputs()[1:] {
		t.Run(in.Name, func(t *testing.T) {
			got, _, err := runCmd(t, "", in.Path)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("output (-flat +%s):\n%s", in.Name, diff)
			}
		})
	}
}
