package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/webui"
)

// ErrConfig wraps the errors of a configuration value no server can run
// with (Config.Check, an unknown cache spelling): a command line reports
// them as usage errors.
var ErrConfig = errors.New("configuration")

// Server is one assembled aggregator deployment: the aggregator with its
// archive list, rules, blacklist and cache, the web page, the Prometheus
// metrics, the health check, and (while Serve runs) the MementoMap loader,
// the refresh workers and the cache scanner. It is an http.Handler; all
// methods are safe for concurrent use.
type Server struct {
	c       Config
	log     *slog.Logger
	store   cache.Cache
	ag      *aggregator.Aggregator
	up      *aggregator.HTTPUpstream // Close closes its idle connections
	ui      *webui.UI
	api     http.Handler
	m       *metrics
	metrics http.Handler

	tempDir string // removed by Close; set when nothing may stay on disk
	// boltPath is the bolt cache file chosen in the data folder when
	// Config.Cache named no path ("" otherwise).
	boltPath string

	// answering counts the requests between the start of ServeHTTP and
	// their access record: the one that brings it to 0 writes the records
	// that wait (flushAccess).
	answering            atomic.Int64
	draining             atomic.Bool
	mapsLoading          atomic.Bool
	jobsDone, jobsFailed atomic.Int64

	closeOnce sync.Once
	closeErr  error
}

// New loads the archive list, rules and blacklist c names, opens the
// cache and builds the aggregator, its web page and metrics; nil c means
// DefaultConfig(). Every file is read under ctx: a canceled ctx (a signal
// during the start-up of a blacklist of millions of hosts) stops it at
// once. New does not listen or start background work (Serve does). The
// error wraps ErrConfig for values c.Check refuses, and names the file for
// a bad list, rules or blacklist.
func New(ctx context.Context, c *Config) (_ *Server, err error) {
	cfg := DefaultConfig()
	if c != nil {
		cfg = *c
	}
	if err := cfg.Check(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	archives, listName, err := LoadArchives(ctx, &cfg)
	if err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, a := range archives {
		known[a.ID] = true
	}
	var rules *aggregator.Rules
	if cfg.Rules != "" {
		f, err := cli.Open(ctx, cfg.Rules)
		if err != nil {
			return nil, err
		}
		rules, err = aggregator.ParseRules(f, func(id string) bool { return known[id] })
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Rules, err)
		}
		if u := rules.Unknown(); len(u) > 0 {
			log.Warn("rules name archives that are not in the list; they are dropped", "rules", cfg.Rules, "unknown", u)
		}
	}
	var bl *aggregator.Blacklist
	if cfg.Blacklist != "" {
		f, err := cli.Open(ctx, cfg.Blacklist)
		if err != nil {
			return nil, err
		}
		bl, err = aggregator.ParseBlacklist(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg.Blacklist, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, context.Cause(ctx)
	}
	dataDir := cfg.DataDir
	tempDir := ""
	if dataDir == "" {
		if spec := cfg.Cache; spec == "" || spec == "bolt" {
			return nil, fmt.Errorf("%w: cache %q keeps its file in data_dir, which is not set (give data_dir or bolt:PATH)", ErrConfig, spec)
		}
		// Nothing is to stay on disk: fetched MementoMaps go to a
		// temporary folder that Close removes.
		d, err := os.MkdirTemp("", "mementokit-aggregator-*")
		if err != nil {
			return nil, err
		}
		tempDir, dataDir = d, d
		defer func() {
			if err != nil {
				os.RemoveAll(tempDir)
			}
		}()
	}
	mapDir := filepath.Join(dataDir, "mementomaps") // made by the first map fetched
	store, storeName, err := openCache(ctx, cfg.Cache, dataDir, time.Duration(cfg.MigrateTimeout), log)
	if err != nil {
		return nil, err
	}
	base := cfg.BaseURL
	if base == "" {
		base = "http://" + cfg.Addr + cfg.RootPrefix()
	}
	m := newMetrics()
	idle := cfg.MaxIdlePer
	if idle == 0 {
		idle = cfg.MaxConcurrent // every connection a busy archive needs is kept for reuse
	}
	client := &http.Client{Transport: &http.Transport{
		Proxy:                  http.ProxyFromEnvironment,
		DialContext:            (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           max(1024, idle*len(archives)),
		MaxIdleConnsPerHost:    idle,
		IdleConnTimeout:        90 * time.Second,
		TLSHandshakeTimeout:    10 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: aggregator.DefaultMaxHeaderBytes, // a TimeGate's Link header is bounded as bodies are
	}}
	var agCache aggregator.Cache // nil: no cache, every request searches
	if store != nil {
		agCache = &meteredCache{Cache: store, m: m, freshFor: aggregator.DefaultFreshFor, negFor: aggregator.DefaultNegativeFor, now: time.Now}
	}
	up := &aggregator.HTTPUpstream{Client: client, Allow: aggregator.NewAllowList(archives), UserAgent: cfg.userAgent()}
	ag, err := aggregator.New(&aggregator.Options{
		Archives: archives, Rules: rules, Blacklist: bl,
		// Every request, redirect hops included, goes only to the hosts the
		// archive list names (aggregator.AllowList).
		Upstream:   meteredUpstream{next: up, hist: newUpstreamHandles(m.upDuration)},
		HTTPClient: client, Cache: agCache, CacheTimeout: time.Duration(cfg.CacheTimeout),
		RequestTimeout: time.Duration(cfg.RequestTimeout), DynamicBudget: time.Duration(cfg.DynamicBudget), ThoroughBudget: time.Duration(cfg.ThoroughBudget),
		Tolerance: cfg.Tolerance, DormantFor: time.Duration(cfg.DormantFor),
		MaxConcurrent: cfg.MaxConcurrent, FanOut: cfg.FanOut,
		MapMaxAge: time.Duration(cfg.MapMaxAge), MapDir: mapDir, MapCheckEvery: mapCheckEvery(cfg.MapCheck),
		BaseURL: base, NoAPILinks: cfg.NoAPILinks, Logger: log.With("component", "aggregator"),
		UserAgent: cfg.userAgent(), TopK: cfg.TopK, MissToList: cfg.MissToList, MaxProxyBytes: int64(cfg.MaxProxyBytes),
		BodyMemory: int64(cfg.BodyMemory), BodyMemoryWait: time.Duration(cfg.BodyMemoryWait),
		About: []aggregator.ConfigLine{{Name: "Archive list", Value: listName}, {Name: "Service path prefix", Value: cfg.RootPrefix() + "/"},
			{Name: "Cache store", Value: storeName}, {Name: "Refresh workers", Value: strconv.Itoa(cfg.Workers)}},
	})
	if err != nil {
		closeStore(store)
		return nil, err
	}
	m.watchAggregator(ag)
	ui, err := webui.New(&webui.Options{Aggregator: ag, Blacklist: bl, Logger: log, Root: cfg.RootPrefix(), BaseURL: cfg.RootPrefix()})
	if err != nil {
		ag.Close()
		closeStore(store)
		return nil, err
	}
	log.Info("aggregator configured", "archives", len(archives), "list", listName, "rules", cfg.Rules != "",
		"blacklisted_hosts", bl.Len(), "cache", storeName, "data_dir", dataDir, "base_url", base, "workers", cfg.Workers)
	boltPath := ""
	if spec := cfg.Cache; spec == "" || spec == "bolt" {
		boltPath = strings.TrimPrefix(storeName, "bolt:")
	}
	return &Server{c: cfg, log: log, store: store, ag: ag, up: up, ui: ui, api: ag.Handler(), m: m, tempDir: tempDir, boltPath: boltPath,
		metrics: promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)})}, nil
}

// Aggregator returns the server's aggregator (for an embedder's own
// endpoints or checks).
func (s *Server) Aggregator() *aggregator.Aggregator { return s.ag }

// TempDir is the temporary data folder New made because Config.DataDir was
// empty (fetched MementoMaps are kept there), which Close removes; "" when
// the data folder is Config.DataDir.
func (s *Server) TempDir() string { return s.tempDir }

// Cache returns the server's store, as the aggregator sees it; nil for
// the cache spelled "none". The "memory" store shares its Mementos slices
// (memorycache.Options.ShareMementos): what its Get returns must not be
// modified.
func (s *Server) Cache() cache.Cache { return s.store }

func closeStore(c cache.Cache) error {
	if c == nil {
		return nil
	}
	return c.Close()
}

// mapCheckEvery is aggregator.Options.MapCheckEvery for
// mementomap_check_every, whose 0 means never (the option's 0 means the
// default).
func mapCheckEvery(d Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return time.Duration(d)
}

// OpenCache opens the store named by spec: "none" (no store: a nil
// cache.Cache, every request searches), "memory", "bolt:PATH" ("" or
// "bolt" alone: dataDir/cache.db), or a MySQL DSN, with or without a
// "mysql:" prefix. It returns the store and a name for logs ("none",
// "memory", "bolt:PATH", "mysql"); the DSN is never written in errors or
// logs. A spec that is none of these is an error wrapping ErrConfig. A
// bolt cache without a path is logged at info with the path it uses and
// whether its folder was created (folder_created).
//
// A MySQL store is reached within its DSN's timeout (5 s by default) and
// waits up to 60 s for another node's schema migration; the migration
// itself (the copy of a Time Travel aggregator database, logged per
// batch) has no time limit but ctx.
func OpenCache(ctx context.Context, spec, dataDir string, log *slog.Logger) (cache.Cache, string, error) {
	return openCache(ctx, spec, dataDir, 0, log)
}

// openCache is OpenCache with Config.MigrateTimeout (0: no limit).
func openCache(ctx context.Context, spec, dataDir string, migrateTimeout time.Duration, log *slog.Logger) (cache.Cache, string, error) {
	switch {
	case spec == "none":
		return nil, "none", nil
	case spec == "memory":
		// The aggregator never writes a cached Mementos slice: Get may
		// hand out the store's own.
		m, err := memorycache.New(&memorycache.Options{ShareMementos: true})
		return m, "memory", err
	case spec == "", spec == "bolt", strings.HasPrefix(spec, "bolt:"):
		path := strings.TrimPrefix(strings.TrimPrefix(spec, "bolt"), ":")
		derived := path == ""
		if derived {
			path = filepath.Join(dataDir, "cache.db")
		}
		_, statErr := os.Stat(filepath.Dir(path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, "", err
		}
		if derived && log != nil {
			// No path given: say where the file is, and that its folder
			// was made now.
			log.Info("bolt cache in the data folder", "path", path, "folder_created", statErr != nil)
		}
		b, err := boltcache.Open(path, &boltcache.Options{Logger: log})
		return b, "bolt:" + path, err
	}
	dsn := strings.TrimPrefix(spec, "mysql:")
	if !strings.Contains(dsn, "/") {
		return nil, "", fmt.Errorf("%w: cache: want memory, bolt:PATH or a MySQL DSN such as user:pass@tcp(host:3306)/db", ErrConfig)
	}
	my, err := mysqlcache.Open(ctx, dsn, &mysqlcache.Options{Logger: log, MigrateTimeout: migrateTimeout})
	return my, "mysql", err
}

// Serve answers HTTP on ln and runs the MementoMap loader, the refresh
// workers and the cache scanner until ctx ends (or ln fails); then it
// shuts down gracefully: no new connections, requests in flight and
// refresh jobs running get Config.ShutdownTimeout to finish, then
// searches still running are canceled, and the Server is closed (Close).
// It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.httpServer()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	s.log.Info("listening", "addr", ln.Addr().String())

	var bg sync.WaitGroup
	bgCtx, stopBG := context.WithCancel(ctx)
	defer stopBG()
	s.mapsLoading.Store(true)
	bg.Go(func() {
		defer s.mapsLoading.Store(false)
		start := time.Now()
		if err := s.ag.LoadMaps(bgCtx); err != nil {
			s.log.Warn("some MementoMaps were not loaded; those archives are always asked", "err", err)
		}
		s.log.Info("mementomaps loaded", "loaded", s.mapsLoaded(), "elapsed", time.Since(start))
		s.ag.StartMapRefresh(bgCtx)
	})
	if s.c.ScanEvery > 0 && s.store != nil {
		bg.Go(func() { s.maintain(bgCtx) })
	}
	if s.c.ProbeEvery > 0 {
		bg.Go(func() { s.ag.RunProbes(bgCtx, time.Duration(s.c.ProbeEvery), time.Duration(s.c.ProbeTimeout)) })
	}
	stopClaiming := make(chan struct{})
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	nWorkers := s.c.Workers
	if s.store == nil {
		nWorkers = 0 // refresh jobs live in the cache
	}
	workers := s.startWorkers(jobCtx, stopClaiming, nWorkers)

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-served:
	}
	s.draining.Store(true)
	s.log.Info("shutting down", "timeout", time.Duration(s.c.ShutdownTimeout))
	start := time.Now()
	sctx, cancel := context.WithTimeout(context.Background(), time.Duration(s.c.ShutdownTimeout))
	defer cancel()
	close(stopClaiming)
	stopBG()
	var errs []error
	if serveErr == nil {
		if err := hs.Shutdown(sctx); err != nil {
			errs = append(errs, fmt.Errorf("http shutdown: %w", err))
			hs.Close()
		}
		if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	} else if !errors.Is(serveErr, http.ErrServerClosed) {
		errs = append(errs, serveErr)
	}
	done := make(chan struct{})
	go func() { workers.Wait(); close(done) }()
	select {
	case <-done:
	case <-sctx.Done():
		s.log.Warn("refresh jobs still running at the shutdown timeout; canceling them")
		cancelJobs()
		<-done
	}
	bg.Wait()
	if err := s.Close(); err != nil {
		errs = append(errs, err)
	}
	s.log.Info("stopped", "elapsed", time.Since(start), "refresh_jobs_done", s.jobsDone.Load(), "refresh_jobs_failed", s.jobsFailed.Load())
	return errors.Join(errs...)
}

// Close closes the aggregator (canceling searches still running) and the
// cache, and removes the temporary data folder, if any. Serve calls it
// on its way out; a Server that was never served must be closed by its
// caller. Later calls return the first call's error.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		defer flushAccess(s.log)
		if err := s.ag.Close(); err != nil {
			errs = append(errs, err)
		}
		s.up.CloseIdleConnections()
		if err := closeStore(s.store); err != nil {
			errs = append(errs, err)
		}
		if s.tempDir != "" {
			if err := os.RemoveAll(s.tempDir); err != nil {
				errs = append(errs, err)
			}
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// startWorkers runs n refresh workers. Each claims the next job
// until stopClaiming is closed; a job already running then finishes (the
// drain), unless jobCtx is canceled first. aggregator.RunWorkers stops its
// running jobs as soon as its context ends, so the loop is written here
// over aggregator.RunOneJob.
func (s *Server) startWorkers(jobCtx context.Context, stopClaiming <-chan struct{}, n int) *sync.WaitGroup {
	var wg sync.WaitGroup
	for i := range n {
		name := fmt.Sprintf("aggregator-%d/%d", os.Getpid(), i)
		wg.Go(func() {
			idle := time.NewTimer(0)
			defer idle.Stop()
			for {
				select {
				case <-stopClaiming:
					return
				default:
				}
				did, err := s.ag.RunOneJob(jobCtx, name)
				switch {
				case err != nil:
					s.jobsFailed.Add(1)
					s.m.jobs.WithLabelValues("error").Inc()
					if jobCtx.Err() == nil && !errors.Is(err, aggregator.ErrClosed) {
						s.log.Warn("refresh job", "worker", name, "err", err)
					}
				case did:
					s.jobsDone.Add(1)
					s.m.jobs.WithLabelValues("done").Inc()
				}
				if did && err == nil {
					continue
				}
				idle.Reset(time.Duration(s.c.WorkerIdle))
				select {
				case <-stopClaiming:
					return
				case <-idle.C:
				}
			}
		})
	}
	return &wg
}

// maintain keeps the cache in shape until ctx ends: at start and then
// every ScanEvery it cleans the store (cache.DefaultCleanupPolicy: claims
// of workers that died are released after an hour, completed jobs deleted
// after 90 days, entries not requested for 182 days deleted) and, when
// this process runs workers, queues up to 1,000 entries older than
// StaleAfter for refresh (aggregator.ScanStale; the Time Travel
// refresher's two weeks by default).
func (s *Server) maintain(ctx context.Context) {
	t := time.NewTicker(time.Duration(s.c.ScanEvery))
	defer t.Stop()
	for {
		st, err := s.store.Cleanup(ctx, cache.DefaultCleanupPolicy(time.Now()))
		switch {
		case err != nil && ctx.Err() == nil:
			s.log.Warn("cache cleanup", "err", err)
		case st != (cache.CleanupStats{}):
			s.log.Info("cache cleanup", "jobs_released", st.JobsReleased, "jobs_deleted", st.JobsDeleted, "entries_deleted", st.EntriesDeleted)
		}
		if s.c.Workers > 0 && s.c.StaleAfter > 0 {
			n, err := s.ag.ScanStale(ctx, time.Duration(s.c.StaleAfter), 1000)
			if err != nil && ctx.Err() == nil {
				s.log.Warn("stale scan", "err", err)
			} else if n > 0 {
				s.log.Info("stale entries queued for refresh", "entries", n)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Server) mapsLoaded() int {
	n := 0
	for _, st := range s.ag.Stats() {
		if !st.MapLoaded.IsZero() {
			n++
		}
	}
	return n
}

// ServeHTTP routes a request by its raw target (never a cleaned path: a
// URI-R keeps its "//"): / and /search, /list and /static to the web page
// (internal/webui), /metrics, /healthz, and everything else to the
// aggregator's API (aggregator.Handler). OPTIONS, a browser's CORS
// preflight, gets 204 on every path that exists: /, /search, /static/,
// /metrics and /healthz allow GET and HEAD (the answers of /metrics and
// /healthz, a 405 included, carry Access-Control-Allow-Origin: *), the
// API's paths are answered by its preflight, and any other path is 404
// (aggregator.IsAPIPath). It writes the access log record and the metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	raw := r.RequestURI
	if !strings.HasPrefix(raw, "/") {
		raw = r.URL.RequestURI()
	}
	target := raw // logged with the root prefix (aggregator.ShortTarget)
	if root := s.c.RootPrefix(); root != "" {
		rest, ok := strings.CutPrefix(raw, root)
		if !ok || rest != "" && rest[0] != '/' && rest[0] != '?' {
			sw := &statusWriter{ResponseWriter: w, logs: s.c.AccessLog && s.log.Enabled(r.Context(), slog.LevelInfo)}
			s.m.inFlight.Inc()
			s.answering.Add(1)
			defer s.finish(sw, r, target, "other", start)
			http.Error(sw, "Not found: "+aggregator.ShortTarget(raw)+" (this server answers under "+root+"/)", http.StatusNotFound)
			return
		}
		if rest == "" || rest[0] == '?' {
			rest = "/" + rest
		}
		r = stripRoot(r, root, rest)
		raw = rest
	}
	ep := endpoint(raw)
	sw := &statusWriter{ResponseWriter: w, logs: s.c.AccessLog && s.log.Enabled(r.Context(), slog.LevelInfo)}
	s.m.inFlight.Inc()
	s.answering.Add(1)
	defer s.finish(sw, r, target, ep, start)
	switch {
	case r.Method == http.MethodOptions && (ep == "metrics" || ep == "healthz" || ep == "home" || ep == "search" || ep == "static"):
		preflightGetHead(sw)
		return
	case r.Method == http.MethodOptions:
		s.api.ServeHTTP(sw, r) // the API's CORS preflight, a 404 off its paths
		return
	}
	switch ep {
	case "metrics", "healthz":
		// Readable from a page of any origin, as the API is; a 405 too,
		// so that a script sees the real error, not a CORS one.
		sw.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			sw.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(sw, "Method not allowed: "+r.Method, http.StatusMethodNotAllowed)
			return
		}
		if ep == "metrics" {
			s.metrics.ServeHTTP(sw, r)
		} else {
			s.health(sw, r)
		}
	case "monitor":
		// MemGator's /monitor is its SSE benchmark stream, 501 when not
		// enabled; this server has none, and says where its figures are.
		http.Error(sw, "Not implemented: /monitor (MemGator's SSE benchmark stream); this server's figures are at "+s.c.RootPrefix()+"/metrics (Prometheus)", http.StatusNotImplemented)
	case "home", "search", "list", "static":
		s.ui.ServeHTTP(sw, r)
	default:
		s.api.ServeHTTP(sw, r)
	}
}

// preflightGetHead answers the CORS preflight (OPTIONS) of /metrics and
// /healthz as the API answers its own (aggregator.Handler), with the
// methods these paths take: 204, GET, HEAD and OPTIONS from any origin.
func preflightGetHead(w http.ResponseWriter) {
	hd := w.Header()
	hd.Set("Allow", "GET, HEAD, OPTIONS")
	hd.Set("Access-Control-Allow-Origin", "*")
	hd.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	hd.Set("Access-Control-Allow-Headers", "Accept-Datetime, Cache-Control, Accept, Prefer")
	hd.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// finish counts an answered request in the metrics and writes its access
// record: one record per request, with the aggregator's answer in it
// when the request reached a lookup (statusWriter.LogAnswer), built only
// when the access log is on and takes info records. Records are written
// together (lockedWriter): the request that leaves no other being
// answered writes those that wait, its own included, before its answer
// is sent.
func (s *Server) finish(sw *statusWriter, r *http.Request, raw, ep string, start time.Time) { // raw: the request target as received
	s.m.inFlight.Dec()
	d := time.Since(start)
	code := sw.status
	if code == 0 {
		code = http.StatusOK
	}
	s.m.observeRequest(ep, code, d)
	if sw.logs {
		s.writeAccess(sw, r, raw, ep, code, d)
	}
	if s.answering.Add(-1) == 0 { // after this request's record
		flushAccess(s.log)
	}
}

// writeAccess writes the access record of a request finish counted.
func (s *Server) writeAccess(sw *statusWriter, r *http.Request, raw, ep string, code int, d time.Duration) {
	a := accessRecord{method: r.Method, target: aggregator.ShortTarget(raw), endpoint: ep, status: code, bytes: sw.bytes, duration: d,
		remote: r.RemoteAddr, userAgent: r.UserAgent(), failures: sw.Header().Get("Archive-Failures"), ans: sw.ans}
	if sw.ans != nil {
		a.acceptDatetime = r.Header.Get("Accept-Datetime")
		if res := sw.ans.Result; res != nil {
			a.archives = res.OutcomeLog()
		}
	}
	logAccess(r.Context(), s.log, &a)
}

// health answers /healthz: 200 with a JSON summary while the server works;
// 503 with "status": "degraded" when every archive is dormant or failing
// (aggregator.Stats.State: its last request or probe failed), with the
// counts of each state; 503 "unavailable" when the cache does not answer
// within CacheTimeout (aggregator.CheckCache: never longer, whatever the
// store does); 503 "draining" while it shuts down. With ProbeEvery the
// states are known from the first probes on, without traffic; "unknown"
// counts the archives neither asked nor probed yet.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	type archives struct {
		Total   int `json:"total"`
		OK      int `json:"ok"`
		Dormant int `json:"dormant"`
		// Failing: awake archives whose last request or probe failed
		// (consecutive failures > 0, not yet dormant).
		Failing    int `json:"failing"`
		Unknown    int `json:"unknown"`
		MapsLoaded int `json:"mementomaps_loaded"`
		// MapsDropped: maps dropped after their file changed in place,
		// not yet loaded again (their archives are always asked).
		MapsDropped int `json:"mementomaps_dropped"`
	}
	doc := struct {
		Status      string   `json:"status"`
		Cache       string   `json:"cache"`
		Archives    archives `json:"archives"`
		MapsLoading bool     `json:"mementomaps_loading"`
		ProbeEvery  string   `json:"probe_every"`
	}{Status: "ok", Cache: "ok", MapsLoading: s.mapsLoading.Load(), ProbeEvery: probeText(s.c.ProbeEvery)}
	for _, st := range s.ag.Stats() {
		doc.Archives.Total++
		switch st.State() {
		case aggregator.StateOK:
			doc.Archives.OK++
		case aggregator.StateDormant:
			doc.Archives.Dormant++
		case aggregator.StateFailing:
			doc.Archives.Failing++
		default:
			doc.Archives.Unknown++
		}
		if !st.MapLoaded.IsZero() {
			doc.Archives.MapsLoaded++
		}
		if st.MapDropped {
			doc.Archives.MapsDropped++
		}
	}
	code := http.StatusOK
	if a := doc.Archives; a.Total > 0 && a.Dormant+a.Failing == a.Total {
		// No archive is answering: the server runs, its answers cannot be
		// trusted.
		doc.Status, code = "degraded", http.StatusServiceUnavailable
	}
	if s.store == nil {
		doc.Cache = "none"
	} else if err := s.ag.CheckCache(r.Context()); err != nil {
		doc.Status, doc.Cache, code = "unavailable", "error: "+err.Error(), http.StatusServiceUnavailable
	}
	if s.draining.Load() {
		doc.Status, code = "draining", http.StatusServiceUnavailable
	}
	b, _ := json.MarshalIndent(doc, "", "  ") // plain struct: cannot fail
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// probeText is ProbeEvery as /healthz shows it: "never" or a duration.
func probeText(d Duration) string {
	if d <= 0 {
		return "never"
	}
	return time.Duration(d).String()
}

// stripRoot returns a shallow copy of r whose request target is rest
// (raw) and whose URL path lacks the root prefix.
func stripRoot(r *http.Request, root, rest string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path = strings.TrimPrefix(u.Path, root)
	if u.Path == "" {
		u.Path = "/"
	}
	if u.RawPath != "" {
		u.RawPath = strings.TrimPrefix(u.RawPath, root)
	}
	r2.URL = &u
	r2.RequestURI = rest
	return r2
}
