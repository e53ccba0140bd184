package server

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/mementokit/mementokit/internal/h1serve"
)

// The HTTP servers Config.HTTPServer names.
const (
	// HTTPServerStrict is the server's own HTTP/1.1 server (the default):
	// a strict request parser, keep-alive and pipelining, a cap on
	// connections (h1serve.DefaultMaxConns), less CPU per request than
	// net/http's.
	HTTPServerStrict = "strict"
	// HTTPServerNetHTTP is net/http's server, HTTP/1.1 only as served on
	// a plain listener.
	HTTPServerNetHTTP = "net/http"
)

// Timeouts of the listener, the same for both servers: a request's head
// within readHeaderTimeout of its first byte, a kept connection closed
// after idleTimeout without a request, and an answer written within the
// live-search budget and writeMargin of its request.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 2 * time.Minute
	writeMargin       = 30 * time.Second
)

// httpListener is what Serve runs on its listener.
type httpListener interface {
	Serve(net.Listener) error
	Shutdown(context.Context) error
	Close() error
}

func (s *Server) httpServer() httpListener {
	errLog := slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)
	// A live search ends within its budget; the answer then needs little
	// time.
	write := time.Duration(s.c.DynamicBudget) + writeMargin
	if s.c.HTTPServer == HTTPServerNetHTTP {
		return &http.Server{Handler: optionsAsterisk(s), DisableGeneralOptionsHandler: true,
			ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, WriteTimeout: write, ErrorLog: errLog}
	}
	return &h1serve.Server{Handler: s, Allow: h1serve.DefaultAllow, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout, WriteTimeout: write, ErrorLog: errLog}
}

// optionsAsterisk answers OPTIONS *, a request about the server itself
// (RFC 9110, 9.3.7), as the strict listener does (h1serve.Server): 204
// with Allow: GET, HEAD, POST, OPTIONS, the methods of the API (net/http's
// own answer is a 200 without Allow). Every other request goes to h.
func optionsAsterisk(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.RequestURI == "*" && r.Method == http.MethodOptions {
			w.Header().Set("Allow", h1serve.DefaultAllow)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.ServeHTTP(w, r)
	})
}
