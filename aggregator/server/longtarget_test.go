package server

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mementokit/mementokit/aggregator"
)

// TestLongTargetLoggedShort: a 70 KB request target, answered 400 or
// 404 (off every path, a URI-R over aggregator.MaxURIRLen, a path
// outside -root), is logged as its first 2 KiB with a marker giving its
// length, never whole, and the error answer shows it as short.
func TestLongTargetLoggedShort(t *testing.T) {
	out := &lockedBuffer{}
	s := newTestServer(t, func(c *Config) {
		c.Root = "/r"
		c.Logger = slog.New(slog.NewJSONHandler(out, nil))
	})
	ts := httptest.NewServer(s)
	defer ts.Close()
	long := strings.Repeat("é", 35_000) // 70 000 bytes, cut in no UTF-8 sequence
	for _, tc := range []struct {
		target string
		status int
	}{
		{"/r/" + long, 404},
		{"/r/timemap/link/http://example.com/" + long, 400},
		{"/r/memento/" + long + "/http://example.com/", 400},
		{"/" + long, 404}, // outside the root prefix
	} {
		out.Reset()
		status, body := rawGet(t, ts.Listener.Addr().String(), tc.target)
		if status != tc.status {
			t.Errorf("%.40s...: status %d, want %d", tc.target, status, tc.status)
		}
		if len(body) > 2*aggregator.MaxShownTarget+1000 {
			t.Errorf("%.40s...: answer of %d bytes shows the target whole", tc.target, len(body))
		}
		var rec map[string]any
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("log line %q: %v", line, err)
			}
			if m["msg"] == "access" {
				rec = m
			}
		}
		if rec == nil {
			t.Errorf("%.40s...: no access record:\n%.300s", tc.target, out.String())
			continue
		}
		got, _ := rec["target"].(string)
		marker := fmt.Sprintf("...[%d bytes in all]", len(tc.target))
		shown, ok := strings.CutSuffix(got, marker)
		if !ok || !strings.HasPrefix(tc.target, shown) || len(shown) > aggregator.MaxShownTarget || len(shown) < aggregator.MaxShownTarget-3 || !utf8.ValidString(shown) {
			t.Errorf("%.40s...: logged target of %d bytes, want the first 2 KiB (whole UTF-8 sequences) and %q:\n%q", tc.target, len(got), marker, got[max(0, len(got)-60):])
		}
	}
}

// rawGet sends a GET for target (sent as it is) to addr and returns the
// status and body.
func rawGet(t *testing.T, addr, target string) (int, string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, addr)
	br := bufio.NewReader(c)
	var proto string
	var status int
	if _, err := fmt.Fscan(br, &proto, &status); err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(br)
	_, body, _ := strings.Cut(string(b), "\r\n\r\n")
	return status, body
}
