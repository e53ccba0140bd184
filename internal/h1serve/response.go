package h1serve

import (
	"bufio"
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http/httpguts"
)

// response is the http.ResponseWriter of a request; one per connection,
// reset for each request.
type response struct {
	c      *conn
	req    *http.Request
	head   *head
	body   *bodyReader
	header http.Header

	status        int
	wroteHeader   bool
	committed     bool  // the status line and headers are in the writer
	contentLength int64 // the handler's Content-Length; -1: none
	written       int64
	chunked       bool
	closeAfter    bool
	isHead        bool
	sniff         bool     // no Content-Type set: sniffed from the first bytes
	hdr           []byte   // the header lines, taken at WriteHeader
	pending       []byte   // body bytes held before the headers are committed
	keys          []string // scratch for sorting header names
	err           error    // the first write error
}

// bufferBeforeChunking is how many body bytes wait for the handler's end
// (to send a Content-Length) before an answer without one is chunked.
const bufferBeforeChunking = 2048

// sniffLen is how many bytes http.DetectContentType reads.
const sniffLen = 512

func (w *response) reset(c *conn, req *http.Request, h *head, br *bodyReader) {
	hd := w.header
	if hd == nil {
		hd = make(http.Header, 16)
	} else {
		clear(hd)
	}
	*w = response{c: c, req: req, head: h, body: br, header: hd, contentLength: -1,
		isHead: h.method == http.MethodHead,
		// A chunked body is read through a reader that reads ahead: the
		// connection cannot read a next request after it.
		closeAfter: h.close || h.chunked,
		hdr:        w.hdr[:0], pending: w.pending[:0], keys: w.keys[:0]}
}

// Header returns the answer's header map; changes after WriteHeader have
// no effect.
func (w *response) Header() http.Header { return w.header }

// WriteHeader takes the status and the headers; a 1xx status is dropped
// (never sent), a second call ignored.
func (w *response) WriteHeader(code int) {
	if code < 100 || code > 999 {
		panic("invalid WriteHeader code " + strconv.Itoa(code))
	}
	if w.wroteHeader || code < 200 {
		return
	}
	w.wroteHeader = true
	w.status = code
	w.snapshot()
	// With a Content-Length and a Content-Type to sniff, the headers wait
	// for the first Write (net/http sniffs its bytes too).
	if !bodyAllowed(code) || w.contentLength >= 0 && !w.sniff {
		w.commit(false, nil)
	}
}

// snapshot writes the handler's header lines into w.hdr, apart from the
// framing ones, and notes Content-Length and Connection: close.
func (w *response) snapshot() {
	keys := w.keys[:0]
	for k := range w.header {
		keys = append(keys, k)
	}
	if len(keys) > 1 {
		slices.Sort(keys)
	}
	w.keys = keys
	b := w.hdr[:0]
	hasDate, hasType := false, false
	for _, k := range keys {
		vs := w.header[k]
		switch k {
		case "Content-Length":
			if len(vs) > 0 {
				if n, ok := parseContentLength(strings.TrimSpace(vs[0])); ok {
					w.contentLength = n
				}
			}
			continue
		case "Transfer-Encoding", "Trailer":
			continue
		case "Connection":
			if hasToken(vs, "close") {
				w.closeAfter = true
			}
			continue
		case "Date":
			hasDate = true
		case "Content-Type":
			hasType = true
		}
		if !httpguts.ValidHeaderFieldName(k) {
			continue
		}
		for _, v := range vs {
			b = append(b, k...)
			b = append(b, ": "...)
			b = appendValue(b, v)
			b = append(b, "\r\n"...)
		}
	}
	if !hasDate {
		b = appendDate(b)
	}
	w.sniff = !hasType && bodyAllowed(w.status)
	w.hdr = b
}

// appendValue appends v, trimmed, with CR and LF as spaces (as net/http
// writes them).
func appendValue(b []byte, v string) []byte {
	v = strings.Trim(v, " \t")
	if strings.ContainsAny(v, "\r\n") {
		for i := 0; i < len(v); i++ {
			if c := v[i]; c == '\r' || c == '\n' {
				b = append(b, ' ')
			} else {
				b = append(b, c)
			}
		}
		return b
	}
	return append(b, v...)
}

type dateLine struct {
	sec  int64
	line []byte
}

var curDate atomic.Pointer[dateLine]

func appendDate(b []byte) []byte {
	now := time.Now()
	sec := now.Unix()
	d := curDate.Load()
	if d == nil || d.sec != sec {
		d = &dateLine{sec: sec, line: []byte("Date: " + now.UTC().Format(http.TimeFormat) + "\r\n")}
		curDate.Store(d)
	}
	return append(b, d.line...)
}

func bodyAllowed(code int) bool {
	return code >= 200 && code != http.StatusNoContent && code != http.StatusNotModified
}

var statusLines sync.Map // int -> string

func statusLine(code int) string {
	if v, ok := statusLines.Load(code); ok {
		return v.(string)
	}
	text := http.StatusText(code)
	if text == "" {
		text = "status code " + strconv.Itoa(code)
	}
	s := "HTTP/1.1 " + strconv.Itoa(code) + " " + text + "\r\n"
	statusLines.Store(code, s)
	return s
}

// commit writes the status line and headers into the connection's writer.
// final: the handler has ended and w.pending is the whole body. The
// Content-Type, when the handler set none, is sniffed from w.pending, or
// from first (the bytes of the Write that commits) when nothing is
// pending; with neither, none is sent, as net/http sends none.
func (w *response) commit(final bool, first []byte) {
	w.committed = true
	if w.body != nil && !w.body.eof && (w.body.remain < 0 || w.body.remain > 256<<10 || w.head.expect) {
		w.closeAfter = true // the body left unread is not read through
	}
	if w.c.s.closing.Load() {
		w.closeAfter = true
	}
	bw := w.c.writer()
	_, _ = bw.WriteString(statusLine(w.status))
	_, _ = bw.Write(w.hdr)
	sniffed := w.pending
	if len(sniffed) == 0 {
		sniffed = first
	}
	if w.sniff && len(sniffed) > 0 {
		_, _ = bw.WriteString("Content-Type: ")
		_, _ = bw.WriteString(http.DetectContentType(sniffed))
		_, _ = bw.WriteString("\r\n")
	}
	switch {
	case !bodyAllowed(w.status):
		if w.status == http.StatusNotModified && w.contentLength >= 0 {
			writeCL(bw, w.contentLength)
		}
	case w.contentLength >= 0:
		writeCL(bw, w.contentLength)
	case final && (!w.isHead || w.written > 0):
		writeCL(bw, w.written)
	case final:
		// HEAD whose handler wrote nothing: the length is not known.
	case w.head.minor == 1:
		_, _ = bw.WriteString("Transfer-Encoding: chunked\r\n")
		w.chunked = !w.isHead
	default:
		w.closeAfter = true // HTTP/1.0: the body ends with the connection
	}
	if w.closeAfter {
		_, _ = bw.WriteString("Connection: close\r\n")
	}
	_, _ = bw.WriteString("\r\n")
}

func writeCL(bw *bufio.Writer, n int64) {
	_, _ = bw.WriteString("Content-Length: ")
	_, _ = bw.Write(append(strconv.AppendInt(bw.AvailableBuffer(), n, 10), '\r', '\n'))
}

// Write writes body bytes: held until the handler ends or 2 KiB are
// written when the handler set no Content-Length, else into the
// connection's writer.
func (w *response) Write(p []byte) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !bodyAllowed(w.status) {
		return 0, http.ErrBodyNotAllowed
	}
	if w.err != nil {
		return 0, w.err
	}
	if w.contentLength >= 0 && w.written+int64(len(p)) > w.contentLength {
		return 0, http.ErrContentLength
	}
	w.written += int64(len(p))
	if w.isHead {
		// No body is sent; the first bytes are kept for the sniffed
		// Content-Type.
		if !w.committed && w.sniff && len(w.pending) < sniffLen {
			w.pending = append(w.pending, p[:min(len(p), sniffLen-len(w.pending))]...)
		}
		return len(p), nil
	}
	if !w.committed {
		if len(w.pending)+len(p) <= bufferBeforeChunking {
			w.pending = append(w.pending, p...)
			return len(p), nil
		}
		w.commit(false, p)
		if err := w.writeBody(w.pending); err != nil {
			return 0, err
		}
		w.pending = w.pending[:0]
	}
	if err := w.writeBody(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// WriteString is Write of a string, without copying it to a []byte when
// it is held or written as it is.
func (w *response) WriteString(s string) (int, error) {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if bodyAllowed(w.status) && w.err == nil && !w.isHead && !w.chunked &&
		(w.contentLength < 0 || w.written+int64(len(s)) <= w.contentLength) {
		switch {
		case !w.committed && len(w.pending)+len(s) <= bufferBeforeChunking:
			w.written += int64(len(s))
			w.pending = append(w.pending, s...)
			return len(s), nil
		case w.committed:
			w.written += int64(len(s))
			if _, err := w.c.writer().WriteString(s); err != nil {
				w.err, w.closeAfter = err, true
				return 0, err
			}
			return len(s), nil
		}
	}
	return w.Write([]byte(s))
}

func (w *response) writeBody(p []byte) error {
	if len(p) == 0 || w.isHead {
		return nil
	}
	bw := w.c.writer()
	var err error
	if w.chunked {
		_, _ = bw.Write(append(strconv.AppendInt(bw.AvailableBuffer(), int64(len(p)), 16), '\r', '\n'))
		_, _ = bw.Write(p)
		_, err = bw.WriteString("\r\n")
	} else {
		_, err = bw.Write(p)
	}
	if err != nil {
		w.err = err
		w.closeAfter = true
	}
	return err
}

// Flush sends what is written so far (the headers at least; chunked when
// no Content-Length was set).
func (w *response) Flush() { _ = w.FlushError() }

// FlushError is Flush with its error (http.ResponseController).
func (w *response) FlushError() error {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !w.committed {
		w.commit(false, nil)
		if err := w.writeBody(w.pending); err != nil {
			return err
		}
		w.pending = w.pending[:0]
	}
	if w.err != nil {
		return w.err
	}
	if err := w.c.writer().Flush(); err != nil {
		w.err = err
		w.closeAfter = true
		return err
	}
	return nil
}

// finish ends the answer once the handler returned.
func (w *response) finish() {
	if !w.wroteHeader {
		w.WriteHeader(http.StatusOK)
	}
	if !w.committed {
		w.commit(true, nil)
		if err := w.writeBody(w.pending); err != nil {
			return
		}
	}
	if w.chunked {
		if _, err := w.c.writer().WriteString("0\r\n\r\n"); err != nil {
			w.err = err
		}
	}
	if w.contentLength >= 0 && w.written < w.contentLength && bodyAllowed(w.status) && !w.isHead {
		w.closeAfter = true // a short body: the connection cannot be reused
	}
	if cap(w.pending) > 4*bufferBeforeChunking {
		w.pending = nil
	}
}

// reqCtx is a request's context: canceled when the handler returns, or
// when the client closes the connection while the handler runs; the
// connection is watched only once Done is asked for (by the handler or a
// context derived from this one).
type reqCtx struct {
	c       *conn
	noWatch bool // the request has a body: the handler owns the reads

	mu     sync.Mutex
	inner  context.Context // made by Done; canceled with this one
	stop   context.CancelFunc
	ended  bool
	watch  bool
	closed bool
}

// Deadline reports none.
func (r *reqCtx) Deadline() (time.Time, bool) { return time.Time{}, false }

// Done returns the channel closed when the request ends.
func (r *reqCtx) Done() <-chan struct{} {
	return r.arm().Done()
}

func (r *reqCtx) arm() context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inner == nil {
		r.inner, r.stop = context.WithCancel(context.Background())
		if r.ended || r.closed {
			r.stop()
		} else if !r.noWatch && r.c.rpos == r.c.wpos && r.c.rerr == nil {
			r.watch = true
			r.c.startBackgroundRead(r)
		}
	}
	return r.inner
}

// Err is context.Canceled once the request ended, nil before.
func (r *reqCtx) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.inner != nil {
		return r.inner.Err()
	}
	if r.ended || r.closed {
		return context.Canceled
	}
	return nil
}

// Value returns the connection's local address for
// http.LocalAddrContextKey; no other values.
func (r *reqCtx) Value(key any) any {
	if key == http.LocalAddrContextKey {
		return r.c.local
	}
	r.mu.Lock()
	in := r.inner
	r.mu.Unlock()
	if in != nil {
		return in.Value(key)
	}
	return nil
}

// cancel is the client's going away, seen by the background read.
func (r *reqCtx) cancel() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.stop != nil {
		r.stop()
	}
}

// end is the handler's return.
func (r *reqCtx) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ended = true
	if r.stop != nil {
		r.stop()
	}
}

func (r *reqCtx) String() string { return "h1serve request context" }
