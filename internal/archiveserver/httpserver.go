package archiveserver

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// DefaultMaxConns is the number of connections [Listen] accepts at once
// when given 0: 256, about 10 MB of buffers and goroutines idle, well
// below the 1024 open files a process gets by default.
const DefaultMaxConns = 256

// Listen listens on the TCP address addr and accepts at most maxConns
// connections at once (0: DefaultMaxConns; see LimitConns). A negative
// maxConns is an error.
func Listen(addr string, maxConns int) (net.Listener, error) {
	if maxConns < 0 {
		return nil, fmt.Errorf("archiveserver: at most %d connections: want 0 (%d) or more", maxConns, DefaultMaxConns)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	return LimitConns(ln, maxConns), nil
}

// LimitConns returns ln accepting at most maxConns connections at once
// (0 or less: DefaultMaxConns), with golang.org/x/net/netutil.LimitListener:
// a client beyond that waits in the kernel's queue until a connection
// ends. One HTTP/1.1 connection carries one request at a time, so that
// bounds the requests in flight too. Idle clients cannot keep the places:
// [HTTPServer] closes a connection that sends no request within
// Timeouts.ReadHeader, and a kept-alive one idle for Timeouts.Idle.
func LimitConns(ln net.Listener, maxConns int) net.Listener {
	if maxConns <= 0 {
		maxConns = DefaultMaxConns
	}
	return netutil.LimitListener(ln, maxConns)
}

// Timeouts bound how long the HTTP server of an archive waits on a client
// (net/http.Server's fields of the same names). A client that sends its
// request slowly, reads its answer slowly or keeps an idle keep-alive
// connection open is cut off instead of holding a connection and a
// goroutine for ever.
type Timeouts struct {
	ReadHeader time.Duration // for the request line and headers
	Read       time.Duration // for the whole request, body included
	Write      time.Duration // from the end of the request headers to the end of the answer
	Idle       time.Duration // for the next request on a keep-alive connection
}

// DefaultTimeouts are the timeouts of [HTTPServer] for zero fields: 10 s
// for the headers, 30 s for the request, 60 s for the answer and 2 min
// between requests on one connection.
var DefaultTimeouts = Timeouts{ReadHeader: 10 * time.Second, Read: 30 * time.Second, Write: time.Minute, Idle: 2 * time.Minute}

// HTTPServer returns the net/http server for h with the timeouts t (nil
// or zero fields: [DefaultTimeouts]). The write timeout is at least the
// server's own delays o.Latency + o.SlowBody plus the default, so that an
// archive set up to be slow still answers. Server errors go to log at
// Warn (nil: net/http's default logger).
func HTTPServer(h http.Handler, t *Timeouts, o *Options, log *slog.Logger) *http.Server {
	var tt Timeouts
	if t != nil {
		tt = *t
	}
	d := DefaultTimeouts
	if tt.ReadHeader <= 0 {
		tt.ReadHeader = d.ReadHeader
	}
	if tt.Read <= 0 {
		tt.Read = d.Read
	}
	if tt.Idle <= 0 {
		tt.Idle = d.Idle
	}
	if tt.Write <= 0 {
		tt.Write = d.Write
		if o != nil {
			tt.Write += o.Latency + o.SlowBody
		}
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: tt.ReadHeader, ReadTimeout: tt.Read, WriteTimeout: tt.Write, IdleTimeout: tt.Idle}
	if log != nil {
		hs.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	}
	return hs
}
