// Package archivetest runs fake Memento archives on 127.0.0.1 for tests: each
// is an httptest.Server with given holdings (URI-R → capture datetimes), an
// optional added latency, and an optional fault (slow, 5xx, connection reset,
// huge body, redirect loop, wrong content type, hang). It serves what the
// aggregator asks real archives for, in the Wayback layout MemGator's archive
// list uses:
//
//	GET /timemap/link/{URI-R}            TimeMap, application/link-format (RFC 7089 §5)
//	GET /timemap/link/{URI-R} + paging   first page; later pages at /tmpage/{N}/{URI-R}
//	GET|HEAD /timegate/{URI-R}           302 (or 303, 307, 200 style) to the closest memento (RFC 7089 §4)
//	GET|HEAD /web/{14 digits}/{URI-R}    the memento itself, with Memento-Datetime
//	                                     (also /web/{14 digits}id_/{URI-R}, its "unrewritten" form)
//	GET /.well-known/mementomap          the archive's MementoMap, when one is given
//	GET /maps/archive.mementomap         the same, when advertised by a rel="mementomap" link
//
// The URI-R is taken from the raw request path (r.RequestURI), never a
// decoded one, so the tests can check that the aggregator passes it through
// byte for byte. Every request is logged and counted; tests read the log with
// Requests and Count.
//
// The package is for tests only: it writes link format by hand so that it
// does not share code with the parser under test.
package archivetest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

// Fault is a misbehaviour an Archive can show on its TimeMap and TimeGate
// endpoints (mementos and the MementoMap are always served normally).
type Fault int

// The faults. FaultNone is the zero value: a well-behaved archive.
const (
	FaultNone             Fault = iota
	FaultStatus                 // answer Config.Status (default 503) with a short text body
	FaultReset                  // accept the request, then reset the TCP connection
	FaultHugeBody               // 200 link-format body of Config.HugeBytes (default 64 MiB) of memento links
	FaultRedirectLoop           // 302 to the same URL, forever
	FaultWrongContentType       // 200 text/html with an HTML page instead of a TimeMap
	FaultHang                   // never answer; return only when the client gives up or the server closes
)

// String names the fault as the tests print it.
func (f Fault) String() string {
	switch f {
	case FaultNone:
		return "none"
	case FaultStatus:
		return "status"
	case FaultReset:
		return "reset"
	case FaultHugeBody:
		return "huge-body"
	case FaultRedirectLoop:
		return "redirect-loop"
	case FaultWrongContentType:
		return "wrong-content-type"
	case FaultHang:
		return "hang"
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Config describes one fake archive. The zero value is an empty, fast,
// well-behaved archive.
type Config struct {
	// Holdings maps a URI-R, exactly as it will appear in request paths, to
	// its capture datetimes (any order; duplicates are kept).
	Holdings map[string][]time.Time
	// Latency is added before every TimeMap and TimeGate answer; the wait
	// ends early when the client goes away.
	Latency time.Duration
	// Fault is the misbehaviour of the TimeMap and TimeGate endpoints.
	Fault Fault
	// Status is the code sent with FaultStatus; 0 means 503.
	Status int
	// HugeBytes is the body size for FaultHugeBody; 0 means 64 MiB.
	HugeBytes int64
	// PageSize splits TimeMaps into pages of at most this many mementos,
	// linked with rel="timemap" (RFC 7089 §5); 0 serves one document.
	PageSize int
	// TimeGateStatus is the redirect code of the TimeGate: 302 (default),
	// 303, 307, or 200 for the 200-style pattern with Content-Location.
	TimeGateStatus int
	// Descending writes TimeMaps newest first, as some archives do.
	Descending bool
	// MementoMap, when non-nil, is served at /.well-known/mementomap, or,
	// with MapByLink, at /maps/archive.mementomap and advertised by a
	// Link: </maps/archive.mementomap>; rel="mementomap" header on every
	// TimeMap endpoint response (HEAD on the prefix included).
	MementoMap []byte
	MapByLink  bool
}

// Request is one logged request.
type Request struct {
	Method         string
	RawPath        string // r.RequestURI as received
	Endpoint       string // "timemap", "tmpage", "timegate", "memento", "mementomap" or "other"
	AcceptDatetime string
	UserAgent      string
}

// Archive is one running fake archive. Its methods are safe for concurrent
// use.
type Archive struct {
	*httptest.Server

	mu       sync.Mutex
	cfg      Config
	requests []Request
	closing  chan struct{}
	once     sync.Once

	conns          atomic.Int64 // TCP connections accepted
	inFlight, peak atomic.Int64 // TimeMap and TimeGate requests being answered
}

// New starts a fake archive on 127.0.0.1 with cfg. The caller must Close it
// (t.Cleanup(a.Close) is the usual way).
func New(cfg Config) *Archive {
	a := &Archive{cfg: cfg, closing: make(chan struct{})}
	a.Server = httptest.NewUnstartedServer(http.HandlerFunc(a.serve))
	a.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			a.conns.Add(1)
		}
	}
	a.Server.Start()
	return a
}

// Conns is the number of TCP connections the archive has accepted since it
// started: a client that reuses its connections opens few.
func (a *Archive) Conns() int { return int(a.conns.Load()) }

// PeakInFlight is the largest number of TimeMap and TimeGate requests
// (pages included) the archive was answering at the same time since it
// started or since the last ResetLog: the concurrency a client allowed
// itself.
func (a *Archive) PeakInFlight() int { return int(a.peak.Load()) }

// Close unblocks hanging handlers, then shuts the server down.
func (a *Archive) Close() {
	a.once.Do(func() { close(a.closing) })
	a.Server.CloseClientConnections()
	a.Server.Close()
}

// SetFault changes the fault of a running archive.
func (a *Archive) SetFault(f Fault) {
	a.mu.Lock()
	a.cfg.Fault = f
	a.mu.Unlock()
}

// SetLatency changes the added latency of a running archive.
func (a *Archive) SetLatency(d time.Duration) {
	a.mu.Lock()
	a.cfg.Latency = d
	a.mu.Unlock()
}

// SetMementoMap changes the map served at /.well-known/mementomap (nil
// stops serving one).
func (a *Archive) SetMementoMap(m []byte) {
	a.mu.Lock()
	a.cfg.MementoMap = m
	a.mu.Unlock()
}

// TimeMapPrefix is the prefix to which a URI-R is appended to ask for its
// TimeMap, as in MemGator's archive list.
func (a *Archive) TimeMapPrefix() string { return a.URL + "/timemap/link/" }

// TimeGatePrefix is the prefix to which a URI-R is appended to reach the
// archive's TimeGate.
func (a *Archive) TimeGatePrefix() string { return a.URL + "/timegate/" }

// URIM is the URI-M this archive gives the capture of urir at t.
func (a *Archive) URIM(urir string, t time.Time) string {
	return a.URL + "/web/" + timestamp.Format(t) + "/" + urir
}

// Requests returns a copy of the request log, in arrival order.
func (a *Archive) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// Count is the number of logged requests to endpoint ("timemap",
// "timegate", ...); "" counts all of them.
func (a *Archive) Count(endpoint string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, r := range a.requests {
		if endpoint == "" || r.Endpoint == endpoint {
			n++
		}
	}
	return n
}

// ResetLog empties the request log and resets PeakInFlight.
func (a *Archive) ResetLog() {
	a.mu.Lock()
	a.requests = nil
	a.mu.Unlock()
	a.peak.Store(a.inFlight.Load())
}

func (a *Archive) serve(w http.ResponseWriter, r *http.Request) {
	raw := r.RequestURI
	endpoint, rest := "other", ""
	switch {
	case strings.HasPrefix(raw, "/timemap/link/"):
		endpoint, rest = "timemap", strings.TrimPrefix(raw, "/timemap/link/")
	case strings.HasPrefix(raw, "/tmpage/"):
		endpoint, rest = "tmpage", strings.TrimPrefix(raw, "/tmpage/")
	case strings.HasPrefix(raw, "/timegate/"):
		endpoint, rest = "timegate", strings.TrimPrefix(raw, "/timegate/")
	case strings.HasPrefix(raw, "/web/"):
		endpoint, rest = "memento", strings.TrimPrefix(raw, "/web/")
	case raw == "/.well-known/mementomap", raw == "/maps/archive.mementomap":
		endpoint = "mementomap"
	}
	a.mu.Lock()
	a.requests = append(a.requests, Request{Method: r.Method, RawPath: raw, Endpoint: endpoint, AcceptDatetime: r.Header.Get("Accept-Datetime"), UserAgent: r.UserAgent()})
	cfg := a.cfg
	a.mu.Unlock()

	switch endpoint {
	case "memento":
		a.serveMemento(w, r, cfg, rest)
		return
	case "mementomap":
		if cfg.MementoMap == nil || cfg.MapByLink != (raw == "/maps/archive.mementomap") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write(cfg.MementoMap)
		return
	case "other":
		http.NotFound(w, r)
		return
	}

	n := a.inFlight.Add(1)
	defer a.inFlight.Add(-1)
	for p := a.peak.Load(); n > p && !a.peak.CompareAndSwap(p, n); p = a.peak.Load() {
	}
	if endpoint == "timemap" && cfg.MementoMap != nil && cfg.MapByLink {
		w.Header().Set("Link", `</maps/archive.mementomap>; rel="mementomap"`)
	}
	if cfg.Latency > 0 {
		t := time.NewTimer(cfg.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-a.closing:
			t.Stop()
			return
		}
	}
	if a.fault(w, r, cfg) {
		return
	}
	switch endpoint {
	case "timemap":
		a.serveTimeMap(w, cfg, rest, 1)
	case "tmpage":
		n, urir, ok := strings.Cut(rest, "/")
		page, err := strconv.Atoi(n)
		if !ok || err != nil || page < 1 {
			http.NotFound(w, r)
			return
		}
		a.serveTimeMap(w, cfg, urir, page)
	case "timegate":
		a.serveTimeGate(w, r, cfg, rest)
	}
}

// fault carries out cfg.Fault and reports whether it answered.
func (a *Archive) fault(w http.ResponseWriter, r *http.Request, cfg Config) bool {
	switch cfg.Fault {
	case FaultStatus:
		code := cfg.Status
		if code == 0 {
			code = http.StatusServiceUnavailable
		}
		http.Error(w, "archivetest: fault status", code)
	case FaultReset:
		hj, ok := w.(http.Hijacker)
		if !ok {
			http.Error(w, "archivetest: cannot hijack", http.StatusInternalServerError)
			return true
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			return true
		}
		if tc, ok := conn.(*net.TCPConn); ok {
			_ = tc.SetLinger(0) // RST instead of FIN
		}
		_ = conn.Close()
	case FaultHugeBody:
		size := cfg.HugeBytes
		if size <= 0 {
			size = 64 << 20
		}
		w.Header().Set("Content-Type", "application/link-format")
		line := []byte(`<` + a.URL + `/web/20010101000000/http://huge.example/>; rel="memento"; datetime="Mon, 01 Jan 2001 00:00:00 GMT",` + "\n")
		for written := int64(0); written < size; written += int64(len(line)) {
			if _, err := w.Write(line); err != nil {
				return true
			}
		}
	case FaultRedirectLoop:
		w.Header().Set("Location", a.URL+r.RequestURI)
		w.WriteHeader(http.StatusFound)
	case FaultWrongContentType:
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = fmt.Fprint(w, "<!doctype html><html><head><title>Welcome</title></head><body><p>Our new search page.</p></body></html>\n")
	case FaultHang:
		select {
		case <-r.Context().Done():
		case <-a.closing:
		}
	default:
		return false
	}
	return true
}

func (a *Archive) sorted(cfg Config, urir string) []time.Time {
	ts := append([]time.Time(nil), cfg.Holdings[urir]...)
	sort.Slice(ts, func(i, j int) bool { return ts[i].Before(ts[j]) })
	return ts
}

func (a *Archive) serveTimeMap(w http.ResponseWriter, cfg Config, urir string, page int) {
	ts := a.sorted(cfg, urir)
	if len(ts) == 0 {
		http.Error(w, "archivetest: not in archive", http.StatusNotFound)
		return
	}
	pages := 1
	if cfg.PageSize > 0 {
		pages = (len(ts) + cfg.PageSize - 1) / cfg.PageSize
		if page > pages {
			http.Error(w, "archivetest: no such page", http.StatusNotFound)
			return
		}
		ts = ts[(page-1)*cfg.PageSize : min(page*cfg.PageSize, len(ts))]
	}
	if cfg.Descending {
		for i, j := 0, len(ts)-1; i < j; i, j = i+1, j-1 {
			ts[i], ts[j] = ts[j], ts[i]
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", urir)
	fmt.Fprintf(&b, "<%s>; rel=\"timegate\",\n", a.TimeGatePrefix()+urir)
	if pages > 1 {
		fmt.Fprintf(&b, "<%s>; rel=\"self\"; type=\"application/link-format\",\n", a.pageURL(urir, page))
		for p := 1; p <= pages; p++ {
			if p != page {
				fmt.Fprintf(&b, "<%s>; rel=\"timemap\"; type=\"application/link-format\",\n", a.pageURL(urir, p))
			}
		}
	} else {
		fmt.Fprintf(&b, "<%s>; rel=\"self\"; type=\"application/link-format\",\n", a.TimeMapPrefix()+urir)
	}
	for i, t := range ts {
		sep := ",\n"
		if i == len(ts)-1 {
			sep = "\n"
		}
		fmt.Fprintf(&b, "<%s>; rel=\"memento\"; datetime=\"%s\"%s", a.URIM(urir, t), t.UTC().Format(http.TimeFormat), sep)
	}
	w.Header().Set("Content-Type", "application/link-format")
	_, _ = w.Write([]byte(b.String()))
}

func (a *Archive) pageURL(urir string, page int) string {
	if page == 1 {
		return a.TimeMapPrefix() + urir
	}
	return a.URL + "/tmpage/" + strconv.Itoa(page) + "/" + urir
}

// closest picks the capture nearest t; a tie goes to the later one.
func closest(ts []time.Time, t time.Time) int {
	best := 0
	for i := range ts {
		d, bd := ts[i].Sub(t).Abs(), ts[best].Sub(t).Abs()
		if d < bd || (d == bd && ts[i].After(ts[best])) {
			best = i
		}
	}
	return best
}

func (a *Archive) serveTimeGate(w http.ResponseWriter, r *http.Request, cfg Config, urir string) {
	ts := a.sorted(cfg, urir)
	w.Header().Set("Vary", "accept-datetime")
	if len(ts) == 0 {
		w.Header().Set("Link", "<"+urir+`>; rel="original"`)
		http.Error(w, "archivetest: not in archive", http.StatusNotFound)
		return
	}
	want := time.Now().UTC()
	if ad := r.Header.Get("Accept-Datetime"); ad != "" {
		t, err := time.Parse(http.TimeFormat, ad)
		if err != nil {
			http.Error(w, "archivetest: bad Accept-Datetime", http.StatusBadRequest)
			return
		}
		want = t
	}
	i := closest(ts, want)
	urim := a.URIM(urir, ts[i])
	// Like Wayback TimeGates: the chosen memento with its first, prev,
	// next and last neighbours, rels merged when they coincide.
	rels := map[int][]string{}
	add := func(j int, rel string) {
		if j >= 0 && j < len(ts) {
			rels[j] = append(rels[j], rel)
		}
	}
	add(0, "first")
	add(len(ts)-1, "last")
	add(i-1, "prev")
	add(i+1, "next")
	add(i, "")
	idx := make([]int, 0, len(rels))
	for j := range rels {
		idx = append(idx, j)
	}
	sort.Ints(idx)
	links := []string{
		"<" + urir + `>; rel="original"`,
		"<" + a.TimeGatePrefix() + urir + `>; rel="timegate"`,
		"<" + a.TimeMapPrefix() + urir + `>; rel="timemap"; type="application/link-format"`,
	}
	for _, j := range idx {
		rel := strings.TrimSpace(strings.Join(rels[j], " ") + " memento")
		rel = strings.Join(strings.Fields(rel), " ")
		links = append(links, "<"+a.URIM(urir, ts[j])+`>; rel="`+rel+`"; datetime="`+ts[j].UTC().Format(http.TimeFormat)+`"`)
	}
	w.Header().Set("Link", strings.Join(links, ", "))
	code := cfg.TimeGateStatus
	if code == 0 {
		code = http.StatusFound
	}
	if code == http.StatusOK {
		w.Header().Set("Content-Location", urim)
		w.Header().Set("Memento-Datetime", ts[i].UTC().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusOK)
		_, _ = fmt.Fprintf(w, "<html><body>memento of %s</body></html>\n", urir)
		return
	}
	w.Header().Set("Location", urim)
	w.WriteHeader(code)
}

func (a *Archive) serveMemento(w http.ResponseWriter, r *http.Request, cfg Config, rest string) {
	stamp, urir, ok := strings.Cut(rest, "/")
	stamp, raw := strings.CutSuffix(stamp, "id_") // the unrewritten memento (Wayback's "id_" mode)
	t, err := timestamp.Parse(stamp)
	if !ok || err != nil {
		http.NotFound(w, r)
		return
	}
	found := false
	for _, c := range cfg.Holdings[urir] {
		if c.Equal(t) {
			found = true
			break
		}
	}
	if !found {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Memento-Datetime", t.UTC().Format(http.TimeFormat))
	w.Header().Set("Link", "<"+urir+`>; rel="original", <`+a.TimeGatePrefix()+urir+`>; rel="timegate"`)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if raw {
		_, _ = fmt.Fprintf(w, "<html><body>memento of %s at %s (mode \"id_\")</body></html>\n", urir, stamp)
		return
	}
	_, _ = fmt.Fprintf(w, "<html><body>memento of %s at %s</body></html>\n", urir, stamp)
}
