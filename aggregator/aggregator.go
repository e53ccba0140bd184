package aggregator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/memento"
)

// Defaults used when an Options field is zero (internal/spec/TIMETRAVEL.md, "our
// defaults").
const (
	DefaultRequestTimeout = 10 * time.Second
	// DefaultMaxProxyBytes is Options.MaxProxyBytes's default: 1 GiB.
	DefaultMaxProxyBytes  = 1 << 30
	DefaultDynamicBudget  = 20 * time.Second
	DefaultThoroughBudget = 150 * time.Second
	DefaultFreshFor       = 30 * 24 * time.Hour
	DefaultNegativeFor    = 10 * time.Minute
	DefaultNoCacheAfter   = 10 * time.Minute
	DefaultTolerance      = 3
	DefaultDormantFor     = 5 * time.Minute
	// DefaultMaxConcurrent is the per-archive limit of requests in flight
	// (Options.MaxConcurrent, Archive.MaxConcurrent). It is as large as the
	// idle pool kept per archive (DefaultMaxIdleConnsPerHost), so that a
	// steady load reuses connections instead of opening new ones; at 20 ms
	// of archive latency it allows 12,800 requests/s per archive, more
	// than one aggregator process on a small machine serves, so that the
	// limit guards against runaway fan-out rather than capping throughput
	// (8, the former default, capped each archive at 400 requests/s at
	// 20 ms). To spare a particular archive, set its Archive.MaxConcurrent
	// or Archive.Rate.
	DefaultMaxConcurrent = 256
	// DefaultMaxIdleConnsPerHost is the idle connections the default HTTP
	// client keeps per archive host (net/http's default transport keeps 2,
	// so that a concurrent load opened a new connection for most requests).
	DefaultMaxIdleConnsPerHost = 256
	DefaultFanOut              = 32
	DefaultMapMaxAge           = 90 * 24 * time.Hour
	// DefaultMaxMapBytes caps a fetched MementoMap: 1 GiB, well above the
	// compacted maps of large archives (internal/spec/MEMENTOMAP.md).
	DefaultMaxMapBytes = 1 << 30
	// DefaultMapCheckEvery is how often the loaded MementoMaps' files are
	// checked for changes (Options.MapCheckEvery).
	DefaultMapCheckEvery = 10 * time.Second
)

// Options configure an Aggregator. Only Archives is required.
type Options struct {
	// Archives is the registry, in rank order (the rank breaks ties between
	// mementos of the same second). Ignored entries are dropped.
	Archives []Archive
	// Rules chooses archives per service; nil uses every archive for every
	// service (DefaultRules).
	Rules *Rules
	// Blacklist blocks hosts (403 without asking any archive); nil blocks
	// nothing.
	Blacklist *Blacklist
	// Upstream asks archives; nil uses an HTTPUpstream with HTTPClient.
	Upstream Upstream
	// HTTPClient is used by the default Upstream and to fetch MementoMaps;
	// nil uses a client of its own with no overall timeout (each request
	// has its own) over a transport like http.DefaultTransport (same
	// proxy, dial and TLS settings) that keeps DefaultMaxIdleConnsPerHost
	// idle connections per archive host for 90 s, with no global cap.
	// The default Upstream sends its requests through a transport of its
	// own with that Transport's settings (HTTPUpstream.Client), and Close
	// closes its idle connections.
	HTTPClient *http.Client
	// Cache stores results; nil disables caching (every request searches).
	Cache Cache
	// CacheTimeout bounds the cache calls of one request: its reads
	// (RecordRequest, Get) share one deadline, its writes (Put, Enqueue)
	// another. A cache that fails or does not answer in time is left out:
	// the request is answered by searching, the answer says so
	// (Answer.CacheDegraded, the Cache-Degraded header), CacheFailures and
	// CacheDegraded count it, and once a call timed out the request makes
	// no more cache calls, so that a request takes at most its search
	// budget plus two CacheTimeouts. Refresh workers and the stale scan
	// give each call BackgroundCacheTimeout. 0 means DefaultCacheTimeout.
	// A cache.Nonblocking store (memorycache.Cache) is called in the request's
	// goroutine under the request's context: it cannot hang.
	CacheTimeout time.Duration

	// RequestTimeout bounds one archive's answer (see Archive.Timeout) when
	// its Archive.Timeout is 0. DynamicBudget and ThoroughBudget bound a whole
	// search. Zero means the Default* constant, never "no time".
	RequestTimeout time.Duration
	DynamicBudget  time.Duration
	ThoroughBudget time.Duration
	// FreshFor: a cached entry updated within it is served as is
	// (default 30 days). NegativeFor: a cached "none" within it is a 404
	// without searching (default 10 min). NoCacheAfter: Cache-Control:
	// no-cache forces a search only when the entry is older (default 10 min).
	FreshFor     time.Duration
	NegativeFor  time.Duration
	NoCacheAfter time.Duration
	// Tolerance consecutive failures put an archive to sleep for DormantFor
	// (MemGator's --tolerance and --dormant). Tolerance < 0 disables it.
	Tolerance  int
	DormantFor time.Duration
	// MaxConcurrent is the default concurrency limit per archive; FanOut the
	// number of archives one search asks at once.
	MaxConcurrent int
	FanOut        int
	// MapMaxAge: a MementoMap loaded longer ago than this is not trusted to
	// skip an archive (default 90 days); MapDir holds fetched maps (default
	// os.TempDir()).
	MapMaxAge time.Duration
	MapDir    string
	// MaxMapBytes caps a MementoMap download from a URL or discovery
	// (default DefaultMaxMapBytes); past it the fetch fails and the
	// partial file is removed, so that an archive streaming without end
	// cannot fill MapDir.
	MaxMapBytes int64
	// OpenMap opens a MementoMap file; nil uses OpenMementoMap.
	OpenMap func(path string) (MapLookup, io.Closer, error)
	// MapCheckEvery is how often StartMapRefresh checks the loaded maps'
	// files (one stat each): a map changed in place is dropped and loaded
	// again, a file source replaced by a new file is loaded again (see
	// CheckMaps). 0 means DefaultMapCheckEvery; a negative value turns the
	// checks off.
	MapCheckEvery time.Duration
	// BaseURL is the public URL of the HTTP API, without a trailing slash,
	// used in self, timegate and timemap links (default "http://localhost:1208").
	BaseURL string
	// NoAPILinks leaves every link to this HTTP API out of the TimeMaps
	// (/timemap/{link|json|cdxj}/{URI-R}) and memento descriptions
	// (/memento/{link|json|cdxj}/{datetime}/{URI-R}): in link format the
	// self, timemap and timegate links, in JSON the self, timemap_uri and
	// timegate_uri keys, in CDXJ the !id line and the timegate_uri and
	// timemap_uri !meta lines. The original and memento links stay. For
	// answers read where no server of the API runs (the command-line mode
	// of examples/aggregator without -base-url), whose links to BaseURL
	// would lead nowhere.
	NoAPILinks bool
	// MaxBodyBytes caps one upstream response body (default 32 MiB); MaxPages
	// caps the TimeMap pages followed per archive (default 100).
	MaxBodyBytes int64
	MaxPages     int
	// BodyMemory is the budget, in bytes, of upstream body bytes held at
	// once by all searches together (default DefaultBodyMemory; negative:
	// no limit). HTTPUpstream charges a body of unknown length as its
	// bytes arrive, and a body with a Content-Length all of it (up to
	// MaxBodyBytes) before reading it. An eighth of the budget is kept
	// for the first bytes of bodies (a 128th of the budget each): the
	// bytes past them take turns, a body growing only while the rest
	// leaves room for every elder growing body to read to its cap, so
	// that one endless body never keeps the small answers of other
	// searches out. A search's bytes stay held until every caller that
	// waited for it is done with its Result: the Handler's request once
	// its answer is written and stored, Refresh once stored, Search when
	// it returns (the Result is then its caller's). A body that cannot
	// begin (nothing read yet, or a Content-Length body's bytes) waits, at
	// most BodyMemoryWait; past it the archive's answer fails with
	// ReasonMemoryBusy and the HTTP API answers 503 with Retry-After
	// (BusyRetryAfter), storing nothing. ReasonOverMemoryBudget ends an
	// answer the budget cannot hold: one search alone needs more than the
	// budget allows bodies past their first bytes (a Content-Length body
	// is then not read: sole archive, a 502 naming it), or a body of
	// unknown length that holds bytes gave way while another waited to
	// begin or did not get its turn within BodyMemoryWait (the eldest
	// growing body keeps the mementos read, the others' bytes go back at
	// once and their mementos are not kept); the answer is partial,
	// Archive-Failures names the archive, the result is not complete.
	// Neither reason counts toward an archive's dormancy.
	BodyMemory int64
	// BodyMemoryWait is how long a body waits for budget held by other
	// searches (default DefaultBodyMemoryWait; it also ends with the
	// archive's timeout and the search's budget).
	BodyMemoryWait time.Duration
	// MaxProxyBytes caps the memento body /memento/proxy streams (default
	// DefaultMaxProxyBytes): a memento announced larger (Content-Length)
	// is a 502 and nothing is sent; one that grows past it while streamed
	// is cut off, the connection aborted so that the client sees an
	// incomplete answer, never a whole one (ProxyAborts counts it).
	MaxProxyBytes int64
	// MaxHeaderBytes caps the response headers of one upstream answer (a
	// TimeGate's Link header above all), default DefaultMaxHeaderBytes:
	// the aggregator's own transport stops reading there, and an answer
	// past it is a failure of that URI-R (ReasonTooLarge). With a
	// HTTPClient of your own, its Transport's MaxResponseHeaderBytes
	// bounds what is read (net/http's default is 10 MB).
	MaxHeaderBytes int64
	// PageSize is the number of mementos per paged TimeMap
	// (/timemap/link/{N}/{URI-R}); 0 means DefaultPageSize (500).
	PageSize int
	// Logger receives debug and warning records; nil discards them.
	Logger *slog.Logger
	// UserAgent is sent to the archives by the default Upstream and shown
	// by /about ("" is HTTPUpstream's default).
	UserAgent string
	// TopK, when positive, asks only the K archives of highest
	// Archive.Probability (ties in rank order) among those a search would
	// ask (MemGator's --topk); the others are counted and listed apart
	// (Result.SkippedByTopK, Result.NotAsked).
	TopK int
	// MissToList makes /memento and /api/json answer a miss (404) to a
	// browser (Accept: text/html) with a 302 to the /list page of the same
	// datetime and URI-R, as Time Travel does.
	MissToList bool
	// About is added to the configuration section of /about (such as the
	// archive list's location).
	About []ConfigLine
}

// Aggregator federates archives: it routes, fans out, merges, caches and
// serves. Create it with New, serve it with Handler, stop it with Close. All
// methods are safe for concurrent use.
type Aggregator struct {
	opts     Options
	rules    *Rules
	archives []*archiveState
	byID     map[string]*archiveState
	up       Upstream
	log      *slog.Logger

	flights flights     // the searches running now
	bodyMem *bodyMemory // Options.BodyMemory
	pool    *callPool   // the goroutines of the searches' archive calls
	base    context.Context
	stop    context.CancelFunc
	mu      sync.Mutex // guards closed and bg.Add
	closed  bool
	bg      sync.WaitGroup // searches and background loops

	ownClient   bool // opts.HTTPClient was made by New: Close closes its idle connections
	ownUpstream bool // ag.up was made by New: Close closes its idle connections

	allow       *AllowList      // the hosts the aggregator may contact
	proxyAborts [2]atomic.Int64 // /memento/proxy bodies cut off: [0] archive's body broken or too slow, [1] over MaxProxyBytes
	fetch       *http.Client    // opts.HTTPClient behind allow, for MementoMaps

	cacheHealth cacheHealth
	cacheSlots  chan struct{} // cache calls in flight from requests (MaxCacheCalls)
	bgSlots     chan struct{} // cache calls in flight from workers and the scan (MaxBackgroundCacheCalls)
	inlineCache bool          // opts.Cache is cache.Nonblocking: its request calls need no guard

	hasCMS bool // some archive is of type "cms" (navigateAt)

	mapPoke chan struct{} // asks the map watch for a check now (a lookup saw a damaged map)
	checkMu sync.Mutex    // one CheckMaps at a time

	prep      atomic.Pointer[lru.Cache[string, *prepared]] // cached entries prepared for the Handler (preparedCache)
	prepBytes atomic.Int64                                 // the bytes the prepared entries hold (preparedWeight and bodies)
}

// Errors of Search, Lookup and Refresh.
var (
	// ErrClosed is returned by Search and Lookup after Close.
	ErrClosed = errors.New("aggregator: closed")
	// ErrBadURIR is returned (wrapped, with NormalizeURIR's reason) for a
	// URI-R that NormalizeURIR refuses.
	ErrBadURIR = errors.New("aggregator: bad URI-R")
	// ErrBlocked is returned (wrapped, with the URI-R) for a URI-R whose
	// host the Blacklist blocks, in whatever spelling it came.
	ErrBlocked = errors.New("aggregator: host is blacklisted")
)

// checkURIR normalizes urir (NormalizeURIR) and applies the blacklist:
// every entry point that leads to archive requests goes through it.
func (ag *Aggregator) checkURIR(urir string) (string, error) {
	u, err := NormalizeURIR(urir)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadURIR, err)
	}
	if ag.opts.Blacklist.blocksNormalized(u) {
		return "", fmt.Errorf("%w: %s", ErrBlocked, u)
	}
	return u, nil
}

// track registers one background goroutine; false after Close.
func (ag *Aggregator) track() bool {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	if ag.closed {
		return false
	}
	ag.bg.Add(1)
	return true
}

type archiveState struct {
	Archive
	rank    int
	limiter *rate.Limiter
	sem     chan struct{}
	dorm    dormancy
	profile atomic.Pointer[loadedMap]

	sent, saved, found, none, failed, dormantSkips, refused, dropped atomic.Int64

	probes, probeFailures atomic.Int64
	lastProbe             atomic.Pointer[probeResult]

	mapWatch // the state of CheckMaps for this archive's map
}

// New checks opts and builds an Aggregator. It does not touch the network;
// call LoadMaps (or Start) to load MementoMaps. Errors: an archive list with
// no usable archive (a nil opts has none), duplicate ids.
func New(opts *Options) (*Aggregator, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.RequestTimeout, DefaultRequestTimeout)
	def(&o.DynamicBudget, DefaultDynamicBudget)
	def(&o.ThoroughBudget, DefaultThoroughBudget)
	def(&o.FreshFor, DefaultFreshFor)
	def(&o.NegativeFor, DefaultNegativeFor)
	def(&o.NoCacheAfter, DefaultNoCacheAfter)
	def(&o.DormantFor, DefaultDormantFor)
	def(&o.MapMaxAge, DefaultMapMaxAge)
	def(&o.CacheTimeout, DefaultCacheTimeout)
	if o.MapCheckEvery == 0 {
		o.MapCheckEvery = DefaultMapCheckEvery
	}
	if o.Tolerance == 0 {
		o.Tolerance = DefaultTolerance
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	if o.FanOut <= 0 {
		o.FanOut = DefaultFanOut
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 32 << 20
	}
	if o.BodyMemory == 0 {
		o.BodyMemory = DefaultBodyMemory
	}
	if o.BodyMemoryWait <= 0 {
		o.BodyMemoryWait = DefaultBodyMemoryWait
	}
	if o.MaxPages <= 0 {
		o.MaxPages = 100
	}
	if o.MaxProxyBytes <= 0 {
		o.MaxProxyBytes = DefaultMaxProxyBytes
	}
	if o.MaxHeaderBytes <= 0 {
		o.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	if o.MaxMapBytes <= 0 {
		o.MaxMapBytes = DefaultMaxMapBytes
	}
	if o.BaseURL == "" {
		o.BaseURL = "http://localhost:1208"
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	ownClient := o.HTTPClient == nil
	if ownClient {
		tr := defaultTransport()
		tr.MaxResponseHeaderBytes = o.MaxHeaderBytes
		o.HTTPClient = &http.Client{Transport: tr}
	}
	if o.OpenMap == nil {
		o.OpenMap = OpenMementoMap
	}
	ag := &Aggregator{opts: o, bodyMem: newBodyMemory(o.BodyMemory, o.BodyMemoryWait), byID: map[string]*archiveState{}, log: o.Logger, ownClient: ownClient,
		cacheSlots: make(chan struct{}, MaxCacheCalls), bgSlots: make(chan struct{}, MaxBackgroundCacheCalls), mapPoke: make(chan struct{}, 1)}
	if ag.log == nil {
		ag.log = slog.New(slog.DiscardHandler)
	}
	if nb, ok := o.Cache.(cache.Nonblocking); ok && nb.Nonblocking() {
		ag.inlineCache = true
	}
	for _, a := range o.Archives {
		if a.Ignore {
			continue
		}
		if a.ID == "" {
			return nil, ErrNoID
		}
		if err := CheckArchiveID(a.ID); err != nil {
			return nil, fmt.Errorf("aggregator: archive %q: %w", a.ID, err)
		}
		if _, dup := ag.byID[a.ID]; dup {
			return nil, fmt.Errorf("aggregator: %w: %q", ErrDuplicateID, a.ID)
		}
		st := &archiveState{Archive: a, rank: len(ag.archives)}
		if a.Rate > 0 {
			st.limiter = rate.NewLimiter(a.Rate, max(a.Burst, 1))
		}
		n := a.MaxConcurrent
		if n <= 0 {
			n = o.MaxConcurrent
		}
		st.sem = make(chan struct{}, n)
		st.dorm = dormancy{tolerance: max(o.Tolerance, 0), sleep: o.DormantFor}
		if st.Timeout <= 0 {
			st.Timeout = o.RequestTimeout
		}
		ag.archives = append(ag.archives, st)
		ag.byID[a.ID] = st
		ag.hasCMS = ag.hasCMS || strings.EqualFold(a.Type, "cms")
	}
	if len(ag.archives) == 0 {
		return nil, errors.New("aggregator: no archives")
	}
	ag.rules = o.Rules
	if ag.rules == nil {
		ids := make([]string, len(ag.archives))
		for i, st := range ag.archives {
			ids[i] = st.ID
		}
		ag.rules = DefaultRules(ids)
	}
	ag.allow = NewAllowList(ag.Archives())
	ag.fetch = guarded(o.HTTPClient, ag.allow)
	ag.up = o.Upstream
	ag.ownUpstream = ag.up == nil
	if ag.up == nil {
		ag.up = &HTTPUpstream{Client: o.HTTPClient, MaxBodyBytes: o.MaxBodyBytes, MaxHeaderBytes: o.MaxHeaderBytes, MaxPages: o.MaxPages, Allow: ag.allow, UserAgent: o.UserAgent}
	}
	ag.base, ag.stop = context.WithCancel(context.Background())
	ag.pool = newCallPool(ag.base.Done())
	return ag, nil
}

// defaultTransport is http.DefaultTransport with an idle pool sized for
// fan-out: DefaultMaxIdleConnsPerHost per host and no global cap, and
// response headers capped at DefaultMaxHeaderBytes.
func defaultTransport() *http.Transport {
	var tr *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		tr = dt.Clone()
	} else {
		tr = &http.Transport{ForceAttemptHTTP2: true, TLSHandshakeTimeout: 10 * time.Second}
	}
	tr.MaxIdleConns = 0
	tr.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	tr.IdleConnTimeout = 90 * time.Second
	tr.MaxResponseHeaderBytes = DefaultMaxHeaderBytes
	return tr
}

// Close cancels running searches and background work, waits for them, and
// releases loaded MementoMaps. The Aggregator must not be used afterwards.
func (ag *Aggregator) Close() error {
	ag.mu.Lock()
	ag.closed = true
	ag.mu.Unlock()
	ag.stop()
	ag.bg.Wait()
	if ag.ownClient {
		ag.opts.HTTPClient.CloseIdleConnections()
	}
	if u, ok := ag.up.(*HTTPUpstream); ok && ag.ownUpstream {
		u.CloseIdleConnections()
	}
	var errs []error
	for _, st := range ag.archives {
		if lm := st.profile.Swap(nil); lm != nil {
			errs = append(errs, lm.close())
		}
	}
	return errors.Join(errs...)
}

func (ag *Aggregator) rank(id string) int {
	if st, ok := ag.byID[id]; ok {
		return st.rank
	}
	return len(ag.archives)
}

// Archive returns the registry entry with id (its limits filled with the
// aggregator's defaults) and whether it exists.
func (ag *Aggregator) Archive(id string) (Archive, bool) {
	st, ok := ag.byID[id]
	if !ok {
		return Archive{}, false
	}
	return st.Archive, true
}

// Archives returns the registry in rank order.
func (ag *Aggregator) Archives() []Archive {
	out := make([]Archive, len(ag.archives))
	for i, st := range ag.archives {
		out[i] = st.Archive
	}
	return out
}

// Rules returns the rules in use.
func (ag *Aggregator) Rules() *Rules { return ag.rules }

// AllowList returns the hosts the aggregator may contact (NewAllowList of
// the registry): its default Upstream and its MementoMap fetches check
// every request against it. A custom Upstream should be given it (such as
// HTTPUpstream.Allow).
func (ag *Aggregator) AllowList() *AllowList { return ag.allow }

// Stats is one archive's counters since New: requests sent, requests saved
// by its MementoMap, outcomes, skips while dormant, probes, and its
// dormancy state (State, Detail).
type Stats struct {
	Archive             string
	Sent, Saved         int64
	Found, None, Failed int64
	DormantSkips        int64
	// Refused counts the requests the archive's answers led to that the
	// AllowList refused (redirects, page links, Locations, map links
	// elsewhere): each is an answer failed with ReasonHostNotAllowed, or
	// a map not loaded.
	Refused int64
	// Dropped counts the memento links of the archive's answers left out
	// of searches (Outcome.Dropped): a URI-M that is no http(s) URL, no
	// datetime or one that cannot be read, a datetime outside
	// [EarliestDatetime, cache.MaxTime].
	Dropped int64
	// ConsecutiveFailures counts the failed contacts since the archive's
	// last answer (found or none): every search request and every probe
	// that failed with a failure of class down (Class.Dormancy), each
	// counted, so one URI-R failing again and probes failing while the
	// archive sleeps count too. The run that puts the archive to sleep
	// (Options.Tolerance) counts by the dormancy rule and may be shorter.
	ConsecutiveFailures int
	DormantUntil        time.Time // zero when awake
	MapLoaded           time.Time // zero when no map is loaded
	// MapChanged counts the times the archive's map was found changed in
	// place (its file truncated or rewritten while open) and dropped;
	// MapDropped is true from then until it is loaded again; MapReloads
	// counts the loads after the first (after a change, or a file source
	// replaced by a new file). See CheckMaps.
	MapChanged int64
	MapDropped bool
	MapReloads int64
	// Probes and ProbeFailures count the archive's probes (Probe) and
	// those that failed; LastProbe is when the last one was sent (zero:
	// never) and ProbeReason its failure reason ("" when answered).
	Probes, ProbeFailures int64
	LastProbe             time.Time
	ProbeReason           string
}

// Stats returns per-archive counters in rank order.
func (ag *Aggregator) Stats() []Stats {
	now := time.Now()
	out := make([]Stats, len(ag.archives))
	for i, st := range ag.archives {
		s := Stats{Archive: st.ID, Sent: st.sent.Load(), Saved: st.saved.Load(),
			Found: st.found.Load(), None: st.none.Load(), Failed: st.failed.Load(),
			DormantSkips: st.dormantSkips.Load(), Refused: st.refused.Load(), Dropped: st.dropped.Load(), ConsecutiveFailures: st.dorm.consecutive()}
		if asleep, until := st.dorm.asleep(now); asleep {
			s.DormantUntil = until
		}
		if lm := st.profile.Load(); lm != nil {
			s.MapLoaded = lm.loaded
		}
		s.MapChanged, s.MapReloads, s.MapDropped = st.mapChanged.Load(), st.mapReloads.Load(), st.mapDropped.Load()
		s.Probes, s.ProbeFailures = st.probes.Load(), st.probeFailures.Load()
		if p := st.lastProbe.Load(); p != nil {
			s.LastProbe, s.ProbeReason = p.at, p.reason
		}
		out[i] = s
	}
	return out
}

// Decision is the routing verdict for one archive: Status is 0 when the
// archive is to be asked, StatusSkippedByMap or StatusDormant otherwise.
type Decision struct {
	Archive string
	Status  Status
}

// Route returns, for service s and URI-R urir, the rule's archives in rule
// order with a verdict each: skipped when its MementoMap (loaded, not
// older than MapMaxAge, readable) says it holds nothing (no matching key,
// or a matched frequency of 0), else when dormant. An archive with a missing,
// stale or unreadable map is always asked. With Options.TopK, the archives
// to be asked beyond the K of highest Probability are left out (NotAsked
// lists them). Route does not count requests; Search does.
func (ag *Aggregator) Route(s Service, urir string) []Decision {
	route, _ := ag.routeAll(s, urir)
	return route
}

// NotAsked returns the registry archives that Route(s, urir) leaves out,
// in registry order, each with why: StatusSkippedByTopK (the rule lists
// it, Options.TopK left it out) or StatusSkippedByRule (the service's rule
// does not list it).
func (ag *Aggregator) NotAsked(s Service, urir string) []Decision {
	_, left := ag.routeAll(s, urir)
	return left
}

// routeAll is Route and NotAsked at once.
func (ag *Aggregator) routeAll(s Service, urir string) (route, left []Decision) {
	now := time.Now()
	ids := ag.rules.Archives(s, urir)
	route = make([]Decision, 0, len(ids))
	q := &query{urir: urir}
	why := map[string]Status{}
	for _, id := range ids {
		st, ok := ag.byID[id]
		if !ok {
			continue
		}
		if _, dup := why[id]; dup {
			continue
		}
		why[id] = 0
		d := Decision{Archive: id}
		// The map's "absent" comes first: such an archive would not be
		// asked awake either, and is reported as skipped by its map.
		if !ag.mayHold(st, q, now) {
			d.Status = StatusSkippedByMap
		} else if asleep, _ := st.dorm.asleep(now); asleep {
			d.Status = StatusDormant
		}
		route = append(route, d)
	}
	if ag.opts.TopK > 0 {
		var dropped []string
		route, dropped = ag.topK(route)
		for _, id := range dropped {
			why[id] = StatusSkippedByTopK
		}
	}
	for _, st := range ag.archives {
		if w, ok := why[st.ID]; !ok {
			left = append(left, Decision{Archive: st.ID, Status: StatusSkippedByRule})
		} else if w == StatusSkippedByTopK {
			left = append(left, Decision{Archive: st.ID, Status: w})
		}
	}
	return route, left
}

// topK keeps, of the archives route would ask, the Options.TopK of
// highest Probability (ties in rank order), and the archives not asked;
// the others are dropped, and returned apart.
func (ag *Aggregator) topK(route []Decision) (kept []Decision, dropped []string) {
	var asked []int
	for i, d := range route {
		if d.Status == 0 {
			asked = append(asked, i)
		}
	}
	if len(asked) <= ag.opts.TopK {
		return route, nil
	}
	slices.SortStableFunc(asked, func(a, b int) int {
		x, y := ag.byID[route[a].Archive], ag.byID[route[b].Archive]
		if c := cmp.Compare(y.Probability, x.Probability); c != 0 {
			return c
		}
		return cmp.Compare(x.rank, y.rank)
	})
	drop := map[int]bool{}
	for _, i := range asked[ag.opts.TopK:] {
		drop[i] = true
	}
	out := route[:0:0]
	for i, d := range route {
		if drop[i] {
			dropped = append(dropped, d.Archive)
		} else {
			out = append(out, d)
		}
	}
	return out, dropped
}

// kindOf maps a service to its search kind: *_dynamic services make
// dynamic searches (short budget), the others thorough ones.
func kindOf(s Service) Kind {
	if strings.HasSuffix(string(s), "_dynamic") {
		return Dynamic
	}
	return Thorough
}

// usesTimeGate reports whether service s asks TimeGates (the dynamic
// TimeGate and Time Travel services) rather than fetching TimeMaps. The
// dynamic TimeMap service fetches TimeMaps from its (fast) archives: a
// TimeMap built from TimeGate answers would be knowingly incomplete.
func usesTimeGate(s Service) bool { return s == TimeGateDynamic || s == TimeTravelDynamic }

func (ag *Aggregator) budget(k Kind) time.Duration {
	if k == Dynamic {
		return ag.opts.DynamicBudget
	}
	return ag.opts.ThoroughBudget
}

// Search asks the archives that Route(s, urir) lets through, in parallel,
// and merges their answers. urir is normalized first (NormalizeURIR; the
// Result's URIR is the normalized form); a URI-R it refuses gives an error
// wrapping ErrBadURIR, a blacklisted host one wrapping ErrBlocked, and no
// archive is asked. The TimeGate and Time Travel dynamic services
// ask TimeGates for at (the zero time means now); the other services fetch
// whole TimeMaps (with paging). Services ending in "_dynamic" run within
// DynamicBudget, the others within ThoroughBudget. Identical concurrent searches (same service, URI-R and, for
// dynamic ones, datetime) share one fan-out (singleflight). The search runs
// within its budget whatever happens to ctx; ctx only stops the wait. The
// error is non-nil only when ctx ends first or the aggregator is closed;
// archive failures are reported in the Result's outcomes. After Close it
// returns ErrClosed.
func (ag *Aggregator) Search(ctx context.Context, s Service, urir string, at time.Time) (*Result, error) {
	urir, err := ag.checkURIR(urir)
	if err != nil {
		return nil, err
	}
	return ag.searchShared(ctx, s, urir, at, nil)
}

// searchGrace is how long a search waits, after its budget ended, for the
// archives still being asked to report (an Upstream honouring its context
// returns at once); archives that have not reported by then are timed out
// in the Result, and their calls finish on their own (each holds a slot of
// its archive's concurrency limit until it does).
const searchGrace = 100 * time.Millisecond

// answer is one archive's report to its search.
type answer struct {
	i   int
	ms  []memento.Memento
	out Outcome
	own bool // ms is the search's to reuse once merged (ownedLists)
}

// search asks the archives and merges their answers; the hold is the
// search's share of the body memory budget, held once by the search (its
// caller lets it go).
func (ag *Aggregator) search(s Service, k Kind, urir string, at time.Time) (*Result, *bodyHold) {
	ctx, cancel := context.WithTimeout(ag.base, ag.budget(k))
	defer cancel()
	hold := newBodyHold(ag.bodyMem)
	ctx = withBodyHold(ctx, hold)
	route, left := ag.routeAll(s, urir)
	res := &Result{URIR: urir, Kind: k, Outcomes: make([]Outcome, len(route)), NotAsked: left}
	for _, d := range left {
		if d.Status == StatusSkippedByTopK {
			res.SkippedByTopK++
		} else {
			res.SkippedByRule++
		}
	}
	found := make([][]memento.Memento, len(route))
	own := make([]bool, len(route)) // found[i] is the search's to reuse
	reported := make([]bool, len(route))
	progs := make([]progress, len(route)) // how far each archive's answer got, read when it is late
	// Each archive is asked in a goroutine of its own (ag.pool's; at most
	// FanOut at once) that reports on a channel: the search stops waiting
	// at its budget (plus searchGrace) whatever an Upstream does.
	results := make(chan answer, len(route))
	var fan chan struct{} // nil when every archive may be asked at once
	if ag.opts.FanOut < len(route) {
		fan = make(chan struct{}, ag.opts.FanOut)
	}
	pending := 0
	for i, d := range route {
		st := ag.byID[d.Archive]
		res.Outcomes[i] = Outcome{Archive: d.Archive, Status: d.Status}
		switch d.Status {
		case StatusSkippedByMap:
			st.saved.Add(1)
			reported[i] = true
			continue
		case StatusDormant:
			st.dormantSkips.Add(1)
			reported[i] = true
			continue
		}
		pending++
		ag.pool.run(func() {
			if fan != nil {
				select {
				case fan <- struct{}{}:
				case <-ctx.Done():
					results <- answer{i: i, out: Outcome{Archive: st.ID, Status: StatusFailed, Class: ClassDown, Reason: ctxReason(ctx), Err: ctx.Err()}}
					return
				}
				defer func() { <-fan }()
			}
			ms, o := ag.ask(ctx, st, &progs[i], usesTimeGate(s), urir, at)
			results <- answer{i: i, ms: ms, out: o, own: ag.ownedLists()}
		})
	}
	take := func(a answer) {
		found[a.i], own[a.i], res.Outcomes[a.i], reported[a.i] = a.ms, a.own, a.out, true
		pending--
	}
wait:
	for pending > 0 {
		select {
		case a := <-results:
			take(a)
		case <-ctx.Done():
			break wait
		}
	}
	if pending > 0 {
		grace := time.NewTimer(searchGrace)
	late:
		for pending > 0 {
			select {
			case a := <-results:
				take(a)
			case <-grace.C:
				break late
			}
		}
		grace.Stop()
	}
	for i, ok := range reported {
		if !ok && progs[i].answered.Load() {
			// The archive was answering when the budget ended, and its
			// call has not returned (what it read is lost to this search):
			// cut by the budget, not a timeout of the archive.
			res.Outcomes[i] = Outcome{Archive: route[i].Archive, Status: StatusFailed, Class: ClassPerURI, Reason: ReasonBudgetCut,
				Err: fmt.Errorf("the archive was still answering when the search budget of %v ended", ag.budget(k)), Elapsed: ag.budget(k)}
			ag.log.Warn("upstream call outlived the search budget while answering", "archive", route[i].Archive, "budget", ag.budget(k))
		} else if !ok {
			res.Outcomes[i] = Outcome{Archive: route[i].Archive, Status: StatusFailed, Class: ClassDown, Reason: ReasonTimeout,
				Err: fmt.Errorf("no answer from the upstream within the budget of %v", ag.budget(k)), Elapsed: ag.budget(k)}
			ag.log.Warn("upstream call outlived the search budget", "archive", route[i].Archive, "budget", ag.budget(k))
		}
	}
	res.Mementos = mergeLists(found, ag.rank)
	res.reusable = len(res.Mementos) > 0
	for i, l := range found {
		// The merged list holds copies of the archives' mementos (or is
		// the one list merged, kept as it is): the lists go back.
		if cap(l) > 0 && len(res.Mementos) > 0 && &l[:1][0] == &res.Mementos[0] {
			res.reusable = own[i] // the archive's list itself
			continue
		}
		if own[i] && cap(l) > 0 {
			releaseMementos(l)
		}
	}
	hold.last = res.giveBack
	res.At = time.Now()
	if ag.log.Enabled(ag.base, slog.LevelDebug) { // the record's attributes are built only when it is written
		ag.log.Debug("search", "service", s, "urir", urir, "mementos", len(res.Mementos), "failures", res.FailureHeader())
	}
	return res, hold
}

// ask sends one archive its request(s) and classifies the answer (judge:
// the same rule for TimeMap and TimeGate answers); prog records how far
// the answer got. ctx carries the search's budget: an answer it cut
// after the archive began answering is ReasonBudgetCut.
// ownedLists reports whether the lists ask returns are the search's
// alone, to reuse once merged (releaseMementos): those of an Upstream
// that says so (CallerOwnedLists, the aggregator's HTTPUpstream).
// Another Upstream's lists may be its own data (a fixed holding), never
// reused.
func (ag *Aggregator) ownedLists() bool {
	o, ok := ag.up.(CallerOwnedLists)
	return ok && o.ListsOwnedByCaller()
}

// checkedList is the list an HTTPUpstream's TimeMap answer returned
// whose every memento its fast path found to pass cleanMementos as it is
// (noteChecked, through the context of the call): ask then skips the
// check, which would read every URI-M a second time.
type checkedList struct {
	first *memento.Memento
	n     int
}

type checkedKey struct{}

// noteChecked tells the ask whose context is ctx (when it asks for it)
// that ms passes cleanMementos as it is.
func noteChecked(ctx context.Context, ms []memento.Memento) {
	if c, _ := ctx.Value(checkedKey{}).(*checkedList); c != nil && len(ms) > 0 {
		c.first, c.n = &ms[0], len(ms)
	}
}

// is reports whether ms is the list noted.
func (c *checkedList) is(ms []memento.Memento) bool {
	return c.n > 0 && len(ms) == c.n && &ms[0] == c.first
}

func (ag *Aggregator) ask(ctx context.Context, st *archiveState, prog *progress, gate bool, urir string, at time.Time) ([]memento.Memento, Outcome) {
	start := time.Now()
	o := Outcome{Archive: st.ID}
	// notAsked is a failure before any request was sent (the archive's
	// concurrency or rate limit left no time): it says nothing about the
	// archive, so it does not count toward dormancy.
	notAsked := func(reason string, err error) ([]memento.Memento, Outcome) {
		o.Status, o.Class, o.Reason, o.Err, o.Elapsed = StatusFailed, ClassDown, reason, err, time.Since(start)
		st.failed.Add(1)
		return nil, o
	}
	select {
	case st.sem <- struct{}{}:
		defer func() { <-st.sem }()
	case <-ctx.Done():
		return notAsked(ctxReason(ctx), ctx.Err())
	}
	if st.limiter != nil {
		if err := st.limiter.Wait(ctx); err != nil {
			return notAsked(ReasonRateLimited, err)
		}
	}
	rctx, cancel := context.WithTimeout(ctx, st.Timeout)
	defer cancel()
	rctx = prog.attach(rctx)
	var (
		ms  []memento.Memento
		n   int
		err error
	)
	useGate := gate && st.TimeGate != "" || st.TimeMap == ""
	var checked checkedList // noted by the aggregator's HTTPUpstream (or one that passes its lists on as they are)
	if useGate {
		ms, n, err = ag.up.TimeGate(rctx, &st.Archive, urir, at)
	} else if ag.ownedLists() {
		ms, n, err = ag.up.TimeMap(context.WithValue(rctx, checkedKey{}, &checked), &st.Archive, urir)
	} else {
		ms, n, err = ag.up.TimeMap(rctx, &st.Archive, urir)
	}
	st.sent.Add(int64(max(n, 1)))
	o.Requests = max(n, 1)
	o.Elapsed = time.Since(start)
	raw := len(ms)
	own := ms    // the list as the Upstream gave it
	undated := 0 // memento links without a readable datetime (HTTPUpstream.TimeMap)
	for i := range ms {
		if ms[i].Datetime.IsZero() {
			undated++
		}
	}
	if checked.is(ms) {
		// every memento passed the check as it is, in HTTPUpstream's read
	} else if cleaned := cleanMementos(ms); raw > 0 && (len(cleaned) == 0 || &cleaned[0] != &ms[0]) {
		if ag.ownedLists() {
			releaseMementos(ms) // cleaned is a new list
		}
		ms = cleaned
	}
	o.Dropped = raw - len(ms)
	if o.Dropped > 0 {
		st.dropped.Add(int64(o.Dropped))
		ag.log.LogAttrs(ctx, slog.LevelWarn, "archive answer: mementos left out (a URI-M that is no http(s) URL, no readable datetime, or a datetime outside 1000-01-01..9999-12-31)",
			slog.String("archive", st.ID), slog.String("urir", urir), slog.Int("left_out", o.Dropped), slog.Int("listed", raw))
	}
	if !ag.ownedLists() && len(ms) > 0 && raw == len(ms) && &ms[0] == &own[0] {
		// The rule of Upstream: a search never writes into a list an
		// Upstream returned, which may be its own data shared by
		// archives and searches. The list cleanMementos kept as it is
		// (a changed one is a copy already) is copied before the archive
		// is set; the merge then sorts and drops in lists of the search's
		// own (mergeLists).
		ms = slices.Clone(ms)
	}
	for i := range ms {
		ms[i].Archive = st.ID
	}
	class, reason := judge(ms, err, func() string {
		if rctx.Err() != nil {
			return ctxReason(rctx)
		}
		return ""
	})
	if class == ClassMalformed && reason == ReasonEmptyAnswer && raw > undated {
		reason = ReasonBadURIM // mementos came, none with an http(s) URI-M and a readable datetime
	}
	if r := prog.slow(reason); r != reason {
		reason, class = r, ClassOf(r) // the archive had begun answering
	}
	if reason == ReasonSlowAnswer && ctx.Err() != nil && ag.base.Err() == nil {
		// The search's budget ended while the archive was answering: the
		// archive is up, the search had no more time for it.
		reason, class = ReasonBudgetCut, ClassOf(ReasonBudgetCut)
	}
	o.Class = class
	switch class {
	case ClassAnswered:
		st.dorm.success()
		o.Status, o.Mementos = StatusFound, len(ms)
		st.found.Add(1)
		return ms, o
	case ClassNone:
		st.dorm.success()
		o.Status = StatusNone
		st.none.Add(1)
		return nil, o
	}
	o.Status, o.Reason, o.Err = StatusFailed, reason, err
	if reason == ReasonHostNotAllowed {
		st.refused.Add(1)
		ag.log.Warn("archive answer led to a host that may not be contacted; refused", "archive", st.ID, "err", err)
	}
	if o.Err == nil {
		o.Err = errors.New(reason)
	}
	st.failed.Add(1)
	if class.Dormancy() && ag.base.Err() == nil {
		// The dormancy rule (Class): a failure before the request reached
		// the archive counts every time, any other once per URI-R.
		key := ""
		if prog.reached(reason) {
			key = urir
		}
		if st.dorm.failure(time.Now(), key) {
			ag.log.Warn("archive dormant", "archive", st.ID, "failures", st.dorm.tolerance, "for", st.dorm.sleep)
		}
	}
	if (class == ClassPerURI || reason == ReasonBadBody) && len(ms) > 0 {
		// Mementos read before a cap was reached, or before a body that
		// cannot be read on, are real: kept, and the failure keeps the
		// result from counting as complete.
		o.Mementos = len(ms)
		if reason == ReasonBadBody {
			ag.log.LogAttrs(ctx, slog.LevelWarn, "archive answer: TimeMap body cannot be read on (bad-body); the mementos before the error are kept",
				slog.String("archive", st.ID), slog.String("urir", urir), slog.Int("kept", len(ms)), slog.Any("err", err))
		}
		return ms, o
	}
	return nil, o
}

func ctxReason(ctx context.Context) string {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return ReasonTimeout
	}
	return ReasonCanceled
}

// cleanMementos is the check every URI-M passes where it enters the
// aggregator (an archive's answer, a cache read): it keeps the mementos
// whose URI-M is an absolute http or https URL with a host and holds no
// control byte (CR, LF, NUL, ...: an archive's "javascript:" or "data:"
// link, or a CR LF stored in a shared cache, would otherwise reach the
// /list page, JSON, Location headers and TimeMap lines), and
// percent-encodes the other bytes that cannot appear in a URI
// (escapeNonURI: '>', '"', spaces, non-ASCII), which the lenient
// link-format reader lets through and which would break the link format,
// JSON consumers and Location headers we write; a memento whose datetime
// lies outside [EarliestDatetime, cache.MaxTime] is left out too (no web
// capture is that old, and no store keeps it). ms is returned as is when
// every memento is kept unchanged, else a new slice.
func cleanMementos(ms []memento.Memento) []memento.Memento {
	var out []memento.Memento // nil until a memento needs a change
	for i, m := range ms {
		u, ok := cleanURIM(m.URIM)
		if m.Datetime.Before(EarliestDatetime) || m.Datetime.After(cache.MaxTime) {
			ok = false
		}
		if out == nil && ok && u == m.URIM {
			continue
		}
		if out == nil {
			out = append(make([]memento.Memento, 0, len(ms)), ms[:i]...)
		}
		if ok {
			m.URIM = u
			out = append(out, m)
		}
	}
	if out == nil {
		return ms
	}
	return out
}

// cleanURIM returns u with non-URI bytes percent-encoded, and whether it
// is a usable URI-M (see cleanMementos).
func cleanURIM(u string) (string, bool) {
	// One pass for the common URI-M: printable URI bytes, no '%' (whose
	// escapes escapeNonURI checks), one table look-up per byte.
	var seen byte
	for i := 0; i < len(u); i++ {
		seen |= urimByte[u[i]]
	}
	if seen&urimControl != 0 {
		return "", false
	}
	if seen&urimEscape != 0 {
		u = escapeNonURI(u)
	}
	return u, httpURL(u)
}

// Classes of urimByte: a control byte (no usable URI-M), a byte
// escapeNonURI has to see (not a URI byte, or '%').
const (
	urimControl = 1 << iota
	urimEscape
)

// urimByte is the class of each byte in cleanURIM: 0 for a URI byte as it
// is (uriByte) other than '%'.
var urimByte = func() (t [256]byte) {
	for c := range 256 {
		switch {
		case c < 0x20 || c == 0x7f:
			t[c] = urimControl
		case !uriByte[c] || c == '%':
			t[c] = urimEscape
		}
	}
	return t
}()

// httpURL reports whether u starts with http:// or https:// (any case)
// followed by a host (something before the next '/', '?' or '#').
func httpURL(u string) bool {
	i := strings.Index(u, "://")
	if i < 0 || !strings.EqualFold(u[:i], "http") && !strings.EqualFold(u[:i], "https") {
		return false
	}
	rest := u[i+3:]
	return rest != "" && rest[0] != '/' && rest[0] != '?' && rest[0] != '#'
}
