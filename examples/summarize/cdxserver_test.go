package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/cdxservertest"
	"github.com/mementokit/mementokit/internal/clustertest"
)

// summarize and summarize daily read a CDX server (this module's own, over
// a ZipNum cluster of pywb's shape, page by page) for the domain -domain
// names, and give the summary of the same lines read from a flat file.
func TestSummarizeFromCDXServer(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	endpoint, h := cdxservertest.Serve(t, s.PywbIdx)
	lines := cdxservertest.DomainLines(s.Lines, "org,commoncrawl")
	flat := cdxservertest.WriteFlat(t, dir, "commoncrawl.cdx", lines)
	for _, tc := range []struct {
		args []string // the sub-command and its flags
		want string   // in the flat file's output
	}{
		{nil, "commoncrawl.org {"},
		{[]string{"-monthly", "-fullhost"}, `"202508": {`},
		{[]string{"daily"}, "20171211 {"},
	} {
		args := tc.args
		want, _, err := runCmd(t, append(slices.Clone(args), flat)...)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(want, tc.want) {
			t.Fatalf("%v: flat file's output %q", args, want)
		}
		before := h.Stats().Requests
		got, stderr, err := runCmd(t, append(slices.Clone(args), "-cdx-rate", "0", "-cdx-page-size", "3", "-domain", "commoncrawl.org", endpoint)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%v (-flat file +CDX server):\n%s", args, diff)
		}
		if n := h.Stats().Requests - before; n < 3 {
			t.Errorf("%d requests: not read page by page", n)
		}
	}
	if _, _, err := runCmd(t, "-url-prefix", "commoncrawl.org/", s.Flat); err == nil || !strings.Contains(err.Error(), "no input is one") {
		t.Errorf("-url-prefix with files only: %v", err)
	}
	if _, _, err := runCmd(t, "-url-prefix", "a.org/", "-domain", "b.org", endpoint); err == nil || !strings.Contains(err.Error(), "give one of them") {
		t.Errorf("-url-prefix and -domain: %v", err)
	}
}

// summarize chart (daily-*) and summarize report (-index) read a CDX
// server with -domain as summarize daily does: the chart is the flat
// file's, the report has the same daily series.
func TestChartAndReportFromCDXServer(t *testing.T) {
	dir := t.TempDir()
	s := clustertest.Write(t, dir, clustertest.SampleLines(t, 190))
	endpoint, h := cdxservertest.Serve(t, s.PywbIdx)
	flat := cdxservertest.WriteFlat(t, dir, "commoncrawl.cdx", cdxservertest.DomainLines(s.Lines, "org,commoncrawl"))
	fromFlat, fromServer := filepath.Join(dir, "flat.svg"), filepath.Join(dir, "server.svg")
	if _, stderr, err := runCmd(t, "chart", "-kind", "daily-captures", "-o", fromFlat, flat); err != nil {
		t.Fatalf("chart of the flat file: %v\n%s", err, stderr)
	}
	before := h.Stats().Requests
	if _, stderr, err := runCmd(t, "chart", "-kind", "daily-captures", "-o", fromServer, "-cdx-rate", "0", "-domain", "commoncrawl.org", endpoint); err != nil {
		t.Fatalf("chart of the CDX server: %v\n%s", err, stderr)
	}
	if h.Stats().Requests == before {
		t.Error("chart sent the CDX server no request")
	}
	a, _ := os.ReadFile(fromFlat)
	b, _ := os.ReadFile(fromServer)
	if len(a) < 1000 || !bytes.Equal(a, b) {
		t.Errorf("the CDX server's chart (%d bytes) is not the flat file's (%d bytes)", len(b), len(a))
	}
	// The report of the server is the flat file's but for the input's name.
	reports := map[string]string{}
	for name, args := range map[string][]string{
		flat:     {"-index", flat},
		endpoint: {"-cdx-rate", "0", "-domain", "commoncrawl.org", "-index", endpoint},
	} {
		out := filepath.Join(dir, "report.html")
		if _, stderr, err := runCmd(t, append([]string{"report", "-o", out}, args...)...); err != nil {
			t.Fatalf("report of %s: %v\n%s", name, err, stderr)
		}
		html, _ := os.ReadFile(out)
		reports[name] = strings.ReplaceAll(string(html), name, "INPUT")
	}
	if a, b := reports[flat], reports[endpoint]; len(a) < 10000 || a != b {
		t.Errorf("the CDX server's report (%d bytes) is not the flat file's (%d bytes)", len(b), len(a))
	}
}
