package archiveserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/timestamp"
)

// The paths the Server answers; a URI-R follows each prefix.
const (
	TimeMapPrefix  = "/timemap/link/"
	TimeGatePrefix = "/timegate/"
	MementoMapPath = "/.well-known/mementomap"
)

// IdentityModifier is the Wayback replay modifier of a memento's original
// bytes, written right after the timestamp ("/20100101000000id_/URI-R"):
// pywb (its "id_" identity modifier: no rewriting, no banner) and the
// Internet Archive's Wayback Machine serve the memento unrewritten there,
// and MemGator's /memento/proxy (package aggregator) asks for that form. A Server has no
// rewriting to undo (its memento body is a placeholder), so it answers the
// id_ form with the same headers and body as /{14 digits}/{URI-R}.
const IdentityModifier = "id_"

// MementoMapType is the Content-Type of the served MementoMap: UKVS is a
// plain text format (internal/spec/MEMENTOMAP.md), and no media type is registered for it.
const MementoMapType = "text/plain; charset=utf-8"

// Options sets up a Server. The zero value is a fast, well-behaved archive
// whose links are absolute URLs on the host the client asked for.
type Options struct {
	// ID names the archive in the root description and the logs; the
	// MementoMap's !id header is LoadOptions.Map's ArchiveID.
	ID string
	// BaseURL is the archive's public URL without a trailing slash, used in
	// every link; "" means "http://" + the request's Host (or, for an
	// HTTP/1.0 request without Host, the local address it came in on).
	BaseURL string

	// Latency is added before every TimeMap and TimeGate answer (not to
	// mementos or the MementoMap); the wait ends early if the client goes.
	Latency time.Duration
	// FaultRate is the share, in [0, 1], of TimeMap and TimeGate requests
	// answered with FaultStatus (default 503; a final status, 200 to 999)
	// instead, chosen by a
	// pseudo-random sequence seeded with Seed (the same seed and request
	// order give the same faults).
	FaultRate   float64
	FaultStatus int
	Seed        uint64
	// TimeMapCache keeps the rendered bodies of up to this many TimeMaps
	// (keyed by base URL and URI-R, least recently used evicted), so that a
	// load test measures its client rather than this server's link-format
	// writing; 0 renders every answer. Memory: about 90 bytes per memento
	// of each kept TimeMap.
	TimeMapCache int
	// SlowBody spreads the writing of each TimeMap and TimeGate body over
	// this long, in ten parts, flushing after each, to imitate a slow link.
	SlowBody time.Duration

	// Compact sets up the compaction of the MementoMap; nil means
	// mementomap.DefaultCompactOptions (W_h = W_p = 1).
	Compact *mementomap.CompactOptions
	// Logger receives one Debug record per request and the map build
	// figures at Info; nil logs nothing.
	Logger *slog.Logger
}

// Stats counts the requests a Server answered, by endpoint, since New.
type Stats struct {
	TimeMap, TimeGate, Memento, MementoMap, Other int64
	// NotFound counts 404 answers of the TimeMap, TimeGate and memento
	// endpoints; Faults the injected FaultStatus answers; BadRequest the 400s.
	NotFound, Faults, BadRequest int64
}

// Server is an http.Handler that serves an Index as a Memento archive
// (RFC 7089):
//
//	GET|HEAD /timemap/link/{URI-R}       TimeMap, application/link-format (§5); 404 when none
//	GET|HEAD /timegate/{URI-R}           302 to the closest memento (§4.1, pattern 2.1); 404 when none
//	GET|HEAD /{14 digits}/{URI-R}        the memento: Memento-Datetime, Link, a placeholder body (§4.1)
//	GET|HEAD /{14 digits}id_/{URI-R}     the same memento, its "identity" form (IdentityModifier)
//	GET|HEAD /.well-known/mementomap     the MementoMap: LoadIndex's build, compacted at New
//	GET|HEAD /                           a short plain-text description
//
// The URI-R is the rest of the raw request target, query included; a
// missing scheme becomes http://, the slashes after the scheme are made
// two ("http:/example.com/", as a proxy merging slashes leaves it, reads as
// http://example.com/), and a URI-R percent-encoded as a whole
// ("http%3A%2F%2F...") is decoded once. It is looked up by its SURT
// (surt.Canonicalize), so http://www.example.com:80/ and
// https://example.com/ reach the same captures.
//
// Statuses: 400 for a URI-R without a host or that cannot be canonicalized, or an
// Accept-Datetime that is not an rfc1123-date in GMT (§2.1.1, §4.5.3); 404
// for an unknown path, URI-R or memento datetime; 405 with Allow for
// methods other than GET and HEAD. The closest memento is the one nearest
// Accept-Datetime, an exact tie going to the later one (as the Time Travel
// service and MemGator do); without Accept-Datetime, the latest. A Server
// is safe for concurrent use.
type Server struct {
	idx  *Index
	o    Options
	mmap []byte
	mm   *mementomap.Map

	mu  sync.Mutex // guards rnd
	rnd *rand.Rand

	bodies *lru.Cache[string, []byte] // rendered TimeMaps; nil when off

	timeMap, timeGate, memento, mapReq, other atomic.Int64
	notFound, faults, badRequest              atomic.Int64
}

// New returns a Server for idx. It compacts the baseline MementoMap
// LoadIndex built (BuildMap), holding it in memory: about the size of the
// compacted map. ctx is not used: the map was built in LoadIndex.
// o nil means the zero Options (defaults); New reads *o and keeps a copy.
// Errors: a FaultRate outside [0, 1], or a failed build or compaction.
func New(ctx context.Context, idx *Index, opts *Options) (*Server, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.FaultRate < 0 || o.FaultRate > 1 {
		return nil, fmt.Errorf("archiveserver: fault rate %v not in [0, 1]", o.FaultRate)
	}
	if o.FaultStatus == 0 {
		o.FaultStatus = http.StatusServiceUnavailable
	}
	if o.TimeMapCache < 0 {
		return nil, fmt.Errorf("archiveserver: TimeMap cache size %d is negative", o.TimeMapCache)
	}
	if o.FaultStatus < 200 || o.FaultStatus > 999 {
		// 1xx are interim answers: the client would go on waiting for a final one.
		return nil, fmt.Errorf("archiveserver: fault status %d is not a final HTTP status (200-999)", o.FaultStatus)
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	m, err := BuildMap(idx, &o)
	if err != nil {
		return nil, err
	}
	s := &Server{idx: idx, o: o, mmap: m, mm: mementomap.FromBytes(m),
		rnd: rand.New(rand.NewPCG(o.Seed, 0x6d656d656e746f))}
	if o.TimeMapCache > 0 {
		if s.bodies, err = lru.New[string, []byte](o.TimeMapCache); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// BuildMap returns the compacted MementoMap (UKVS text) of idx, the map a
// Server serves: mementomap.Compact with o.Compact of the baseline map
// LoadIndex built with mementomap.Build over the same inputs
// (Index.MementoMap), so that it is what "mementomap build" then
// "mementomap compact" write for those inputs and options. Memory: the
// compacted map. o nil means the zero Options (defaults). Errors are
// Compact's.
func BuildMap(idx *Index, o *Options) ([]byte, error) {
	if o == nil {
		o = &Options{}
	}
	co := mementomap.DefaultCompactOptions()
	if o.Compact != nil {
		c := *o.Compact // a copy: the Logger is set below
		co = &c
	}
	co.Logger = o.Logger
	var out bytes.Buffer
	cst, err := mementomap.Compact(&out, bytes.NewReader(idx.baseline), co)
	if err != nil {
		return nil, fmt.Errorf("archiveserver: compacting the MementoMap: %w", err)
	}
	if o.Logger != nil {
		o.Logger.Info("mementomap compacted", "archive", o.ID, "in_lines", cst.InLines,
			"compacted_lines", cst.OutLines, "bytes", cst.OutBytes)
	}
	return out.Bytes(), nil
}

// MementoMap returns the served MementoMap (UKVS text). The slice must not
// be modified.
func (s *Server) MementoMap() []byte { return s.mmap }

// Map returns the served MementoMap, open for lookups.
func (s *Server) Map() *mementomap.Map { return s.mm }

// Index returns the holdings the Server serves.
func (s *Server) Index() *Index { return s.idx }

// Stats returns the request counters.
func (s *Server) Stats() Stats {
	return Stats{
		TimeMap: s.timeMap.Load(), TimeGate: s.timeGate.Load(), Memento: s.memento.Load(),
		MementoMap: s.mapReq.Load(), Other: s.other.Load(),
		NotFound: s.notFound.Load(), Faults: s.faults.Load(), BadRequest: s.badRequest.Load(),
	}
}

// ServeHTTP answers one request; see Server.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.other.Add(1)
		writeText(w, http.StatusMethodNotAllowed, "method not allowed: "+r.Method+"\n")
		return
	}
	raw := r.RequestURI
	if !strings.HasPrefix(raw, "/") {
		raw = r.URL.RequestURI() // absolute-form request target
	}
	if s.o.Logger != nil {
		s.o.Logger.Debug("request", "method", r.Method, "target", raw)
	}
	switch {
	case strings.HasPrefix(raw, TimeMapPrefix):
		s.timeMap.Add(1)
		s.serveTimeMap(w, r, raw[len(TimeMapPrefix):])
	case strings.HasPrefix(raw, TimeGatePrefix):
		s.timeGate.Add(1)
		s.serveTimeGate(w, r, raw[len(TimeGatePrefix):])
	case pathOf(raw) == MementoMapPath:
		s.mapReq.Add(1)
		w.Header().Set("Content-Type", MementoMapType)
		w.Header().Set("Content-Length", strconv.Itoa(len(s.mmap)))
		if r.Method == http.MethodGet {
			_, _ = w.Write(s.mmap)
		}
	case isMementoPath(raw):
		s.memento.Add(1)
		digits, rest := raw[1:15], raw[15:]
		rest, _ = strings.CutPrefix(rest, IdentityModifier)
		s.serveMemento(w, r, digits, rest[1:])
	case pathOf(raw) == "/":
		s.other.Add(1)
		writeText(w, http.StatusOK, fmt.Sprintf("Memento archive %q: %d URI-Rs, %d mementos.\n"+
			"TimeMaps at %s{URI-R}, TimeGate at %s{URI-R}, mementos at /{YYYYMMDDhhmmss}/{URI-R} (and /{YYYYMMDDhhmmss}id_/{URI-R}), MementoMap at %s\n",
			s.o.ID, s.idx.Len(), s.idx.Captures(), TimeMapPrefix, TimeGatePrefix, MementoMapPath))
	default:
		s.other.Add(1)
		writeText(w, http.StatusNotFound, "not found: "+raw+"\n")
	}
}

// pathOf returns the request target without its query (a cache-busting
// "?t=..." on the MementoMap or the root is ignored).
func pathOf(raw string) string {
	if i := strings.IndexByte(raw, '?'); i >= 0 {
		return raw[:i]
	}
	return raw
}

// isMementoPath reports whether raw is "/" + 14 digits + "/" +
// something, or "/" + 14 digits + IdentityModifier + "/" + something.
func isMementoPath(raw string) bool {
	if len(raw) >= 15 && strings.HasPrefix(raw[15:], IdentityModifier+"/") {
		return len(raw) > 15+len(IdentityModifier)+1 && isMementoPath(raw[:15]+raw[15+len(IdentityModifier):])
	}
	if len(raw) < 17 || raw[15] != '/' {
		return false
	}
	for i := 1; i < 15; i++ {
		if raw[i] < '0' || raw[i] > '9' {
			return false
		}
	}
	return true
}

func writeText(w http.ResponseWriter, code int, body string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = io.WriteString(w, body) // a HEAD response discards it
}

// normalizeURIR turns the URI-R part of a request target into an absolute
// URI-R, as Server documents. Slashes after the scheme are made two, as
// browsers do ("http:/example.com/", left by a proxy that merges slashes,
// and "http:///example.com/" become "http://example.com/"); a
// scheme-relative "//example.com/" gets http. A URI-R without a host, or
// with an unclosed IPv6 bracket, is an error.
func normalizeURIR(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty URI-R")
	}
	ls := strings.ToLower(s)
	if strings.HasPrefix(ls, "http%3a") || strings.HasPrefix(ls, "https%3a") {
		d, err := url.PathUnescape(s)
		if err != nil {
			return "", fmt.Errorf("URI-R %q: %v", s, err)
		}
		s, ls = d, strings.ToLower(d)
	}
	var scheme string
	switch {
	case strings.HasPrefix(ls, "http:"):
		scheme = s[:4]
	case strings.HasPrefix(ls, "https:"):
		scheme = s[:5]
	case strings.HasPrefix(s, "//"):
		scheme, s = "http", "http:"+s
	default:
		if strings.Contains(s, "://") {
			return "", fmt.Errorf("URI-R %q: not an http(s) URL", s)
		}
		scheme, s = "http", "http:"+s
	}
	rest := strings.TrimLeft(s[len(scheme)+1:], "/")
	auth := rest
	if i := strings.IndexAny(auth, "/?#"); i >= 0 {
		auth = auth[:i]
	}
	host := auth[strings.LastIndexByte(auth, '@')+1:]
	if strings.HasPrefix(host, "[") {
		if !strings.Contains(host, "]") {
			return "", fmt.Errorf("URI-R %q: IPv6 host without its closing ']'", s)
		}
	} else if i := strings.IndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	if host == "" || host == "[]" {
		return "", fmt.Errorf("URI-R %q: no host", s)
	}
	return scheme + "://" + rest, nil
}

// resolve returns the normalized URI-R and its captures; on failure it has
// answered the request and returns ok false.
func (s *Server) resolve(w http.ResponseWriter, rawURIR string, vary bool) (uriR string, caps []Capture, ok bool) {
	uriR, err := normalizeURIR(rawURIR)
	if err == nil {
		caps, err = s.idx.Lookup(uriR)
	}
	if err != nil {
		s.badRequest.Add(1)
		writeText(w, http.StatusBadRequest, "bad URI-R: "+err.Error()+"\n")
		return "", nil, false
	}
	if len(caps) == 0 {
		s.notFound.Add(1)
		if vary {
			w.Header().Set("Vary", "accept-datetime")
		}
		w.Header().Set("Link", memento.FormatLinks([]memento.Link{{Target: uriR, Rel: []string{"original"}}}))
		writeText(w, http.StatusNotFound, "no memento of "+uriR+"\n")
		return "", nil, false
	}
	return uriR, caps, true
}

// delay waits for the added latency and decides on a fault; false means the
// request was answered (fault) or abandoned.
func (s *Server) delay(w http.ResponseWriter, r *http.Request) bool {
	if s.o.Latency > 0 {
		t := time.NewTimer(s.o.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return false
		}
	}
	if s.o.FaultRate > 0 {
		s.mu.Lock()
		fault := s.rnd.Float64() < s.o.FaultRate
		s.mu.Unlock()
		if fault {
			s.faults.Add(1)
			w.Header().Set("Retry-After", "1")
			writeText(w, s.o.FaultStatus, "injected fault\n")
			return false
		}
	}
	return true
}

func (s *Server) base(r *http.Request) string {
	if s.o.BaseURL != "" {
		return s.o.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		// An HTTP/1.0 request without Host: links name the address the
		// request came in on, never "http:///...".
		if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
			host = a.String()
		} else {
			host = "localhost"
		}
	}
	return scheme + "://" + host
}

// escapeURI percent-encodes the bytes a URI cannot hold (RFC 3986 section
// 2.1): space, control bytes, '<' and '>', as the memento package does for
// link targets, so that a Location header names the same URI-M as the Link
// header. An index may record an original URL with a space or a line break.
func escapeURI(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '<' || c == '>' {
			if b == nil {
				b = append(make([]byte, 0, len(s)+8), s[:i]...)
			}
			b = append(b, '%', hex[c>>4], hex[c&0xf])
		} else if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return s
	}
	return string(b)
}

func uriM(base string, c Capture) string {
	return base + "/" + timestamp.Format(c.Time) + "/" + c.URL
}

func (s *Server) serveTimeMap(w http.ResponseWriter, r *http.Request, rawURIR string) {
	if !s.delay(w, r) {
		return
	}
	base := s.base(r)
	h := w.Header()
	var ck string
	if s.bodies != nil {
		ck = base + " " + rawURIR
		if b, ok := s.bodies.Get(ck); ok {
			h.Set("Content-Type", memento.MediaTypeLinkFormat)
			h.Set("Link", memento.FormatLinks([]memento.Link{{Target: base + MementoMapPath, Rel: []string{"mementomap"}}}))
			s.writeBody(w, r, b)
			return
		}
	}
	uriR, caps, ok := s.resolve(w, rawURIR, false)
	if !ok {
		return
	}
	tm := &memento.TimeMap{
		Original: uriR,
		TimeGate: base + TimeGatePrefix + uriR,
		Self: memento.Page{URI: base + TimeMapPrefix + uriR, Type: memento.MediaTypeLinkFormat,
			From: caps[0].Time, Until: caps[len(caps)-1].Time},
		Mementos: make([]memento.Memento, len(caps)),
	}
	for i, c := range caps {
		tm.Mementos[i] = memento.Memento{URIM: uriM(base, c), Datetime: c.Time}
	}
	var body bytes.Buffer
	body.Grow(64 + 120*len(caps))
	if err := memento.WriteLinkFormat(&body, tm); err != nil {
		writeText(w, http.StatusInternalServerError, "writing the TimeMap: "+err.Error()+"\n")
		return
	}
	if s.bodies != nil {
		s.bodies.Add(ck, body.Bytes())
	}
	h.Set("Content-Type", memento.MediaTypeLinkFormat)
	h.Set("Link", memento.FormatLinks([]memento.Link{{Target: base + MementoMapPath, Rel: []string{"mementomap"}}}))
	s.writeBody(w, r, body.Bytes())
}

// writeBody writes a 200 body, spread over Options.SlowBody when set.
func (s *Server) writeBody(w http.ResponseWriter, r *http.Request, b []byte) {
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	if s.o.SlowBody <= 0 || len(b) == 0 {
		_, _ = w.Write(b)
		return
	}
	const parts = 10
	step := (len(b) + parts - 1) / parts
	pause := s.o.SlowBody / parts
	rc := http.NewResponseController(w)
	for len(b) > 0 {
		n := min(step, len(b))
		if _, err := w.Write(b[:n]); err != nil {
			return
		}
		b = b[n:]
		_ = rc.Flush()
		if len(b) > 0 && !sleepCtx(r.Context(), pause) {
			return
		}
	}
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// closest returns the index of the capture nearest t; an exact tie goes to
// the later capture.
func closest(caps []Capture, t time.Time) int {
	// first capture strictly after t
	lo, hi := 0, len(caps)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if caps[m].Time.After(t) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	switch {
	case lo == 0:
		return 0
	case lo == len(caps):
		return len(caps) - 1
	}
	floor := lo - 1
	// the first capture of the floor's second, so that equal seconds resolve
	// to the earliest URL of that second
	for floor > 0 && caps[floor-1].Time.Equal(caps[floor].Time) {
		floor--
	}
	if t.Sub(caps[floor].Time) < caps[lo].Time.Sub(t) {
		return floor
	}
	return lo
}

func (s *Server) serveTimeGate(w http.ResponseWriter, r *http.Request, rawURIR string) {
	h := w.Header()
	h.Set("Vary", "accept-datetime")
	var at time.Time
	if v := r.Header.Get("Accept-Datetime"); v != "" {
		t, err := memento.ParseHTTPDate(v)
		if err != nil {
			s.badRequest.Add(1)
			writeText(w, http.StatusBadRequest, "bad Accept-Datetime: "+err.Error()+"\n")
			return
		}
		at = t
	}
	if !s.delay(w, r) {
		return
	}
	uriR, caps, ok := s.resolve(w, rawURIR, true)
	if !ok {
		return
	}
	i := len(caps) - 1
	if !at.IsZero() {
		i = closest(caps, at)
	}
	base := s.base(r)
	links := []memento.Link{
		{Target: uriR, Rel: []string{"original"}},
		{Target: base + TimeMapPrefix + uriR, Rel: []string{"timemap"},
			Params: []memento.Param{{Name: "type", Value: memento.MediaTypeLinkFormat}}},
	}
	add := func(j int, rels ...string) {
		links = append(links, memento.Link{Target: uriM(base, caps[j]), Rel: append(rels, "memento"),
			Params: []memento.Param{{Name: "datetime", Value: memento.FormatHTTPDate(caps[j].Time)}}})
	}
	// first, prev, the selected one, next, last; a URI-M named twice gets
	// its rels merged into one link.
	n := len(caps)
	type pos struct {
		j    int
		rels []string
	}
	var order []pos
	put := func(j int, rel string) {
		for k := range order {
			if order[k].j == j {
				if rel != "" {
					order[k].rels = append(order[k].rels, rel)
				}
				return
			}
		}
		var rels []string
		if rel != "" {
			rels = []string{rel}
		}
		order = append(order, pos{j, rels})
	}
	put(0, "first")
	if i > 0 {
		put(i-1, "prev")
	}
	put(i, "")
	if i < n-1 {
		put(i+1, "next")
	}
	put(n-1, "last")
	for _, p := range order {
		add(p.j, p.rels...)
	}
	h.Set("Link", memento.FormatLinks(links))
	loc := escapeURI(uriM(base, caps[i]))
	h.Set("Location", loc)
	body := "Found: " + loc + "\n"
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusFound)
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, body)
	}
}

func (s *Server) serveMemento(w http.ResponseWriter, r *http.Request, digits, rawURIR string) {
	t, err := timestamp.Parse(digits)
	if err != nil {
		s.badRequest.Add(1)
		writeText(w, http.StatusBadRequest, "bad memento datetime "+digits+"\n")
		return
	}
	uriR, caps, ok := s.resolve(w, rawURIR, false)
	if !ok {
		return
	}
	base := s.base(r)
	links := []memento.Link{
		{Target: uriR, Rel: []string{"original"}},
		{Target: base + TimeGatePrefix + uriR, Rel: []string{"timegate"}},
		{Target: base + TimeMapPrefix + uriR, Rel: []string{"timemap"},
			Params: []memento.Param{{Name: "type", Value: memento.MediaTypeLinkFormat}}},
	}
	var c *Capture
	for k := range caps {
		if caps[k].Time.Equal(t) {
			c = &caps[k]
			break
		}
	}
	if c == nil {
		s.notFound.Add(1)
		w.Header().Set("Link", memento.FormatLinks(links))
		writeText(w, http.StatusNotFound, "no memento of "+uriR+" at "+digits+"; the TimeGate finds the closest\n")
		return
	}
	h := w.Header()
	h.Set("Memento-Datetime", memento.FormatHTTPDate(c.Time))
	h.Set("Link", memento.FormatLinks(links))
	h.Set("Content-Type", "text/html; charset=utf-8")
	body := "<!doctype html>\n<title>Memento</title>\n<p>Placeholder for the memento of <code>" +
		html.EscapeString(c.URL) + "</code> captured " + html.EscapeString(memento.FormatHTTPDate(c.Time)) +
		" (this archive serves index entries, not archived content).</p>\n"
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		_, _ = io.WriteString(w, body)
	}
}
