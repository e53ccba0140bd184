package h1serve

import (
	"bytes"
	"errors"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/mementokit/mementokit/internal/httptoken"
)

// Limits of a request head: the request line, each header line, the number
// of header fields and the bytes of the whole head. A request over
// MaxRequestLine is answered 414, one over the others 431; both close the
// connection.
const (
	MaxRequestLine = 256 << 10 // bytes, CRLF included: a URI-R of 70,000 UTF-8 bytes percent-encoded fits
	MaxHeaderLine  = 16 << 10  // bytes of one header field line, CRLF included
	MaxHeaders     = 100       // header field lines
	MaxHeadBytes   = 1 << 20   // bytes of the request line and all header lines (net/http's DefaultMaxHeaderBytes)
)

// RequestError is why a request head was refused: the status the server
// answers with (400, 414, 431, 501 or 505) and a short reason, which is
// the answer's body. The connection is closed after the answer.
type RequestError struct {
	Status int
	Reason string
}

// Error is the status and the reason, as in "400 obsolete line folding".
func (e *RequestError) Error() string {
	return strconv.Itoa(e.Status) + " " + e.Reason
}

func bad(reason string) *RequestError {
	return &RequestError{Status: http.StatusBadRequest, Reason: reason}
}

var (
	errIncomplete = errors.New("h1serve: incomplete request head")

	errLineEnd       = bad("line not ended by CRLF")
	errRequestLine   = bad("malformed request line")
	errMethod        = bad("invalid method")
	errTarget        = bad("invalid request target")
	errAsterisk      = bad("the asterisk-form target (*) is only for OPTIONS")
	errObsFold       = bad("obsolete line folding")
	errFieldName     = bad("invalid header field name")
	errFieldValue    = bad("invalid header field value")
	errHost          = bad("missing, repeated or invalid Host")
	errContentLength = bad("invalid or repeated Content-Length")
	errTEAndCL       = bad("Transfer-Encoding with Content-Length")
	errBodyNotAllow  = bad("a body or Transfer-Encoding on GET, HEAD or OPTIONS")
	errConnect       = &RequestError{Status: http.StatusMethodNotAllowed, Reason: "CONNECT is not served"}
	errVersion       = &RequestError{Status: http.StatusHTTPVersionNotSupported, Reason: "HTTP version not supported"}
	errTE            = &RequestError{Status: http.StatusNotImplemented, Reason: "Transfer-Encoding other than chunked"}
	errLineTooLong   = &RequestError{Status: http.StatusRequestURITooLong, Reason: "request line too long"}
	errHeaderTooBig  = &RequestError{Status: http.StatusRequestHeaderFieldsTooLarge, Reason: "request header fields too large"}
)

// head is a parsed request head. Every string is a substring of the
// head's bytes copied once (text), apart from canonicalized names.
type head struct {
	method, target string
	url            *url.URL
	st             *reqState // what the head was allocated in
	minor          int       // HTTP/1.minor
	header         http.Header
	host           string
	contentLength  int64 // -1: none
	chunked        bool
	close          bool // Connection: close, or HTTP/1.0 (one request per connection, keep-alive or not)
	expect         bool // Expect: 100-continue
}

// reqState holds what a request needs besides its *http.Request, its
// header map and its head's text, allocated together.
type reqState struct {
	h    head
	u    url.URL
	ctx  reqCtx
	vals [8]string // the header values of a head of up to 8 fields
}

// fieldValueTable marks the bytes allowed in a field value: VCHAR,
// obs-text, SP and HTAB.
var fieldValueTable = func() (t [256]bool) {
	for c := 0x21; c <= 0xff; c++ {
		t[c] = c != 0x7f
	}
	t[' '], t['\t'] = true, true
	return
}()

// targetTable marks the bytes allowed in a request target: visible ASCII
// (no space, no control, no DEL) and, as net/http takes them, obs-text.
var targetTable = func() (t [256]bool) {
	for c := 0x21; c <= 0xff; c++ {
		t[c] = c != 0x7f
	}
	return
}()

// plainPathTable marks the bytes url.URL keeps as they are in an escaped
// path, so that a target of only these bytes (no '%') parses to
// URL{Path: target} with no RawPath.
var plainPathTable = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "-._~$&+,/:;=@" {
		t[c] = true
	}
	return
}()

// parseHead parses the request head in b, which ends with the CRLF CRLF
// that ends the head (findHeadEnd). text is b as a string (one copy); every
// string of the result is a substring of it.
func parseHead(text string) (*head, error) {
	st := new(reqState) // the head, its URL and the request's context in one allocation
	h := &st.h
	h.contentLength = -1
	i := strings.Index(text, "\r\n")
	if i < 0 {
		return nil, errLineEnd
	}
	if i+2 > MaxRequestLine {
		return nil, errLineTooLong
	}
	if len(text) > MaxHeadBytes {
		return nil, errHeaderTooBig
	}
	if err := h.requestLine(text[:i]); err != nil {
		return nil, err
	}
	u, err := parseURL(h.target, &st.u)
	if err != nil {
		return nil, err
	}
	h.url, h.st = u, st
	rest := text[i+2:]
	n := strings.Count(rest, "\r\n") - 1 // the last CRLF ends the head
	if n > MaxHeaders {
		return nil, errHeaderTooBig
	}
	h.header = make(http.Header, n)
	vals := st.vals[:]
	if n > len(vals) {
		vals = make([]string, n)
	}
	nHost, nCL := 0, 0
	connClose := false
	for k := 0; ; k++ {
		j := strings.Index(rest, "\r\n")
		line := rest[:j]
		rest = rest[j+2:]
		if line == "" {
			break
		}
		if len(line)+2 > MaxHeaderLine {
			return nil, errHeaderTooBig
		}
		if line[0] == ' ' || line[0] == '\t' {
			return nil, errObsFold
		}
		colon := strings.IndexByte(line, ':')
		if colon <= 0 {
			return nil, errFieldName
		}
		name := line[:colon]
		for p := 0; p < len(name); p++ {
			if !httptoken.IsTchar(name[p]) {
				return nil, errFieldName // a space before the colon included
			}
		}
		v := line[colon+1:]
		for p := 0; p < len(v); p++ {
			if !fieldValueTable[v[p]] {
				return nil, errFieldValue
			}
		}
		v = strings.Trim(v, " \t")
		key := canonicalKey(name)
		switch key {
		case "Host":
			nHost++
			h.host = v
		case "Content-Length":
			nCL++
			if nCL > 1 {
				return nil, errContentLength
			}
			cl, ok := parseContentLength(v)
			if !ok {
				return nil, errContentLength
			}
			h.contentLength = cl
		case "Transfer-Encoding":
			if h.chunked || !strings.EqualFold(v, "chunked") {
				return nil, errTE
			}
			h.chunked = true
		case "Connection":
			for f := range strings.SplitSeq(v, ",") {
				f = strings.Trim(f, " \t")
				if strings.EqualFold(f, "close") {
					connClose = true
				}
			}
		case "Expect":
			if !strings.EqualFold(v, "100-continue") {
				return nil, &RequestError{Status: http.StatusExpectationFailed, Reason: "unsupported Expect"}
			}
			h.expect = true
		}
		vals[k] = v
		if old := h.header[key]; old != nil {
			h.header[key] = append(old, v)
		} else {
			h.header[key] = vals[k : k+1 : k+1]
		}
	}
	if h.minor == 1 && nHost != 1 || nHost > 1 || nHost == 1 && !httpguts.ValidHostHeader(h.host) {
		return nil, errHost
	}
	if h.chunked && h.contentLength >= 0 {
		return nil, errTEAndCL
	}
	switch h.method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		if h.chunked || h.contentLength > 0 {
			return nil, errBodyNotAllow
		}
	case http.MethodConnect:
		return nil, errConnect
	}
	// HTTP/1.0: one request per connection, its keep-alive not taken up
	// (its answers would need Content-Length and "Connection: keep-alive").
	h.close = connClose || h.minor == 0
	return h, nil
}

// requestLine parses "METHOD SP TARGET SP HTTP/1.x".
func (h *head) requestLine(line string) error {
	sp1 := strings.IndexByte(line, ' ')
	if sp1 <= 0 {
		return errRequestLine
	}
	h.method = line[:sp1]
	for p := 0; p < len(h.method); p++ {
		if !httptoken.IsTchar(h.method[p]) {
			return errMethod
		}
	}
	rest := line[sp1+1:]
	sp2 := strings.IndexByte(rest, ' ')
	if sp2 <= 0 {
		return errRequestLine
	}
	h.target, rest = rest[:sp2], rest[sp2+1:]
	for p := 0; p < len(h.target); p++ {
		if !targetTable[h.target[p]] {
			return errTarget
		}
	}
	switch rest {
	case "HTTP/1.1":
		h.minor = 1
	case "HTTP/1.0":
		h.minor = 0
	default:
		if len(rest) == 8 && strings.HasPrefix(rest, "HTTP/") && rest[6] == '.' &&
			rest[5] >= '0' && rest[5] <= '9' && rest[7] >= '0' && rest[7] <= '9' {
			return errVersion
		}
		return errRequestLine
	}
	if h.target == "*" && h.method != http.MethodOptions {
		return errAsterisk // RFC 9112, 3.2.4: a server-wide OPTIONS only
	}
	return nil
}

// parseContentLength reads 1*DIGIT (at most 18 digits, no sign, no
// list).
func parseContentLength(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for p := 0; p < len(v); p++ {
		c := v[p]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// canonicalKey is textproto's canonical form of a valid field name,
// without an allocation for the names requests usually carry.
func canonicalKey(name string) string {
	switch name {
	case "Host", "host":
		return "Host"
	case "User-Agent", "user-agent":
		return "User-Agent"
	case "Accept", "accept":
		return "Accept"
	case "Accept-Encoding", "accept-encoding":
		return "Accept-Encoding"
	case "Accept-Datetime", "accept-datetime":
		return "Accept-Datetime"
	case "Accept-Language", "accept-language":
		return "Accept-Language"
	case "Connection", "connection":
		return "Connection"
	case "Content-Length", "content-length":
		return "Content-Length"
	case "Content-Type", "content-type":
		return "Content-Type"
	case "Transfer-Encoding", "transfer-encoding":
		return "Transfer-Encoding"
	case "Prefer", "prefer":
		return "Prefer"
	case "Cache-Control", "cache-control":
		return "Cache-Control"
	case "Expect", "expect":
		return "Expect"
	case "Origin", "origin":
		return "Origin"
	case "Referer", "referer":
		return "Referer"
	case "Cookie", "cookie":
		return "Cookie"
	}
	return textproto.CanonicalMIMEHeaderKey(name)
}

// parseURL is url.ParseRequestURI(target), without the parse for an
// origin-form target of bytes url.URL keeps as they are (the usual
// request): URL{Path, RawQuery}.
func parseURL(target string, u *url.URL) (*url.URL, error) {
	if target == "" {
		return nil, errTarget
	}
	if target[0] == '/' {
		path, query, hasQuery := strings.Cut(target, "?")
		plain := true
		for p := 0; p < len(path); p++ {
			if !plainPathTable[path[p]] {
				plain = false
				break
			}
		}
		if plain && (!hasQuery || !strings.Contains(query, "#")) && !strings.HasPrefix(path, "//") {
			*u = url.URL{Path: path, RawQuery: query, ForceQuery: hasQuery && query == ""}
			return u, nil
		}
	}
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil, errTarget
	}
	return u, nil
}

// findHeadEnd returns the length of the request head at the start of b
// (through its CRLF CRLF), or 0 if b holds no whole head yet. It refuses
// a bare CR or LF, and a request line or head over its limit.
func findHeadEnd(b []byte, lineStart int) (int, error) {
	for {
		i := bytes.IndexByte(b[lineStart:], '\n')
		if i < 0 {
			if bytes.IndexByte(b[lineStart:], '\r') >= 0 && b[len(b)-1] != '\r' {
				return 0, errLineEnd // a CR not followed by LF
			}
			return 0, nil
		}
		end := lineStart + i
		if end == 0 || b[end-1] != '\r' {
			return 0, errLineEnd
		}
		if bytes.IndexByte(b[lineStart:end-1], '\r') >= 0 {
			return 0, errLineEnd
		}
		if end+1-lineStart == 2 && lineStart > 0 {
			return end + 1, nil
		}
		lineStart = end + 1
	}
}
