package aggregator

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/gzip"
	"golang.org/x/net/http/httpguts"
)

// fastTransport is the http.RoundTripper HTTPUpstream sends its requests
// through in place of an *http.Transport (next): HTTP/1.1 over kept
// connections, with no goroutine of its own. net/http's Transport runs a
// read loop and a write loop per connection and hands every request and
// response between them and the caller (three goroutine wake-ups and
// their selects per request); here the caller's goroutine writes the
// request and reads the answer on the connection itself, with net/http's
// own response reader (http.ReadResponse), so the *http.Response,
// its Header and its Body are what net/http gives.
//
// It mirrors next's settings: DialContext (or Dial), TLSClientConfig and
// TLSHandshakeTimeout, DisableKeepAlives, DisableCompression (else it
// asks for gzip and decodes it, as net/http does), MaxIdleConnsPerHost,
// IdleConnTimeout, MaxResponseHeaderBytes, ReadBufferSize and
// WriteBufferSize. Requests it does not take go to next as they are:
// anything but a GET or HEAD without a body; a URL without a host or with user
// information or a host that is not ASCII; a Host header net/http would
// clean (not valid, or with a zone identifier); a request target with a
// control byte or a space; a request that next's Proxy
// sends through a proxy; https when next dials TLS itself
// (DialTLSContext, DialTLS); and every request when next sets
// ResponseHeaderTimeout or MaxConnsPerHost. It speaks HTTP/1.1 only
// (ALPN "http/1.1" over TLS), where net/http may use HTTP/2 with an https
// archive.
//
// A request's context bounds it whole, the body included: when it ends,
// the connection's deadline is set to the past, the blocked read or write
// returns, the context's error is returned and the connection is closed.
// A connection goes back to the idle pool when its response body has been
// read to its end (EOF), neither side asked to close it and no byte past
// the answer was read; a body closed before its end closes the
// connection. An idle connection is taken for a request only when
// nothing waits to be read on it and its archive has not closed it (a
// look at the socket, on unix; over TLS also at what the TLS connection
// holds decrypted), so bytes sent unasked are never read as
// the next request's answer. A request on a kept connection
// that fails before any byte of the answer arrived (the archive closed
// the idle connection) is sent once more on a new connection, as net/http
// does for these requests.
type fastTransport struct {
	next        *http.Transport
	dial        func(ctx context.Context, network, addr string) (net.Conn, error)
	maxIdle     int           // idle connections kept per host
	idleFor     time.Duration // an idle connection is closed after this long
	maxHeader   int64         // response header bytes read at most
	readSize    int           // bufio sizes
	writeSize   int
	gzip        bool // ask for gzip and decode it
	keepAlive   bool
	forceFallbk bool // every request goes to next

	// proxyFromEnv is true when next.Proxy is http.ProxyFromEnvironment:
	// its answers are kept in proxyOf.
	proxyFromEnv bool
	proxyMu      sync.RWMutex
	proxyOf      map[proxyKey]bool

	mu    sync.Mutex
	idle  map[string]*idleConns // "scheme://host:port" → idle connections
	sweep *time.Timer           // closes connections idle for idleFor; nil when none is pending
}

// newFastTransport returns the goroutine-free transport with next's
// settings.
func newFastTransport(next *http.Transport) *fastTransport {
	t := &fastTransport{next: next, maxIdle: next.MaxIdleConnsPerHost, idleFor: next.IdleConnTimeout,
		maxHeader: next.MaxResponseHeaderBytes, readSize: next.ReadBufferSize, writeSize: next.WriteBufferSize,
		gzip: !next.DisableCompression, keepAlive: !next.DisableKeepAlives,
		forceFallbk: next.ResponseHeaderTimeout > 0 || next.MaxConnsPerHost > 0,
		idle:        map[string]*idleConns{}, proxyOf: map[proxyKey]bool{}}
	if next.Proxy != nil {
		t.proxyFromEnv = reflect.ValueOf(next.Proxy).Pointer() == reflect.ValueOf(http.ProxyFromEnvironment).Pointer()
	}
	if t.maxIdle == 0 {
		t.maxIdle = http.DefaultMaxIdleConnsPerHost
	}
	if t.maxHeader <= 0 {
		t.maxHeader = 10 << 20 // net/http's default for responses
	}
	if t.readSize <= 0 {
		t.readSize = 4 << 10
	}
	if t.writeSize <= 0 {
		t.writeSize = 4 << 10
	}
	switch {
	case next.DialContext != nil:
		t.dial = next.DialContext
	case next.Dial != nil: //nolint:staticcheck // mirrored as net/http does
		d := next.Dial //nolint:staticcheck
		t.dial = func(_ context.Context, network, addr string) (net.Conn, error) { return d(network, addr) }
	default:
		t.dial = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	}
	return t
}

// idleConns are the idle connections of one host, newest last.
type idleConns struct{ conns []*fastConn }

// fastConn is a kept connection with its buffers.
type fastConn struct {
	conn   net.Conn
	lim    *readLimit
	br     *bufio.Reader
	bw     *bufio.Writer
	key    string
	idleAt time.Time
	peek   *idlePeek
	// cancel is expire, made once: what a request's context calls when
	// it ends.
	cancel func()
}

// expire sets the connection's deadline to the past, so that a blocked
// read or write returns at once.
func (c *fastConn) expire() { _ = c.conn.SetDeadline(aLongTimeAgo) }

// readLimit is the reader under a connection's bufio.Reader: it counts
// the bytes read and refuses to read past n (the header cap while the
// headers are read).
type readLimit struct {
	c    net.Conn
	n    int64
	read int64
}

func (l *readLimit) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, errHeaderCap
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.c.Read(p)
	l.n -= int64(n)
	l.read += int64(n)
	return n, err
}

var (
	errHeaderCap = errors.New("read limit exhausted")
	// aLongTimeAgo is the deadline that makes a blocked read or write
	// return at once.
	aLongTimeAgo = time.Unix(1, 0)
)

// takes reports whether t sends req itself (else next does).
func (t *fastTransport) takes(req *http.Request) (bool, error) {
	if req.Method != http.MethodGet && req.Method != http.MethodHead ||
		req.Body != nil && req.Body != http.NoBody || req.ContentLength != 0 || req.Close ||
		req.URL == nil || len(req.Trailer) > 0 {
		return false, nil
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	return t.takesURL(req.URL, host), nil
}

// takesURL reports whether t sends a GET or HEAD without a body to u
// with the Host header host itself (else next does).
func (t *fastTransport) takesURL(u *url.URL, host string) bool {
	if t.forceFallbk || u.Host == "" || u.User != nil {
		return false
	}
	switch u.Scheme {
	case "http":
	case "https":
		if t.next.DialTLSContext != nil || t.next.DialTLS != nil { //nolint:staticcheck
			return false
		}
	default:
		return false
	}
	if !isASCII(u.Host) || !isASCII(host) {
		return false
	}
	// A Host header next would clean (an invalid one is sent empty, a
	// zone identifier removed) is left to next, so that no header is
	// written that net/http would not write.
	if !httpguts.ValidHostHeader(host) || strings.IndexByte(host, '%') >= 0 {
		return false
	}
	if t.next.Proxy != nil {
		return !t.proxied(u)
	}
	return true
}

// proxied reports whether next's Proxy sends a request to u through a
// proxy (or fails on it: next then reports the error). With
// http.ProxyFromEnvironment, whose answer depends on the URL's scheme
// and host only (the environment is read once), the answer is kept per
// scheme and host.
func (t *fastTransport) proxied(u *url.URL) bool {
	fromEnv := t.proxyFromEnv
	if fromEnv {
		t.proxyMu.RLock()
		p, ok := t.proxyOf[proxyKey{u.Scheme, u.Host}]
		t.proxyMu.RUnlock()
		if ok {
			return p
		}
	}
	p, err := t.next.Proxy(&http.Request{Method: http.MethodGet, URL: u, Host: u.Host, Header: http.Header{}})
	proxied := err != nil || p != nil
	if fromEnv {
		t.proxyMu.Lock()
		if len(t.proxyOf) < 1024 {
			t.proxyOf[proxyKey{u.Scheme, u.Host}] = proxied
		}
		t.proxyMu.Unlock()
	}
	return proxied
}

// proxyKey is the scheme and host a Proxy answer is kept for.
type proxyKey struct{ scheme, host string }

// RoundTrip implements http.RoundTripper.
func (t *fastTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if ok, _ := t.takes(req); !ok {
		return t.next.RoundTrip(req)
	}
	for k, vs := range req.Header {
		if !httpguts.ValidHeaderFieldName(k) {
			return nil, fmt.Errorf("net/http: invalid header field name %q", k)
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return nil, fmt.Errorf("net/http: invalid header field value for %q", k)
			}
		}
	}
	// A request target with a control byte or a space (a URL made by
	// hand, not by url.Parse) is left to next, which refuses the one and
	// writes the other as it is: no line break reaches the request line.
	ruri := req.URL.RequestURI()
	if !cleanTarget(ruri) {
		return t.next.RoundTrip(req)
	}
	host := req.Host
	if host == "" {
		host = req.URL.Host
	}
	fr, err := t.do(req.Context(), req.URL, &fastReq{method: req.Method, ruri: ruri, host: host, req: req})
	if err != nil {
		return nil, err
	}
	return fr.response(req), nil
}

// cleanTarget reports whether the request target ruri has no control
// byte and no space.
func cleanTarget(ruri string) bool {
	for i := 0; i < len(ruri); i++ {
		if b := ruri[i]; b <= ' ' || b == 0x7f {
			return false
		}
	}
	return true
}

// fastReq is the request exchange writes: its request line's method and
// target, its Host header, and either the headers of req (RoundTrip) or
// ua and extra (the upstream's own requests: a valid User-Agent value
// and further header lines, each ended by CR LF, in the order
// http.Header.Write sorts them).
type fastReq struct {
	method, ruri, host string
	req                *http.Request
	ua, extra          string
}

// header is the value of the request's header key ("" when unset).
func (r *fastReq) header(key string) string {
	if r.req != nil {
		return r.req.Header.Get(key)
	}
	return ""
}

// do sends r to the host of u on a kept connection or a new one, and
// reads the answer's head.
func (t *fastTransport) do(ctx context.Context, u *url.URL, r *fastReq) (*fastResp, error) {
	// The pool's key, "scheme://host:port", is built in a stack buffer
	// (a map look-up of string(key) does not allocate).
	var buf [128]byte
	key := append(append(buf[:0], u.Scheme...), "://"...)
	key = append(key, u.Host...)
	if u.Port() == "" {
		if key[len(key)-1] == ':' { // "host:" is host on the default port
			key = key[:len(key)-1]
		}
		key = append(append(key, ':'), defaultPort(u.Scheme)...)
	}
	addr := key[len(u.Scheme)+3:]
	trace := httptrace.ContextClientTrace(ctx)
	for attempt := 0; ; attempt++ {
		if trace != nil && trace.GetConn != nil {
			trace.GetConn(string(addr))
		}
		c, reused := t.getIdle(key)
		if trace != nil && trace.GotConn != nil && c != nil {
			trace.GotConn(httptrace.GotConnInfo{Conn: c.conn, Reused: true, WasIdle: true, IdleTime: time.Since(c.idleAt)})
		}
		if c == nil {
			var err error
			if c, err = t.dialConn(ctx, u.Scheme, u.Hostname(), string(addr), string(key)); err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				return nil, err
			}
			if trace != nil && trace.GotConn != nil {
				trace.GotConn(httptrace.GotConnInfo{Conn: c.conn})
			}
		}
		fr, retry, err := t.exchange(ctx, trace, c, r)
		if err == nil {
			return fr, nil
		}
		_ = c.conn.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if reused && retry && attempt == 0 {
			continue // the archive closed the kept connection: once more on a new one
		}
		return nil, err
	}
}

// fastResp is an answer's head and body as exchange read them: a plain
// head read by readPlainHead, or net/http's *http.Response (resp) for
// every other.
type fastResp struct {
	status int
	// length is resp.ContentLength as net/http sets it (-1 once a gzip
	// body is decoded).
	length int64
	plain  plainHead
	resp   *http.Response
	body   io.ReadCloser
	// gunzip is true when body decodes the gzip the transport asked for
	// (Content-Encoding and Content-Length are then left out).
	gunzip bool
}

// get is the first value of header key, as http.Header.Get.
func (f *fastResp) get(key string) string {
	if f.resp != nil {
		return f.resp.Header.Get(key)
	}
	if f.gunzip && (strings.EqualFold(key, "Content-Encoding") || strings.EqualFold(key, "Content-Length")) {
		return ""
	}
	return f.plain.get(key)
}

// values are the values of header key, as http.Header.Values.
func (f *fastResp) values(key string) []string {
	if f.resp != nil {
		return f.resp.Header.Values(key)
	}
	if f.gunzip && (strings.EqualFold(key, "Content-Encoding") || strings.EqualFold(key, "Content-Length")) {
		return nil
	}
	return f.plain.values(key)
}

// headerBytes is headerBytes of the answer's http.Header.
func (f *fastResp) headerBytes() int64 {
	if f.resp != nil {
		return headerBytes(f.resp.Header)
	}
	n := int64(f.plain.bytes)
	if f.gunzip {
		f.plain.each(func(k, v string) bool {
			if strings.EqualFold(k, "Content-Encoding") || strings.EqualFold(k, "Content-Length") {
				n -= int64(len(k) + len(v) + 4)
			}
			return true
		})
	}
	return n
}

// response is f as the *http.Response net/http's Transport gives for req.
func (f *fastResp) response(req *http.Request) *http.Response {
	resp := f.resp
	if resp == nil {
		resp = &http.Response{Status: f.plain.statusText, StatusCode: f.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: f.plain.header(), ContentLength: f.length, Request: req}
		if f.gunzip {
			resp.Header.Del("Content-Encoding")
			resp.Header.Del("Content-Length")
			resp.Uncompressed = true
		}
	}
	resp.Body = f.body
	return resp
}

// exchange writes r on c and reads the answer's head. retry is true when
// nothing of an answer came.
func (t *fastTransport) exchange(ctx context.Context, trace *httptrace.ClientTrace, c *fastConn, r *fastReq) (fr *fastResp, retry bool, err error) {
	stop := context.AfterFunc(ctx, c.cancel)
	defer func() {
		if err != nil {
			stop()
		}
	}()
	bw := c.bw
	bw.WriteString(r.method)
	bw.WriteByte(' ')
	bw.WriteString(r.ruri)
	bw.WriteString(" HTTP/1.1\r\nHost: ")
	bw.WriteString(r.host)
	bw.WriteString("\r\n")
	if req := r.req; req != nil {
		ua := "Go-http-client/1.1"
		if v, ok := req.Header["User-Agent"]; ok {
			ua = ""
			if len(v) > 0 {
				ua = v[0]
			}
		}
		if ua != "" {
			bw.WriteString("User-Agent: ")
			bw.WriteString(headerValue(ua))
			bw.WriteString("\r\n")
		}
		if err := req.Header.WriteSubset(bw, reqExclude); err != nil {
			return nil, true, err
		}
	} else {
		bw.WriteString("User-Agent: ")
		bw.WriteString(r.ua)
		bw.WriteString("\r\n")
		bw.WriteString(r.extra)
	}
	if !t.keepAlive {
		bw.WriteString("Connection: close\r\n")
	}
	asked := false
	if t.gzip && r.method != http.MethodHead && r.header("Accept-Encoding") == "" && r.header("Range") == "" {
		bw.WriteString("Accept-Encoding: gzip\r\n")
		asked = true
	}
	bw.WriteString("\r\n")
	if trace != nil && trace.WroteHeaders != nil {
		trace.WroteHeaders()
	}
	err = bw.Flush()
	if trace != nil && trace.WroteRequest != nil {
		trace.WroteRequest(httptrace.WroteRequestInfo{Err: err})
	}
	if err != nil {
		return nil, true, err
	}
	c.lim.n, c.lim.read = t.maxHeader, 0
	if _, err := c.br.Peek(1); err != nil {
		return nil, c.lim.read == 0, err
	}
	if trace != nil && trace.GotFirstResponseByte != nil {
		trace.GotFirstResponseByte()
	}
	// The answer, its body and the reader of its length in one allocation.
	all := &struct {
		fastResp
		fastBody
		lengthBody
	}{}
	fr = &all.fastResp
	var rc io.ReadCloser
	keep := t.keepAlive
	if h, ok := readPlainHead(c.br, r.method); ok {
		fr.plain, fr.status, fr.length = h, h.status, h.contentLength(r.method)
		rc = http.NoBody
		if h.length > 0 && h.bodyAllowed(r.method) {
			all.lengthBody = lengthBody{br: c.br, n: h.length}
			rc = &all.lengthBody
		}
	} else {
		req := r.req
		if req == nil {
			req = &http.Request{Method: r.method}
		}
		// 1xx answers before the final one are skipped as net/http skips
		// them: their headers and the final one's count against the cap
		// together (unless a trace's Got1xxResponse took them).
		var resp *http.Response
		for {
			resp, err = http.ReadResponse(c.br, req)
			if err != nil {
				if c.lim.n <= 0 {
					return nil, false, fmt.Errorf("net/http: server response headers exceeded %d bytes; aborted", t.maxHeader)
				}
				return nil, c.lim.read == 0, err
			}
			if resp.StatusCode < 100 || resp.StatusCode > 199 || resp.StatusCode == http.StatusSwitchingProtocols {
				break
			}
			if trace != nil && trace.Got1xxResponse != nil {
				if err := trace.Got1xxResponse(resp.StatusCode, textproto.MIMEHeader(resp.Header)); err != nil {
					return nil, false, err
				}
				c.lim.n = t.maxHeader
			}
		}
		if r.req == nil {
			resp.Request = nil
		}
		fr.resp, fr.status, fr.length = resp, resp.StatusCode, resp.ContentLength
		keep = keep && !resp.Close && resp.StatusCode != http.StatusSwitchingProtocols
		rc = resp.Body
	}
	c.lim.n = math.MaxInt64
	b := &all.fastBody
	*b = fastBody{rc: rc, t: t, c: c, stop: stop, keep: keep, ctx: ctx}
	if rc == http.NoBody {
		b.finish(true)
		fr.body = http.NoBody
		return fr, false, nil
	}
	fr.body = b
	if asked && strings.EqualFold(fr.get("Content-Encoding"), "gzip") {
		if fr.resp != nil {
			fr.resp.Header.Del("Content-Encoding")
			fr.resp.Header.Del("Content-Length")
			fr.resp.ContentLength = -1
			fr.resp.Uncompressed = true
		}
		fr.gunzip, fr.length = true, -1
		fr.body = &gzipBody{raw: b}
	}
	return fr, false, nil
}

// reqExclude are the request headers exchange writes itself.
var reqExclude = map[string]bool{"Host": true, "User-Agent": true, "Content-Length": true, "Transfer-Encoding": true, "Trailer": true, "Connection": true}

// headerValue is v with line breaks turned into spaces, as
// http.Header.Write sends a value.
func headerValue(v string) string {
	if strings.ContainsAny(v, "\r\n") {
		return strings.NewReplacer("\r", " ", "\n", " ").Replace(v)
	}
	return v
}

// dialConn opens a connection to addr (TLS for https).
func (t *fastTransport) dialConn(ctx context.Context, scheme, host, addr, key string) (*fastConn, error) {
	conn, err := t.dial(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if scheme == "https" {
		var cfg *tls.Config
		if t.next.TLSClientConfig != nil {
			cfg = t.next.TLSClientConfig.Clone()
		} else {
			cfg = &tls.Config{}
		}
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		cfg.NextProtos = []string{"http/1.1"}
		tc := tls.Client(conn, cfg)
		hctx := ctx
		if d := t.next.TLSHandshakeTimeout; d > 0 {
			var cancel context.CancelFunc
			hctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}
		if err := tc.HandshakeContext(hctx); err != nil {
			_ = conn.Close()
			if hctx.Err() != nil && ctx.Err() == nil {
				return nil, errors.New("net/http: TLS handshake timeout")
			}
			return nil, err
		}
		conn = tc
	}
	lim := &readLimit{c: conn, n: math.MaxInt64}
	c := &fastConn{conn: conn, lim: lim, br: bufio.NewReaderSize(lim, t.readSize), bw: bufio.NewWriterSize(conn, t.writeSize), key: key, peek: newIdlePeek(conn)}
	c.cancel = c.expire
	return c, nil
}

// getIdle takes the newest idle connection of key, if any.
func (t *fastTransport) getIdle(key []byte) (*fastConn, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ic := t.idle[string(key)]
	if ic == nil {
		return nil, false
	}
	for n := len(ic.conns); n > 0; n-- {
		c := ic.conns[n-1]
		ic.conns[n-1] = nil
		ic.conns = ic.conns[:n-1]
		if t.idleFor > 0 && time.Since(c.idleAt) > t.idleFor || c.peek.idleUnusable() || c.tlsHolds() {
			_ = c.conn.Close()
			continue
		}
		return c, true
	}
	return nil, false
}

// tlsHolds reports whether c is a TLS connection holding bytes not yet
// read (decrypted, or a record read from the socket): bytes sent past
// the last answer in its own record, which neither c.br nor the socket
// shows. A read with the deadline in the past gives them, or times out
// at once when there are none (a timeout leaves the TLS connection
// usable).
func (c *fastConn) tlsHolds() bool {
	if _, ok := c.conn.(*tls.Conn); !ok {
		return false
	}
	_ = c.conn.SetReadDeadline(aLongTimeAgo)
	_, err := c.br.Peek(1)
	_ = c.conn.SetReadDeadline(time.Time{})
	var ne net.Error
	return err == nil || !errors.As(err, &ne) || !ne.Timeout()
}

// put keeps c for the next request to its host, or closes it when the
// host has maxIdle idle connections.
func (t *fastTransport) put(c *fastConn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ic := t.idle[c.key]
	if ic == nil {
		ic = &idleConns{}
		t.idle[c.key] = ic
	}
	if len(ic.conns) >= t.maxIdle {
		_ = c.conn.Close()
		return
	}
	c.idleAt = time.Now()
	ic.conns = append(ic.conns, c)
	if t.idleFor > 0 && t.sweep == nil {
		t.sweep = time.AfterFunc(t.idleFor, t.sweepIdle)
	}
}

// sweepIdle closes the connections idle for idleFor and comes back while
// any is left.
func (t *fastTransport) sweepIdle() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep = nil
	left := false
	for key, ic := range t.idle {
		kept := ic.conns[:0]
		for _, c := range ic.conns {
			if time.Since(c.idleAt) >= t.idleFor {
				_ = c.conn.Close()
			} else {
				kept = append(kept, c)
			}
		}
		clear(ic.conns[len(kept):])
		ic.conns = kept
		if len(kept) == 0 {
			delete(t.idle, key)
		} else {
			left = true
		}
	}
	if left {
		t.sweep = time.AfterFunc(t.idleFor, t.sweepIdle)
	}
}

// idleCount is the number of idle connections kept.
func (t *fastTransport) idleCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, ic := range t.idle {
		n += len(ic.conns)
	}
	return n
}

// CloseIdleConnections closes the idle connections of t and of next.
func (t *fastTransport) CloseIdleConnections() {
	t.mu.Lock()
	for key, ic := range t.idle {
		for _, c := range ic.conns {
			_ = c.conn.Close()
		}
		delete(t.idle, key)
	}
	if t.sweep != nil {
		t.sweep.Stop()
		t.sweep = nil
	}
	t.mu.Unlock()
	t.next.CloseIdleConnections()
}

// fastBody is a response body on a fastConn: read to its end, it gives
// the connection back to the pool; closed before, it closes it. Read and
// Close are called from one goroutine at a time.
type fastBody struct {
	rc   io.ReadCloser
	t    *fastTransport
	c    *fastConn
	ctx  context.Context
	stop func() bool
	keep bool
	done bool
}

func (b *fastBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	n, err := b.rc.Read(p)
	switch {
	case err == io.EOF:
		b.finish(true)
	case err != nil:
		b.finish(false)
		if b.ctx.Err() != nil {
			err = b.ctx.Err()
		}
	}
	return n, err
}

// Close closes the connection unless the body was read to its end.
func (b *fastBody) Close() error {
	b.finish(false)
	return nil
}

// finish ends the exchange: the connection goes back to the pool when
// whole is true and the exchange may keep it, else it is closed.
func (b *fastBody) finish(whole bool) {
	if b.done {
		return
	}
	b.done = true
	if !b.stop() {
		whole = false // the context ended: the deadline is in the past
	}
	// Bytes already read past the answer's end (more than its
	// Content-Length, a body on a HEAD, 204 or 304 answer, an answer
	// unasked) are no answer to the next request: the connection is
	// closed, as net/http's Transport closes one that receives bytes
	// while idle.
	if whole && b.keep && b.c.br.Buffered() == 0 {
		b.t.put(b.c)
		return
	}
	_ = b.c.conn.Close()
}

// gzipBody decodes a gzip response body (asked for by the transport);
// the raw body is read to its end when the decoded stream ends, so that
// its connection can be kept.
type gzipBody struct {
	raw *fastBody
	zr  *gzip.Reader
	err error
}

func (g *gzipBody) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	if g.zr == nil {
		zr, err := gzip.NewReader(g.raw)
		if err != nil {
			g.err = err
			return 0, err
		}
		zr.Multistream(true)
		g.zr = zr
	}
	n, err := g.zr.Read(p)
	if err == io.EOF {
		_, _ = io.CopyN(io.Discard, g.raw, drainLimit)
	}
	if err != nil {
		g.err = err
	}
	return n, err
}

func (g *gzipBody) Close() error { return g.raw.Close() }
