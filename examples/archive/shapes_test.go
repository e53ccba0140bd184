package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/clustertest"
)

// get returns the body of base+path, failing t unless the answer is 200.
func get(t *testing.T, base, path string) string {
	t.Helper()
	resp, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
	}
	return string(b)
}

// The archive serves the same holdings from every shape of one index: its
// MementoMap (headers aside) and its TimeMaps agree with the flat file's.
func TestServeClusterShapes(t *testing.T) {
	s := clustertest.Write(t, t.TempDir(), clustertest.SampleLines(t, 190))
	clustertest.CheckMembers(t, s.PywbPart, clustertest.PywbBlocks)
	data := func(m string) string {
		var out []string
		for _, l := range strings.Split(m, "\n") {
			if !strings.HasPrefix(l, "!") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	var wantMap, wantTM string
	for i, in := range s.Inputs() {
		t.Run(in.Name, func(t *testing.T) {
			base, stop := startRun(t, "-archive-id", "shapes", "-base", "http://archive.test", in.Path)
			m := data(get(t, base, "/.well-known/mementomap"))
			tm := get(t, base, "/timemap/link/http://www.archive.org/")
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				wantMap, wantTM = m, tm
				if strings.Count(tm, "rel=\"memento\"")+strings.Count(tm, "memento\"") < 2 {
					t.Fatalf("flat file: TimeMap %q", tm)
				}
				return
			}
			if diff := cmp.Diff(wantMap, m); diff != "" {
				t.Errorf("MementoMap (-flat +%s):\n%s", in.Name, diff)
			}
			if diff := cmp.Diff(wantTM, tm); diff != "" {
				t.Errorf("TimeMap (-flat +%s):\n%s", in.Name, diff)
			}
		})
	}
}
