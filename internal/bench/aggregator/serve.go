package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/h1serve"
)

// serve runs the deployment (aggregator/server, as examples/aggregator
// assembles it) in this child process: it listens on a free loopback
// port, waits for the MementoMaps when routing, writes the address as one
// line to stdout, and serves until stdin reaches EOF (the parent closed
// it) or ctx ends. Each line "memstats" on stdin is answered with one line
// on stdout, "memstats MALLOCS BYTES": the process's heap allocations and
// allocated bytes so far (runtime.MemStats Mallocs and TotalAlloc).
func serve(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	list := fs.String("archives", "", "archive list file (MemGator JSON)")
	routing := fs.Bool("routing", false, "discover the archives' MementoMaps and route by them")
	cacheSpec := fs.String("cache", "none", "server cache spec (none, memory)")
	accessLog := fs.Bool("access-log", true, "write the access log (JSON, info level) to -log")
	logPath := fs.String("log", "", "file the server's log is appended to (default: no log kept)")
	defaults := fs.Bool("defaults", false, "the server's default per-archive concurrency and idle connections")
	maxConcurrent := fs.Int("max-concurrent", 1024, "per-archive requests in flight (unless -defaults)")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the whole serving time to this file")
	memProfile := fs.String("memprofile", "", "write an allocation profile (every allocation site, sampled as the runtime does) at the end to this file")
	mutexProfile := fs.String("mutexprofile", "", "write a mutex contention profile (every contention event) of the whole serving time to this file")
	canned := fs.String("canned", "", "answer every request with the server's answer to /timemap/link/ this URI-R (status, headers and body taken once, then written by a bare handler under the -http-server): what that HTTP server itself costs per answer")
	httpServer := fs.String("http-server", "", "the server's http_server (\"\": its default, strict; net/http)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	stopProfile, err := benchutil.StartCPUProfile(*profile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	if *mutexProfile != "" {
		runtime.SetMutexProfileFraction(1)
		defer func() { err = errors.Join(err, benchutil.WriteProfile("mutex", *mutexProfile)) }()
	}
	if *memProfile != "" {
		defer func() { err = errors.Join(err, benchutil.WriteProfile("allocs", *memProfile)) }()
	}
	var lf io.Writer = io.Discard
	if *logPath != "" {
		f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return err
		}
		defer f.Close()
		lf = f
	}

	c := server.DefaultConfig()
	c.Archives, c.Cache, c.AccessLog = *list, *cacheSpec, *accessLog
	c.DiscoverMaps = *routing
	c.HTTPServer = *httpServer
	c.Workers, c.ScanEvery, c.MapCheck = 0, 0, 0
	if !*defaults {
		c.MaxConcurrent, c.MaxIdlePer = *maxConcurrent, *maxConcurrent
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	c.Addr = ln.Addr().String()
	if c.Logger, err = c.NewLogger(lf); err != nil {
		return err
	}
	s, err := server.New(ctx, &c)
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	served := make(chan error, 1)
	if *canned != "" {
		h, err := cannedAnswer(s, *canned)
		s.Close()
		if err != nil {
			return err
		}
		var hs interface {
			Serve(net.Listener) error
			Close() error
		} = &h1serve.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
		if *httpServer == server.HTTPServerNetHTTP {
			hs = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
		}
		go func() { served <- hs.Serve(ln) }()
		go func() { <-sctx.Done(); hs.Close() }()
	} else {
		go func() { served <- s.Serve(sctx, ln) }()
	}
	if *routing {
		// Serve loads the maps in the background; measure only once every
		// archive's map is in.
		deadline := time.Now().Add(time.Minute)
		for !mapsLoaded(s) {
			if time.Now().After(deadline) {
				return fmt.Errorf("MementoMaps not loaded after a minute")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	done := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdin)
		for sc.Scan() {
			if sc.Text() == "memstats" {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				fmt.Fprintf(stdout, "memstats %d %d\n", ms.Mallocs, ms.TotalAlloc)
			}
		}
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	stop()
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// cannedAnswer asks s (in process) for the link-format TimeMap of urir
// and returns a handler that writes that answer, its status, headers and
// body, to every request: under -http-server, an HTTP server doing no
// work of its own.
func cannedAnswer(s *server.Server, urir string) (http.Handler, error) {
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/timemap/link/"+urir, nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("canned answer of %s: status %d", urir, rec.Code)
	}
	hd, body := rec.Header().Clone(), rec.Body.Bytes()
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		wh := w.Header()
		for k, v := range hd {
			wh[k] = v
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	}), nil
}

func mapsLoaded(s *server.Server) bool {
	for _, st := range s.Aggregator().Stats() {
		if st.MapLoaded.IsZero() {
			return false
		}
	}
	return true
}
