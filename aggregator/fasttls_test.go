package aggregator

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Over TLS, bytes an archive sends past an answer in the answer's own
// TLS record (held decrypted by the TLS connection, neither in the
// transport's buffer nor on the socket) are no answer to the next
// request either. The body is read as HTTPUpstream reads one with a
// Content-Length, into a buffer of its length, so the TLS connection
// keeps what follows it.
func TestFastTransportNoDesyncTLS(t *testing.T) {
	srv := httptest.NewUnstartedServer(nil)
	srv.StartTLS()
	cfg := srv.TLS.Clone()
	cfg.DynamicRecordSizingDisabled = true // 16 KiB records from the first
	clientCfg := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	srv.Close()
	// The first record holds the head and the body's start; the second
	// the body's last 5000 bytes (more than the transport's 4 KiB
	// buffer, read straight into the caller's) and the unasked answer.
	head := func(n int) string { return "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(n) + "\r\n\r\n" }
	n := 16384 - len(head(20000)) + 5000
	body := strings.Repeat("a", n)
	first := head(n) + body + poison
	for name, rt := range map[string]http.RoundTripper{
		"fast":     newFastTransport(&http.Transport{TLSClientConfig: clientCfg.Clone()}),
		"net/http": &http.Transport{TLSClientConfig: clientCfg.Clone()},
	} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		newRawArchiveOn(t, tls.NewListener(ln, cfg), func(conn, n int, line string) (string, bool) {
			if conn == 0 && n == 0 {
				return first, false
			}
			return "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nright", false
		})
		u := "https://" + ln.Addr().String()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", u+"/first", nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, resp.ContentLength)
		_, err = io.ReadFull(resp.Body, buf)
		if err == nil {
			_, err = resp.Body.Read(buf[:0:0]) // the end, as readBody sees it
			_, err = io.ReadAll(resp.Body)
		}
		resp.Body.Close()
		cancel()
		if err != nil || string(buf) != body {
			t.Fatalf("%s: first answer %.20q… %v", name, buf, err)
		}
		time.Sleep(20 * time.Millisecond)
		code, b, err := rawGet(rt, "GET", u+"/second")
		if err != nil || code != 200 || b != "right" {
			t.Errorf("%s: second answer %d %q %v, want 200 \"right\"", name, code, b, err)
		}
	}
}
