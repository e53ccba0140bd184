package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/cdxservertest"
	"github.com/mementokit/mementokit/internal/clustertest"
)

// cdxj converts what a CDX server answers (this module's own, over a
// ZipNum cluster of pywb's shape, page by page) to the CDXJ lines it makes
// of the same lines in a flat file, for -domain and -url-prefix.
func TestConvertFromCDXServer(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	endpoint, h := cdxservertest.Serve(t, s.PywbIdx)
	var prefix []string
	for _, l := range s.Lines {
		if strings.HasPrefix(l, "org,commoncrawl)/20") {
			prefix = append(prefix, l)
		}
	}
	for _, tc := range []struct {
		name  string
		flags []string
		lines []string
	}{
		{"domain", []string{"-domain", "commoncrawl.org"}, cdxservertest.DomainLines(s.Lines, "org,commoncrawl")},
		{"url prefix", []string{"-url-prefix", "http://commoncrawl.org/20"}, prefix},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flat := cdxservertest.WriteFlat(t, dir, "flat.cdx", tc.lines)
			want, _, err := runCmd(t, "", flat)
			if err != nil {
				t.Fatal(err)
			}
			before := h.Stats().Requests
			got, stderr, err := runCmd(t, "", append(append([]string{"-cdx-rate", "0", "-cdx-page-size", "2"}, tc.flags...), endpoint)...)
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if len(lines(want)) < 5 || len(lines(want)) != len(tc.lines) {
				t.Fatalf("flat file: %d lines of %d", len(lines(want)), len(tc.lines))
			}
			if diff := cmp.Diff(lines(want), lines(got)); diff != "" {
				t.Errorf("(-flat file +CDX server):\n%s", diff)
			}
			if n := h.Stats().Requests - before; n < 3 {
				t.Errorf("%d requests: not read page by page", n)
			}
		})
	}
}

// TestCDXServerThatNeverAnswers: a CDX server that accepts the connection
// and never answers is an error by -cdx-deadline (before: 5 attempts of 60
// s each), naming the server's URL and the deadline.
func TestCDXServerThatNeverAnswers(t *testing.T) {
	endpoint, _ := cdxservertest.Silent(t)
	_, _, err := runCmd(t, "", "-cdx-flavor", "pywb", "-cdx-rate", "0", "-cdx-timeout", "100ms", "-cdx-deadline", "300ms", "-domain", "example.com", endpoint)
	for _, want := range []string{"CDX server " + endpoint + "?", "no answer within 300ms, the deadline of one request and its retries"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want it to say %q", err, want)
		}
	}
}
