package h1serve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// conn is one client connection and its goroutine.
type conn struct {
	s      *Server
	rwc    net.Conn
	remote string
	local  net.Addr
	state  atomic.Int32

	buf        []byte // read buffer: buf[rpos:wpos] is read and not yet parsed
	rpos, wpos int
	bw         *bufio.Writer // nil between answers when nothing waits in it
	rerr       error         // the read error that ended the input

	readDL, writeDL time.Time // deadlines as last set (zero: unknown or none)

	w response

	// The background read of an answered request whose context's Done
	// was asked for: one byte, or the error that says the client went away.
	bgDone chan struct{}
	bgByte [1]byte
	bgN    int
	bgErr  error
}

var bufPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, 4096) }}

const initialReadBuf = 4096

func (c *conn) serve() {
	defer func() {
		if v := recover(); v != nil {
			c.s.recovered(c, v)
		}
		c.rwc.Close()
		c.releaseWriter()
		c.s.removeConn(c)
	}()
	c.buf = make([]byte, initialReadBuf)
	for {
		h, err := c.readHead()
		if err != nil {
			var re *RequestError
			if errors.As(err, &re) {
				c.answerError(re)
			}
			return
		}
		if !c.serveRequest(h) {
			return
		}
	}
}

// readHead reads and parses the next request head, skipping empty lines
// before it.
func (c *conn) readHead() (*head, error) {
	scan := 0 // where the line not yet ended starts, from rpos
	var first time.Time
	for {
		for scan == 0 && c.wpos-c.rpos >= 2 && c.buf[c.rpos] == '\r' && c.buf[c.rpos+1] == '\n' {
			c.rpos += 2 // an empty line before a request line (RFC 9112, 2.2)
		}
		data := c.buf[c.rpos:c.wpos]
		if len(data) > 0 {
			if c.state.Load() == stateIdle && !c.state.CompareAndSwap(stateIdle, stateActive) {
				return nil, net.ErrClosed
			}
			n, next, err := scanHead(data, scan)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				text := string(data[:n])
				c.rpos += n
				return parseHead(text)
			}
			scan = next
			if scan == 0 && len(data) > MaxRequestLine {
				return nil, errLineTooLong
			}
			if len(data) > MaxHeadBytes || scan > 0 && len(data)-scan > MaxHeaderLine {
				return nil, errHeaderTooBig
			}
			if first.IsZero() {
				first = time.Now()
			}
		} else {
			c.rpos, c.wpos = 0, 0
			if len(c.buf) > initialReadBuf {
				// A large head grew the buffer (up to MaxHeadBytes): an
				// idle connection keeps 4 KiB, not the 1 MiB one request
				// needed.
				c.buf = make([]byte, initialReadBuf)
			}
			if !c.state.CompareAndSwap(stateActive, stateIdle) && c.state.Load() == stateClosed {
				return nil, net.ErrClosed
			}
			if c.s.closing.Load() {
				return nil, net.ErrClosed
			}
		}
		if c.rerr != nil {
			return nil, c.rerr
		}
		if err := c.fill(first); err != nil {
			return nil, err
		}
	}
}

// scanHead finds the end of the head (CRLF CRLF) in b, scanning from the
// line starting at from. It returns the head's length (0: not whole yet),
// where the last incomplete line starts, and errLineEnd for a CR or LF
// not in a CRLF.
func scanHead(b []byte, from int) (n, next int, err error) {
	for {
		i := indexByte(b[from:], '\n')
		if i < 0 {
			if j := indexByte(b[from:], '\r'); j >= 0 && from+j != len(b)-1 {
				return 0, 0, errLineEnd
			}
			return 0, from, nil
		}
		end := from + i
		if end == from || b[end-1] != '\r' || indexByte(b[from:end-1], '\r') >= 0 {
			return 0, 0, errLineEnd
		}
		if end-from == 1 && from > 0 {
			return end + 1, 0, nil
		}
		from = end + 1
	}
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

// fill reads more bytes into buf (flushing the answers written so far
// first). first is when the request's first byte came (zero: none yet):
// the read waits up to ReadHeaderTimeout from it, else IdleTimeout.
func (c *conn) fill(first time.Time) error {
	if c.bw != nil && c.bw.Buffered() > 0 {
		if err := c.bw.Flush(); err != nil {
			return err
		}
	}
	if c.rpos == c.wpos {
		c.rpos, c.wpos = 0, 0
	}
	if c.wpos == len(c.buf) {
		if c.rpos > 0 {
			c.wpos = copy(c.buf, c.buf[c.rpos:c.wpos])
			c.rpos = 0
		} else {
			nb := make([]byte, min(2*len(c.buf), MaxHeadBytes+initialReadBuf))
			copy(nb, c.buf)
			c.buf = nb
		}
	}
	now := time.Now()
	if first.IsZero() {
		c.setReadDeadline(now, c.s.idleTimeout())
	} else if t := c.s.ReadHeaderTimeout; t > 0 {
		if dl := first.Add(t); c.readDL.IsZero() || c.readDL.After(dl) {
			c.readDL = dl
			_ = c.rwc.SetReadDeadline(dl)
		}
	}
	n, err := c.rwc.Read(c.buf[c.wpos:])
	c.wpos += n
	if err != nil {
		c.rerr = err
		if n > 0 {
			return nil
		}
		return err
	}
	return nil
}

func (s *Server) idleTimeout() time.Duration {
	if s.IdleTimeout > 0 {
		return s.IdleTimeout
	}
	return s.ReadHeaderTimeout
}

// setReadDeadline sets the read deadline now+d unless the one set is
// within a second before it.
func (c *conn) setReadDeadline(now time.Time, d time.Duration) {
	if d <= 0 {
		if !c.readDL.IsZero() {
			c.readDL = time.Time{}
			_ = c.rwc.SetReadDeadline(time.Time{})
		}
		return
	}
	want := now.Add(d)
	if c.readDL.IsZero() || c.readDL.After(want) || want.Sub(c.readDL) > time.Second {
		c.readDL = want
		_ = c.rwc.SetReadDeadline(want)
	}
}

// setWriteDeadline sets the write deadline for an answer begun now.
func (c *conn) setWriteDeadline(now time.Time) {
	d := c.s.WriteTimeout
	if d <= 0 {
		return
	}
	want := now.Add(d)
	if c.writeDL.IsZero() || c.writeDL.After(want) || want.Sub(c.writeDL) > time.Second {
		c.writeDL = want
		_ = c.rwc.SetWriteDeadline(want)
	}
}

func (c *conn) writer() *bufio.Writer {
	if c.bw == nil {
		c.bw = bufPool.Get().(*bufio.Writer)
		c.bw.Reset(c.rwc)
	}
	return c.bw
}

func (c *conn) releaseWriter() {
	if c.bw != nil {
		c.bw.Reset(nil)
		bufPool.Put(c.bw)
		c.bw = nil
	}
}

// answerError writes the answer to a refused request head and closes the
// connection.
func (c *conn) answerError(re *RequestError) {
	c.setWriteDeadline(time.Now())
	bw := c.writer()
	text := http.StatusText(re.Status)
	body := itoa(re.Status) + " " + text + ": " + re.Reason + "\n"
	_, _ = bw.WriteString("HTTP/1.1 " + itoa(re.Status) + " " + text + "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: " +
		itoa(len(body)) + "\r\n\r\n" + body)
	if bw.Flush() == nil {
		closeWriteAndWait(c.rwc)
	}
}

func itoa(n int) string {
	if n >= 0 && n < 1000 {
		return string([]byte{byte('0' + n/100), byte('0' + n/10%10), byte('0' + n%10)})[3-digits(n):]
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

func digits(n int) int {
	switch {
	case n >= 100:
		return 3
	case n >= 10:
		return 2
	}
	return 1
}

// serveRequest answers one request; it reports whether the connection
// reads another.
func (c *conn) serveRequest(h *head) bool {
	u := h.url
	host := h.host
	if u.Host != "" {
		host = u.Host
	}
	delete(h.header, "Host")
	if p := h.header["Pragma"]; len(p) > 0 && p[0] == "no-cache" && h.header["Cache-Control"] == nil {
		h.header["Cache-Control"] = []string{"no-cache"}
	}
	proto := "HTTP/1.1"
	if h.minor == 0 {
		proto = "HTTP/1.0"
	}
	rc := &h.st.ctx
	rc.c = c
	var body io.ReadCloser = http.NoBody
	var br *bodyReader
	var te []string
	cl := int64(0)
	switch {
	case h.chunked:
		br = &bodyReader{c: c, remain: -1}
		body = br
		te = []string{"chunked"}
		cl = -1
	case h.contentLength > 0:
		br = &bodyReader{c: c, remain: h.contentLength}
		body = br
		cl = h.contentLength
	}
	if br != nil {
		rc.noWatch = true // the handler may read the socket
	}
	tmp := http.Request{Method: h.method, URL: u, Proto: proto, ProtoMajor: 1, ProtoMinor: h.minor, Header: h.header,
		Body: body, ContentLength: cl, TransferEncoding: te, Close: h.close, Host: host, RemoteAddr: c.remote, RequestURI: h.target}
	req := tmp.WithContext(rc)
	now := time.Now()
	c.setWriteDeadline(now)

	w := &c.w
	w.reset(c, req, h, br)
	ok := true
	if h.target == "*" {
		// OPTIONS * asks about the server itself (RFC 9110, 9.3.7), not
		// a resource of the Handler's: the Server answers it.
		w.Header().Set("Allow", c.s.allow())
		w.WriteHeader(http.StatusNoContent)
	} else {
		ok = c.callHandler(w, req)
	}
	rc.end()
	if !ok {
		return false
	}
	w.finish()
	w.req, w.head, w.body = nil, nil, nil // an idle connection keeps no request
	if c.bgDone != nil {
		c.stopBackgroundRead()
	}
	if w.err != nil || w.closeAfter || c.s.closing.Load() {
		if c.bw != nil {
			_ = c.bw.Flush()
		}
		if br != nil && !br.eof {
			closeWriteAndWait(c.rwc)
		}
		return false
	}
	if br != nil && !br.eof {
		if !br.discard(c.s.ReadHeaderTimeout) {
			_ = c.bw.Flush()
			return false
		}
	}
	if c.rpos == c.wpos && c.bw != nil {
		// Nothing pipelined: the answer goes now, in one write.
		if err := c.bw.Flush(); err != nil {
			return false
		}
		c.releaseWriter()
	}
	return true
}

// callHandler runs the handler; false: it panicked (the connection is
// closed without more of the answer).
func (c *conn) callHandler(w *response, req *http.Request) (ok bool) {
	defer func() {
		if v := recover(); v != nil {
			c.s.recovered(c, v)
			ok = false
		}
	}()
	c.s.handler().ServeHTTP(w, req)
	return true
}

// bodyReader is a request's body: Content-Length bytes, or chunked (the
// connection then closes after the answer).
type bodyReader struct {
	c      *conn
	remain int64 // -1: chunked
	chunk  io.Reader
	eof    bool
	closed bool
	mu     sync.Mutex
}

// Read reads the body from the bytes buffered after the head, then the
// connection.
func (b *bodyReader) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, http.ErrBodyReadAfterClose
	}
	if b.eof {
		return 0, io.EOF
	}
	if b.remain < 0 {
		if b.chunk == nil {
			b.chunk = httputil.NewChunkedReader(bufio.NewReader(rawReader{b.c}))
		}
		n, err := b.chunk.Read(p)
		if err == io.EOF {
			b.eof = true
		}
		return n, err
	}
	if int64(len(p)) > b.remain {
		p = p[:b.remain]
	}
	n, err := rawReader{b.c}.Read(p)
	b.remain -= int64(n)
	if b.remain == 0 {
		b.eof = true
		return n, io.EOF
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// Close makes later Reads fail; what is left is discarded after the
// answer (or the connection closed).
func (b *bodyReader) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}

// discard reads what is left of a Content-Length body (at most 256 KiB,
// within d), and reports whether the connection can read the next request.
func (b *bodyReader) discard(d time.Duration) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.remain < 0 || b.remain > 256<<10 {
		return false
	}
	if d > 0 {
		_ = b.c.rwc.SetReadDeadline(time.Now().Add(d))
		b.c.readDL = time.Time{}
	}
	var scratch [4096]byte
	for b.remain > 0 {
		p := scratch[:min(int64(len(scratch)), b.remain)]
		n, err := rawReader{b.c}.Read(p)
		b.remain -= int64(n)
		if err != nil && b.remain > 0 {
			return false
		}
	}
	b.eof = true
	return true
}

// rawReader reads the connection's buffered bytes, then the connection.
type rawReader struct{ c *conn }

func (r rawReader) Read(p []byte) (int, error) {
	c := r.c
	if c.rpos < c.wpos {
		n := copy(p, c.buf[c.rpos:c.wpos])
		c.rpos += n
		return n, nil
	}
	if c.rerr != nil {
		return 0, c.rerr
	}
	if c.bw != nil && c.bw.Buffered() > 0 {
		if err := c.bw.Flush(); err != nil {
			return 0, err
		}
	}
	n, err := c.rwc.Read(p)
	if err != nil {
		c.rerr = err
	}
	return n, err
}

// startBackgroundRead watches the connection while the handler runs: a
// read of one byte that ends when the client closes or sends more.
func (c *conn) startBackgroundRead(rc *reqCtx) {
	c.bgDone = make(chan struct{})
	go func() {
		n, err := c.rwc.Read(c.bgByte[:])
		c.bgN = n
		if err != nil {
			var ne net.Error
			if !(errors.As(err, &ne) && ne.Timeout()) {
				c.bgErr = err
				rc.cancel()
			}
		}
		close(c.bgDone)
	}()
}

// stopBackgroundRead ends the background read and keeps what it read.
func (c *conn) stopBackgroundRead() {
	_ = c.rwc.SetReadDeadline(aLongTimeAgo)
	<-c.bgDone
	c.bgDone = nil
	c.readDL = time.Time{}
	_ = c.rwc.SetReadDeadline(time.Time{})
	if c.bgN == 1 {
		if c.wpos == len(c.buf) {
			c.wpos = copy(c.buf, c.buf[c.rpos:c.wpos])
			c.rpos = 0
		}
		c.buf[c.wpos] = c.bgByte[0]
		c.wpos++
		c.bgN = 0
	}
	if c.bgErr != nil {
		c.rerr = c.bgErr
		c.bgErr = nil
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// hasToken reports whether the comma-separated list v holds tok (ASCII
// case-insensitive).
func hasToken(v []string, tok string) bool {
	for _, s := range v {
		for f := range strings.SplitSeq(s, ",") {
			if strings.EqualFold(strings.Trim(f, " \t"), tok) {
				return true
			}
		}
	}
	return false
}
