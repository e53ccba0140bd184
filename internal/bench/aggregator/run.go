package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/timestamp"

	"github.com/mementokit/mementokit/internal/archiveserver"
	"github.com/mementokit/mementokit/surt"
)

// config is what the flags set.
type config struct {
	duration, warmup time.Duration
	conns            []int
	latency          time.Duration
	uris, mementos   int
	largeMementos    int
	skipLarge        bool
	skipDefaults     bool
	empty404         bool
	profileDir       string
	loader           string // "raw" (persistent connections, pre-built requests) or "client" (net/http.Client)
	only             string // run only the small-archive scenarios whose name contains this
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "-serve" {
		return serve(ctx, args[1:], stdin, stdout)
	}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	conns := fs.String("conns", "10,50,200", "comma-separated client connection counts")
	fs.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured load per run")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "unmeasured load before each run (fills the cache, opens connections)")
	fs.DurationVar(&cfg.latency, "latency", 20*time.Millisecond, "latency each archive adds to TimeMap and TimeGate answers")
	fs.IntVar(&cfg.uris, "uris", 100, "URI-Rs the load rotates over")
	fs.IntVar(&cfg.mementos, "mementos", 10, "mementos per URI-R (each held by one archive)")
	fs.IntVar(&cfg.largeMementos, "large-mementos", 1000, "mementos per URI-R in each archive for the large-TimeMap run")
	fs.BoolVar(&cfg.skipLarge, "skip-large", false, "leave out the large-TimeMap runs")
	fs.BoolVar(&cfg.skipDefaults, "skip-defaults", false, "leave out the run with the aggregator's default client and limits")
	fs.BoolVar(&cfg.empty404, "empty-404", false, "archives answer 404 with an empty body (isolates the cost of an upstream client that closes unread bodies)")
	fs.StringVar(&cfg.profileDir, "cpuprofile-dir", "", "write a CPU profile and a mutex contention profile of the aggregator per run into this folder (run-N.pprof, run-N.mutex.pprof)")
	fs.StringVar(&cfg.only, "only", "", "run only the scenarios whose name contains this text (e.g. \"cached, routing on\"); \"large\" selects the large-TimeMap runs")
	fs.StringVar(&cfg.loader, "loader", "raw", "load generator: \"raw\" (one persistent connection per client, pre-built requests, responses read with http.ReadResponse: little CPU of its own) or \"client\" (net/http.Client)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.loader != "raw" && cfg.loader != "client" {
		return fmt.Errorf("-loader: %q is not raw or client", cfg.loader)
	}
	for _, s := range strings.Split(*conns, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-conns: bad count %q", s)
		}
		cfg.conns = append(cfg.conns, n)
	}
	if cfg.uris < 3 || cfg.mementos < 1 || cfg.duration <= 0 {
		return fmt.Errorf("need -uris >= 3, -mementos >= 1, -duration > 0")
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}

	// distinct registered domains over a few TLDs, so that compaction keeps
	// each archive's hosts apart (it never rolls a TLD up)
	tlds := []string{"com", "org", "net", "de", "fr"}
	uris := make([]string, cfg.uris)
	for i := range uris {
		uris[i] = fmt.Sprintf("http://www.site%03d.%s/page/%d.html", i, tlds[i%len(tlds)], i)
	}
	small, err := startArchives(ctx, cfg, uris, false)
	if err != nil {
		return err
	}
	defer stopAll(small)
	maybe := 0
	for i, u := range uris {
		for a, ar := range small {
			if m, err := ar.srv.Map().Lookup(u); err == nil && m.Present() && a != i%3 {
				maybe++
			}
		}
	}

	fmt.Fprintf(stdout, "aggregator benchmark: %d CPUs (GOMAXPROCS %d), %s, archives add %v; %d URI-Rs, measured %v after %v warm-up per run\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), cfg.latency, cfg.uris, cfg.duration, cfg.warmup)
	fmt.Fprintf(stdout, "small: %d mementos per URI-R, each URI-R held by one of 3 archives (the MementoMaps say \"maybe\" for %d of the %d non-holders); large: %d mementos per URI-R in each of 3 archives\n\n",
		cfg.mementos, maybe, 2*len(uris), cfg.largeMementos)
	tw := stdout
	fmt.Fprintf(tw, rowFormat, "scenario", "conns", "req/s", "p50", "p99", "agg CPU/req", "bench CPU/req", "upstream/req", "new up conns/req", "non-200")
	flush := func() {}

	type scenario struct {
		name                      string
		routing, cached, defaults bool
	}
	scenarios := []scenario{
		{"uncached, routing off", false, false, false},
		{"uncached, routing on", true, false, false},
		{"cached, routing off", false, true, false},
		{"cached, routing on", true, true, false},
	}
	for _, sc := range scenarios {
		if !strings.Contains(sc.name, cfg.only) {
			continue
		}
		for _, c := range cfg.conns {
			args := []string{"-serve", "-archives", bases(small)}
			if sc.routing {
				args = append(args, "-routing")
			}
			if sc.cached {
				args = append(args, "-cached")
			}
			r, err := measure(ctx, exe, args, small, uris, c, cfg, stderr)
			if err != nil {
				return fmt.Errorf("%s, %d conns: %w", sc.name, c, err)
			}
			r.print(tw, sc.name, c)
			flush()
		}
	}
	if !cfg.skipDefaults && strings.Contains("uncached, routing off, aggregator defaults", cfg.only) {
		c := cfg.conns[len(cfg.conns)-1]
		r, err := measure(ctx, exe, []string{"-serve", "-archives", bases(small), "-defaults"}, small, uris, c, cfg, stderr)
		if err != nil {
			return fmt.Errorf("defaults: %w", err)
		}
		r.print(tw, "uncached, routing off, aggregator defaults*", c)
		flush()
	}
	stopAll(small)
	if !cfg.skipLarge && strings.Contains(fmt.Sprintf("large (3 x %d mementos), uncached", cfg.largeMementos), cfg.only) {
		large, err := startArchives(ctx, cfg, uris, true)
		if err != nil {
			return err
		}
		defer stopAll(large)
		for _, c := range cfg.conns {
			r, err := measure(ctx, exe, []string{"-serve", "-archives", bases(large), "-routing"}, large, uris, c, cfg, stderr)
			if err != nil {
				return fmt.Errorf("large: %w", err)
			}
			r.print(tw, fmt.Sprintf("large (3 x %d mementos), uncached", cfg.largeMementos), c)
			flush()
		}
	}
	fmt.Fprintln(stdout, "\nagg CPU/req: the aggregator process's user+system time (getrusage) over the measured requests;")
	fmt.Fprintln(stdout, "bench CPU/req: this process's (load generator and the three archives, which keep rendered TimeMaps).")
	fmt.Fprintln(stdout, "upstream/req and new upstream conns/req: requests the archives served and TCP connections they accepted, per client request;")
	fmt.Fprintln(stdout, "identical concurrent searches share one fan-out (singleflight), so with more connections than URI-Rs upstream/req falls below 3 (or 1).")
	if !cfg.skipDefaults {
		fmt.Fprintln(stdout, fmt.Sprintf("* aggregator defaults: Options.HTTPClient nil (the aggregator's own transport: %d idle connections per archive) and MaxConcurrent %d per archive;", aggregator.DefaultMaxIdleConnsPerHost, aggregator.DefaultMaxConcurrent))
		fmt.Fprintln(stdout, "  the other runs pass an HTTPClient whose Transport keeps 1,024 idle connections per archive and MaxConcurrent 1,024.")
	}
	return nil
}

// benchArchive is one local archive with a connection counter.
type benchArchive struct {
	srv   *archiveserver.Server
	base  string
	conns atomic.Int64
	stop  func()
}

func bases(as []*benchArchive) string {
	s := make([]string, len(as))
	for i, a := range as {
		s[i] = a.base
	}
	return strings.Join(s, ",")
}

func stopAll(as []*benchArchive) {
	for _, a := range as {
		if a.stop != nil {
			a.stop()
			a.stop = nil
		}
	}
}

// startArchives starts three archives: small, URI-R i is held by archive
// i%3 with cfg.mementos mementos; large, every archive holds every URI-R
// with cfg.largeMementos mementos (each archive at different seconds).
func startArchives(ctx context.Context, cfg config, uris []string, large bool) ([]*benchArchive, error) {
	var out []*benchArchive
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for a := 0; a < 3; a++ {
		var idx bytes.Buffer
		for i, u := range uris {
			n := cfg.mementos
			if large {
				n = cfg.largeMementos
			} else if i%3 != a {
				continue
			}
			key, err := surt.Canonicalize(u)
			if err != nil {
				return nil, err
			}
			for m := 0; m < n; m++ {
				ts := t0.Add(time.Duration(m)*6*time.Hour + time.Duration(a)*time.Minute)
				fmt.Fprintf(&idx, "%s %s {\"url\": %q}\n", key, timestamp.Format(ts), u)
			}
		}
		x, _, err := archiveserver.LoadIndex(ctx, []cdxj.Searcher{cdxj.NewStream("bench", &idx, nil)}, archiveserver.LoadOptions{})
		if err != nil {
			return nil, err
		}
		srv, err := archiveserver.New(ctx, x, archiveserver.Options{ID: fmt.Sprintf("a%d", a+1), Latency: cfg.latency,
			TimeMapCache: 2 * len(uris)})
		if err != nil {
			return nil, err
		}
		ba := &benchArchive{srv: srv}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		var h http.Handler = srv
		if cfg.empty404 {
			h = empty404(srv)
		}
		hs := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
			ConnState: func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					ba.conns.Add(1)
				}
			}}
		go func() { _ = hs.Serve(ln) }()
		ba.base = "http://" + ln.Addr().String()
		ba.stop = func() {
			sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_ = hs.Shutdown(sctx)
		}
		out = append(out, ba)
	}
	return out, nil
}

// empty404 drops the body of 404 answers (Content-Length: 0).
func empty404(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&no404Body{ResponseWriter: w}, r)
	})
}

type no404Body struct {
	http.ResponseWriter
	drop bool
}

// WriteHeader passes the status on, emptying the body of a 404.
func (w *no404Body) WriteHeader(code int) {
	if code == http.StatusNotFound {
		w.drop = true
		w.Header().Set("Content-Length", "0")
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write discards the body of a 404.
func (w *no404Body) Write(p []byte) (int, error) {
	if w.drop {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// counters is a snapshot of everything a run is measured by.
type counters struct {
	server   serverStats
	upstream int64 // lookup requests the archives served
	newConns int64 // connections the archives accepted
}

func snapshot(ctx context.Context, client *http.Client, addr string, as []*benchArchive) (counters, error) {
	var c counters
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/_bench/stats", nil)
	if err != nil {
		return c, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return c, err
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&c.server); err != nil {
		return c, err
	}
	for _, a := range as {
		st := a.srv.Stats()
		c.upstream += st.TimeMap + st.TimeGate
		c.newConns += a.conns.Load()
	}
	return c, nil
}

// result is one measured run.
type result struct {
	requests, errors int64
	elapsed          time.Duration
	p50, p99         time.Duration
	cpu              time.Duration // the aggregator child's CPU time
	benchCPU         time.Duration // this process's: load generator and archives
	upstream         int64
	newConns         int64
}

const rowFormat = "%-46s %5v %7v %9v %9v %11v %13v %12v %16v %7v\n"

func (r result) print(w io.Writer, name string, conns int) {
	n := float64(max(r.requests, 1))
	fmt.Fprintf(w, rowFormat, name, conns,
		fmt.Sprintf("%.0f", float64(r.requests)/r.elapsed.Seconds()), r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond),
		fmt.Sprintf("%.3f ms", float64(r.cpu)/n/1e6), fmt.Sprintf("%.3f ms", float64(r.benchCPU)/n/1e6),
		fmt.Sprintf("%.2f", float64(r.upstream)/n), fmt.Sprintf("%.3f", float64(r.newConns)/n), r.errors)
}

// runNo numbers the runs for profile file names.
var runNo int

// measure starts the aggregator child with args, warms it up, measures one
// run of cfg.duration at conns connections, and stops the child.
func measure(ctx context.Context, exe string, args []string, as []*benchArchive, uris []string, conns int, cfg config, stderr io.Writer) (result, error) {
	var r result
	if cfg.profileDir != "" {
		runNo++
		args = append(args, "-cpuprofile", filepath.Join(cfg.profileDir, fmt.Sprintf("run-%d.pprof", runNo)),
			"-mutexprofile", filepath.Join(cfg.profileDir, fmt.Sprintf("run-%d.mutex.pprof", runNo)))
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, exe, args...)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return r, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return r, err
	}
	if err := cmd.Start(); err != nil {
		return r, err
	}
	defer func() {
		in.Close()
		_ = cmd.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return r, fmt.Errorf("aggregator child did not start: %w", err)
	}
	addr := strings.TrimSpace(line)

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns + 1, MaxConnsPerHost: conns + 1,
		DisableCompression: true}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	// one pass over every URI-R (fills the cache of the cached scenarios),
	// then the timed warm-up
	if err := prime(ctx, client, addr, uris, conns); err != nil {
		return r, err
	}
	if cfg.warmup > 0 {
		load(ctx, client, addr, uris, conns, cfg.warmup)
	}
	before, err := snapshot(ctx, client, addr, as)
	if err != nil {
		return r, err
	}
	cpu0 := cpuTime()
	var lr result
	if cfg.loader == "raw" {
		lr = loadRaw(ctx, addr, uris, conns, cfg.duration)
	} else {
		lr = load(ctx, client, addr, uris, conns, cfg.duration)
	}
	benchCPU := cpuTime() - cpu0
	after, err := snapshot(ctx, client, addr, as)
	if err != nil {
		return r, err
	}
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r = lr
	r.cpu = after.server.CPU - before.server.CPU
	r.benchCPU = benchCPU
	r.upstream = after.upstream - before.upstream
	r.newConns = after.newConns - before.newConns
	return r, nil
}

// prime asks for every URI-R once, conns at a time; a non-200 answer is an
// error (the archives hold every URI-R).
func prime(ctx context.Context, client *http.Client, addr string, uris []string, conns int) error {
	var (
		next atomic.Int64
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for range min(conns, len(uris)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(uris) || ctx.Err() != nil {
					return
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/timemap/link/"+uris[i], nil)
				resp, err := client.Do(req)
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("%s: HTTP %d", uris[i], resp.StatusCode)
					}
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return ctx.Err()
}

// load runs conns closed-loop clients for d, each GETting
// /timemap/link/{URI-R} in rotation over uris, and returns the counts and
// latency percentiles.
func load(ctx context.Context, client *http.Client, addr string, uris []string, conns int, d time.Duration) result {
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		lats  []time.Duration
		errs  atomic.Int64
		start = time.Now()
	)
	deadline := start.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 1024)
			for time.Now().Before(deadline) && ctx.Err() == nil {
				u := uris[int(next.Add(1)-1)%len(uris)]
				t := time.Now()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/timemap/link/"+u, nil)
				resp, err := client.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs.Add(1)
				}
				local = append(local, time.Since(t))
			}
			mu.Lock()
			lats = append(lats, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return summarize(time.Since(start), lats, errs.Load())
}

// loadRaw is load with less CPU of its own, so that more of the two cores
// is left to the server: each of conns goroutines keeps one TCP connection
// to addr (an http:// URL), writes pre-built HTTP/1.1 GET requests for
// /timemap/link/{URI-R} in rotation, and reads each answer with
// http.ReadResponse, discarding the body. A connection that fails is
// counted as an error and dialled again.
func loadRaw(ctx context.Context, addr string, uris []string, conns int, d time.Duration) result {
	host := strings.TrimPrefix(addr, "http://")
	reqs := make([][]byte, len(uris))
	for i, u := range uris {
		reqs[i] = []byte("GET /timemap/link/" + u + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: bench\r\n\r\n")
	}
	var (
		next  atomic.Int64
		wg    sync.WaitGroup
		mu    sync.Mutex
		lats  []time.Duration
		errs  atomic.Int64
		start = time.Now()
	)
	deadline := start.Add(d)
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			var (
				c  net.Conn
				br *bufio.Reader
			)
			defer func() {
				if c != nil {
					c.Close()
				}
			}()
			for time.Now().Before(deadline) && ctx.Err() == nil {
				if c == nil {
					var err error
					if c, err = net.Dial("tcp", host); err != nil {
						errs.Add(1)
						time.Sleep(time.Millisecond)
						continue
					}
					br = bufio.NewReaderSize(c, 64<<10)
				}
				i := int(next.Add(1)-1) % len(reqs)
				t := time.Now()
				_ = c.SetDeadline(t.Add(30 * time.Second))
				resp, err := func() (*http.Response, error) {
					if _, err := c.Write(reqs[i]); err != nil {
						return nil, err
					}
					return http.ReadResponse(br, nil)
				}()
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				if err != nil {
					errs.Add(1)
					c.Close()
					c = nil
					continue
				}
				if resp.StatusCode != http.StatusOK {
					errs.Add(1)
				}
				if resp.Close {
					c.Close()
					c = nil
				}
				local = append(local, time.Since(t))
			}
			mu.Lock()
			lats = append(lats, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	return summarize(time.Since(start), lats, errs.Load())
}

// summarize makes the result of a load run from its duration, the latency
// of every completed request (sorted in place) and the error count.
func summarize(elapsed time.Duration, lats []time.Duration, errors int64) result {
	r := result{elapsed: elapsed, requests: int64(len(lats)), errors: errors}
	if len(lats) > 0 {
		slices.Sort(lats)
		r.p50 = lats[len(lats)/2]
		r.p99 = lats[min(len(lats)-1, len(lats)*99/100)]
	}
	return r
}
