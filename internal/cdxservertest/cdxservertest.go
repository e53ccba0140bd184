// Package cdxservertest serves an index through this module's own CDX
// server (internal/archiveserver's CDXHandler) on 127.0.0.1, for the tests
// of the tools that read CDX servers: the tool reads the server, and its
// output is compared with its output for the same lines in a flat file.
// The package is for tests only.
package cdxservertest

import (
	"context"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/archiveserver"
)

// Serve opens the index at path (anything cdxj.Open opens; a ZipNum
// cluster answers page by page) and serves its CDX API until the test
// ends. It returns the CDX endpoint URL ("http://127.0.0.1:PORT/cdx") and
// the handler, whose Stats count the requests.
func Serve(t testing.TB, path string) (string, *archiveserver.CDXHandler) {
	t.Helper()
	ix, err := cdxj.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	h := archiveserver.NewCDXHandler(ix, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL + archiveserver.CDXPath, h
}

// DomainLines returns the lines of lines (sorted index lines) whose SURT
// key is of host or one of its subdomains: what a matchType=domain
// request for host answers. hostKey is the SURT form ("org,commoncrawl").
func DomainLines(lines []string, hostKey string) []string {
	var out []string
	for _, l := range lines {
		if strings.HasPrefix(l, hostKey+")") || strings.HasPrefix(l, hostKey+",") {
			out = append(out, l)
		}
	}
	return out
}

// WriteFlat writes lines as a flat index file in dir and returns its path.
func WriteFlat(t testing.TB, dir, name string, lines []string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Silent listens on 127.0.0.1 until the test ends, accepting every
// connection, reading what comes and never answering: a CDX server that
// hangs. It returns its endpoint URL ("http://127.0.0.1:PORT/cdx") and
// the number of connections it has accepted so far.
func Silent(t testing.TB) (endpoint string, accepted func() int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return "http://" + ln.Addr().String() + "/cdx", func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(conns)
	}
}
