package h1serve

import (
	"bufio"
	"bytes"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// readHeadBytes runs the connection's scan and parse over b: the head's
// length and its parse, or the error.
func readHeadBytes(b []byte) (*head, int, error) {
	n, _, err := scanHead(b, 0)
	if err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return nil, 0, errIncomplete
	}
	if n > MaxHeadBytes {
		return nil, 0, errHeaderTooBig
	}
	h, err := parseHead(string(b[:n]))
	return h, n, err
}

// TestParseHeadRefuses checks that each request head RFC 9112 does not
// allow, or that could frame a body two ways, is refused with its status.
func TestParseHeadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, req string
		status    int
	}{
		{"obs-fold", "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n 2\r\n\r\n", 400},
		{"obs-fold tab", "GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\n\t2\r\n\r\n", 400},
		{"bare LF end", "GET / HTTP/1.1\nHost: a\n\n", 400},
		{"bare LF in head", "GET / HTTP/1.1\r\nHost: a\nX: 1\r\n\r\n", 400},
		{"bare CR", "GET / HTTP/1.1\r\nHost: a\rX: 1\r\n\r\n", 400},
		{"space before colon", "GET / HTTP/1.1\r\nHost : a\r\n\r\n", 400},
		{"bad name", "GET / HTTP/1.1\r\nHost: a\r\nX@Y: 1\r\n\r\n", 400},
		{"empty name", "GET / HTTP/1.1\r\nHost: a\r\n: 1\r\n\r\n", 400},
		{"NUL in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\x00b\r\n\r\n", 400},
		{"DEL in value", "GET / HTTP/1.1\r\nHost: a\r\nX: a\x7fb\r\n\r\n", 400},
		{"bad method", "G(T / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"space in target", "GET /a b HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"two spaces", "GET  / HTTP/1.1\r\nHost: a\r\n\r\n", 400},
		{"no version", "GET /\r\nHost: a\r\n\r\n", 400},
		{"lower version", "GET / http/1.1\r\nHost: a\r\n\r\n", 400},
		{"HTTP/2.0", "GET / HTTP/2.0\r\nHost: a\r\n\r\n", 505},
		{"HTTP/1.2", "GET / HTTP/1.2\r\nHost: a\r\n\r\n", 505},
		{"no Host", "GET / HTTP/1.1\r\nX: 1\r\n\r\n", 400},
		{"two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"bad Host", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
		{"CL and TE", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
		{"TE and CL", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 400},
		{"two CL", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n", 400},
		{"CL list", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n", 400},
		{"CL sign", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +5\r\n\r\n", 400},
		{"CL negative", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", 400},
		{"CL empty", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: \r\n\r\n", 400},
		{"CL hex", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0x5\r\n\r\n", 400},
		{"CL huge", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999\r\n\r\n", 400},
		{"TE gzip", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
		{"TE twice", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", 501},
		{"TE identity", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: identity\r\n\r\n", 501},
		{"TE on GET", "GET / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
		{"body on GET", "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n", 400},
		{"body on HEAD", "HEAD / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n", 400},
		{"body on OPTIONS", "OPTIONS / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\n", 400},
		{"CONNECT", "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", 405},
		{"Expect other", "GET / HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n", 417},
		{"too many headers", "GET / HTTP/1.1\r\nHost: a\r\n" + strings.Repeat("X: 1\r\n", MaxHeaders) + "\r\n", 431},
		{"long header line", "GET / HTTP/1.1\r\nHost: a\r\nX: " + strings.Repeat("a", MaxHeaderLine) + "\r\n\r\n", 431},
	} {
		_, _, err := readHeadBytes([]byte(tc.req))
		re, ok := err.(*RequestError)
		if !ok || re.Status != tc.status {
			t.Errorf("%s: %v, want a %d", tc.name, err, tc.status)
		}
	}
}

// TestParseHeadReads checks the fields of heads that are allowed.
func TestParseHeadReads(t *testing.T) {
	h, n, err := readHeadBytes([]byte("POST /timemap/link/http://example.com/?a=1 HTTP/1.1\r\nhost: example.org:8080\r\nContent-Length: 12\r\nAccept-Datetime:  Thu, 01 Mar 2005 12:00:00 GMT \r\nX-Two: 1\r\nx-two: 2\r\nConnection: keep-alive, close\r\n\r\nbody"))
	if err != nil {
		t.Fatal(err)
	}
	if n != 181-4 && n <= 0 {
		t.Errorf("head length %d", n)
	}
	if h.method != "POST" || h.target != "/timemap/link/http://example.com/?a=1" || h.minor != 1 || h.host != "example.org:8080" ||
		h.contentLength != 12 || h.chunked || !h.close {
		t.Errorf("head %+v", h)
	}
	if got := h.header.Get("Accept-Datetime"); got != "Thu, 01 Mar 2005 12:00:00 GMT" {
		t.Errorf("Accept-Datetime %q", got)
	}
	if got := h.header["X-Two"]; len(got) != 2 || got[0] != "1" || got[1] != "2" {
		t.Errorf("X-Two %q", got)
	}
	h, _, err = readHeadBytes([]byte("GET / HTTP/1.0\r\n\r\n"))
	if err != nil || h.minor != 0 || !h.close {
		t.Errorf("HTTP/1.0 without Host: %+v, %v", h, err)
	}
	h, _, err = readHeadBytes([]byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: Chunked\r\n\r\n"))
	if err != nil || !h.chunked || h.contentLength != -1 {
		t.Errorf("chunked: %+v, %v", h, err)
	}
	for _, target := range []string{"/a/b?c=d", "/a%20b", "/timemap/link/http://example.com/é", "*", "http://example.com/x?y", "/a?", "//x/y", "/a;b=c"} {
		u, err := parseURL(target, new(url.URL))
		if err != nil {
			t.Errorf("%q: %v", target, err)
			continue
		}
		want, err := url.ParseRequestURI(target)
		if err != nil {
			t.Errorf("%q: net/url: %v", target, err)
			continue
		}
		if *u != *want {
			t.Errorf("%q: %#v, want %#v", target, u, want)
		}
	}
}

// FuzzParseHead checks that the parser never panics, and that a head it
// takes is one net/http's ReadRequest takes too, with the same method,
// target, Host and body framing: nothing it reads can be read otherwise
// by a proxy in front of it that reads as net/http does.
func FuzzParseHead(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc",
		"POST /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n 2\r\n\r\n",
		"GET / HTTP/1.0\r\n\r\n",
		"GET http://a/b HTTP/1.1\r\nHost: b\r\n\r\n",
		"GET / HTTP/1.1\nHost: a\n\n",
		"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nContent-Length: 0\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := readHeadBytes(b)
		if err != nil {
			return
		}
		req, rerr := http.ReadRequest(bufio.NewReader(bytes.NewReader(b[:n])))
		if rerr != nil {
			t.Fatalf("taken here, refused by net/http (%v):\n%q", rerr, b[:n])
		}
		if req.Method != h.method || req.RequestURI != h.target {
			t.Fatalf("request line %s %s, net/http %s %s", h.method, h.target, req.Method, req.RequestURI)
		}
		host := h.host
		if h.url.Host != "" {
			host = h.url.Host
		}
		if len(req.Header["Host"]) > 1 || req.Host != host {
			t.Fatalf("Host %q, net/http %q", host, req.Host)
		}
		if *req.URL != *h.url {
			t.Fatalf("URL %#v, net/http %#v", h.url, req.URL)
		}
		chunked := len(req.TransferEncoding) > 0
		if chunked != h.chunked {
			t.Fatalf("chunked %v, net/http %v", h.chunked, req.TransferEncoding)
		}
		cl := h.contentLength
		if cl < 0 {
			cl = 0
		}
		if !chunked && req.ContentLength != cl {
			t.Fatalf("Content-Length %d, net/http %d", h.contentLength, req.ContentLength)
		}
	})
}
