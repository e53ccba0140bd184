package cdxj

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mementokit/mementokit/timestamp"
	"golang.org/x/time/rate"
)

// Flavor is the dialect of a CDX server: which parameters page through a
// large answer and what output=json looks like.
type Flavor uint8

// The CDX servers a Server talks to.
const (
	// FlavorAuto lets OpenServer find out (see there).
	FlavorAuto Flavor = iota
	// FlavorPywb is pywb's CDX server API (docs/manual/cdxserver_api.rst),
	// which the Common Crawl index server (index.commoncrawl.org) and
	// examples/archive speak: output=json is one JSON object per line;
	// showNumPages=true counts the pages of a ZipNum index and page= reads
	// one.
	FlavorPywb
	// FlavorWayback is the Internet Archive's wayback CDX server
	// (web.archive.org/cdx/search/cdx; internetarchive/wayback,
	// wayback-cdx-server/README.md): output=json is an array of rows after
	// a row of field names; showResumeKey=true ends a batch cut by limit=
	// with the key that resumeKey= continues from.
	FlavorWayback
	// FlavorOutback is OutbackCDX (nla/outbackcdx, README.md,
	// "Querying"): the index at /{collection}?url=..., answering in CDX11
	// text in one streamed answer, without pages.
	FlavorOutback
)

var flavorNames = [...]string{"auto", "pywb", "wayback", "outbackcdx"}

// String returns the name ParseFlavor reads: "auto", "pywb", "wayback" or
// "outbackcdx".
func (f Flavor) String() string {
	if int(f) < len(flavorNames) {
		return flavorNames[f]
	}
	return fmt.Sprintf("Flavor(%d)", f)
}

// ParseFlavor reads a flavour name: auto (or ""), pywb (also cc,
// commoncrawl), wayback (also ia) or outbackcdx (also outback), in any
// case. Any other name is an error quoting it and listing those four.
func ParseFlavor(s string) (Flavor, error) {
	switch strings.ToLower(s) {
	case "", "auto":
		return FlavorAuto, nil
	case "pywb", "cc", "commoncrawl":
		return FlavorPywb, nil
	case "wayback", "ia":
		return FlavorWayback, nil
	case "outbackcdx", "outback":
		return FlavorOutback, nil
	}
	return 0, fmt.Errorf("cdxj: unknown CDX server flavour %q (want auto, pywb, wayback or outbackcdx)", s)
}

// ServerOptions sets up OpenServer. nil means the defaults; a zero field
// means its default.
type ServerOptions struct {
	// Flavor is the server's dialect; FlavorAuto (the default) finds it
	// out (see OpenServer).
	Flavor Flavor
	// Scope is what the whole source is: the request that
	// Records(Query{}) (an empty key, "everything", as for every Searcher)
	// sends, such as &Request{URL: "example.com", Match: MatchDomain}; its
	// filters, collapsing and from/to also apply to every other query.
	// nil means the CDX parameters in the server URL's query, if any
	// ("https://index.commoncrawl.org/CC-MAIN-2025-33-index?url=*.example.com").
	Scope *Request
	// ScopeHint says how the caller's user gives a Scope, in the error
	// (wrapping ErrNoScope) of a whole read without one; "" means
	// "ServerOptions.Scope". A command line names its flags here
	// ("-url-prefix URL or -domain HOST").
	ScopeHint string

	// HTTPClient sends the requests; nil means a client of its own.
	HTTPClient *http.Client
	// UserAgent is sent with every request; "" means DefaultUserAgent.
	UserAgent string
	// Header holds extra request headers (a Cookie with an API key, as
	// the Internet Archive's CDX server reads one).
	Header http.Header
	// Timeout bounds each wait on the server within one attempt: for the
	// answer's headers, and for every read of its body (a server that
	// sends nothing for this long fails the attempt, which is then
	// retried). Default DefaultTimeout, 30 s. The time spent in the
	// caller's loop body does not count.
	Timeout time.Duration
	// Deadline bounds how long one request (a page, a batch, a probe)
	// waits for an answer over all its attempts: from the first until an
	// answer's headers come, the waits for the rate limit and between
	// attempts included. A request with no answer by then fails with a
	// *ServerError saying so, with the last attempt's cause. An answer
	// (a 429 or 503 too, or one that breaks off) starts a new Deadline for
	// the retry after the wait it asks for (Attempts and MaxRetryAfter
	// bound those). A small answer (a page count, the flavour probe, an
	// error status's message: at most 64 KiB) must also be read whole
	// within the Deadline; once a page of captures streams, Timeout
	// bounds each read.
	// Default DefaultDeadline, 2 minutes: a server that accepts the
	// connection and never answers fails the request after 2 minutes (4
	// attempts of 30 s), not 5 of 60 s.
	Deadline time.Duration
	// Attempts is how many times one request is tried before its error is
	// returned: after a transport error, a timeout, an answer cut short,
	// or status 429, 500, 502, 503 or 504. Default 5; 1 never retries.
	Attempts int
	// MinBackoff and MaxBackoff bound the wait before a retry: MinBackoff
	// doubled at each attempt, at most MaxBackoff, with random jitter
	// down to half. A Retry-After header (seconds or an HTTP date) on a
	// 429 or 503 answer is honoured when longer. Defaults 1 s and 60 s.
	MinBackoff, MaxBackoff time.Duration
	// MaxRetryAfter is the longest Retry-After honoured; a server asking
	// to wait longer fails the request at once. Default 10 minutes.
	MaxRetryAfter time.Duration
	// Rate is the most requests per second sent, retries included (a
	// polite client; the Internet Archive and Common Crawl ask for about
	// one a second). Default 1; a negative value means no limit.
	Rate float64

	// PageSize is the pageSize= of a paged pywb answer, in ZipNum blocks;
	// 0 leaves it to the server.
	PageSize int
	// BatchSize is the limit= of each request to the Internet Archive's
	// CDX server, which resumes the next batch from the resume key of the
	// last. Default 10,000.
	BatchSize int
	// WaybackText asks the Internet Archive's CDX server for its default
	// space-separated output (the lines as they are, the resume key after
	// a blank line) instead of output=json, whose first row names the
	// fields: smaller answers, whose layout is taken from fl= when given,
	// else from the number of fields (7: urlkey timestamp original
	// mimetype statuscode digest length).
	WaybackText bool
	// MaxResponseSize bounds the bytes of one answer (after
	// decompression); a longer one is an error. Default 1 GiB.
	MaxResponseSize int64
	// MaxLineSize is the longest line (or JSON row) accepted, as
	// Reader.MaxLineSize; 0 means DefaultMaxLineSize.
	MaxLineSize int

	// Logger receives a Debug record per request and a Warn record per
	// retry; nil logs nothing.
	Logger *slog.Logger
}

// ErrNoScope is wrapped by the error of a read of a whole CDX server
// (Records(Query{}), a key-less prefix or exact query) that has no Scope
// and no url= in its URL: a CDX server answers for a part of its archive
// only.
var ErrNoScope = errors.New("cannot be read whole")

// DefaultTimeout and DefaultDeadline are ServerOptions.Timeout and
// ServerOptions.Deadline when those are 0.
const (
	DefaultTimeout  = 30 * time.Second
	DefaultDeadline = 2 * time.Minute
)

// DefaultUserAgent is the User-Agent of a Server without
// ServerOptions.UserAgent.
const DefaultUserAgent = "mementokit-cdxj/1 (+https://github.com/mementokit/mementokit)"

// ServerStats counts what a Server did since OpenServer.
type ServerStats struct {
	Requests int64 // HTTP requests sent, retries included
	Retries  int64 // requests sent again after a failure
	Lines    int64 // index lines yielded
	Bytes    int64 // bytes of answers read (after decompression)
}

// ServerError is the error of a request to a CDX server: the request URL
// (and the page of a paged answer), the HTTP status and the server's
// message when an answer came, how many attempts were made, and the
// cause. Its message reads
//
//	cdxj: CDX server https://index.example.org/coll/cdx?output=json&page=3&url=...: page 3: HTTP 503: overloaded (5 attempts)
type ServerError struct {
	URL      string // the request URL, query included
	Page     int    // 0-based page of a paged answer, -1 otherwise
	Status   int    // HTTP status; 0 when no answer came
	Message  string // the server's message ({"message": ...} or the body's start)
	Attempts int    // attempts made
	Err      error  // the cause; nil for an HTTP status alone
}

// Error returns the message described at ServerError.
func (e *ServerError) Error() string {
	var b strings.Builder
	b.WriteString("cdxj: CDX server ")
	b.WriteString(e.URL)
	if e.Page >= 0 {
		fmt.Fprintf(&b, ": page %d", e.Page)
	}
	if e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (%d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *ServerError) Unwrap() error { return e.Err }

// Server is a CDX server read as an index: a Searcher whose queries are
// requests to the server, paged and retried, whose lines are the lines an
// index file of the same captures holds, and whose Records are those a
// Reader gives for such a file: pywb's output=json objects become CDXJ
// lines "urlkey timestamp {the other members}" (the members as written,
// in their order, separated by ", " as Common Crawl's cdx-*.gz lines
// are); the Internet Archive's and OutbackCDX's JSON rows become classic
// CDX lines under the layout their first row names (values joined by
// spaces, "-" for an empty one, a space inside a value other than the
// MIME type written %20); text answers are taken as they are. It implements Index (Searcher and
// io.Closer).
//
// A query (Lines, Records) names keys by SURT; the server is asked by URL,
// so the key is turned back into one ("com,example)/a" into
// "example.com/a"), and a key that does not turn back into itself
// under surt.Canonicalize is an error. The whole-index query (an empty
// key, Query{}) asks for the Scope. The server's own canonicalization
// decides what matches: the lines are not filtered again.
//
// Paging: a pywb server with a ZipNum index is asked for its page count
// (showNumPages=true), then page by page; the Internet Archive's server
// batch by batch with showResumeKey/resumeKey; OutbackCDX, and pywb over
// an index without pages, in one answer. Each request waits for the rate
// limit and is retried as ServerOptions says; an answer that breaks off
// is asked for again and its lines already yielded are skipped. A Server
// is safe for concurrent use; each iteration holds one answer's buffer.
type Server struct {
	endpoint  string     // scheme, host and path
	fixed     url.Values // other parameters of the server URL, sent with every request
	scope     *Request
	scopeHint string
	flavor    Flavor
	noPages   atomic.Bool // a pywb server without pages (showNumPages refused)
	o         ServerOptions
	client    *http.Client
	own       bool // client made here
	lim       *rate.Limiter
	ctx       context.Context
	cancel    context.CancelFunc

	requests, retries, lines, bytes atomic.Int64

	bufPool sync.Pool
}

var _ Index = (*Server)(nil)

// requestParams are the query parameters of the CDX server API that a
// Server sets itself or reads into a Request.
var requestParams = map[string]bool{
	"url": true, "matchType": true, "from": true, "to": true, "limit": true, "sort": true,
	"reverse": true, "closest": true, "filter": true, "collapse": true, "fl": true, "fields": true,
	"output": true, "page": true, "pageSize": true, "showNumPages": true, "showPagedIndex": true,
	"showResumeKey": true, "resumeKey": true,
}

// OpenServer returns a Server reading the CDX server at rawURL, an http or
// https URL of its CDX endpoint: "https://index.commoncrawl.org/CC-MAIN-2025-33-index",
// "https://web.archive.org/cdx/search/cdx", "http://localhost:8080/myindex"
// (OutbackCDX), "http://127.0.0.1:8081/cdx" (examples/archive). CDX
// parameters in its query set the Scope (see ServerOptions); any other
// parameter is sent with every request.
//
// ctx bounds the Server's life: its requests end when ctx does, or at
// Close. With FlavorAuto, the host name decides for web.archive.org
// (wayback) and index.commoncrawl.org (pywb); otherwise one request with
// showNumPages=true is sent and its answer decides: OutbackCDX names
// itself in an "outbackcdx-urlkey" header, the Internet Archive's server
// answers a bare number, pywb a JSON object (or, without pages, a 400 with
// a JSON message). An answer that fits none is an error; set
// ServerOptions.Flavor then.
//
// Errors: a URL that is not http(s), Scope parameters that do not parse
// (wrapping ErrQuery), or the *ServerError of the probe.
func OpenServer(ctx context.Context, rawURL string, opt *ServerOptions) (*Server, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("cdxj: CDX server URL %q: %w", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("cdxj: CDX server URL %q: want an http or https URL with a host", rawURL)
	}
	var o ServerOptions
	if opt != nil {
		o = *opt
	}
	if o.UserAgent == "" {
		o.UserAgent = DefaultUserAgent
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Deadline <= 0 {
		o.Deadline = DefaultDeadline
	}
	if o.Attempts <= 0 {
		o.Attempts = 5
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = o.MinBackoff
	}
	if o.MaxRetryAfter <= 0 {
		o.MaxRetryAfter = 10 * time.Minute
	}
	if o.Rate == 0 {
		o.Rate = 1
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 10_000
	}
	if o.MaxResponseSize <= 0 {
		o.MaxResponseSize = 1 << 30
	}
	if o.MaxLineSize <= 0 {
		o.MaxLineSize = DefaultMaxLineSize
	}
	q := u.Query()
	s := &Server{fixed: url.Values{}, o: o}
	for k, v := range q {
		if !requestParams[k] {
			s.fixed[k] = v
		}
	}
	u.RawQuery, u.Fragment = "", ""
	s.endpoint = u.String()
	s.scopeHint = o.ScopeHint
	if s.scopeHint == "" {
		s.scopeHint = "ServerOptions.Scope"
	}
	if o.Scope != nil {
		sc := *o.Scope
		if _, err := sc.Query(); err != nil {
			return nil, fmt.Errorf("cdxj: CDX server %s: scope: %w", s.endpoint, err)
		}
		s.scope = &sc
	} else if q.Get("url") != "" {
		sc, err := ParseRequest(q)
		if err != nil {
			return nil, fmt.Errorf("cdxj: CDX server URL %s: %w", rawURL, err)
		}
		s.scope = sc
	}
	if o.HTTPClient != nil {
		s.client = o.HTTPClient
	} else {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.ResponseHeaderTimeout = o.Timeout
		s.client, s.own = &http.Client{Transport: tr}, true
	}
	if o.Rate > 0 {
		s.lim = rate.NewLimiter(rate.Limit(o.Rate), 1)
	} else {
		s.lim = rate.NewLimiter(rate.Inf, 0)
	}
	s.ctx, s.cancel = context.WithCancel(ctx)
	s.flavor = o.Flavor
	if s.flavor == FlavorAuto {
		if err := s.detect(s.ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// Close ends the Server's requests in flight and releases its idle
// connections. It returns nil.
func (s *Server) Close() error {
	s.cancel()
	if s.own {
		s.client.CloseIdleConnections()
	}
	return nil
}

// Flavor returns the server's dialect, as set or found out by OpenServer.
func (s *Server) Flavor() Flavor { return s.flavor }

// Endpoint returns the server URL without its query.
func (s *Server) Endpoint() string { return s.endpoint }

// Scope returns a copy of the Scope, or nil when there is none.
func (s *Server) Scope() *Request {
	if s.scope == nil {
		return nil
	}
	c := *s.scope
	return &c
}

// Stats returns the Server's counters.
func (s *Server) Stats() ServerStats {
	return ServerStats{Requests: s.requests.Load(), Retries: s.retries.Load(), Lines: s.lines.Load(), Bytes: s.bytes.Load()}
}

// detect finds the flavour: by host name, else by one probe.
func (s *Server) detect(ctx context.Context) error {
	u, _ := url.Parse(s.endpoint)
	host := strings.ToLower(u.Hostname())
	switch {
	case host == "web.archive.org" || strings.HasSuffix(u.Path, "/cdx/search/cdx"):
		s.flavor = FlavorWayback
		return nil
	case host == "index.commoncrawl.org":
		s.flavor = FlavorPywb
		return nil
	}
	v := s.params()
	probe := "example.com"
	if s.scope != nil {
		probe = s.scope.URL
		if s.scope.Match != MatchExact {
			v.Set("matchType", s.scope.Match.String())
		}
	}
	v.Set("url", probe)
	v.Set("showNumPages", "true")
	v.Set("output", "json")
	found := FlavorAuto
	err := s.request(ctx, v, -1, true, func(resp *http.Response, body io.Reader) error {
		if resp.Header.Get("outbackcdx-urlkey") != "" {
			found = FlavorOutback
			return nil
		}
		b, err := io.ReadAll(io.LimitReader(body, 64<<10))
		if err != nil {
			return err
		}
		if _, ok := parsePageCount(b); ok {
			found = FlavorWayback // a bare number
			if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) {
				found = FlavorPywb
			}
			return nil
		}
		if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "x-cdxj") || strings.Contains(ct, "ndjson") {
			found = FlavorPywb
			s.noPages.Store(true)
			return nil
		}
		return &ServerError{URL: resp.Request.URL.String(), Page: -1, Status: resp.StatusCode, Message: serverMessage(b),
			Err: errors.New("cannot tell which CDX server this is from its answer to showNumPages=true; set ServerOptions.Flavor")}
	})
	var se *ServerError
	if errors.As(err, &se) && se.Status == http.StatusBadRequest && se.Err == nil && se.Message != "" {
		// pywb over an index without pages refuses showNumPages with a
		// message.
		s.flavor = FlavorPywb
		s.noPages.Store(true)
		return nil
	}
	if err != nil {
		return err
	}
	if found == FlavorAuto {
		found = FlavorPywb // the Common Crawl server's 404 "No Captures found"
	}
	s.flavor = found
	return nil
}

// params returns a copy of the fixed parameters.
func (s *Server) params() url.Values {
	v := url.Values{}
	for k, vs := range s.fixed {
		v[k] = append([]string(nil), vs...)
	}
	return v
}

// Lines returns the lines of the server's answer to q; see Server and
// Searcher. It runs under the context given to OpenServer.
func (s *Server) Lines(q Query) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		r, err := s.requestFor(q)
		if err != nil {
			yield(nil, err)
			return
		}
		for line, err := range s.Fetch(s.ctx, r) {
			if !yield(line, err) || err != nil {
				return
			}
		}
	}
}

// Records returns the server's answer to q parsed as Records; see Server
// and Searcher. A line that does not parse yields its *ParseError wrapped
// in an error naming the request and the line's number in the answer, and
// the iteration goes on if the loop continues.
func (s *Server) Records(q Query) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		r, err := s.requestFor(q)
		if err != nil {
			yield(nil, err)
			return
		}
		for rec, err := range s.FetchRecords(s.ctx, r) {
			if !yield(rec, err) {
				return
			}
		}
	}
}

// requestFor turns a Query into a Request; see Server.
func (s *Server) requestFor(q Query) (*Request, error) {
	if q.Key == "" && (q.Match == MatchPrefix || q.Match == MatchExact) {
		if s.scope == nil {
			return nil, fmt.Errorf("cdxj: CDX server %s %w: give the part to read (url= and matchType= in the server URL, or %s)", s.endpoint, ErrNoScope, s.scopeHint)
		}
		r := *s.scope
		if q.Limit > 0 && (r.Limit == 0 || q.Limit < r.Limit) {
			r.Limit = q.Limit
		}
		return &r, nil
	}
	u, err := urlForKey(q.Key, q.Match)
	if err != nil {
		return nil, fmt.Errorf("cdxj: CDX server %s: %w", s.endpoint, err)
	}
	r := &Request{URL: u, Match: q.Match, From: q.From, To: q.To, Limit: q.Limit}
	if sc := s.scope; sc != nil {
		r.Filters, r.Collapse = sc.Filters, sc.Collapse
		if r.From == "" && r.To == "" {
			r.From, r.To = sc.From, sc.To
		}
	}
	return r, nil
}

// urlForKey returns a URL, without scheme as people write them in url=
// ("example.com/a"), whose SURT is key (for MatchHost and
// MatchDomain, whose host is key's), for the url= of a request. A key
// that has no such URL is an error wrapping ErrQuery.
func urlForKey(key string, m MatchType) (string, error) {
	key = strings.TrimSuffix(key, "*")
	host, path, hasPath := strings.Cut(key, ")")
	if host == "" || strings.ContainsAny(host, "/ ") || (!hasPath && m != MatchDomain && m != MatchHost) {
		return "", fmt.Errorf("%w: key %q is not a SURT with a host, so a CDX server cannot be asked for it", ErrQuery, key)
	}
	labels := strings.Split(host, ",")
	port := ""
	if last := labels[len(labels)-1]; strings.Contains(last, ":") && !strings.Contains(host, "::") {
		i := strings.IndexByte(last, ':')
		labels[len(labels)-1], port = last[:i], last[i:]
	}
	var h string
	if strings.Contains(host, ":") && port == "" {
		h = "[" + host + "]" // an IPv6 address, kept as it is
	} else {
		for i := len(labels) - 1; i >= 0; i-- {
			if labels[i] == "" {
				continue // a trailing comma
			}
			if h != "" {
				h += "."
			}
			h += labels[i]
		}
		h += port
	}
	u := h
	if m != MatchHost && m != MatchDomain && path != "/" {
		u += path // "example.com" for the root, as people write it
	}
	r := Request{URL: u, Match: m}
	q, err := r.Query()
	if err != nil {
		return "", err
	}
	want := key
	if m == MatchHost || m == MatchDomain {
		qh, _, _ := strings.Cut(q.Key, ")")
		if qh != host {
			return "", fmt.Errorf("%w: the host of key %q has no URL form whose SURT is %q (it gives %q)", ErrQuery, key, host, qh)
		}
		return u, nil
	}
	if q.Key != want {
		return "", fmt.Errorf("%w: key %q has no URL form whose SURT is that key (%s gives %q)", ErrQuery, key, u, q.Key)
	}
	return u, nil
}

// Fetch sends r to the server and yields the lines of its answer (see
// Server), page after page or batch after batch as the flavour pages.
// r.Output, ShowNumPages and ShowPagedIndex are set by Fetch itself;
// the rest of r is sent as it is (r.Limit and a user's page= included).
// Errors are *ServerError values naming the request (or wrap ErrQuery for
// an r that does not parse); an error ends the iteration. ctx ends it
// too, as does Close.
func (s *Server) Fetch(ctx context.Context, r *Request) iter.Seq2[[]byte, error] {
	return func(yield func([]byte, error) bool) {
		_ = s.fetch(ctx, r, func(line []byte, _ *Layout, _ func() string) bool { return yield(line, nil) },
			func(err error) { yield(nil, err) })
	}
}

// FetchRecords is Fetch with each line parsed as a Record (see Records).
func (s *Server) FetchRecords(ctx context.Context, r *Request) iter.Seq2[*Record, error] {
	return func(yield func(*Record, error) bool) {
		_ = s.fetch(ctx, r, func(line []byte, l *Layout, where func() string) bool {
			rec, err := ParseLine(line, l)
			if err != nil {
				return yield(nil, fmt.Errorf("%s: %w", where(), err))
			}
			return yield(rec, nil)
		}, func(err error) { yield(nil, err) })
	}
}

// emitFunc receives one line with the layout of its answer and a function
// naming its place; false stops the fetch.
type emitFunc func(line []byte, l *Layout, where func() string) bool

// errStop is returned through the request machinery when the consumer
// stopped the iteration.
var errStop = errors.New("stopped")

// fetch runs r under the flavour's paging and reports an error through
// fail (not for errStop).
func (s *Server) fetch(ctx context.Context, r *Request, emit emitFunc, fail func(error)) error {
	if merged, stop := mergeCtx(ctx, s.ctx); merged != nil {
		defer stop()
		ctx = merged
	}
	if _, err := r.Query(); err != nil {
		fail(err)
		return err
	}
	var err error
	switch s.flavor {
	case FlavorWayback:
		err = s.fetchWayback(ctx, r, emit)
	case FlavorOutback:
		err = s.fetchOutback(ctx, r, emit)
	default:
		err = s.fetchPywb(ctx, r, emit)
	}
	if err != nil && !errors.Is(err, errStop) {
		fail(err)
	}
	return err
}

// mergeCtx returns a context that ends when either ends (nil when they
// are the same).
func mergeCtx(a, b context.Context) (context.Context, func()) {
	if a == b {
		return nil, nil
	}
	c, cancel := context.WithCancel(a)
	stop := context.AfterFunc(b, cancel)
	return c, func() { stop(); cancel() }
}

// noLimit is the limit= sent to a pywb server when every line is wanted:
// pywb cuts an answer without limit at 100,000 lines.
const noLimit = 1<<31 - 1

// fetchPywb: count the pages, then read them; without pages, one answer.
func (s *Server) fetchPywb(ctx context.Context, r *Request, emit emitFunc) error {
	base := s.params()
	for k, vs := range s.values(r) {
		base[k] = vs
	}
	base.Set("output", "json")
	base.Del("showNumPages")
	base.Del("showPagedIndex")
	if r.Limit == 0 {
		base.Set("limit", strconv.Itoa(noLimit))
	}
	if s.o.PageSize > 0 && r.PageSize == 0 {
		base.Set("pageSize", strconv.Itoa(s.o.PageSize))
	}
	if r.Paged || s.noPages.Load() {
		page := -1
		if r.Paged {
			page = r.Page
		}
		_, err := s.readAnswer(ctx, base, page, answerObjects, emit, nil)
		return err
	}
	pc, paged, err := s.pageCount(ctx, base)
	if err != nil {
		return err
	}
	if !paged {
		_, err := s.readAnswer(ctx, base, -1, answerObjects, emit, nil)
		return err
	}
	remaining := r.Limit
	for p := 0; p < pc.Pages; p++ {
		v := cloneValues(base)
		v.Set("page", strconv.Itoa(p))
		if remaining > 0 {
			v.Set("limit", strconv.Itoa(remaining))
		}
		n, err := s.readAnswer(ctx, v, p, answerObjects, emit, nil)
		if err != nil {
			return err
		}
		if remaining > 0 {
			if remaining -= n; remaining <= 0 {
				return nil
			}
		}
	}
	return nil
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// pageCount asks a pywb server for the page count of base. paged is false
// when the server has no pages for it: a 400, or an answer that is not a
// count (the server is then remembered as one without pages).
func (s *Server) pageCount(ctx context.Context, base url.Values) (pc PageCount, paged bool, err error) {
	v := cloneValues(base)
	v.Set("showNumPages", "true")
	v.Del("page")
	v.Del("limit")
	err = s.request(ctx, v, -1, true, func(resp *http.Response, body io.Reader) error {
		b, err := io.ReadAll(io.LimitReader(body, 64<<10))
		if err != nil {
			return err
		}
		pc, paged = parsePageCount(b)
		return nil
	})
	var se *ServerError
	if errors.As(err, &se) && se.Status == http.StatusBadRequest {
		// No pages for this request: an index without pages, or a
		// parameter the server refuses, which the unpaged request then
		// reports. Not remembered: the next request may page.
		return PageCount{}, false, nil
	}
	if err == nil && !paged {
		s.noPages.Store(true)
	}
	return pc, paged, err
}

// fetchWayback reads batches of BatchSize lines, each resuming from the
// resume key the last one ended with.
func (s *Server) fetchWayback(ctx context.Context, r *Request, emit emitFunc) error {
	base := s.params()
	for k, vs := range s.values(r) {
		base[k] = vs
	}
	base.Set("output", "json")
	kind := answerRows
	if s.o.WaybackText {
		base.Del("output") // its space-separated default
		kind = answerText
	}
	if r.Limit < 0 || r.Paged {
		_, err := s.readAnswer(ctx, base, pageOf(r), kind, emit, nil)
		return err
	}
	base.Set("showResumeKey", "true")
	remaining := r.Limit
	resume := ""
	for {
		v := cloneValues(base)
		n := s.o.BatchSize
		if remaining > 0 && remaining < n {
			n = remaining
		}
		v.Set("limit", strconv.Itoa(n))
		if resume != "" {
			v.Set("resumeKey", resume)
		}
		var next string
		got, err := s.readAnswer(ctx, v, -1, kind, emit, &next)
		if err != nil {
			return err
		}
		if remaining > 0 {
			if remaining -= got; remaining <= 0 {
				return nil
			}
		}
		if next == "" {
			return nil
		}
		if k, err := url.QueryUnescape(next); err == nil {
			// The key is printed URL-encoded, to be pasted into a URL as
			// it is; as a parameter value it is decoded once.
			next = k
		}
		if next == resume {
			return &ServerError{URL: s.endpoint + "?" + v.Encode(), Page: -1,
				Err: fmt.Errorf("%w: the resume key %q does not move on", errResponse, next)}
		}
		resume = next
	}
}

func pageOf(r *Request) int {
	if r.Paged {
		return r.Page
	}
	return -1
}

// fetchOutback reads OutbackCDX's text answer in one request. OutbackCDX
// bounds timestamps and sorts for exact matches only (its Query.validate);
// for other matches the bounds are applied here, and a sort is an error.
func (s *Server) fetchOutback(ctx context.Context, r *Request, emit emitFunc) error {
	v := s.params()
	for k, vs := range s.values(r) {
		v[k] = vs
	}
	v.Del("output") // CDX text, OutbackCDX's default
	v.Del("page")
	v.Del("pageSize")
	if r.Match != MatchExact {
		if r.Sort != SortIndex {
			return fmt.Errorf("%w: OutbackCDX sorts the captures of an exact match only (sort=%s with matchType=%s)", ErrQuery, r.Sort, r.Match)
		}
		if r.From != "" || r.To != "" {
			lo, hi, err := timestamp.Bounds(r.From, r.To)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrQuery, err)
			}
			v.Del("from")
			v.Del("to")
			if r.Limit > 0 {
				v.Del("limit") // the limit counts the lines within the bounds
				n, inner := 0, emit
				emit = func(line []byte, l *Layout, where func() string) bool {
					n++
					return inner(line, l, where) && n < r.Limit
				}
			}
			inner := emit
			emit = func(line []byte, l *Layout, where func() string) bool {
				rec, err := ParseLine(line, l)
				if err == nil && !timestamp.InRange(rec.Timestamp(), lo, hi) {
					return true
				}
				return inner(line, l, where)
			}
		}
	}
	_, err := s.readAnswer(ctx, v, -1, answerText, emit, nil)
	return err
}

// values returns r's parameters as the server's flavour reads them: the
// Internet Archive's and OutbackCDX's filter syntax (a regular
// expression matching the whole field; OutbackCDX's "~" for a substring)
// and their field names.
func (s *Server) values(r *Request) url.Values {
	v := r.Values()
	if s.flavor == FlavorPywb || s.flavor == FlavorAuto {
		return v
	}
	names := waybackNames
	if s.flavor == FlavorOutback {
		names = outbackNames
	}
	name := func(f string) string {
		if n, ok := names[f]; ok {
			return n
		}
		return f
	}
	v.Del("filter")
	for _, f := range r.Filters {
		v.Add("filter", translateFilter(f, s.flavor, name(f.Field)))
	}
	v.Del("collapse")
	for _, c := range r.Collapse {
		c.Field = name(c.Field)
		v.Add("collapse", c.String())
	}
	if len(r.Fields) > 0 {
		fl := make([]string, len(r.Fields))
		for i, f := range r.Fields {
			fl[i] = name(f)
		}
		v.Set("fl", strings.Join(fl, ","))
	}
	return v
}

// The field names of the Internet Archive's CDX server and of OutbackCDX,
// where they differ from pywb's.
var (
	waybackNames = map[string]string{"url": "original", "mime": "mimetype", "status": "statuscode"}
	outbackNames = map[string]string{"redirect": "redirecturl"}
)

// translateFilter writes f in the syntax of the Internet Archive's CDX
// server ("[!]field:regex", the regex matching the whole field) or of
// OutbackCDX (the same, or "~[!]field:text" for a substring).
func translateFilter(f Filter, fl Flavor, field string) string {
	var b strings.Builder
	if fl == FlavorOutback && f.Op == FilterContains {
		b.WriteByte('~')
	}
	if f.Negate {
		b.WriteByte('!')
	}
	if field != "" {
		b.WriteString(field)
		b.WriteByte(':')
	}
	switch f.Op {
	case FilterExact:
		b.WriteString(regexp.QuoteMeta(f.Value))
	case FilterRegexp:
		b.WriteString("(?:" + f.Value + ").*")
	default:
		if fl == FlavorOutback {
			b.WriteString(f.Value)
		} else {
			b.WriteString(".*" + regexp.QuoteMeta(f.Value) + ".*")
		}
	}
	return b.String()
}

// answerKind is the form of an answer's body.
type answerKind uint8

const (
	answerObjects answerKind = iota // pywb output=json: a JSON object per line
	answerRows                      // a JSON array of rows
	answerText                      // CDX text lines, a resume key after a blank line
)

// readAnswer sends one request (retried) and emits the lines of its
// answer; it returns how many lines it emitted. A retry after a body
// broke off skips the lines already emitted. resume, when not nil,
// receives the resume key of the answer.
func (s *Server) readAnswer(ctx context.Context, v url.Values, page int, kind answerKind, emit emitFunc, resume *string) (int, error) {
	emitted := 0
	var layout *Layout
	if fl := v.Get("fl"); fl != "" && kind == answerText {
		l, err := layoutForFields(strings.Split(fl, ","))
		if err != nil {
			return 0, &ServerError{URL: s.endpoint + "?" + v.Encode(), Page: page, Err: err}
		}
		layout = l
	}
	err := s.request(ctx, v, page, false, func(resp *http.Response, body io.Reader) error {
		reqURL := resp.Request.URL.String()
		seen := 0
		lineNo := 0
		where := func() string { return fmt.Sprintf("cdxj: CDX server %s: line %d of the answer", reqURL, lineNo) }
		out := func(line []byte, l *Layout) error {
			seen++
			if seen <= emitted {
				return nil // yielded before the answer broke off
			}
			emitted++
			s.lines.Add(1)
			if !emit(line, l, where) {
				return errStop
			}
			return nil
		}
		switch kind {
		case answerRows:
			return s.readRows(body, &lineNo, out, resume)
		case answerText:
			return s.readText(body, &lineNo, layout, out, resume)
		}
		return s.readObjects(body, &lineNo, out)
	})
	return emitted, err
}

func (s *Server) buf() *[]byte {
	if b, ok := s.bufPool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, 0, 4<<10)
	return &b
}

func (s *Server) readObjects(body io.Reader, lineNo *int, out func([]byte, *Layout) error) error {
	bp := s.buf()
	defer s.bufPool.Put(bp)
	var outErr error
	var conv objectConv
	err := scanLines(body, 0, s.o.MaxLineSize, func(line []byte, at int64) bool {
		*lineNo++
		if len(bytes.TrimSpace(line)) == 0 { // a blank line of the answer (a resume key follows one)
			return true
		}
		b, err := conv.append((*bp)[:0], line)
		if err != nil {
			outErr = fmt.Errorf("line %d (byte %d) of the answer: %w", *lineNo, at, err)
			return false
		}
		*bp = b
		if err := out(b, nil); err != nil {
			outErr = err
			return false
		}
		return true
	})
	if outErr != nil {
		return outErr
	}
	return err
}

func (s *Server) readRows(body io.Reader, lineNo *int, out func([]byte, *Layout) error, resume *string) error {
	bp := s.buf()
	defer s.bufPool.Put(bp)
	rr := newRowReader(body, s.o.MaxLineSize)
	var layout *Layout
	mime := -1
	afterEmpty := false
	for {
		row, err := rr.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("row %d of the answer: %w", *lineNo+1, err)
		}
		*lineNo++
		if afterEmpty {
			if len(row) != 1 {
				return fmt.Errorf("row %d of the answer: %w: after the empty row, want one resume key, have %d values", *lineNo, errResponse, len(row))
			}
			if resume != nil {
				*resume = row[0]
			}
			continue
		}
		if len(row) == 0 {
			afterEmpty = true
			continue
		}
		if layout == nil && isHeaderRow(row) {
			l, err := layoutForFields(row)
			if err != nil {
				return err
			}
			layout = l
			mime = int(l.idx[fMIME])
			continue
		}
		b := appendRowLine((*bp)[:0], row, mime)
		*bp = b
		if err := out(b, layout); err != nil {
			return err
		}
	}
}

func (s *Server) readText(body io.Reader, lineNo *int, layout *Layout, out func([]byte, *Layout) error, resume *string) error {
	var outErr error
	blank := false
	err := scanLines(body, 0, s.o.MaxLineSize, func(line []byte, at int64) bool {
		*lineNo++
		if len(bytes.TrimSpace(line)) == 0 { // a blank line of the answer (a resume key follows one)
			blank = true
			return true
		}
		if bytes.HasPrefix(line, []byte(outbackWarning)) {
			outErr = fmt.Errorf("line %d of the answer: the server says %q", *lineNo, line)
			return false
		}
		if blank {
			// The Internet Archive's resume key, after a blank line.
			if resume != nil {
				*resume = string(line)
			}
			return true
		}
		if err := out(line, layout); err != nil {
			outErr = err
			return false
		}
		return true
	})
	if outErr != nil {
		return outErr
	}
	return err
}

// retryable statuses: throttling and transient server trouble.
func retryableStatus(code int) bool {
	switch code {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout, http.StatusRequestTimeout:
		return true
	}
	return false
}

// bodyError marks an error reading an answer's body: the answer broke
// off, and the request may be tried again.
type bodyError struct{ err error }

func (e *bodyError) Error() string { return e.err.Error() }
func (e *bodyError) Unwrap() error { return e.err }

// deadlineError is the cause of a request that had no answer within
// ServerOptions.Deadline.
type deadlineError struct{ d time.Duration }

func (e *deadlineError) Error() string {
	return fmt.Sprintf("no answer within %v, the deadline of one request and its retries", e.d)
}

// Is makes a deadlineError match context.DeadlineExceeded.
func (e *deadlineError) Is(target error) bool { return target == context.DeadlineExceeded }

// errStalled is the cause of an attempt that got nothing from the server
// for ServerOptions.Timeout.
var errStalled = errors.New("no data from the server within the timeout")

// errTooLarge is the cause of an answer over MaxResponseSize.
var errTooLarge = errors.New("answer larger than the maximum")

// request sends GET endpoint?v and hands a 200 answer to read, trying
// again as ServerOptions says. A 404 whose message says that no captures
// were found (the Common Crawl index server's answer to an empty result)
// is an empty answer. With small, the Deadline covers the reading of the
// answer's body too (a page count, the flavour probe), not only the wait
// for its headers: a server that drips such an answer byte by byte fails
// the request within the Deadline.
func (s *Server) request(pctx context.Context, v url.Values, page int, small bool, read func(*http.Response, io.Reader) error) error {
	u := s.endpoint + "?" + v.Encode()
	// ctx is pctx ended by the Deadline too, which an answer's headers
	// stop and a retry starts again.
	ctx, cancel := context.WithCancelCause(pctx)
	defer cancel(nil)
	dl := &deadlineError{d: s.o.Deadline}
	timer := time.AfterFunc(s.o.Deadline, func() { cancel(dl) })
	defer timer.Stop()
	got := false // an answer's headers came in this deadline
	answered := func() {
		if !small {
			timer.Stop()
		}
		got = true
	}
	var last *ServerError
	for attempt := 1; ; attempt++ {
		if err := s.lim.Wait(ctx); err != nil {
			return s.ctxError(ctx, u, page, attempt-1, last, err)
		}
		s.requests.Add(1)
		if attempt > 1 {
			s.retries.Add(1)
		}
		if s.o.Logger != nil {
			s.o.Logger.Debug("cdxj: CDX server request", "url", u, "attempt", attempt)
		}
		wait, err := s.attempt(ctx, u, page, answered, read)
		if small && got && err == nil {
			timer.Stop()
		}
		if err == nil || errors.Is(err, errStop) {
			return err
		}
		var se *ServerError
		if !errors.As(err, &se) {
			return err
		}
		se.Attempts = attempt
		if context.Cause(ctx) == error(dl) && pctx.Err() == nil {
			// The deadline ended the attempt: its own error is only
			// that; the one before says what the server did.
			prev := last
			if se.Status != 0 || !errors.Is(se.Err, context.Canceled) && !errors.Is(se.Err, dl) {
				prev = se
			}
			return s.ctxError(ctx, u, page, attempt, prev, dl)
		}
		if ctx.Err() != nil {
			return s.ctxError(ctx, u, page, attempt, se, ctx.Err())
		}
		retry := se.Status == 0 && se.Err != nil || retryableStatus(se.Status)
		var be *bodyError
		if errors.As(se.Err, &be) {
			retry = true
		}
		if errors.Is(se.Err, errTooLarge) || errors.Is(se.Err, ErrLineTooLong) || errors.Is(se.Err, errResponse) {
			retry = false
		}
		if !retry || attempt >= s.o.Attempts {
			return se
		}
		if wait > s.o.MaxRetryAfter {
			se.Err = errors.Join(se.Err, fmt.Errorf("the server asks to wait %v (Retry-After), more than %v", wait, s.o.MaxRetryAfter))
			return se
		}
		last = se
		d := s.backoff(attempt)
		if wait > d {
			d = wait
		}
		if s.o.Logger != nil {
			s.o.Logger.Warn("cdxj: CDX server request failed; retrying", "url", u, "attempt", attempt, "wait", d, "err", se)
		}
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return s.ctxError(ctx, u, page, attempt, se, ctx.Err())
		}
		if got {
			// The server answered (an error status, an answer that
			// broke off): after the wait it asked for, the retry has a
			// deadline of its own.
			got = false
			timer.Reset(s.o.Deadline)
		}
	}
}

func (s *Server) ctxError(ctx context.Context, u string, page, attempts int, last *ServerError, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		err = cause
	}
	se := &ServerError{URL: u, Page: page, Attempts: attempts, Err: err}
	if last != nil {
		se.Status, se.Message = last.Status, last.Message
		se.Err = fmt.Errorf("%w (after: %v)", err, last.Err)
	}
	return se
}

// backoff returns the wait before attempt+1.
func (s *Server) backoff(attempt int) time.Duration {
	d := s.o.MinBackoff
	for i := 1; i < attempt && d < s.o.MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, s.o.MaxBackoff)
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads a Retry-After header: seconds or an HTTP date.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}

// attempt sends one request. wait is the server's Retry-After.
func (s *Server) attempt(ctx context.Context, u string, page int, answered func(), read func(*http.Response, io.Reader) error) (wait time.Duration, err error) {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(actx, http.MethodGet, u, nil)
	if err != nil {
		return 0, &ServerError{URL: u, Page: page, Err: err}
	}
	req.Header.Set("User-Agent", s.o.UserAgent)
	for k, vs := range s.o.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	// The wait for headers: the transport's ResponseHeaderTimeout covers
	// a client made here; this timer covers a caller's client too.
	hdr := time.AfterFunc(s.o.Timeout, func() { cancel(errStalled) })
	resp, err := s.client.Do(req)
	hdr.Stop()
	if err != nil {
		var ne net.Error
		if c := context.Cause(actx); c != nil && ctx.Err() == nil {
			err = c
		} else if errors.As(err, &ne) && ne.Timeout() && ctx.Err() == nil {
			// The transport's ResponseHeaderTimeout, which ends the same
			// wait as the timer above and may fire first.
			err = fmt.Errorf("%w (%v)", errStalled, err)
		}
		return 0, &ServerError{URL: u, Page: page, Err: err}
	}
	defer resp.Body.Close()
	answered()
	body := &answerBody{r: resp.Body, max: s.o.MaxResponseSize, stall: s.o.Timeout, cancel: cancel, n: &s.bytes}
	if resp.StatusCode != http.StatusOK {
		// The message of an error status is read within the Deadline:
		// a server that drips it is cut there, its message what came.
		cut := time.AfterFunc(s.o.Deadline, func() { cancel(errStalled) })
		b, _ := io.ReadAll(io.LimitReader(body, 64<<10))
		cut.Stop()
		msg := serverMessage(b)
		if resp.StatusCode == http.StatusNotFound && strings.HasPrefix(msg, "No Captures found") {
			return 0, nil
		}
		return retryAfter(resp.Header), &ServerError{URL: u, Page: page, Status: resp.StatusCode, Message: msg}
	}
	br := bufio.NewReaderSize(body, 32<<10)
	if err := read(resp, br); err != nil {
		var inner *ServerError
		if errors.Is(err, errStop) || errors.As(err, &inner) {
			return 0, err
		}
		var be *bodyError
		if errors.As(err, &be) && errors.Is(be.err, errStalled) {
			err = fmt.Errorf("%w: %w", errStalled, err)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) && !errors.As(err, &be) {
			err = &bodyError{err}
		}
		return 0, &ServerError{URL: u, Page: page, Status: 0, Err: err}
	}
	// Read to the end so that a body cut short after the last line is
	// noticed, and the connection can be reused.
	if _, err := io.Copy(io.Discard, br); err != nil {
		return 0, &ServerError{URL: u, Page: page, Err: err}
	}
	return 0, nil
}

// answerBody reads an answer's body: it counts its bytes against the
// maximum, gives up on a server silent for the stall time, and marks read
// errors as bodyErrors.
type answerBody struct {
	r      io.Reader
	read   int64
	max    int64
	stall  time.Duration
	cancel context.CancelCauseFunc
	n      *atomic.Int64
}

func (a *answerBody) Read(p []byte) (int, error) {
	t := time.AfterFunc(a.stall, func() { a.cancel(errStalled) })
	n, err := a.r.Read(p)
	stalled := !t.Stop()
	a.read += int64(n)
	a.n.Add(int64(n))
	if a.read > a.max {
		return n, fmt.Errorf("%w (%d bytes; see ServerOptions.MaxResponseSize)", errTooLarge, a.max)
	}
	if err != nil && err != io.EOF {
		if stalled {
			err = errStalled
		}
		return n, &bodyError{err}
	}
	return n, err
}
