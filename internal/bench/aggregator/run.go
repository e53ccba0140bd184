package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
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
	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/timestamp"

	"github.com/mementokit/mementokit/internal/archiveserver"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/surt"
)

// config is what the flags set.
type config struct {
	duration, warmup time.Duration
	conns            []int
	latency          time.Duration
	uris, mementos   int
	largeURIs        int
	largeMementos    int
	skipLarge        bool
	skipDefaults     bool
	empty404         bool
	profileDir       string
	loader           string // "raw" (persistent connections, pre-built requests) or "client" (net/http.Client)
	only             string // run only the scenarios whose name contains this
	memgator         string // a MemGator binary to measure in the same run
}

// scenario is one configuration of the mementokit server.
type scenario struct {
	name           string
	routing, cache bool
	defaults       bool // the server's default concurrency and idle connections
	// canned: a bare server writing the cached answer of one URI-R to
	// every request (serve -canned): the HTTP server's own cost.
	canned bool
	// httpServer is the server's Config.HTTPServer ("": the default,
	// server.HTTPServerStrict), or, canned, the bare server's.
	httpServer string
}

func (sc scenario) args(archives string) []string {
	a := []string{"-serve", "-archives", archives, "-cache", "none"}
	if sc.cache {
		a[len(a)-1] = "memory"
	}
	if sc.routing {
		a = append(a, "-routing")
	}
	if sc.defaults {
		a = append(a, "-defaults")
	}
	if sc.httpServer != "" {
		a = append(a, "-http-server", sc.httpServer)
	}
	return a
}

// cannedFloor and strictFloor are the scenario names of the floor runs:
// the cached answer written by a bare net/http or strict server.
const (
	cannedFloor = "cached, net/http floor (canned answer)"
	strictFloor = "cached, strict floor (canned answer)"
)

// row is one printed result, kept for the ratio table.
type row struct {
	scenario string
	conns    int
	r        result
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "-serve" {
		return serve(ctx, args[1:], stdin, stdout)
	}
	fs := benchutil.NewFlagSet("The aggregator against MemGator on archives served on 127.0.0.1: req/s, latency, CPU and upstream requests per request.", stderr)
	var cfg config
	conns := fs.String("conns", "10,50,200", "comma-separated client connection counts")
	fs.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured load per run")
	fs.DurationVar(&cfg.warmup, "warmup", time.Second, "unmeasured load before each run (opens connections)")
	fs.DurationVar(&cfg.latency, "latency", 20*time.Millisecond, "latency each archive adds to TimeMap and TimeGate answers")
	fs.IntVar(&cfg.uris, "uris", 1000, "URI-Rs the load rotates over (more than -conns: every request is a fan-out of its own)")
	fs.IntVar(&cfg.mementos, "mementos", 10, "mementos per URI-R (each held by one archive)")
	fs.IntVar(&cfg.largeURIs, "large-uris", 250, "URI-Rs of the large-TimeMap runs")
	fs.IntVar(&cfg.largeMementos, "large-mementos", 1000, "mementos per URI-R in each archive for the large-TimeMap runs")
	fs.BoolVar(&cfg.skipLarge, "skip-large", false, "leave out the large-TimeMap runs")
	fs.BoolVar(&cfg.skipDefaults, "skip-defaults", false, "leave out the run with the server's default per-archive limits")
	fs.BoolVar(&cfg.empty404, "empty-404", false, "archives answer 404 with an empty body (isolates the cost of an upstream client that closes unread bodies)")
	fs.StringVar(&cfg.profileDir, "cpuprofile-dir", "", "write a CPU, an allocation and a mutex contention profile of the mementokit server per run into this folder (run-N.pprof, run-N.allocs.pprof, run-N.mutex.pprof; N as printed)")
	fs.StringVar(&cfg.only, "only", "", "run only the scenarios whose name contains this text (e.g. \"cached, routing on\"); \"large\" selects the large-TimeMap runs")
	fs.StringVar(&cfg.loader, "loader", "raw", "load generator: \"raw\" (one persistent connection per client, pre-built requests, responses read with http.ReadResponse: little CPU of its own) or \"client\" (net/http.Client)")
	fs.StringVar(&cfg.memgator, "memgator", "", "path of a MemGator binary: measure it against the same archives in the same run and print the ratios")
	if err := cli.ParseFlags(fs, args); err != nil {
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
	if cfg.uris < 3 || cfg.largeURIs < 1 || cfg.mementos < 1 || cfg.duration <= 0 {
		return fmt.Errorf("need -uris >= 3, -large-uris >= 1, -mementos >= 1, -duration > 0")
	}
	if _, err := procCPU(os.Getpid()); err != nil {
		return fmt.Errorf("the servers' CPU time is read from /proc: %w", err)
	}
	if cfg.memgator != "" {
		if _, err := os.Stat(cfg.memgator); err != nil {
			return fmt.Errorf("-memgator: %w", err)
		}
	}
	if cfg.profileDir != "" {
		if err := os.MkdirAll(cfg.profileDir, 0o755); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "bench-aggregator-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	// distinct registered domains over a few TLDs, so that compaction keeps
	// each archive's hosts apart (it never rolls a TLD up)
	tlds := []string{"com", "org", "net", "de", "fr"}
	uris := make([]string, cfg.uris)
	for i := range uris {
		uris[i] = fmt.Sprintf("http://www.site%04d.%s/page/%d.html", i, tlds[i%len(tlds)], i)
	}
	maxConns := slices.Max(cfg.conns)
	fmt.Fprintf(stdout, "aggregator benchmark: %d CPUs (GOMAXPROCS %d), %s, load average %s; archives add %v; measured %v after %v warm-up per run\n",
		runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), loadAverage(), cfg.latency, cfg.duration, cfg.warmup)
	fmt.Fprintf(stdout, "small: %d URI-Rs of %d mementos, each held by one of 3 archives; large: %d URI-Rs of %d mementos in each of 3 archives\n",
		cfg.uris, cfg.mementos, cfg.largeURIs, cfg.largeMementos)
	if cfg.memgator != "" {
		fmt.Fprintf(stdout, "peer: MemGator %s (no cache, no routing: every request asks the 3 archives)\n", cfg.memgator)
	}
	fmt.Fprintln(stdout)
	fmt.Fprintf(stdout, rowFormat, "scenario", "server", "conns", "req/s", "p50", "p99", "CPU/req", "allocs/req", "KB/req", "bench CPU/req", "upstream/req", "fan-outs/req", "req/fan-out", "new up conns/req", "non-200")

	var rows []row
	memgatorRows := map[[2]int]result{} // {archive set, conns}
	measureSet := func(set int, name string, as []*benchArchive, us []string, holders int, scs []scenario) error {
		if len(scs) == 0 {
			return nil
		}
		list, err := writeArchiveList(work, fmt.Sprintf("archives-%d.json", set), as)
		if err != nil {
			return err
		}
		if cfg.uris <= maxConns || len(us) <= maxConns {
			fmt.Fprintf(stdout, "(%s: %d URI-Rs for up to %d connections: concurrent requests for one URI-R share a fan-out)\n", name, len(us), maxConns)
		}
		for _, c := range cfg.conns {
			if cfg.memgator != "" {
				r, err := measure(ctx, startMemGator(cfg.memgator, list, work), as, us, holders, c, cfg, false)
				if err != nil {
					return fmt.Errorf("MemGator, %s, %d conns: %w", name, c, err)
				}
				memgatorRows[[2]int{set, c}] = r
				r.print(stdout, name, "MemGator", c)
			}
			for _, sc := range scs {
				if sc.defaults && c != maxConns {
					continue
				}
				label := name + ", " + sc.name
				args := sc.args(list)
				srvName := "mementokit"
				switch {
				case sc.canned:
					args, srvName = append(args, "-canned", us[0]), cmp.Or(sc.httpServer, server.HTTPServerStrict)
				case sc.httpServer != "":
					srvName = "mk " + sc.httpServer
				}
				args = append(args, "-log", filepath.Join(work, "access.log"))
				if cfg.profileDir != "" {
					runNo++
					fmt.Fprintf(stdout, "(run-%d: %s, %d conns)\n", runNo, label, c)
					args = append(args, "-cpuprofile", filepath.Join(cfg.profileDir, fmt.Sprintf("run-%d.pprof", runNo)),
						"-memprofile", filepath.Join(cfg.profileDir, fmt.Sprintf("run-%d.allocs.pprof", runNo)),
						"-mutexprofile", filepath.Join(cfg.profileDir, fmt.Sprintf("run-%d.mutex.pprof", runNo)))
				}
				r, err := measure(ctx, startChild(exe, args, stderr), as, us, holders, c, cfg, sc.cache)
				os.Remove(filepath.Join(work, "access.log"))
				if err != nil {
					return fmt.Errorf("%s, %d conns: %w", label, c, err)
				}
				r.print(stdout, label, srvName, c)
				if m, ok := memgatorRows[[2]int{set, c}]; ok && !sc.canned {
					r.peer = &m
				}
				rows = append(rows, row{label, c, r})
			}
		}
		return nil
	}

	var small []scenario
	for _, sc := range []scenario{
		{name: "uncached, routing off"},
		{name: "uncached, routing on", routing: true},
		{name: "cached, routing off", cache: true},
		{name: "cached, routing off, net/http server", cache: true, httpServer: server.HTTPServerNetHTTP},
		{name: "cached, routing on", routing: true, cache: true},
		{name: cannedFloor, cache: true, canned: true, httpServer: server.HTTPServerNetHTTP},
		{name: strictFloor, cache: true, canned: true},
		{name: "uncached, routing off, server defaults*", defaults: true},
	} {
		if sc.defaults && cfg.skipDefaults {
			continue
		}
		if strings.Contains("small, "+sc.name, cfg.only) {
			small = append(small, sc)
		}
	}
	if len(small) > 0 {
		as, err := startArchives(ctx, cfg, uris, false)
		if err != nil {
			return err
		}
		err = measureSet(0, "small", as, uris, 1, small)
		stopAll(as)
		if err != nil {
			return err
		}
	}
	largeName := fmt.Sprintf("large (3 x %d)", cfg.largeMementos)
	if lsc := (scenario{name: "uncached, routing off"}); !cfg.skipLarge && strings.Contains(largeName+", "+lsc.name, cfg.only) {
		as, err := startArchives(ctx, cfg, uris[:min(cfg.largeURIs, len(uris))], true)
		if err != nil {
			return err
		}
		err = measureSet(1, largeName, as, uris[:min(cfg.largeURIs, len(uris))], 3, []scenario{lsc})
		stopAll(as)
		if err != nil {
			return err
		}
	}
	fmt.Fprintln(stdout, "\nCPU/req: the server process's user+system time (/proc/PID/stat) over the measured requests; mementokit with its access log on")
	fmt.Fprintln(stdout, "(JSON, info level, to a file), MemGator with its default logging (none written).")
	fmt.Fprintln(stdout, "allocs/req and KB/req: the mementokit server's heap allocations and allocated KiB per request (runtime.MemStats")
	fmt.Fprintln(stdout, "Mallocs and TotalAlloc, read from the server process before and after the measured requests); \"-\" for MemGator.")
	fmt.Fprintln(stdout, "bench CPU/req: this process's (load generator and the three archives, which keep rendered TimeMaps).")
	fmt.Fprintln(stdout, "upstream/req and new up conns/req: requests the archives served and TCP connections they accepted, per client request;")
	fmt.Fprintln(stdout, "fan-outs/req: searches over the archives per client request, counted at the archives (TimeMaps found, over the archives")
	fmt.Fprintln(stdout, "holding each URI-R); req/fan-out is its inverse: above 1 when concurrent requests share a search or the cache answers.")
	if slices.ContainsFunc(small, func(sc scenario) bool { return sc.canned }) {
		fmt.Fprintln(stdout, "net/http and strict floor (canned answer): a bare net/http or strict (aggregator/server's own) HTTP server (no routing, cache,")
		fmt.Fprintln(stdout, "metrics or access log) writing the status, headers and body of the mementokit server's cached answer of one URI-R to every")
		fmt.Fprintln(stdout, "request: what the HTTP server and the sockets cost. \"mk net/http\": the mementokit server under net/http's server.")
	}
	if len(small) > 0 && !cfg.skipDefaults {
		fmt.Fprintf(stdout, "* server defaults: max_concurrent %d per archive (idle connections as many); the other runs 1,024.\n", aggregator.DefaultMaxConcurrent)
	}
	if cfg.memgator != "" {
		fmt.Fprintf(stdout, "\nmementokit against MemGator, same archives, same run (above 1: mementokit better):\n")
		fmt.Fprintf(stdout, ratioFormat, "scenario", "conns", "CPU/req MG/mk", "req/s mk/MG", "p50 MG/mk", "p99 MG/mk")
		for _, rw := range rows {
			if rw.r.peer == nil {
				continue
			}
			m, o := *rw.r.peer, rw.r
			fmt.Fprintf(stdout, ratioFormat, rw.scenario, rw.conns, ratio(m.cpuPerReq(), o.cpuPerReq()), ratio(o.rate(), m.rate()),
				ratio(float64(m.p50), float64(o.p50)), ratio(float64(m.p99), float64(o.p99)))
		}
		fmt.Fprintln(stdout, "(MemGator has no cache: against the cached scenarios it still searches for every request)")
	}
	fmt.Fprintf(stdout, "\nload average at the end: %s\n", loadAverage())
	return nil
}

const ratioFormat = "%-50s %5v %14v %12v %10v %10v\n"

func ratio(a, b float64) string {
	if b <= 0 || a <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// loadAverage is the first three fields of /proc/loadavg ("?" elsewhere).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// writeArchiveList writes the archives as a MemGator JSON archive list,
// which both servers read.
func writeArchiveList(dir, name string, as []*benchArchive) (string, error) {
	type entry struct {
		ID          string  `json:"id"`
		Name        string  `json:"name"`
		TimeMap     string  `json:"timemap"`
		TimeGate    string  `json:"timegate"`
		Probability float64 `json:"probability"`
	}
	var l []entry
	for i, a := range as {
		id := fmt.Sprintf("a%d", i+1)
		l = append(l, entry{ID: id, Name: "Bench archive " + id, TimeMap: a.base + archiveserver.TimeMapPrefix,
			TimeGate: a.base + archiveserver.TimeGatePrefix, Probability: 1})
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, b, 0o644)
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
		id := fmt.Sprintf("a%d", a+1)
		x, _, err := archiveserver.LoadIndex(ctx, []cdxj.Searcher{cdxj.NewStream("bench", &idx, nil)},
			&archiveserver.LoadOptions{Map: &mementomap.BuildOptions{ArchiveID: id, Name: id}})
		if err != nil {
			return nil, err
		}
		srv, err := archiveserver.New(ctx, x, &archiveserver.Options{ID: id, Latency: cfg.latency,
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

// counters is a snapshot of what the archives counted.
type counters struct {
	upstream int64 // lookup requests the archives served
	found    int64 // of them, answered with mementos
	newConns int64 // connections the archives accepted
}

func snapshot(as []*benchArchive) counters {
	var c counters
	for _, a := range as {
		st := a.srv.Stats()
		c.upstream += st.TimeMap + st.TimeGate
		c.found += st.TimeMap + st.TimeGate - st.NotFound
		c.newConns += a.conns.Load()
	}
	return c
}

// result is one measured run.
type result struct {
	requests, errors int64
	elapsed          time.Duration
	p50, p99         time.Duration
	cpu              time.Duration // the server process's CPU time
	benchCPU         time.Duration // this process's: load generator and archives
	upstream         int64
	fanOuts          float64
	newConns         int64
	// mallocs and allocBytes are the server's heap allocations and
	// allocated bytes over the measured requests (runtime.MemStats of the
	// mementokit server; allocKnown false for MemGator).
	mallocs, allocBytes uint64
	allocKnown          bool
	peer                *result // MemGator's run at the same connections, if any
}

func (r result) cpuPerReq() float64 { return float64(r.cpu) / float64(max(r.requests, 1)) }
func (r result) rate() float64      { return float64(r.requests) / r.elapsed.Seconds() }

const rowFormat = "%-50s %-10s %5v %7v %9v %9v %9v %10v %8v %13v %12v %12v %11v %16v %7v\n"

func (r result) print(w io.Writer, name, server string, conns int) {
	n := float64(max(r.requests, 1))
	perFan := "-"
	if r.fanOuts > 0 {
		perFan = fmt.Sprintf("%.2f", n/r.fanOuts)
	}
	allocs, kb := "-", "-"
	if r.allocKnown {
		allocs, kb = fmt.Sprintf("%.0f", float64(r.mallocs)/n), fmt.Sprintf("%.1f", float64(r.allocBytes)/n/1024)
	}
	fmt.Fprintf(w, rowFormat, name, server, conns,
		fmt.Sprintf("%.0f", r.rate()), r.p50.Round(10*time.Microsecond), r.p99.Round(10*time.Microsecond),
		fmt.Sprintf("%.3f ms", float64(r.cpu)/n/1e6), allocs, kb, fmt.Sprintf("%.3f ms", float64(r.benchCPU)/n/1e6),
		fmt.Sprintf("%.2f", float64(r.upstream)/n), fmt.Sprintf("%.2f", r.fanOuts/n), perFan,
		fmt.Sprintf("%.3f", float64(r.newConns)/n), r.errors)
}

// runNo numbers the profiled runs for profile file names.
var runNo int

// proc is a started server: its base URL and process id; stop ends it
// and waits for it.
type proc struct {
	addr string
	pid  int
	stop func()
	// memStats, when set, is the server's heap allocations and allocated
	// bytes so far (runtime.MemStats Mallocs and TotalAlloc).
	memStats func() (mallocs, bytes uint64, err error)
}

// starter starts a server.
type starter func(ctx context.Context) (*proc, error)

// startChild starts this program with args (-serve ...): the mementokit
// server, whose first stdout line is its address; it stops when its
// stdin closes.
func startChild(exe string, args []string, stderr io.Writer) starter {
	return func(ctx context.Context) (*proc, error) {
		cmd := exec.CommandContext(ctx, exe, args...)
		cmd.Stderr = stderr
		in, err := cmd.StdinPipe()
		if err != nil {
			return nil, err
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, err
		}
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		stop := func() {
			in.Close()
			_ = cmd.Wait()
		}
		br := bufio.NewReader(out)
		line, err := br.ReadString('\n')
		if err != nil {
			stop()
			return nil, fmt.Errorf("server child did not start: %w", err)
		}
		memStats := func() (uint64, uint64, error) {
			if _, err := io.WriteString(in, "memstats\n"); err != nil {
				return 0, 0, err
			}
			l, err := br.ReadString('\n')
			if err != nil {
				return 0, 0, fmt.Errorf("server child's memstats: %w", err)
			}
			var m, b uint64
			if _, err := fmt.Sscanf(l, "memstats %d %d\n", &m, &b); err != nil {
				return 0, 0, fmt.Errorf("server child's memstats %q: %w", l, err)
			}
			return m, b, nil
		}
		return &proc{addr: strings.TrimSpace(line), pid: cmd.Process.Pid, stop: stop, memStats: memStats}, nil
	}
}

// startMemGator starts MemGator in server mode over the archive list at
// list, on a free port, with its User-Agent contact set and its logs
// left at their default (none written); it is ready when /about answers.
// MemGator has no listen-address flag: it listens on every interface.
func startMemGator(bin, list, dir string) starter {
	return func(ctx context.Context) (*proc, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		addr := fmt.Sprintf("http://127.0.0.1:%d", port)
		cmd := exec.CommandContext(ctx, bin, "-a", list, "-p", strconv.Itoa(port), "-H", "127.0.0.1", "-P", addr,
			"-c", "mementokit internal/bench/aggregator", "server")
		cmd.Dir = dir
		var errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errOut
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		stop := func() {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		deadline := time.Now().Add(15 * time.Second)
		for {
			resp, err := http.Get(addr + "/about")
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					break
				}
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				stop()
				return nil, fmt.Errorf("MemGator did not answer on %s: %v; stderr: %s", addr, err, errOut.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		return &proc{addr: addr, pid: cmd.Process.Pid, stop: stop}, nil
	}
}

// procCPU is a process's user+system CPU time from /proc/PID/stat
// (utime and stime, fields 14 and 15, in clock ticks of 1/100 s, the
// USER_HZ of Linux).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// the command name (field 2) is in parentheses and may hold spaces
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime or stime", pid)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// measure starts a server, checks one answer of each URI-R set against
// what the archives hold, fills the cache (cached) with one pass over the
// URI-Rs, warms up, measures one run of cfg.duration at conns
// connections, and stops the server. holders is the number of archives
// holding each URI-R (fan-outs are the found answers over it).
func measure(ctx context.Context, start starter, as []*benchArchive, uris []string, holders, conns int, cfg config, cached bool) (result, error) {
	var r result
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p, err := start(cctx)
	if err != nil {
		return r, err
	}
	defer p.stop()
	addr := p.addr

	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns + 1, MaxConnsPerHost: conns + 1,
		DisableCompression: true}, Timeout: 60 * time.Second}
	defer client.CloseIdleConnections()
	want := cfg.mementos
	if holders > 1 {
		want = holders * cfg.largeMementos
	}
	if err := checkAnswer(ctx, client, addr, uris[len(uris)-1], want); err != nil {
		return r, err
	}
	if cached {
		if err := prime(ctx, client, addr, uris, conns); err != nil {
			return r, err
		}
	}
	if cfg.warmup > 0 {
		load(ctx, client, addr, uris, conns, cfg.warmup)
	}
	before := snapshot(as)
	cpu0 := benchutil.SelfCPU()
	var m0, b0 uint64
	if p.memStats != nil {
		if m0, b0, err = p.memStats(); err != nil {
			return r, err
		}
	}
	pcpu0, err := procCPU(p.pid)
	if err != nil {
		return r, err
	}
	var lr result
	if cfg.loader == "raw" {
		lr = loadRaw(ctx, addr, uris, conns, cfg.duration)
	} else {
		lr = load(ctx, client, addr, uris, conns, cfg.duration)
	}
	pcpu1, err := procCPU(p.pid)
	if err != nil {
		return r, err
	}
	benchCPU := benchutil.SelfCPU() - cpu0
	var m1, b1 uint64
	if p.memStats != nil {
		if m1, b1, err = p.memStats(); err != nil {
			return r, err
		}
	}
	after := snapshot(as)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r = lr
	r.cpu = pcpu1 - pcpu0
	r.benchCPU = benchCPU
	r.upstream = after.upstream - before.upstream
	r.fanOuts = float64(after.found-before.found) / float64(holders)
	r.newConns = after.newConns - before.newConns
	if p.memStats != nil {
		r.mallocs, r.allocBytes, r.allocKnown = m1-m0, b1-b0, true
	}
	return r, nil
}

// checkAnswer asks for the TimeMap of urir and checks that it lists want
// mementos (lines with a datetime attribute), so that both servers are
// measured doing the same work.
func checkAnswer(ctx context.Context, client *http.Client, addr, urir string, want int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr+"/timemap/link/"+urir, nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("check %s: HTTP %d", urir, resp.StatusCode)
	}
	if n := bytes.Count(b, []byte("; datetime=\"")); n != want {
		return fmt.Errorf("check %s: %d mementos in the TimeMap, want %d", urir, n, want)
	}
	return nil
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
