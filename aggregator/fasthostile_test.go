package aggregator

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// rawArchive is an archive on 127.0.0.1 that answers each request with
// the bytes answer returns for it (the parts between NUL bytes are sent
// 20 ms apart; conn: the connection's number from 0,
// n: the request's number on it, line: its request line); it reads
// request headers up to their blank line and closes a connection when
// answer says so.
type rawArchive struct {
	ln    net.Listener
	mu    sync.Mutex
	conns int
	heads []string // request line and headers of each request
	wg    sync.WaitGroup
}

func newRawArchive(t *testing.T, answer func(conn, n int, line string) (string, bool)) *rawArchive {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return newRawArchiveOn(t, ln, answer)
}

// newRawArchiveOn is newRawArchive on the listener ln (TLS, say).
func newRawArchiveOn(t *testing.T, ln net.Listener, answer func(conn, n int, line string) (string, bool)) *rawArchive {
	a := &rawArchive{ln: ln}
	var open []net.Conn
	t.Cleanup(func() {
		ln.Close()
		a.mu.Lock()
		for _, c := range open {
			c.Close()
		}
		a.mu.Unlock()
		a.wg.Wait()
	})
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.mu.Lock()
			cn := a.conns
			a.conns++
			open = append(open, c)
			a.mu.Unlock()
			a.wg.Add(1)
			go func() {
				defer a.wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				br := bufio.NewReader(c)
				for n := 0; ; n++ {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					head := line
					for {
						h, err := br.ReadString('\n')
						if err != nil {
							return
						}
						if h == "\r\n" || h == "\n" {
							break
						}
						head += h
					}
					a.mu.Lock()
					a.heads = append(a.heads, head)
					a.mu.Unlock()
					out, closeIt := answer(cn, n, line)
					for i, part := range strings.Split(out, "\x00") {
						if i > 0 {
							time.Sleep(20 * time.Millisecond)
						}
						if _, err := io.WriteString(c, part); err != nil {
							return
						}
					}
					if closeIt {
						return
					}
				}
			}()
		}
	}()
	return a
}

func (a *rawArchive) url() string { return "http://" + a.ln.Addr().String() }

// transports is the fast transport and net/http's, each over a fresh
// *http.Transport.
func transports() map[string]http.RoundTripper {
	return map[string]http.RoundTripper{
		"fast":     newFastTransport(&http.Transport{}),
		"net/http": &http.Transport{},
	}
}

func rawGet(rt http.RoundTripper, method, u string) (int, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

const poison = "HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nPOISON"

// Bytes an archive sends past the end of an answer (more than its
// Content-Length, a body on a HEAD, 204 or 304 answer, a second answer
// sent unasked, at once or while the connection is idle) are never read
// as the answer of the next request on that connection.
func TestFastTransportNoDesync(t *testing.T) {
	for _, tc := range []struct {
		name   string
		method string // of the first request
		first  string // its answer, with the bytes past it
		later  string // sent after the first answer, while idle
	}{
		{name: "past-content-length", method: "GET", first: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" + poison},
		{name: "head-with-body", method: "HEAD", first: "HTTP/1.1 200 OK\r\nContent-Length: 40\r\n\r\n" + poison},
		{name: "204-with-body", method: "GET", first: "HTTP/1.1 204 No Content\r\n\r\n" + poison},
		{name: "304-with-body", method: "GET", first: "HTTP/1.1 304 Not Modified\r\n\r\n" + poison},
		{name: "chunked-then-more", method: "GET", first: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" + poison},
		{name: "unasked-while-idle", method: "GET", first: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", later: poison},
	} {
		for name, rt := range transports() {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				a := newRawArchive(t, func(conn, n int, line string) (string, bool) {
					if conn == 0 && n == 0 {
						return tc.first + "\x00" + tc.later, false
					}
					return "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nright", false
				})
				if _, _, err := rawGet(rt, tc.method, a.url()+"/first"); err != nil {
					t.Fatal(err)
				}
				if tc.later != "" {
					time.Sleep(50 * time.Millisecond)
				}
				time.Sleep(20 * time.Millisecond)
				code, body, err := rawGet(rt, "GET", a.url()+"/second")
				if err != nil {
					t.Fatal(err)
				}
				if body == "POISON" || code != 200 || body != "right" {
					t.Errorf("second answer %d %q, want 200 \"right\"", code, body)
				}
			})
		}
	}
}

// A request line or Host header that would carry a line break, a space
// or a zone identifier is not written as it is: net/http's checks apply
// (an error for a control byte in the URL; an invalid Host sent empty),
// so no header and no second request can be injected.
func TestFastTransportRequestInjection(t *testing.T) {
	a := newRawArchive(t, func(conn, n int, line string) (string, bool) {
		return "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false
	})
	host := a.ln.Addr().String()
	for _, tc := range []struct {
		name string
		set  func(r *http.Request)
	}{
		{"opaque-crlf", func(r *http.Request) { r.URL.Opaque = "/a\r\nX-Injected: 1\r\n\r\nGET /b" }},
		{"rawpath-crlf", func(r *http.Request) { r.URL.Path = "/a\r\nX-Injected: 1"; r.URL.RawPath = "/a\r\nX-Injected: 1" }},
		{"rawquery-crlf", func(r *http.Request) { r.URL.RawQuery = "q=1 HTTP/1.1\r\nX-Injected: 1" }},
		{"host-crlf", func(r *http.Request) { r.Host = host + "\r\nX-Injected: 1" }},
		{"host-space", func(r *http.Request) { r.Host = host + " X-Injected: 1" }},
		{"host-zone", func(r *http.Request) { r.Host = "[fe80::1%25eth0]:80" }},
	} {
		for name, rt := range transports() {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				a.mu.Lock()
				a.heads = nil
				a.mu.Unlock()
				req, err := http.NewRequest("GET", a.url()+"/x", nil)
				if err != nil {
					t.Fatal(err)
				}
				tc.set(req)
				resp, err := rt.RoundTrip(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				time.Sleep(10 * time.Millisecond)
				a.mu.Lock()
				heads := a.heads
				a.mu.Unlock()
				for _, h := range heads {
					if strings.Contains(h, "\nX-Injected") || strings.Contains(h, " X-Injected") || strings.Contains(h, "%25eth0") {
						t.Errorf("request sent as %q", h)
					}
				}
				if len(heads) > 1 {
					t.Errorf("%d requests sent, want at most 1: %q", len(heads), heads)
				}
				t.Logf("err %v, sent %q", err, heads)
			})
		}
	}
}
