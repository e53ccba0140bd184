package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/sampledata"
)

// TestServerTimeouts: an idle keep-alive connection and a client that
// never finishes its request headers are closed by the server.
func TestServerTimeouts(t *testing.T) {
	b, err := sampledata.ReadFile("real/ia_cdxapi_from-json.cdx7")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ia.cdx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := startRun(t, "-idle-timeout", "300ms", "-read-header-timeout", "300ms", path)
	defer stop()
	addr := strings.TrimPrefix(base, "http://")

	// closedWithin reads from c until the server closes it.
	closedWithin := func(t *testing.T, c net.Conn, br *bufio.Reader, limit time.Duration) {
		t.Helper()
		c.SetReadDeadline(time.Now().Add(limit))
		start := time.Now()
		_, err := io.Copy(io.Discard, br)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("connection still open after %v", limit)
		}
		t.Logf("closed by the server after %v (err %v)", time.Since(start).Round(time.Millisecond), err)
	}

	t.Run("idle keep-alive", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /timemap/link/http://www.commoncrawl.org/ HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("status %d, close %v: want a kept-alive 200", resp.StatusCode, resp.Close)
		}
		closedWithin(t, c, br, 5*time.Second)
	})
	t.Run("headers never finished", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /timemap/link/http://www.commoncrawl.org/ HTTP/1.1\r\nHost: "+addr+"\r\nX-Slow: ")
		closedWithin(t, c, bufio.NewReader(c), 5*time.Second)
	})
}

// TestMaxConns: with -max-conns 4 and four idle clients connected, a fifth
// client's request waits (before, every connection was served: 3000 idle
// ones held 3011 open files) and is answered as soon as one idle client
// goes; the idle ones are cut after -read-header-timeout, so that many of
// them only delay the others.
func TestMaxConns(t *testing.T) {
	b, err := sampledata.ReadFile("real/ia_cdxapi_from-json.cdx7")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ia.cdx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	base, stop := startRun(t, "-max-conns", "4", "-read-header-timeout", "1m", path)
	defer stop()
	addr := strings.TrimPrefix(base, "http://")
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range 4 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /timemap/link/http://www.commoncrawl.org/ HTTP/1.1\r\nHost: "+addr+"\r\n\r\n")
	br := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := br.Peek(1); err == nil {
		t.Fatal("the fifth connection was answered while four idle ones were open")
	} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
		t.Fatalf("the fifth connection: %v, want a wait", err)
	}
	idle[0].Close()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("after an idle client went: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("status %d, want 200", resp.StatusCode)
	}
}
