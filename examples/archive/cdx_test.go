package main

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/cdxservertest"
	"github.com/mementokit/mementokit/internal/clustertest"
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
			base, stop := startRun(t, "-id", "sample", in.path)
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
