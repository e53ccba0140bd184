package aggregator

import (
	"bufio"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// plainHeads are heads in the plain form and around it: every one is
// read by readPlainHead as http.ReadResponse reads it, or left to it.
var plainHeads = []string{
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
	"HTTP/1.1 200 OK\r\nContent-Type: application/link-format\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 404 Not Found\r\ncontent-length: 9\r\nX-Dup: a\r\nx-dup: b\r\n\r\nnot found",
	"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nLink:   <a>; rel=\"memento\"  \t\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX-Obs: caf\xc3\xa9\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX-Empty:\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok!",
	"HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 0002\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nTrailer: X\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nPragma: no-cache\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX: a\r\n folded\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\n X: a\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX : a\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nJunk\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX: a\x00b\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX: a\rb\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\nok",
	"HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n",
	"HTTP/1.1 304 Not Modified\r\n\r\n",
	"HTTP/1.1 200 OK\r\n\r\nto the end",
	"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1  200 OK\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 2000 OK\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
	"HTTP/1.1 302 Found\r\nLocation: /x\r\nVary: accept-datetime\r\nVary: accept-encoding\r\nContent-Length: 0\r\n\r\n",
	"HTTP/1.1 200 OK\r\nX-Long: " + strings.Repeat("a", 3000) + "\r\nContent-Length: 0\r\n\r\n",
}

// The plain heads are read as http.ReadResponse reads them (status,
// Status, Header, ContentLength, Close, body), for GET and HEAD; the
// others are left to it.
func TestPlainHeadMatchesReadResponse(t *testing.T) {
	plain := 0
	for _, head := range plainHeads {
		for _, m := range []string{http.MethodGet, http.MethodHead} {
			if comparePlainHead(t, head, m) {
				plain++
			}
		}
	}
	if plain < 20 {
		t.Errorf("%d heads read as plain, want at least 20", plain)
	}
}

func FuzzPlainHeadMatchesReadResponse(f *testing.F) {
	for _, h := range plainHeads {
		f.Add(h, false)
	}
	f.Fuzz(func(t *testing.T, head string, isHead bool) {
		m := http.MethodGet
		if isHead {
			m = http.MethodHead
		}
		comparePlainHead(t, head, m)
	})
}

// comparePlainHead reads raw with readPlainHead and, when it takes it,
// checks that http.ReadResponse reads the same; it reports whether
// readPlainHead took it.
func comparePlainHead(t *testing.T, raw, method string) bool {
	t.Helper()
	br := bufio.NewReaderSize(strings.NewReader(raw), 4096)
	br.Peek(1)
	before := br.Buffered()
	h, ok := readPlainHead(br, method)
	if !ok {
		if br.Buffered() != before {
			t.Fatalf("%q: refused head consumed %d bytes", raw, before-br.Buffered())
		}
		return false
	}
	req := &http.Request{Method: method}
	want, err := http.ReadResponse(bufio.NewReader(strings.NewReader(raw)), req)
	if err != nil {
		t.Fatalf("%q: plain head read, ReadResponse: %v", raw, err)
	}
	if want.StatusCode != h.status || want.Status != h.statusText || want.ContentLength != h.contentLength(method) ||
		want.Close || want.TransferEncoding != nil || want.Trailer != nil || want.ProtoMajor != 1 || want.ProtoMinor != 1 {
		t.Fatalf("%q %s: plain %d %q length %d, ReadResponse %d %q length %d close %v te %v",
			raw, method, h.status, h.statusText, h.contentLength(method), want.StatusCode, want.Status, want.ContentLength, want.Close, want.TransferEncoding)
	}
	got := h.header()
	if len(got) == 0 {
		got = http.Header{}
	}
	if !reflect.DeepEqual(map[string][]string(got), map[string][]string(want.Header)) {
		t.Fatalf("%q: plain header %q, ReadResponse %q", raw, got, want.Header)
	}
	if int64(h.bytes) != headerBytes(want.Header) {
		t.Fatalf("%q: plain header bytes %d, headerBytes %d", raw, h.bytes, headerBytes(want.Header))
	}
	for k, vs := range want.Header {
		if h.get(k) != vs[0] || !reflect.DeepEqual(h.values(strings.ToLower(k)), vs) {
			t.Fatalf("%q: plain get/values %q = %q %q, want %q", raw, k, h.get(k), h.values(k), vs)
		}
	}
	wantBody, wantErr := io.ReadAll(want.Body)
	var gotBody []byte
	var gotErr error
	if h.length > 0 && h.bodyAllowed(method) {
		gotBody, gotErr = io.ReadAll(&lengthBody{br: br, n: h.length})
	}
	if string(gotBody) != string(wantBody) || (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%q: plain body %q %v, ReadResponse %q %v", raw, gotBody, gotErr, wantBody, wantErr)
	}
	return true
}
