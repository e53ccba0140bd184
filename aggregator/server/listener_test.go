package server

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// serveOn runs s.Serve on a 127.0.0.1 port until the test ends and
// returns the address.
func serveOn(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// exchange sends the raw request head and body on a new connection and
// reads the answer.
func exchange(t *testing.T, addr, method, target string, hdr, body string) (*http.Response, []byte) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	_, _ = io.WriteString(c, method+" "+target+" HTTP/1.1\r\nHost: "+addr+"\r\n"+hdr+"\r\n"+body)
	res, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: method})
	if err != nil {
		t.Fatalf("%s %.60s: %v", method, target, err)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %.60s: body: %v", method, target, err)
	}
	return res, b
}

// TestStrictAnswersAsNetHTTP sends the same requests to the server on its
// strict listener and on net/http's: the status, headers (but Date) and
// body of every answer are the same, Content-Length and
// Transfer-Encoding included.
func TestStrictAnswersAsNetHTTP(t *testing.T) {
	addrs := map[string]string{}
	first := newTestServer(t, func(c *Config) { c.Workers, c.ProbeEvery, c.ScanEvery = 0, 0, 0 })
	for _, name := range []string{HTTPServerStrict, HTTPServerNetHTTP} {
		c := first.c // the same archive for both
		c.HTTPServer, c.DataDir = name, t.TempDir()
		s, err := New(t.Context(), &c)
		if err != nil {
			t.Fatal(err)
		}
		addrs[name] = serveOn(t, s)
	}
	long := url.PathEscape(strings.Repeat("é", 35_000))
	for _, rq := range []struct{ method, target, hdr, body string }{
		{"GET", "/timemap/link/" + held, "", ""},
		{"GET", "/timemap/json/" + held, "Accept-Encoding: gzip\r\n", ""},
		{"HEAD", "/timemap/link/" + held, "", ""},
		{"GET", "/timegate/" + held, "Accept-Datetime: Tue, 01 Mar 2005 12:00:00 GMT\r\n", ""},
		{"GET", "/memento/20050301/" + held, "", ""},
		{"OPTIONS", "/timemap/link/" + held, "Origin: http://a.example\r\nAccess-Control-Request-Method: GET\r\n", ""},
		{"OPTIONS", "/healthz", "", ""},
		{"OPTIONS", "*", "", ""},
		{"POST", "/timemap/link/" + held, "Content-Length: 5\r\n", "12345"},
		{"DELETE", "/timemap/link/" + held, "", ""},
		{"GET", "/healthz", "", ""},
		{"GET", "/nope", "", ""},
		{"GET", "/about", "", ""},
		{"GET", "/timemap/link/" + long, "", ""},
		{"GET", "/" + long, "", ""},
		{"GET", "http://example.org/timemap/link/" + held, "", ""},
		{"GET", "/timemap/link/" + held, "Connection: close\r\n", ""},
	} {
		var ref *http.Response
		var refBody []byte
		for _, name := range []string{HTTPServerNetHTTP, HTTPServerStrict} {
			res, body := exchange(t, addrs[name], rq.method, rq.target, rq.hdr, rq.body)
			res.Header.Del("Date")
			if ref == nil {
				ref, refBody = res, body
				continue
			}
			what := rq.method + " " + rq.target[:min(len(rq.target), 60)]
			if res.StatusCode != ref.StatusCode || string(body) != strings.ReplaceAll(string(refBody), addrs[HTTPServerNetHTTP], addrs[HTTPServerStrict]) {
				t.Errorf("%s: strict %d %.200q, net/http %d %.200q", what, res.StatusCode, body, ref.StatusCode, refBody)
			}
			if res.ContentLength != ref.ContentLength || !slices.Equal(res.TransferEncoding, ref.TransferEncoding) || res.Close != ref.Close {
				t.Errorf("%s: strict length %d %v close %v, net/http %d %v close %v", what, res.ContentLength, res.TransferEncoding, res.Close,
					ref.ContentLength, ref.TransferEncoding, ref.Close)
			}
			for k, v := range ref.Header {
				got := strings.ReplaceAll(strings.Join(res.Header[k], ", "), addrs[HTTPServerStrict], addrs[HTTPServerNetHTTP])
				if got != strings.Join(v, ", ") {
					t.Errorf("%s: %s: strict %q, net/http %q", what, k, got, v)
				}
			}
			for k := range res.Header {
				if _, ok := ref.Header[k]; !ok {
					t.Errorf("%s: strict sends %s: %q, net/http none", what, k, res.Header[k])
				}
			}
		}
	}
}

// TestStrictListenerRefusesSmuggling checks, through Serve, that the
// aggregator's listener refuses a request that frames its body two ways
// and closes the connection, answering nothing smuggled behind it.
func TestStrictListenerRefusesSmuggling(t *testing.T) {
	s := newTestServer(t, func(c *Config) { c.Workers, c.ProbeEvery, c.ScanEvery = 0, 0, 0 })
	addr := serveOn(t, s)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	_, _ = io.WriteString(c, "POST /timemap/link/"+held+" HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n")
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	if res.StatusCode != http.StatusBadRequest || !res.Close {
		t.Errorf("CL and TE: %d, close %v; want 400 and close", res.StatusCode, res.Close)
	}
	if _, err := http.ReadResponse(br, nil); !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("after the refusal: %v, want the connection closed", err)
	}
}

// TestOptionsAsteriskOnBothListeners: OPTIONS *, a request about the
// server itself (RFC 9110, 9.3.7), is answered 204 with Allow: GET, HEAD,
// POST, OPTIONS (the methods of the API) by the strict listener and by
// net/http's, not 404 as a path the server does not have.
func TestOptionsAsteriskOnBothListeners(t *testing.T) {
	first := newTestServer(t, func(c *Config) { c.Workers, c.ProbeEvery, c.ScanEvery = 0, 0, 0 })
	for _, name := range []string{HTTPServerStrict, HTTPServerNetHTTP} {
		c := first.c
		c.HTTPServer, c.DataDir = name, t.TempDir()
		s, err := New(t.Context(), &c)
		if err != nil {
			t.Fatal(err)
		}
		res, body := exchange(t, serveOn(t, s), "OPTIONS", "*", "", "")
		if res.StatusCode != http.StatusNoContent || res.Header.Get("Allow") != "GET, HEAD, POST, OPTIONS" || len(body) != 0 {
			t.Errorf("%s: OPTIONS *: %d, Allow %q, body %q; want 204, Allow GET, HEAD, POST, OPTIONS", name, res.StatusCode, res.Header.Get("Allow"), body)
		}
	}
}
