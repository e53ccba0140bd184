package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/archiveserver"
)

// serverStats is what the child reports at /_bench/stats.
type serverStats struct {
	CPU   time.Duration // user+system CPU time of the process so far
	Dials int64         // upstream TCP connections the aggregator opened
	Conns int64         // client connections it accepted
}

// serveConfig is the child's set-up.
type serveConfig struct {
	archives      []string // archive base URLs
	routing       bool     // discover and use the archives' MementoMaps
	cached        bool     // in-memory cache
	defaults      bool     // the aggregator's default HTTP client and concurrency limit
	maxConcurrent int      // per-archive requests in flight (unless defaults)
	idlePerHost   int      // idle upstream connections kept per archive (unless defaults)
}

// serve runs the aggregator in this (child) process: it listens on a free
// loopback port, writes the address as one line to stdout, and serves
// until stdin reaches EOF (the parent closed it) or ctx ends.
func serve(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var sc serveConfig
	list := fs.String("archives", "", "comma-separated archive base URLs")
	fs.BoolVar(&sc.routing, "routing", false, "route by MementoMaps")
	fs.BoolVar(&sc.cached, "cached", false, "use an in-memory cache")
	fs.BoolVar(&sc.defaults, "defaults", false, "use the aggregator's default HTTP client and concurrency limit")
	fs.IntVar(&sc.maxConcurrent, "max-concurrent", 1024, "per-archive requests in flight")
	fs.IntVar(&sc.idlePerHost, "idle-per-host", 1024, "idle upstream connections kept per archive")
	profile := fs.String("cpuprofile", "", "write a CPU profile of the whole serving time to this file")
	mutexProfile := fs.String("mutexprofile", "", "write a mutex contention profile (every contention event) of the whole serving time to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *mutexProfile != "" {
		runtime.SetMutexProfileFraction(1)
		defer func() {
			if f, err := os.Create(*mutexProfile); err == nil {
				_ = pprof.Lookup("mutex").WriteTo(f, 0)
				_ = f.Close()
			}
		}()
	}
	sc.archives = strings.Split(*list, ",")

	var dials, conns atomic.Int64
	opts := aggregator.Options{}
	if !sc.defaults {
		d := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
		tr := &http.Transport{
			Proxy:               nil,
			MaxIdleConns:        0, // no global cap
			MaxIdleConnsPerHost: sc.idlePerHost,
			IdleConnTimeout:     90 * time.Second,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return d.DialContext(ctx, network, addr)
			},
		}
		opts.HTTPClient = &http.Client{Transport: tr}
		opts.MaxConcurrent = sc.maxConcurrent
	}
	for i, base := range sc.archives {
		a := aggregator.Archive{ID: fmt.Sprintf("a%d", i+1), TimeMap: base + archiveserver.TimeMapPrefix,
			TimeGate: base + archiveserver.TimeGatePrefix}
		if sc.routing {
			a.Map = aggregator.MapSource{Discover: true}
		}
		opts.Archives = append(opts.Archives, a)
	}
	if sc.cached {
		c, err := cache.NewMemory(&cache.MemoryOptions{ShareMementos: true})
		if err != nil {
			return err
		}
		opts.Cache = c
	}
	dir, err := os.MkdirTemp("", "bench-aggregator-maps-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts.MapDir = dir
	ag, err := aggregator.New(opts)
	if err != nil {
		return err
	}
	defer ag.Close()
	if sc.routing {
		if err := ag.LoadMaps(ctx); err != nil {
			return err
		}
	}
	h := ag.Handler()
	// Not an http.ServeMux: it would answer every /timemap/link/http://...
	// with a 307 to a path with "//" merged, doubling the requests.
	mux := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/_bench/stats" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(serverStats{CPU: cpuTime(), Dials: dials.Load(), Conns: conns.Load()})
			return
		}
		h.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}}
	go func() { _ = hs.Serve(ln) }()
	fmt.Fprintf(stdout, "http://%s\n", ln.Addr())
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, bufio.NewReader(stdin))
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}
