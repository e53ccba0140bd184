package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/cdxservertest"
	"github.com/mementokit/mementokit/internal/clustertest"
)

// build reads a CDX server (this module's own, over a ZipNum cluster of
// pywb's shape, page by page) for the part -domain or -url-prefix names,
// and gives the map of the same lines read from a flat file.
func TestBuildFromCDXServer(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	endpoint, h := cdxservertest.Serve(t, s.PywbIdx)
	cases := []struct {
		name  string
		flags []string
		lines []string
	}{
		{"domain", []string{"-domain", "commoncrawl.org"}, cdxservertest.DomainLines(s.Lines, "org,commoncrawl")},
		{"url prefix", []string{"-url-prefix", "http://archive.org/"}, prefixLines(s.Lines, "org,archive)/")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.lines) < 10 {
				t.Fatalf("%d lines to compare", len(tc.lines))
			}
			flat := cdxservertest.WriteFlat(t, dir, tc.name+".cdx", tc.lines)
			want := filepath.Join(dir, tc.name+"-flat.ukvs")
			if _, stderr, err := runCmd(t, "", "build", "-q", "-o", want, flat); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			got := filepath.Join(dir, tc.name+"-server.ukvs")
			before := h.Stats().Requests
			args := append(append([]string{"build", "-q", "-o", got, "-cdx-rate", "0", "-cdx-page-size", "2"}, tc.flags...), endpoint)
			if _, stderr, err := runCmd(t, "", args...); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if diff := cmp.Diff(dataLines(t, want), dataLines(t, got)); diff != "" {
				t.Errorf("map (-flat file +CDX server):\n%s", diff)
			}
			if n := h.Stats().Requests - before; n < 3 {
				t.Errorf("%d requests: the cluster was not read page by page", n)
			}
		})
	}
	// Without -domain or -url-prefix a CDX server cannot be read whole.
	_, stderr, err := runCmd(t, "", "build", "-q", "-o", filepath.Join(dir, "x.ukvs"), endpoint)
	if msg := fmt.Sprint(err) + stderr; err == nil || !strings.Contains(msg, "cannot be read whole") || !strings.Contains(msg, "-url-prefix URL or -domain HOST") || strings.Contains(msg, "ServerOptions") {
		t.Errorf("no scope: %v %s", err, stderr)
	}
	// -domain without a CDX server input is an error, not ignored.
	_, _, err = runCmd(t, "", "build", "-q", "-domain", "example.org", "-o", filepath.Join(dir, "y.ukvs"), s.Flat)
	if err == nil || !strings.Contains(err.Error(), "no input is one") {
		t.Errorf("-domain with files only: %v", err)
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
