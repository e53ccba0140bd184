// Package h1serve is a strict HTTP/1.1 server for an http.Handler: one
// goroutine per connection, keep-alive, pipelined requests answered in
// order, request heads read by its own parser (RFC 9112 only: no obsolete
// line folding, every line ended by CRLF, tokens checked, one valid
// Content-Length, Transfer-Encoding only chunked and never on GET, HEAD or
// OPTIONS), a cap on connections and a graceful Shutdown as http.Server's.
// OPTIONS * (a request about the server itself, RFC 9110 9.3.7) is the
// Server's to answer: 204 with Server.Allow, the Handler not called.
//
// It costs less CPU per request than net/http's server: no goroutine or
// read per request to watch the connection (the request's context starts
// watching only when asked for Done), one allocation for the whole request
// head, the response's status line and headers written straight into the
// connection's buffered writer, and deadlines moved at most once a second.
// It serves plain HTTP/1.x only (no TLS, no HTTP/2, no Hijack, no 1xx
// answers: a WriteHeader of 1xx is dropped).
package h1serve

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// DefaultMaxConns is the number of connections a Server keeps open when
// Server.MaxConns is 0.
const DefaultMaxConns = 10_000

// DefaultAllow is the Allow header of the answer to "OPTIONS *" when
// Server.Allow is "": the methods of a read-only service that answers POST
// as GET and OPTIONS preflights (the aggregator's API).
const DefaultAllow = "GET, HEAD, POST, OPTIONS"

func (s *Server) allow() string {
	if s.Allow != "" {
		return s.Allow
	}
	return DefaultAllow
}

// Server serves HTTP/1.x on the listeners given to Serve. Its fields must
// not change once Serve is called.
type Server struct {
	// Handler answers every request (nil: http.NotFoundHandler()).
	Handler http.Handler
	// ReadHeaderTimeout bounds the time from the first byte of a request
	// to the end of its head (0: none).
	ReadHeaderTimeout time.Duration
	// IdleTimeout bounds the wait for the next request on a kept
	// connection (0: ReadHeaderTimeout).
	IdleTimeout time.Duration
	// WriteTimeout bounds the time from the request's head to the end of
	// its answer's writes (0: none). Deadlines move at most once a
	// second: a timeout can end up to a second later than set.
	WriteTimeout time.Duration
	// MaxConns caps the open connections (0: DefaultMaxConns). At the cap
	// a new connection closes an idle one, or, with none idle, is
	// answered 503 and closed.
	MaxConns int
	// ErrorLog receives accept errors and handler panics (nil: the log
	// package's standard logger).
	ErrorLog *log.Logger
	// Allow is the Allow header of the answer to "OPTIONS *", a request
	// about the server itself (RFC 9110, 9.3.7), which the Server answers
	// 204 No Content without calling the Handler ("": DefaultAllow). A
	// "*" target with any other method is refused (400).
	Allow string

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	closing   atomic.Bool
}

// Serve accepts connections on ln and serves each in a goroutine of its
// own until Shutdown or Close; it then returns http.ErrServerClosed. Any
// other error is the listener's (ln is closed).
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closing.Load() {
		s.mu.Unlock()
		ln.Close()
		return http.ErrServerClosed
	}
	if s.listeners == nil {
		s.listeners = map[net.Listener]struct{}{}
		s.conns = map[*conn]struct{}{}
	}
	s.listeners[ln] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	var delay time.Duration
	for {
		rw, err := ln.Accept()
		if err != nil {
			if s.closing.Load() {
				return http.ErrServerClosed
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) {
				delay = min(max(2*delay, 5*time.Millisecond), time.Second)
				s.logf("h1serve: accept error: %v; retrying in %v", err, delay)
				time.Sleep(delay)
				continue
			}
			return err
		}
		delay = 0
		c := s.newConn(rw)
		if c == nil {
			continue
		}
		go c.serve()
	}
}

// Shutdown stops the server gracefully: the listeners are closed, idle
// connections closed, and Shutdown waits for the requests being answered
// to end (their connections close after the answer), or for ctx to end
// (its error is returned; Close then ends what is left).
func (s *Server) Shutdown(ctx context.Context) error {
	s.closing.Store(true)
	s.closeListeners()
	wait := time.Millisecond
	for {
		if s.closeIdle() == 0 {
			return nil
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// Close closes the listeners and every connection at once, requests
// being answered included.
func (s *Server) Close() error {
	s.closing.Store(true)
	s.closeListeners()
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.state.Store(stateClosed)
		c.rwc.Close()
	}
	return nil
}

func (s *Server) closeListeners() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ln := range s.listeners {
		ln.Close()
	}
}

// closeIdle closes the idle connections and returns how many are left.
func (s *Server) closeIdle() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.state.CompareAndSwap(stateIdle, stateClosed) {
			c.rwc.Close()
		}
	}
	return len(s.conns)
}

func (s *Server) logf(format string, args ...any) {
	if s.ErrorLog != nil {
		s.ErrorLog.Printf(format, args...)
	} else {
		log.Printf(format, args...)
	}
}

// Connection states.
const (
	stateIdle   = iota // waiting for the first byte of a request
	stateActive        // reading a request or answering it
	stateClosed        // closed by Shutdown, Close or the cap
)

// newConn registers rw; at the cap it closes an idle connection, or
// answers rw 503 and returns nil.
func (s *Server) newConn(rw net.Conn) *conn {
	limit := s.MaxConns
	if limit <= 0 {
		limit = DefaultMaxConns
	}
	c := &conn{s: s, rwc: rw, remote: rw.RemoteAddr().String(), local: rw.LocalAddr()}
	s.mu.Lock()
	if len(s.conns) >= limit {
		freed := false
		for o := range s.conns {
			if o.state.CompareAndSwap(stateIdle, stateClosed) {
				o.rwc.Close()
				delete(s.conns, o) // its goroutine's delete finds nothing
				freed = true
				break
			}
		}
		if !freed {
			s.mu.Unlock()
			refuse(rw)
			return nil
		}
	}
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	return c
}

// refuse answers a connection over the cap and closes it at once (no
// wait for the client to read: a flood of connections holds nothing).
func refuse(rw net.Conn) {
	_ = rw.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = io.WriteString(rw, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 21\r\n\r\ntoo many connections\n")
	rw.Close()
}

// closeWriteAndWait ends the connection's writes and waits a moment
// before closing it, so that the client reads the answer before a reset
// (what net/http does after an error answer).
func closeWriteAndWait(rw net.Conn) {
	if cw, ok := rw.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
		time.Sleep(500 * time.Millisecond)
	}
	rw.Close()
}

func (s *Server) removeConn(c *conn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *Server) handler() http.Handler {
	if s.Handler == nil {
		return http.NotFoundHandler()
	}
	return s.Handler
}

func (s *Server) recovered(c *conn, v any) {
	if v == http.ErrAbortHandler {
		return
	}
	buf := make([]byte, 64<<10)
	buf = buf[:runtime.Stack(buf, false)]
	s.logf("h1serve: panic serving %s: %v\n%s", c.remote, v, buf)
}
