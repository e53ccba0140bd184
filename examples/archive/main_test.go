package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/sampledata"
)

// startRun runs the binary's run on 127.0.0.1:0 and returns its base URL
// and a stop function that waits for run to return (its error).
func startRun(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	errc := make(chan error, 1)
	go func() {
		err := run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
		errc <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatalf("run ended before listening: %v", <-errc)
	}
	go io.Copy(io.Discard, pr)
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no address in %q", line)
	}
	return strings.TrimSpace(line[i:]), func() error {
		cancel()
		select {
		case err := <-errc:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("run did not stop")
			return nil
		}
	}
}

func TestRunServesRealIndex(t *testing.T) {
	dir := t.TempDir()
	b, err := sampledata.ReadFile("real/ia_cdxapi_from-json.cdx7")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ia.cdx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := startRun(t, "-archive-id", "ia", path)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name, path, acceptDT string
		want                 int
		header, value        string
	}{
		{"timemap", "/timemap/link/http://www.commoncrawl.org/", "", 200, "Content-Type", "application/link-format"},
		{"timegate", "/timegate/http://commoncrawl.org/", "Sun, 01 Jun 2008 00:00:00 GMT", 302, "Location", base + "/20080616144343/http://www.commoncrawl.org:80/"},
		{"timegate bad date", "/timegate/http://commoncrawl.org/", "yesterday", 400, "Vary", "accept-datetime"},
		{"timegate none", "/timegate/http://example.net/", "", 404, "Link", `<http://example.net/>; rel="original"`},
		{"memento", "/20020120142510/http://example.com/", "", 200, "Memento-Datetime", "Sun, 20 Jan 2002 14:25:10 GMT"},
		{"memento id_", "/20020120142510id_/http://example.com/", "", 200, "Memento-Datetime", "Sun, 20 Jan 2002 14:25:10 GMT"},
		{"mementomap", "/.well-known/mementomap", "", 200, "Content-Type", "text/plain; charset=utf-8"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", base+tc.path, nil)
			if tc.acceptDT != "" {
				req.Header.Set("Accept-Datetime", tc.acceptDT)
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.want || resp.Header.Get(tc.header) != tc.value {
				t.Errorf("%d %s=%q, want %d %q", resp.StatusCode, tc.header, resp.Header.Get(tc.header), tc.want, tc.value)
			}
		})
	}
	if err := stop(); err != nil {
		t.Errorf("run returned %v after cancel", err)
	}
}

func TestRunErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.cdx")
	if err := os.WriteFile(bad, []byte("com,example)/ 20100101000000 {\"url\": \"http://example.com/\"}\nthree fields only\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", nil, "no index file"},
		{"missing file", []string{"/nonexistent/x.cdxj"}, "no such file"},
		{"bad line", []string{bad}, "line 2"},
		{"bad fault rate", []string{"-fault-rate", "2", "-skip-bad", bad}, "-fault-rate 2"},
		{"bad flag", []string{"-nope"}, "not defined"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0"}, tc.args...), strings.NewReader(""), io.Discard, &stderr)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.want != "" && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q lacks %q", err, tc.want)
			}
		})
	}
}

// TestFlagValueExitStatus checks that a bad flag value or a missing index
// is one line on standard error and exit status 2, found before any index
// is opened (the index named does not exist, so a check made after opening
// it would fail with "no such file" and status 1 instead).
func TestFlagValueExitStatus(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "none.cdxj")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no index", nil, "no index file given"},
		{"cdx mode", []string{"-cdx", "bogus", missing}, `-cdx "bogus"`},
		{"cdx page size", []string{"-cdx-page-size", "0", missing}, "-cdx-page-size"},
		{"cdx max buffered", []string{"-cdx-max-buffered", "-1", missing}, "-cdx-max-buffered"},
		{"cdx max held", []string{"-cdx-max-held", "-1", missing}, "-cdx-max-held"},
		{"max conns", []string{"-max-conns", "0", missing}, "-max-conns 0: want 1 or more"},
		{"cdx max held in lines", []string{"-cdx-max-held", "400000", missing}, "-cdx-max-held 400000: want a memory size of 1MiB or more (256MiB, 1GiB): it bounds the bytes held, not lines"},
		{"fault rate", []string{"-fault-rate", "2", missing}, "-fault-rate 2"},
		{"fault rate NaN", []string{"-fault-rate", "NaN", missing}, "-fault-rate NaN"},
		{"fault status", []string{"-fault-status", "99", missing}, "-fault-status 99"},
		{"latency", []string{"-latency", "-1s", missing}, "-latency"},
		{"slow body", []string{"-slow-body", "-1s", missing}, "-slow-body"},
		{"timemap cache", []string{"-timemap-cache", "-1", missing}, "-timemap-cache -1"},
		{"host factor", []string{"-hcf", "-1", missing}, "-hcf -1"},
		{"domain without a server", []string{"-domain", "example.org", missing}, "-url-prefix and -domain"},
		{"cdx on over stdin", []string{"-cdx", "on", "-"}, "-cdx on: - is a stream"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			err := run(context.Background(), append([]string{"-addr", "127.0.0.1:0"}, tc.args...), strings.NewReader(""), io.Discard, &stderr)
			code := cli.Status("archive", err, &stderr)
			if code != 2 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, stderr.String(), tc.want)
			}
		})
	}
}
