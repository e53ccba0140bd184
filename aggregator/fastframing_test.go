package aggregator

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Answers framed in every odd way (no length on HTTP/1.0, Connection:
// close, Transfer-Encoding with Content-Length, two Content-Lengths,
// bad chunk sizes, chunk extensions, trailers, a 100 Continue first,
// the connection closed mid-header) give what net/http's Transport gives
// (the same body, or an error where it errs), and the next request on
// the same transport gets its own answer.
func TestFastTransportFramingAsNetHTTP(t *testing.T) {
	const right = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nright"
	for _, tc := range []struct {
		name, first string
		closeIt     bool
	}{
		{"http10-no-length", "HTTP/1.0 200 OK\r\n\r\nto the end", true},
		{"connection-close-ignored", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok" + poison, false},
		{"te-and-cl", "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false},
		{"two-cl-differ", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 6\r\n\r\nPOISON", false},
		{"two-cl-same", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok", false},
		{"cl-negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nx", false},
		{"cl-plus", "HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok", false},
		{"bad-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", false},
		{"huge-chunk-size", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\nhello\r\n0\r\n\r\n", false},
		{"chunk-extension", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n0\r\n\r\n", false},
		{"trailers", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n", false},
		{"te-gzip-chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false},
		{"100-continue-first", "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false},
		{"six-1xx", strings.Repeat("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", 6) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false},
		{"closed-mid-header", "HTTP/1.1 200 OK\r\nContent-Le", true},
		{"closed-mid-body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhal", true},
		{"status-junk", "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\nok", false},
		{"header-no-colon", "HTTP/1.1 200 OK\r\nJunk\r\nContent-Length: 2\r\n\r\nok", false},
		{"bare-lf", "HTTP/1.1 200 OK\nContent-Length: 2\n\nok", false},
		{"plain-no-reason", "HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok", false},
		{"plain-lowercase-keys", "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-a: 1\r\nX-A: 2\r\n\r\nok", false},
		{"plain-long-header", "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", 3500) + "\r\nContent-Length: 2\r\n\r\nok", false},
		{"header-past-buffer", "HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", 9000) + "\r\nContent-Length: 2\r\n\r\nok", false},
		{"head-split", "HTTP/1.1 200 OK\r\nContent-\x00Length: 2\r\n\r\nok", false},
		{"body-split", "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nok\x00ok", false},
		{"cl-too-long-then-close", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", true},
		{"cl-huge", "HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok", false},
		{"cl-empty", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nok", false},
		{"no-length-then-close", "HTTP/1.1 200 OK\r\n\r\nto the end", true},
		{"folded-header", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 2\r\n\r\nok", false},
		{"nul-in-value", "HTTP/1.1 200 OK\r\nX: a\x01b\r\nContent-Length: 2\r\n\r\nok", false},
		{"space-before-colon", "HTTP/1.1 200 OK\r\nX : a\r\nContent-Length: 2\r\n\r\nok", false},
		{"status-four-digits", "HTTP/1.1 2000 OK\r\nContent-Length: 2\r\n\r\nok", false},
		{"keep-alive-close", "HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 2\r\n\r\nok", false},
		{"204-with-bytes", "HTTP/1.1 204 No Content\r\nContent-Length: 6\r\n\r\n" + poison, false},
	} {
		got := map[string]string{}
		for name, rt := range transports() {
			a := newRawArchive(t, func(conn, n int, line string) (string, bool) {
				if conn == 0 && n == 0 {
					return tc.first, tc.closeIt
				}
				return right, false
			})
			code, body, err := rawGet(rt, "GET", a.url()+"/first")
			first := "ok " + body
			if err != nil {
				first = "error"
			}
			_ = code
			code2, body2, err2 := rawGet(rt, "GET", a.url()+"/second")
			if err2 != nil || code2 != 200 || body2 != "right" {
				t.Errorf("%s/%s: second answer %d %q %v, want 200 \"right\"", tc.name, name, code2, body2, err2)
			}
			got[name] = first
			t.Logf("%s/%s: first %q (%v)", tc.name, name, first, err)
		}
		if got["fast"] != got["net/http"] {
			t.Errorf("%s: fast transport gave %q, net/http %q", tc.name, got["fast"], got["net/http"])
		}
	}
}

// An answer dripped a byte at a time, or never sent, is bounded by the
// request's context, headers and body alike.
func TestFastTransportSlowArchive(t *testing.T) {
	for _, tc := range []struct{ name, answer string }{
		{"never", ""},
		{"drip-header", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX: " + strings.Repeat("a", 200)},
		{"drip-body", "HTTP/1.1 200 OK\r\nContent-Length: 400\r\n\r\n" + strings.Repeat("a", 200)},
	} {
		for name, rt := range transports() {
			a := newRawArchive(t, func(conn, n int, line string) (string, bool) {
				// a byte every 20 ms
				return strings.Join(strings.Split(tc.answer, ""), "\x00"), false
			})
			ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			start := time.Now()
			req, _ := http.NewRequestWithContext(ctx, "GET", a.url()+"/x", nil)
			resp, err := rt.RoundTrip(req)
			if err == nil {
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
			}
			took := time.Since(start)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) || took > time.Second {
				t.Errorf("%s/%s: %v after %v, want the context's deadline after 200 ms", tc.name, name, err, took)
			}
			rt.(interface{ CloseIdleConnections() }).CloseIdleConnections()
		}
	}
}

// A URL without a host is an error (net/http's "no Host in request URL"),
// never a connection to port 80 or 443 of this machine.
func TestFastTransportNoHost(t *testing.T) {
	for name, rt := range transports() {
		for _, u := range []string{"http:///x", "https:///x", "http:/x"} {
			req, err := http.NewRequest("GET", u, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
			}
			if err == nil || !strings.Contains(err.Error(), "no Host in request URL") {
				t.Errorf("%s %s: %v, want no Host in request URL", name, u, err)
			}
		}
	}
}
