package aggregator

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/textproto"
	"strings"

	"golang.org/x/net/http/httpguts"
)

// plainHead is a response head in the one plain form the upstream
// transport reads itself (readPlainHead): "HTTP/1.1 DDD reason" with a
// status from 200 to 599, header lines ended by CR LF, each a token, a
// colon and a value of valid bytes, no line folded, at most one
// Content-Length of 1 to 18 digits, and no Transfer-Encoding, Trailer,
// Pragma or Connection naming close. In that form net/http's
// http.ReadResponse reads exactly the status, the header values (keys
// canonicalized, values trimmed of spaces and tabs), the length and the
// keep-alive this gives; every other head is left to it.
type plainHead struct {
	status int
	// statusText is the status line after "HTTP/1.1 " (resp.Status).
	statusText string
	// lines are the header lines, each "Key: value" after the status
	// line up to the blank line (one string for the head).
	lines string
	// length is the Content-Length, -1 when there is none.
	length int64
	// count is the number of header lines; bytes their size as
	// headerBytes counts it ("Name: value\r\n" per value, values trimmed).
	count, bytes int
}

// maxPlainDigits is the most digits of Content-Length of a plain head, 18
// digits (net/http reads up to 2^63-1).
const maxPlainDigits = 18

// readPlainHead reads a plain head, the answer to a request of method,
// from the bytes br has buffered, if they hold one whole: it consumes
// the head and returns it, or consumes nothing and returns false (a head
// in any other form, not whole in the buffer, or of an answer whose body
// ends only when the connection does, is for http.ReadResponse).
func readPlainHead(br *bufio.Reader, method string) (plainHead, bool) {
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, crlfcrlf)
	if end < 0 {
		return plainHead{}, false
	}
	h, ok := parsePlainHead(buf[:end+2])
	if !ok || h.length < 0 && h.bodyAllowed(method) {
		return plainHead{}, false
	}
	_, _ = br.Discard(end + 4)
	return h, true
}

// bodyAllowed reports whether the answer to method may have a body: not
// for HEAD, 204 or 304.
func (h *plainHead) bodyAllowed(method string) bool {
	return method != http.MethodHead && h.status != http.StatusNoContent && h.status != http.StatusNotModified
}

// contentLength is the answer's length as http.ReadResponse sets
// resp.ContentLength: the Content-Length (-1 without one) for HEAD, 0
// for 204 and 304.
func (h *plainHead) contentLength(method string) int64 {
	if method == http.MethodHead || h.bodyAllowed(method) {
		return h.length
	}
	return 0
}

var crlfcrlf = []byte("\r\n\r\n")

// parsePlainHead parses head, the status line and the header lines,
// each ended by CR LF (the blank line not included).
func parsePlainHead(head []byte) (plainHead, bool) {
	var h plainHead
	nl := bytes.Index(head, crlf)
	if nl < 0 {
		return h, false
	}
	line := head[:nl]
	// "HTTP/1.1 " + three digits + end or a space and the reason.
	if len(line) < 12 || string(line[:9]) != "HTTP/1.1 " || len(line) > 12 && line[12] != ' ' {
		return h, false
	}
	d0, d1, d2 := line[9], line[10], line[11]
	if d0 < '2' || d0 > '5' || d1 < '0' || d1 > '9' || d2 < '0' || d2 > '9' {
		return h, false
	}
	for _, c := range line[12:] {
		if c == '\r' || c == '\n' {
			return h, false
		}
	}
	h.status = int(d0-'0')*100 + int(d1-'0')*10 + int(d2-'0')
	h.length = -1
	rest := head[nl+2:]
	// One string holds the status text and the header lines.
	s := string(head[9:])
	h.statusText = s[:nl-9]
	h.lines = s[nl-9+2:]
	for len(rest) > 0 {
		nl := bytes.Index(rest, crlf)
		if nl <= 0 {
			return h, false
		}
		line := rest[:nl]
		rest = rest[nl+2:]
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return h, false // no key, or a folded line (it starts with a space)
		}
		key := line[:colon]
		for _, c := range key {
			if !httpguts.IsTokenRune(rune(c)) {
				return h, false
			}
		}
		v := line[colon+1:]
		for _, c := range v {
			if !validValueByte(c) {
				return h, false
			}
		}
		v = trimSpaceTab(v)
		h.count++
		h.bytes += len(key) + len(v) + 4
		switch {
		case asciiEqualFold(key, "Content-Length"):
			if h.length >= 0 || len(v) == 0 || len(v) > maxPlainDigits {
				return h, false
			}
			var n int64
			for _, c := range v {
				if c < '0' || c > '9' {
					return h, false
				}
				n = n*10 + int64(c-'0')
			}
			h.length = n
		case asciiEqualFold(key, "Transfer-Encoding"), asciiEqualFold(key, "Trailer"), asciiEqualFold(key, "Pragma"):
			return h, false
		case asciiEqualFold(key, "Connection"):
			if httpguts.HeaderValuesContainsToken([]string{string(v)}, "close") {
				return h, false
			}
		}
	}
	return h, true
}

var crlf = []byte("\r\n")

// validValueByte is textproto's test of a header value byte: HTAB, SP,
// visible ASCII or obs-text (0x80 and up).
func validValueByte(c byte) bool {
	return c == '\t' || c >= 0x20 && c != 0x7f
}

func trimSpaceTab(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// asciiEqualFold reports whether b is s, ASCII letters in any case.
func asciiEqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range len(b) {
		x, y := b[i], s[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// each calls f with every header line's key as sent and its trimmed
// value, in order, until f returns false.
func (h *plainHead) each(f func(key, value string) bool) {
	rest := h.lines
	for len(rest) > 0 {
		nl := strings.Index(rest, "\r\n")
		line := rest[:nl]
		rest = rest[nl+2:]
		colon := strings.IndexByte(line, ':')
		if !f(line[:colon], strings.Trim(line[colon+1:], " \t")) {
			return
		}
	}
}

// get is the first value of header key (canonical or not), "" when
// there is none, as http.Header.Get gives it.
func (h *plainHead) get(key string) string {
	v := ""
	h.each(func(k, val string) bool {
		if strings.EqualFold(k, key) {
			v = val
			return false
		}
		return true
	})
	return v
}

// values are the values of header key, as http.Header.Values gives them.
func (h *plainHead) values(key string) []string {
	var out []string
	h.each(func(k, val string) bool {
		if strings.EqualFold(k, key) {
			out = append(out, val)
		}
		return true
	})
	return out
}

// header is the head's http.Header as http.ReadResponse makes it: keys
// canonicalized, values in order.
func (h *plainHead) header() http.Header {
	m := make(http.Header, h.count)
	strs := make([]string, h.count)
	h.each(func(k, v string) bool {
		ck := textproto.CanonicalMIMEHeaderKey(k)
		if vv := m[ck]; vv == nil {
			strs[0] = v
			m[ck], strs = strs[:1:1], strs[1:]
		} else {
			m[ck] = append(vv, v)
		}
		return true
	})
	return m
}

// lengthBody is the body of a plain head's answer with a Content-Length
// of n > 0, read from br as net/http reads one: io.EOF with the last
// byte, io.ErrUnexpectedEOF when the connection ends first.
type lengthBody struct {
	br  *bufio.Reader
	n   int64
	eof bool
}

func (b *lengthBody) Read(p []byte) (int, error) {
	if b.eof {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.br.Read(p)
	b.n -= int64(n)
	if b.n == 0 {
		b.eof = true
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (b *lengthBody) Close() error { return nil }
