package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/memento"
)

// metrics are the server's Prometheus metrics, on a registry of its own
// (never the global one, so that tests can run many servers).
//
//	mementokit_http_requests_total{endpoint,code}            counter
//	mementokit_http_request_duration_seconds{endpoint}       histogram
//	mementokit_http_requests_in_flight                       gauge
//	mementokit_upstream_requests_total{archive}              counter (requests sent, TimeMap pages count one each)
//	mementokit_upstream_requests_saved_total{archive}        counter (requests a MementoMap made unnecessary)
//	mementokit_upstream_refused_total{archive}               counter (requests an archive's answer led to a host not allowed: aggregator.AllowList)
//	mementokit_upstream_answers_total{archive,outcome}       counter (found, none, failed, dormant_skip)
//	mementokit_upstream_duration_seconds{archive,op,result}  histogram (one archive's whole answer: ok, not_found, error)
//	mementokit_archive_dormant{archive}                      gauge (1 while dormant)
//	mementokit_mementomap_loaded_timestamp_seconds{archive}  gauge (0: no map)
//	mementokit_cache_lookups_total{result}                   counter (fresh, stale, negative, negative_expired, failed, miss, error)
//	mementokit_cache_failures_total{op,reason}               counter (cache calls that failed or timed out: aggregator.CacheFailures)
//	mementokit_cache_degraded_requests_total                 counter (requests answered with Cache-Degraded)
//	mementokit_body_memory_bytes{state}                      gauge (limit, held, peak: aggregator.BodyMemory)
//	mementokit_body_memory_refused_total{reason}             counter (body reads refused: memory_busy, over_memory_budget)
//	mementokit_refresh_queue_depth                           gauge (jobs this process queued that no worker claimed yet)
//	mementokit_refresh_jobs_running                          gauge
//	mementokit_refresh_jobs_total{result}                    counter (done, error)
//
// plus the Go runtime and process collectors.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	reqDuration *prometheus.HistogramVec
	inFlight    prometheus.Gauge
	upDuration  *prometheus.HistogramVec
	cacheGets   *prometheus.CounterVec
	jobs        *prometheus.CounterVec
	queue       *queueTracker

	// the children of requests, reqDuration and cacheGets, looked up once
	// (on first use, so that a series appears only once it counted
	// something, as with WithLabelValues per call) and kept: byEndpoint
	// and byCacheResult hold every label value endpoint and meteredCache.Get
	// give and are read-only after newMetrics.
	byEndpoint    map[string]*endpointHandles
	byCacheResult map[string]*atomic.Pointer[prometheus.Counter]
}

// endpointHandles are one endpoint's request duration histogram and its
// request counters by status code (codes 0-599; others are looked up per
// request).
type endpointHandles struct {
	duration atomic.Pointer[prometheus.Observer]
	codes    [600]atomic.Pointer[prometheus.Counter]
}

// endpoints are the label values endpoint returns.
var endpoints = []string{"home", "search", "metrics", "healthz", "static", "list", "timemap", "timegate", "memento", "api_json", "other"}

// cacheResults are the label values of mementokit_cache_lookups_total.
var cacheResults = []string{"fresh", "stale", "negative", "negative_expired", "failed", "miss", "error"}

// observeRequest counts one answered request of endpoint ep with status
// code and its duration d.
func (m *metrics) observeRequest(ep string, code int, d time.Duration) {
	h := m.byEndpoint[ep]
	if h == nil || code < 0 || code >= len(h.codes) {
		m.requests.WithLabelValues(ep, codeLabel(code)).Inc()
		m.reqDuration.WithLabelValues(ep).Observe(d.Seconds())
		return
	}
	c := h.codes[code].Load()
	if c == nil {
		v := m.requests.WithLabelValues(ep, codeLabel(code))
		c = &v
		h.codes[code].Store(c)
	}
	(*c).Inc()
	o := h.duration.Load()
	if o == nil {
		v := m.reqDuration.WithLabelValues(ep)
		o = &v
		h.duration.Store(o)
	}
	(*o).Observe(d.Seconds())
}

// countCacheGet counts one cache read with result res.
func (m *metrics) countCacheGet(res string) {
	p := m.byCacheResult[res]
	if p == nil {
		m.cacheGets.WithLabelValues(res).Inc()
		return
	}
	c := p.Load()
	if c == nil {
		v := m.cacheGets.WithLabelValues(res)
		c = &v
		p.Store(c)
	}
	(*c).Inc()
}

// latencyBuckets span 1 ms to about 65 s: cached answers take well under a
// millisecond of server time, thorough searches up to their 150 s budget.
var latencyBuckets = prometheus.ExponentialBuckets(0.001, 2, 17)

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mementokit_http_requests_total", Help: "HTTP requests answered, by endpoint and status code.",
		}, []string{"endpoint", "code"}),
		reqDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mementokit_http_request_duration_seconds", Help: "Time from request to the end of the answer, by endpoint.", Buckets: latencyBuckets,
		}, []string{"endpoint"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mementokit_http_requests_in_flight", Help: "HTTP requests being answered.",
		}),
		upDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mementokit_upstream_duration_seconds", Help: "Time one archive took to answer (a TimeGate request, or a whole TimeMap with its pages).", Buckets: latencyBuckets,
		}, []string{"archive", "op", "result"}),
		cacheGets: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mementokit_cache_lookups_total", Help: "Cache reads by what they found: fresh, stale, negative (a recent 'no mementos'), negative_expired, failed (a partial result), miss (unknown or never searched), error.",
		}, []string{"result"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mementokit_refresh_jobs_total", Help: "Refresh jobs run by this process's workers, by result (done, error).",
		}, []string{"result"}),
		queue:         newQueueTracker(),
		byEndpoint:    map[string]*endpointHandles{},
		byCacheResult: map[string]*atomic.Pointer[prometheus.Counter]{},
	}
	for _, ep := range endpoints {
		m.byEndpoint[ep] = &endpointHandles{}
	}
	for _, r := range cacheResults {
		m.byCacheResult[r] = &atomic.Pointer[prometheus.Counter]{}
	}
	m.reg.MustRegister(m.requests, m.reqDuration, m.inFlight, m.upDuration, m.cacheGets, m.jobs,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mementokit_refresh_jobs_running", Help: "Refresh jobs claimed by this process's workers and not yet completed.",
		}, func() float64 { return float64(m.queue.runningJobs()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "mementokit_refresh_queue_depth", Help: "Refresh jobs this process queued that no worker has claimed yet.",
		}, func() float64 { return float64(m.queue.depth()) }),
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

var (
	descSent    = prometheus.NewDesc("mementokit_upstream_requests_total", "Requests sent to an archive (TimeMap pages count one each).", []string{"archive"}, nil)
	descRefused = prometheus.NewDesc("mementokit_upstream_refused_total", "Requests an archive's answers led to (redirects, page links, Locations, map links) that were refused: their host is not in the archive list.", []string{"archive"}, nil)
	descSaved   = prometheus.NewDesc("mementokit_upstream_requests_saved_total", "Requests not sent to an archive because its MementoMap says it holds nothing.", []string{"archive"}, nil)
	descAnswers = prometheus.NewDesc("mementokit_upstream_answers_total", "Archive outcomes in searches: found, none, failed, dormant_skip.", []string{"archive", "outcome"}, nil)
	descDropped = prometheus.NewDesc("mementokit_upstream_mementos_dropped_total", "Memento links of an archive's answers left out of searches: a URI-M that is no http(s) URL, no datetime or one that cannot be read, a datetime outside 1000-01-01..9999-12-31.", []string{"archive"}, nil)
	descDormant = prometheus.NewDesc("mementokit_archive_dormant", "1 while the archive is dormant after consecutive failures.", []string{"archive"}, nil)
	descMap     = prometheus.NewDesc("mementokit_mementomap_loaded_timestamp_seconds", "When the archive's MementoMap was loaded (Unix time); 0 when none is.", []string{"archive"}, nil)
	descMapChg  = prometheus.NewDesc("mementokit_mementomap_changed_total", "Times the archive's MementoMap file was found changed in place (truncated or rewritten while open) and the map dropped.", []string{"archive"}, nil)
	descMapDrop = prometheus.NewDesc("mementokit_mementomap_dropped", "1 while the archive's MementoMap is dropped after a change in place and not yet loaded again (the archive is always asked).", []string{"archive"}, nil)
	descMapRel  = prometheus.NewDesc("mementokit_mementomap_reloads_total", "Loads of the archive's MementoMap after the first: after a change in place, or a new file renamed over a file source.", []string{"archive"}, nil)
	descCacheF  = prometheus.NewDesc("mementokit_cache_failures_total", "Cache calls that failed or did not answer in time, by operation and reason (timeout, busy, closed, invalid, error).", []string{"op", "reason"}, nil)
	descBodyMem = prometheus.NewDesc("mementokit_body_memory_bytes", "The budget of upstream body bytes held at once by all searches (body_memory), by state: limit (0: none), held now, peak.", []string{"state"}, nil)
	descBodyRef = prometheus.NewDesc("mementokit_body_memory_refused_total", "Upstream body reads refused by the body memory budget, by reason: memory_busy (other requests held it: a 503 with Retry-After), over_memory_budget (one request alone needed more: a partial answer).", []string{"reason"}, nil)
	descProxyA  = prometheus.NewDesc("mementokit_proxy_aborted_total", "/memento/proxy answers cut off, by reason: cut (the archive's body broke off or was not whole within the request timeout; the connection to the client is aborted), over_limit (the memento is over max_proxy_bytes: a 502, or an aborted connection when found while streaming).", []string{"reason"}, nil)
	descCacheD  = prometheus.NewDesc("mementokit_cache_degraded_requests_total", "Requests answered with Cache-Degraded: a cache call failed or timed out, and the request was answered by searching or its result not stored.", nil, nil)
)

// watchAggregator exports the aggregator's per-archive counters
// (aggregator.Stats) at each scrape.
func (m *metrics) watchAggregator(ag *aggregator.Aggregator) {
	m.reg.MustRegister(prometheus.CollectorFunc(func(ch chan<- prometheus.Metric) {
		for _, s := range ag.Stats() {
			ch <- prometheus.MustNewConstMetric(descSent, prometheus.CounterValue, float64(s.Sent), s.Archive)
			ch <- prometheus.MustNewConstMetric(descSaved, prometheus.CounterValue, float64(s.Saved), s.Archive)
			ch <- prometheus.MustNewConstMetric(descRefused, prometheus.CounterValue, float64(s.Refused), s.Archive)
			ch <- prometheus.MustNewConstMetric(descDropped, prometheus.CounterValue, float64(s.Dropped), s.Archive)
			for _, o := range []struct {
				name string
				v    int64
			}{{"found", s.Found}, {"none", s.None}, {"failed", s.Failed}, {"dormant_skip", s.DormantSkips}} {
				ch <- prometheus.MustNewConstMetric(descAnswers, prometheus.CounterValue, float64(o.v), s.Archive, o.name)
			}
			dormant := 0.0
			if !s.DormantUntil.IsZero() {
				dormant = 1
			}
			ch <- prometheus.MustNewConstMetric(descDormant, prometheus.GaugeValue, dormant, s.Archive)
			loaded := 0.0
			if !s.MapLoaded.IsZero() {
				loaded = float64(s.MapLoaded.UnixNano()) / 1e9
			}
			ch <- prometheus.MustNewConstMetric(descMap, prometheus.GaugeValue, loaded, s.Archive)
			dropped := 0.0
			if s.MapDropped {
				dropped = 1
			}
			ch <- prometheus.MustNewConstMetric(descMapChg, prometheus.CounterValue, float64(s.MapChanged), s.Archive)
			ch <- prometheus.MustNewConstMetric(descMapDrop, prometheus.GaugeValue, dropped, s.Archive)
			ch <- prometheus.MustNewConstMetric(descMapRel, prometheus.CounterValue, float64(s.MapReloads), s.Archive)
		}
		for _, f := range ag.CacheFailures() {
			ch <- prometheus.MustNewConstMetric(descCacheF, prometheus.CounterValue, float64(f.Count), f.Op, f.Reason)
		}
		ch <- prometheus.MustNewConstMetric(descCacheD, prometheus.CounterValue, float64(ag.CacheDegraded()))
		pa := ag.ProxyAborts()
		ch <- prometheus.MustNewConstMetric(descProxyA, prometheus.CounterValue, float64(pa.Cut), "cut")
		ch <- prometheus.MustNewConstMetric(descProxyA, prometheus.CounterValue, float64(pa.OverLimit), "over_limit")
		bm := ag.BodyMemory()
		ch <- prometheus.MustNewConstMetric(descBodyMem, prometheus.GaugeValue, float64(bm.Limit), "limit")
		ch <- prometheus.MustNewConstMetric(descBodyMem, prometheus.GaugeValue, float64(bm.Held), "held")
		ch <- prometheus.MustNewConstMetric(descBodyMem, prometheus.GaugeValue, float64(bm.Peak), "peak")
		ch <- prometheus.MustNewConstMetric(descBodyRef, prometheus.CounterValue, float64(bm.Busy), "memory_busy")
		ch <- prometheus.MustNewConstMetric(descBodyRef, prometheus.CounterValue, float64(bm.OverBudget), "over_memory_budget")
	}))
}

// endpoint names the metric label of a raw request target: its first path
// segment for the known endpoints, "other" for anything else (so that
// arbitrary paths cannot grow the label set).
func endpoint(raw string) string {
	p, _, _ := strings.Cut(raw, "?")
	switch {
	case p == "/":
		return "home"
	case p == "/search":
		return "search"
	case p == "/metrics":
		return "metrics"
	case p == "/healthz":
		return "healthz"
	case p == "/monitor", strings.HasPrefix(p, "/monitor/"):
		return "monitor"
	case strings.HasPrefix(p, "/static/"):
		return "static"
	case strings.HasPrefix(p, "/list/"):
		return "list"
	case strings.HasPrefix(p, "/timemap/"):
		return "timemap"
	case strings.HasPrefix(p, "/timegate/"):
		return "timegate"
	case strings.HasPrefix(p, "/memento/"):
		return "memento"
	case strings.HasPrefix(p, "/api/json/"):
		return "api_json"
	}
	return "other"
}

// statusWriter records the status and body size of an answer, and, as
// an aggregator.AnswerLogger, the aggregator's answer for the access
// record when logs is set (the access log is on).
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
	logs   bool
	ans    *aggregator.Answer
}

// LogAnswer keeps ans for the request's access record; false (the
// aggregator writes its own record) when the access log is off.
func (s *statusWriter) LogAnswer(_ *http.Request, ans *aggregator.Answer) bool {
	if !s.logs {
		return false
	}
	s.ans = ans
	return true
}

func (s *statusWriter) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(p []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(p)
	s.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the server's writer.
func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// meteredUpstream times each archive's answer.
type meteredUpstream struct {
	next aggregator.Upstream
	hist *upstreamHandles
}

// upstreamHandles are the children of mementokit_upstream_duration_seconds,
// looked up once per archive, operation and result (on first use) and
// kept: byArchive maps an archive ID to its handles and is replaced, never
// changed, when an archive is added (under mu).
type upstreamHandles struct {
	vec       *prometheus.HistogramVec
	mu        sync.Mutex
	byArchive atomic.Pointer[map[string]*archiveHandles]
}

// archiveHandles are one archive's histograms by operation (timemap,
// timegate) and result (ok, not_found, error).
type archiveHandles [2][3]atomic.Pointer[prometheus.Observer]

var (
	upstreamOps     = [2]string{"timemap", "timegate"}
	upstreamResults = [3]string{"ok", "not_found", "error"}
)

func newUpstreamHandles(vec *prometheus.HistogramVec) *upstreamHandles {
	h := &upstreamHandles{vec: vec}
	h.byArchive.Store(&map[string]*archiveHandles{})
	return h
}

// observer is the histogram of archive id, operation op (0 timemap, 1
// timegate) and result res (0 ok, 1 not_found, 2 error).
func (h *upstreamHandles) observer(id string, op, res int) prometheus.Observer {
	ah := (*h.byArchive.Load())[id]
	if ah == nil {
		h.mu.Lock()
		old := *h.byArchive.Load()
		if ah = old[id]; ah == nil {
			m := make(map[string]*archiveHandles, len(old)+1)
			for k, v := range old {
				m[k] = v
			}
			ah = &archiveHandles{}
			m[id] = ah
			h.byArchive.Store(&m)
		}
		h.mu.Unlock()
	}
	o := ah[op][res].Load()
	if o == nil {
		v := h.vec.WithLabelValues(id, upstreamOps[op], upstreamResults[res])
		o = &v
		ah[op][res].Store(o)
	}
	return *o
}

func (u meteredUpstream) observe(a *aggregator.Archive, op int, start time.Time, err error) {
	res := 0 // ok
	switch {
	case errors.Is(err, aggregator.ErrNotFound):
		res = 1 // not_found
	case err != nil:
		res = 2 // error
	}
	u.hist.observer(a.ID, op, res).Observe(time.Since(start).Seconds())
}

// ListsOwnedByCaller passes the wrapped Upstream's answer on
// (aggregator.CallerOwnedLists): the lists are passed through as they
// are, so the aggregator may reuse those of an HTTPUpstream.
func (u meteredUpstream) ListsOwnedByCaller() bool {
	o, ok := u.next.(aggregator.CallerOwnedLists)
	return ok && o.ListsOwnedByCaller()
}

// TimeMap calls the wrapped Upstream and records its time.
func (u meteredUpstream) TimeMap(ctx context.Context, a *aggregator.Archive, urir string) ([]memento.Memento, int, error) {
	start := time.Now()
	ms, n, err := u.next.TimeMap(ctx, a, urir)
	u.observe(a, 0, start, err)
	return ms, n, err
}

// TimeGate calls the wrapped Upstream and records its time.
func (u meteredUpstream) TimeGate(ctx context.Context, a *aggregator.Archive, urir string, at time.Time) ([]memento.Memento, int, error) {
	start := time.Now()
	ms, n, err := u.next.TimeGate(ctx, a, urir, at)
	u.observe(a, 1, start, err)
	return ms, n, err
}

// meteredCache classifies cache reads (the hits and misses of the
// scenarios of internal/spec/TIMETRAVEL.md §1.1) and tracks the refresh queue for the
// metrics; every other call goes straight to the store.
type meteredCache struct {
	cache.Cache
	m                *metrics
	freshFor, negFor time.Duration
	now              func() time.Time
}

var _ cache.Cache = (*meteredCache)(nil)

// Nonblocking is the store's (cache.Nonblocking), so that the aggregator
// calls a memory store inline through the meter too.
func (c *meteredCache) Nonblocking() bool {
	nb, ok := c.Cache.(cache.Nonblocking)
	return ok && nb.Nonblocking()
}

var _ cache.RequestGetter = (*meteredCache)(nil)

// Get reads the entry and counts what it found.
func (c *meteredCache) Get(ctx context.Context, key cache.URIRKey) (cache.Entry, error) {
	e, err := c.Cache.Get(ctx, key)
	c.countGet(e, err)
	return e, err
}

// RecordRequestGet is the store's (cache.RequestGetter), or its
// RecordRequest then Get when it has none. A read that succeeds is
// counted as Get's; a failure is not (the aggregator then makes the two
// calls, and Get counts it).
func (c *meteredCache) RecordRequestGet(ctx context.Context, uriR string, at time.Time) (cache.Entry, error) {
	var e cache.Entry
	var err error
	if rg, ok := c.Cache.(cache.RequestGetter); ok {
		e, err = rg.RecordRequestGet(ctx, uriR, at)
	} else if err = c.Cache.RecordRequest(ctx, uriR, at); err == nil {
		e, err = c.Cache.Get(ctx, cache.URIRKeyOf(uriR))
	}
	if err == nil {
		c.countGet(e, err)
	}
	return e, err
}

// countGet counts what a read of the store found: a miss, a negative or
// fresh entry (within negFor and freshFor), an expired one, or an error.
func (c *meteredCache) countGet(e cache.Entry, err error) {
	res := "error"
	switch {
	case errors.Is(err, cache.ErrNotFound):
		res = "miss"
	case err != nil:
	case e.Status == cache.StatusPending:
		res = "miss" // requested before, never searched
	case e.Status == cache.StatusNone && c.now().Sub(e.Updated) <= c.negFor:
		res = "negative"
	case e.Status == cache.StatusNone:
		res = "negative_expired"
	case e.Status == cache.StatusFound && c.now().Sub(e.Updated) <= c.freshFor:
		res = "fresh"
	case e.Status == cache.StatusFound:
		res = "stale"
	default:
		res = "failed"
	}
	c.m.countCacheGet(res)
}

// Enqueue queues a refresh and notes it as waiting.
func (c *meteredCache) Enqueue(ctx context.Context, uriR string, p cache.Priority, at time.Time) error {
	err := c.Cache.Enqueue(ctx, uriR, p, at)
	if err == nil {
		c.m.queue.enqueued(cache.URIRKeyOf(uriR))
	}
	return err
}

// Claim takes a job and notes it as no longer waiting.
func (c *meteredCache) Claim(ctx context.Context, worker string, at time.Time) (cache.Job, error) {
	j, err := c.Cache.Claim(ctx, worker, at)
	if err == nil {
		c.m.queue.claimed(j.Key)
	}
	return j, err
}

// Complete marks a job done.
func (c *meteredCache) Complete(ctx context.Context, job cache.Job, at time.Time) error {
	err := c.Cache.Complete(ctx, job, at)
	c.m.queue.completed(job.Key)
	return err
}

// queueTracker follows the store's rule that a key has at most one job:
// enqueueing a key whose job is claimed adds no waiting job, and a job is
// reopened only after it was completed. It sees only this process's calls:
// jobs left in a bolt file by an earlier run, or queued by another process
// sharing a MySQL store, are not counted.
type queueTracker struct {
	mu      sync.Mutex
	waiting map[cache.URIRKey]struct{}
	running map[cache.URIRKey]struct{}
}

func newQueueTracker() *queueTracker {
	return &queueTracker{waiting: map[cache.URIRKey]struct{}{}, running: map[cache.URIRKey]struct{}{}}
}

func (q *queueTracker) enqueued(k cache.URIRKey) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if _, ok := q.running[k]; !ok {
		q.waiting[k] = struct{}{}
	}
}

func (q *queueTracker) claimed(k cache.URIRKey) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.waiting, k)
	q.running[k] = struct{}{}
}

func (q *queueTracker) completed(k cache.URIRKey) {
	q.mu.Lock()
	defer q.mu.Unlock()
	delete(q.running, k)
}

func (q *queueTracker) runningJobs() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.running)
}

func (q *queueTracker) depth() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}

// codeLabel is the status code as a label value.
func codeLabel(code int) string { return strconv.Itoa(code) }
