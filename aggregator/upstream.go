package aggregator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// Upstream asks one archive about one URI-R. Implementations return the
// mementos found and the number of HTTP requests sent; an answer of "holds
// nothing" (404, 410) is an error wrapping ErrNotFound, and any other error
// is a failure, preferably an *UpstreamError whose Reason the outcome
// reports and ClassOf classifies. No error and no mementos is an empty
// answer, a failure too (ReasonEmptyAnswer). With a ClassPerURI error
// (a cap reached), the mementos read before it may be returned with it.
//
// A search never writes into a list an Upstream returned: not into its
// mementos, not past its length, so an Upstream may answer with its own
// data, the same list to several archives and searches at once. What a
// search changes (a URI-M escaped, Memento.Archive set to the archive
// asked, the order and the duplicates merging drops) it changes in a list
// of its own: cleanMementos copies a list it changes, and a list it keeps
// as it is is copied before the archive is set. Only the lists of an
// Upstream that says they are the caller's (CallerOwnedLists, as
// HTTPUpstream, which makes each list for its answer) are worked on in
// place and reused once merged, with no copy.
type Upstream interface {
	// TimeMap fetches the whole TimeMap of urir from a (all pages).
	TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error)
	// TimeGate asks a's TimeGate for the memento of urir closest to at
	// (zero: now) and returns every memento its answer names.
	TimeGate(ctx context.Context, a *Archive, urir string, at time.Time) ([]memento.Memento, int, error)
}

// CallerOwnedLists is implemented by an Upstream whose TimeMap and
// TimeGate answers' memento lists belong to the caller alone once
// returned: the Upstream keeps no reference to them and gives them to no
// one else. The aggregator reuses the lists of such an Upstream for
// later answers once it has merged them (no Result ever holds them).
// HTTPUpstream implements it; a wrapper of another Upstream that passes
// its lists through implements it by asking the wrapped one.
type CallerOwnedLists interface {
	// ListsOwnedByCaller reports whether the lists returned are the
	// caller's alone.
	ListsOwnedByCaller() bool
}

// ListsOwnedByCaller reports true: an HTTPUpstream's lists are the
// caller's (CallerOwnedLists).
func (u *HTTPUpstream) ListsOwnedByCaller() bool { return true }

// HTTPUpstream is the Upstream that speaks RFC 7089 over HTTP, the default.
// Request URLs are the archive's prefix followed by the URI-R exactly as
// given (never re-encoded). Each TimeMap page is read into one buffer
// (MaxBodyBytes caps all pages together; a page with a Content-Length
// into a buffer an earlier page released, when one of its size is kept)
// and, in the plain layout archives write, parsed by a fast path that
// gives the results of the memento package's lenient reader (checked by
// fuzz targets, also for a body cut by a cap or a broken connection),
// whose URI-Ms are then copied into one string of their bytes and the
// buffer released; any other page goes through that reader. Memory per
// answer is bounded by MaxBodyBytes for the text and about 0.8 bytes per
// body byte for the mementos (BenchmarkSearchBodyAlloc: about 2 bytes
// allocated per body byte). The memento lists it returns are the
// caller's; the aggregator reuses those of its own HTTPUpstream once it
// has merged them.
type HTTPUpstream struct {
	// Client sends the requests; its redirect policy is replaced per
	// request (TimeMaps: at most MaxRedirects; TimeGates: none followed
	// unless the 3xx lacks Vary: accept-datetime). nil uses a zero client.
	// When its Transport is an *http.Transport (or nil: a clone of
	// http.DefaultTransport), the requests go through a transport of the
	// HTTPUpstream's own with that Transport's settings, which sends
	// HTTP/1.1 on kept connections from the caller's goroutine (no read
	// and write loop per connection; about half the CPU per request),
	// and leaves to the Transport the requests it does not take (through
	// a proxy, https when the Transport dials TLS itself; see
	// StdTransport). CloseIdleConnections closes its idle connections.
	Client *http.Client
	// StdTransport sends every request through Client's Transport as it
	// is (net/http's read and write loops, HTTP/2 with https archives).
	StdTransport bool
	// MaxBodyBytes caps the body bytes of one answer (default 32 MiB): a
	// TimeGate's response, or a TimeMap's pages all together, so that
	// MaxPages pages cannot read MaxPages times as much. Past it the
	// answer fails with reason "too-large" (ClassPerURI), keeping the
	// mementos read before the cut. Nothing past the cap is read.
	MaxBodyBytes int64
	// MaxHeaderBytes caps a response's headers (default
	// DefaultMaxHeaderBytes): a TimeGate answer whose headers (its Link
	// header above all) are larger fails with reason "too-large", a
	// failure of that URI-R, as a body over MaxBodyBytes does. What is
	// read is bounded by the Transport's MaxResponseHeaderBytes: the
	// transports the aggregator makes (and the one used for a nil Client)
	// set it to DefaultMaxHeaderBytes; net/http's default is 10 MB.
	MaxHeaderBytes int64
	// MaxPages caps the TimeMap pages followed per archive (default 100);
	// MaxRedirects the redirects followed per request (default 10).
	MaxPages     int
	MaxRedirects int
	// UserAgent is sent with every request (default "mementokit-aggregator").
	UserAgent string
	// Allow is checked for every request and every redirect hop (the
	// first request, pages, TimeGate redirects, the HEAD of a Location);
	// a URL it refuses fails the answer with ReasonHostNotAllowed. nil
	// allows the hosts of the archive being asked only (NewAllowList of
	// it). The aggregator's own HTTPUpstream gets the AllowList of the
	// whole registry.
	Allow *AllowList

	// clients made from Client and Allow (when set) on first use: [0]
	// follows redirects, [1] does not. The fields above must not change
	// once the HTTPUpstream is in use.
	clients [2]atomic.Pointer[http.Client]
	// userAgent is the User-Agent header's value, made on first use and
	// put into every request's own Header (never one Header shared by
	// requests: a cookie Jar writes into it; a one-element value slice
	// is only read, and an append to it copies).
	userAgent atomic.Pointer[[]string]
	// fast is the goroutine-free transport over Client's *http.Transport,
	// made on first use (nil with StdTransport or another RoundTripper).
	fast atomic.Pointer[fastTransport]
}

var (
	errTooLarge     = errors.New("response body larger than the limit")
	errRedirectLoop = errors.New("too many redirects")
)

func (u *HTTPUpstream) client(a *Archive, follow bool) *http.Client {
	allow := u.Allow
	if allow == nil {
		return u.newClient(ownAllowList(a), follow)
	}
	i := 0
	if !follow {
		i = 1
	}
	if c := u.clients[i].Load(); c != nil {
		return c
	}
	c := u.newClient(allow, follow)
	if u.clients[i].CompareAndSwap(nil, c) {
		return c
	}
	return u.clients[i].Load()
}

// transport is the RoundTripper requests go through before the allow
// list: the fast transport over Client's *http.Transport, or Client's
// Transport as it is.
func (u *HTTPUpstream) transport() http.RoundTripper {
	var rt http.RoundTripper
	if u.Client != nil {
		rt = u.Client.Transport
	}
	if rt == nil {
		rt = cappedDefaultTransport()
	}
	tr, ok := rt.(*http.Transport)
	if u.StdTransport || !ok {
		return rt
	}
	if f := u.fast.Load(); f != nil {
		return f
	}
	u.fast.CompareAndSwap(nil, newFastTransport(tr))
	return u.fast.Load()
}

// CloseIdleConnections closes the idle upstream connections: those of
// the HTTPUpstream's own transport and of Client.
func (u *HTTPUpstream) CloseIdleConnections() {
	if f := u.fast.Load(); f != nil {
		f.CloseIdleConnections()
	}
	if u.Client != nil {
		u.Client.CloseIdleConnections()
	}
}

// newClient returns a copy of Client behind allow, following redirects
// (at most MaxRedirects) or none.
func (u *HTTPUpstream) newClient(allow *AllowList, follow bool) *http.Client {
	var c http.Client
	if u.Client != nil {
		c = *u.Client
	}
	c.Transport = allow.Transport(u.transport())
	maxR := u.MaxRedirects
	if maxR <= 0 {
		maxR = 10
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !follow {
			return http.ErrUseLastResponse
		}
		if len(via) >= maxR {
			return errRedirectLoop
		}
		return nil
	}
	return &c
}

// DefaultMaxHeaderBytes caps the response headers of one upstream answer
// (HTTPUpstream.MaxHeaderBytes, Options.MaxHeaderBytes): 1 MiB, some
// thousand memento links in a TimeGate's Link header, where the TimeGates
// of RFC 7089 name five (first, last, prev, next and the selected one).
const DefaultMaxHeaderBytes = 1 << 20

func (u *HTTPUpstream) maxHeader() int64 {
	if u.MaxHeaderBytes > 0 {
		return u.MaxHeaderBytes
	}
	return DefaultMaxHeaderBytes
}

// headerBytes is the size of h as sent: "Name: value\r\n" per value.
func headerBytes(h http.Header) int64 {
	var n int64
	for k, vs := range h {
		for _, v := range vs {
			n += int64(len(k) + len(v) + 4)
		}
	}
	return n
}

// headersTooLarge fails an answer whose headers are over the cap.
func (u *HTTPUpstream) headersTooLarge(a *Archive, op, rawURL string, fr *fastResp) error {
	if n := fr.headerBytes(); n > u.maxHeader() {
		return &UpstreamError{Archive: a.ID, Op: op, URL: rawURL, Reason: ReasonTooLarge,
			Err: fmt.Errorf("response headers of %d bytes, over the limit of %d", n, u.maxHeader())}
	}
	return nil
}

// isHeaderTooLarge reports whether err is net/http's refusal of response
// headers over the Transport's MaxResponseHeaderBytes (HTTP/1 and
// HTTP/2 say so only in words).
func isHeaderTooLarge(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "server response headers exceeded") || strings.Contains(s, "response header list larger than")
}

func (u *HTTPUpstream) maxBody() int64 {
	if u.MaxBodyBytes > 0 {
		return u.MaxBodyBytes
	}
	return 32 << 20
}

func (u *HTTPUpstream) newRequest(ctx context.Context, method, rawURL string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, rawURL, nil)
	if err != nil {
		return nil, err
	}
	ua := u.userAgent.Load()
	if ua == nil {
		v := u.UserAgent
		if v == "" {
			v = "mementokit-aggregator"
		}
		ua = &[]string{v}
		u.userAgent.Store(ua)
	}
	req.Header["User-Agent"] = (*ua)[:1:1]
	return req, nil
}

// drainLimit is how much of an unwanted response body is read before it is
// closed: net/http reuses a connection only when the body was read to its
// end, so a short "not found" page is drained (one new TCP connection per
// 404 otherwise), while a longer body is cut and its connection dropped.
const drainLimit = 64 << 10

// drainClose reads at most drainLimit bytes of body and closes it.
func drainClose(body io.ReadCloser) {
	if b, ok := body.(*fastBody); !ok || !b.done {
		bp := drainBufs.Get().(*[]byte)
		for n := int64(0); n < drainLimit; {
			m, err := body.Read((*bp)[:min(int64(len(*bp)), drainLimit-n)])
			n += int64(m)
			if err != nil {
				break
			}
		}
		drainBufs.Put(bp)
	}
	_ = body.Close()
}

// drainBufs are the buffers drainClose reads into.
var drainBufs = sync.Pool{New: func() any { b := make([]byte, 4<<10); return &b }}

// notFoundError is an archive's "holds nothing" answer (404, 410) to an
// operation ("timemap", "timegate") on a URL; it wraps ErrNotFound.
type notFoundError struct{ archive, op, url string }

// Error is "ARCHIVE OP URL: " and ErrNotFound's text.
func (e *notFoundError) Error() string {
	return e.archive + " " + e.op + " " + e.url + ": " + ErrNotFound.Error()
}

// Unwrap returns ErrNotFound.
func (e *notFoundError) Unwrap() error { return ErrNotFound }

// limitedBody fails with errTooLarge once more than n bytes were read.
// Its bytes are charged to hold (the search's share of
// Options.BodyMemory): a body with a Content-Length (length) all of them
// up to n bytes before the first is read (start), or none; one of
// unknown length as they arrive, a step (bodyMemory.step) ahead of each
// read, what the read did not give going back at once. A refusal ends
// the body with its error (errMemoryBusy, errOverBudget, errGrowthCut).
// done gives back what was charged and not read and ends the body's
// account.
type limitedBody struct {
	ctx      context.Context // bounds a wait for budget
	r        io.Reader
	n        int64
	hold     *bodyHold
	length   int64       // Content-Length; -1 unknown
	c        *bodyCharge // the body's account, once started
	reserved int64       // bytes of a Content-Length body charged and not read yet
	started  bool
}

// start charges a Content-Length body's bytes before anything is read.
func (l *limitedBody) start() error {
	if l.started || !l.hold.limited() {
		return nil
	}
	l.started = true
	l.c = l.hold.charge(max(l.n, 0))
	if l.length < 0 {
		return nil
	}
	want := min(l.length, max(l.n, 0))
	if want == 0 {
		return nil
	}
	if err := l.c.take(l.ctx, want, true); err != nil {
		return err
	}
	l.reserved = want
	return nil
}

// done gives back the bytes charged and not read and ends the account.
func (l *limitedBody) done() {
	if l.c == nil {
		return
	}
	l.c.give(l.reserved)
	l.reserved = 0
	l.c.end()
}

// Read reads from the body until the limit is passed.
func (l *limitedBody) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	var n int
	var err error
	switch {
	case !l.hold.limited() || len(p) == 0:
		n, err = l.r.Read(p)
	case l.length >= 0:
		if err := l.start(); err != nil {
			return 0, err
		}
		if int64(len(p)) > l.reserved {
			p = p[:max(l.reserved, 1)] // one byte past: the end or the cap
		}
		n, err = l.r.Read(p)
		l.reserved = max(l.reserved-int64(n), 0)
	default:
		if err := l.start(); err != nil {
			return 0, err
		}
		step := min(int64(len(p)), l.hold.m.step)
		if err := l.c.take(l.ctx, step, false); err != nil {
			return 0, err
		}
		n, err = l.r.Read(p[:step])
		l.c.give(step - int64(n))
	}
	l.n -= int64(n)
	if l.n < 0 {
		return n, errTooLarge
	}
	return n, err
}

// classify turns a transport or body error into an *UpstreamError.
func classify(ctx context.Context, a *Archive, op, rawURL string, err error) error {
	reason := ReasonNetwork
	var ne net.Error
	switch {
	case errors.Is(err, errTooLarge), isHeaderTooLarge(err):
		reason = ReasonTooLarge
	case errors.Is(err, errMemoryBusy):
		reason = ReasonMemoryBusy
	case errors.Is(err, errOverBudget), errors.Is(err, errGrowthCut), errors.Is(err, errGrowthDrop):
		reason = ReasonOverMemoryBudget
	case errors.Is(err, errRedirectLoop):
		reason = ReasonRedirectLoop
	case errors.Is(err, ErrHostNotAllowed):
		reason = ReasonHostNotAllowed
	case ctx.Err() != nil:
		reason = ctxReason(ctx)
	case errors.As(err, &ne) && ne.Timeout():
		reason = ReasonTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		reason = ReasonReset
	}
	return &UpstreamError{Archive: a.ID, Op: op, URL: rawURL, Reason: reason, Err: err}
}

// slowAnswer turns the timeout of an answer that had begun (response
// headers received, earlier pages read, the TimeGate answered before the
// HEAD of its Location) into ReasonSlowAnswer: the archive is up, this
// URI-R's answer is too slow or too big (ClassPerURI).
func slowAnswer(err error) error {
	var ue *UpstreamError
	if errors.As(err, &ue) && ue.Reason == ReasonTimeout {
		ue.Reason = ReasonSlowAnswer
	}
	return err
}

func statusError(a *Archive, op, rawURL string, code int) error {
	return &UpstreamError{Archive: a.ID, Op: op, URL: rawURL, Reason: "status-" + strconv.Itoa(code), Err: fmt.Errorf("HTTP status %d", code)}
}

// TimeMap implements Upstream: GET prefix+urir, then every page named by a
// rel="timemap" link (RFC 7089 §5) not seen before, up to MaxPages. 404 and
// 410 on the first page mean "holds nothing"; another status, a body over
// the limit, an HTML page with no links, or a broken connection is a
// failure. Pages that list no memento at all give no mementos and no
// error: an empty answer, which the caller judges a failure. More pages
// than MaxPages give the mementos read with an error of reason
// ReasonTooManyPages; a page whose link-format cannot be read on (an
// unterminated entry, garbage between entries) gives the mementos of the
// well-formed links before the error with an error of reason
// ReasonBadBody. A memento link without a readable datetime (RFC 7089
// §5 requires one) is returned with the zero Datetime, so that the caller
// leaves it out and counts it (Outcome.Dropped); identical links are kept
// once by the caller.
func (u *HTTPUpstream) TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	if a.TimeMap == "" {
		return nil, 0, &UpstreamError{Archive: a.ID, Op: "timemap", Reason: ReasonUnexpectedReply, Err: errors.New("archive has no TimeMap endpoint")}
	}
	maxPages := u.MaxPages
	if maxPages <= 0 {
		maxPages = 100
	}
	first := a.TimeMap + urir
	queue := []string{first}
	seen := map[string]bool{first: true}
	var pages [][]memento.Memento // each page's mementos, joined once at the end
	checked := true               // every page's mementos passed cleanMementos' check as they are
	joined := func(pages [][]memento.Memento) []memento.Memento {
		ms := joinPages(pages)
		if checked {
			noteChecked(ctx, ms)
		}
		return ms
	}
	requests := 0
	budget := u.maxBody() // bytes left for this answer's pages together
	for len(queue) > 0 {
		if requests >= maxPages {
			return joined(pages), requests, &UpstreamError{Archive: a.ID, Op: "timemap", URL: queue[0], Reason: ReasonTooManyPages,
				Err: fmt.Errorf("more than %d TimeMap pages", maxPages)}
		}
		page := queue[0]
		queue = queue[1:]
		requests++
		ms, next, clean, err := u.timeMapPage(ctx, a, page, &budget)
		checked = checked && (clean || len(ms) == 0)
		if err != nil {
			if errors.Is(err, ErrNotFound) && page != first {
				continue // a dangling page link: the other pages still count
			}
			if page != first {
				err = slowAnswer(err) // the archive has been answering this search
			}
			if r := reasonOf(err); ClassOf(r) == ClassPerURI || r == ReasonBadBody {
				return joined(append(pages, ms)), requests, err
			}
			return nil, requests, err
		}
		pages = append(pages, ms)
		for _, n := range next {
			if !seen[n] {
				seen[n] = true
				queue = append(queue, n)
			}
		}
	}
	return joined(pages), requests, nil
}

// joinPages is the concatenation of the pages' mementos, made once (a
// single page is returned as it is); the pages' lists go back for reuse
// (releaseMementos).
func joinPages(pages [][]memento.Memento) []memento.Memento {
	switch len(pages) {
	case 0:
		return nil
	case 1:
		return pages[0]
	}
	n := 0
	for _, p := range pages {
		n += len(p)
	}
	if n == 0 {
		return nil
	}
	out := reusedMementos(n)
	for _, p := range pages {
		out = append(out, p...)
		if cap(p) > 0 {
			releaseMementos(p) // this answer's own, copied
		}
	}
	return out
}

// timeMapPage reads one TimeMap page; *budget is the number of body bytes
// the answer may still read (all its pages together), and is lessened by
// what this page read.
func (u *HTTPUpstream) timeMapPage(ctx context.Context, a *Archive, page string, budget *int64) (_ []memento.Memento, _ []string, clean bool, _ error) {
	resp, final, err := u.send(ctx, a, true, http.MethodGet, page, "")
	if err != nil {
		var re *requestError
		if errors.As(err, &re) {
			return nil, nil, false, &UpstreamError{Archive: a.ID, Op: "timemap", URL: page, Reason: ReasonUnexpectedReply, Err: re.err}
		}
		return nil, nil, false, classify(ctx, a, "timemap", page, err)
	}
	defer drainClose(resp.body)
	if err := u.headersTooLarge(a, "timemap", page, resp); err != nil {
		return nil, nil, false, err
	}
	switch {
	case resp.status == http.StatusNotFound || resp.status == http.StatusGone:
		return nil, nil, false, &notFoundError{a.ID, "timemap", page}
	case resp.status != http.StatusOK:
		return nil, nil, false, statusError(a, "timemap", page, resp.status)
	}
	// The page is read into one string, or a body of unknown length into
	// chunks that end where link-values do (bounded by the answer's
	// budget of MaxBodyBytes, each byte held once), and, in the plain
	// layout, parsed from them with its URI-Ms as substrings
	// (fastChunks); anything else is parsed by memento.Reader.
	lb := &limitedBody{ctx: ctx, r: resp.body, n: *budget, hold: bodyHoldOf(ctx), length: resp.length}
	defer lb.done()
	if err := lb.start(); err != nil {
		// refused before a byte was read: nothing to keep
		return nil, nil, false, classify(ctx, a, "timemap", page, err)
	}
	chunks, aligned, own, rerr := readBody(lb, resp.length, *budget)
	*budget = max(lb.n, 0)
	if errors.Is(rerr, errGrowthDrop) {
		// The body gave way to others that wait to begin: its text is
		// not kept, its bytes go back now.
		lb.c.drop()
		releaseBody(own)
		return nil, nil, false, classify(ctx, a, "timemap", page, rerr)
	}
	var st pageState
	if ms, next, links, ok := fastChunksState(chunks, aligned, rerr != nil, &st); ok {
		if own != nil {
			// The URI-Ms and page links are copied out of the body's
			// buffer, which the next bodies reuse.
			internLinks(ms, next)
			releaseBody(own)
		}
		if links == 0 && isHTML(resp) {
			return nil, nil, false, &UpstreamError{Archive: a.ID, Op: "timemap", URL: page, Reason: ReasonWrongType, Err: fmt.Errorf("Content-Type %q and no TimeMap links", resp.get("Content-Type"))}
		}
		if rerr != nil {
			// As the general reader: what was read is kept with a cap's
			// error, the page links of a cut page are not followed.
			return ms, nil, st.unclean == 0, slowAnswer(classify(ctx, a, "timemap", page, rerr))
		}
		return ms, next, st.unclean == 0, nil
	}
	base := page // relative links resolve against the page's final URL
	if final != nil {
		base = final.String()
	}
	body := chunksReader(chunks)
	if rerr != nil {
		body = io.MultiReader(body, errReader{rerr})
	}
	rd := memento.NewReader(body, &memento.ParseOptions{Base: base})
	var (
		ms    = make([]memento.Memento, 0, min(mementoEstimate(chunksPrefix(chunks)), firstMementos)) // and as append grows it
		next  []string
		links int // links a TimeMap has: original, memento, timemap, timegate, self
	)
	for {
		l, err := rd.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if isHTML(resp) && links == 0 {
				return nil, nil, false, &UpstreamError{Archive: a.ID, Op: "timemap", URL: page, Reason: ReasonWrongType, Err: fmt.Errorf("Content-Type %q: %w", resp.get("Content-Type"), err)}
			}
			var pe *memento.ParseError
			if errors.As(err, &pe) {
				// The well-formed links before the error are kept with it;
				// the page links of a page that cannot be read on are not
				// followed.
				return ms, nil, false, &UpstreamError{Archive: a.ID, Op: "timemap", URL: page, Reason: ReasonBadBody, Err: err}
			}
			// The headers came: a timeout now is this answer's size or
			// slowness, and what was read is kept with a cap's error.
			return ms, nil, false, slowAnswer(classify(ctx, a, "timemap", page, err))
		}
		if l.HasRel("original") || l.IsMemento() || l.HasRel("timemap") || l.HasRel("timegate") || l.HasRel("self") {
			links++
		}
		switch {
		case l.IsMemento():
			ms = append(ms, linkMemento(l))
		case l.HasRel("timemap") && !l.HasRel("self"):
			next = append(next, l.Target)
		}
	}
	if links == 0 && isHTML(resp) {
		return nil, nil, false, &UpstreamError{Archive: a.ID, Op: "timemap", URL: page, Reason: ReasonWrongType, Err: fmt.Errorf("Content-Type %q and no TimeMap links", resp.get("Content-Type"))}
	}
	return ms, next, false, nil
}

// linkMemento is the memento of TimeMap memento link l: its target and
// datetime, the zero Datetime when l has none or an unreadable one (a
// memento the search leaves out and counts, Outcome.Dropped).
func linkMemento(l memento.Link) memento.Memento {
	dt, ok := l.Param("datetime")
	if !ok {
		return memento.Memento{URIM: l.Target}
	}
	t, err := memento.ParseHTTPDateLenient(dt)
	if err != nil {
		return memento.Memento{URIM: l.Target}
	}
	return memento.Memento{URIM: l.Target, Datetime: t.UTC().Truncate(time.Second)}
}

func isHTML(resp *fastResp) bool {
	ct := strings.ToLower(resp.get("Content-Type"))
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml")
}

// TimeGate implements Upstream: GET prefix+urir with Accept-Datetime
// (omitted for the zero time), redirects not followed (RFC 7089 §4). A 302,
// 303 or 307 with Location, or a 200 with Content-Location and
// Memento-Datetime, is an answer: its mementos are the memento links of its
// Link header, plus the Content-Location of a 200; when the Link header
// names none, Location's Memento-Datetime is read with a HEAD. A 3xx
// without Vary: accept-datetime and without memento links is a plain
// redirect and is followed (at most MaxRedirects). 404 and 410 mean "holds
// nothing"; other statuses are failures.
func (u *HTTPUpstream) TimeGate(ctx context.Context, a *Archive, urir string, at time.Time) ([]memento.Memento, int, error) {
	if a.TimeGate == "" {
		return nil, 0, &UpstreamError{Archive: a.ID, Op: "timegate", Reason: ReasonUnexpectedReply, Err: errors.New("archive has no TimeGate endpoint")}
	}
	maxR := u.MaxRedirects
	if maxR <= 0 {
		maxR = 10
	}
	target := a.TimeGate + urir
	requests := 0
	for hop := 0; ; hop++ {
		if hop > maxR {
			return nil, requests, &UpstreamError{Archive: a.ID, Op: "timegate", URL: target, Reason: ReasonRedirectLoop, Err: errRedirectLoop}
		}
		acceptDatetime := ""
		if !at.IsZero() {
			acceptDatetime = memento.FormatHTTPDate(at)
		}
		resp, _, err := u.send(ctx, a, false, http.MethodGet, target, acceptDatetime)
		if err != nil {
			var re *requestError
			if errors.As(err, &re) {
				return nil, requests, &UpstreamError{Archive: a.ID, Op: "timegate", URL: target, Reason: ReasonUnexpectedReply, Err: re.err}
			}
			requests++
			return nil, requests, classify(ctx, a, "timegate", target, err)
		}
		requests++
		drainClose(resp.body)
		if err := u.headersTooLarge(a, "timegate", target, resp); err != nil {
			return nil, requests, err
		}
		ms := linkMementos(resp.values("Link"), target)
		switch code := resp.status; {
		case code == http.StatusNotFound || code == http.StatusGone:
			return nil, requests, &notFoundError{a.ID, "timegate", target}
		case code == http.StatusOK:
			if cl := resp.get("Content-Location"); cl != "" {
				if t, err := memento.ParseHTTPDateLenient(resp.get("Memento-Datetime")); err == nil {
					ms = append(ms, memento.Memento{URIM: resolveRef(target, cl), Datetime: t.UTC()})
				}
			}
			if len(ms) == 0 {
				return nil, requests, &UpstreamError{Archive: a.ID, Op: "timegate", URL: target, Reason: ReasonUnexpectedReply, Err: errors.New("200 without Content-Location, Memento-Datetime or memento links")}
			}
			return ms, requests, nil
		case code >= 300 && code < 400:
			loc := resp.get("Location")
			if loc == "" {
				return nil, requests, &UpstreamError{Archive: a.ID, Op: "timegate", URL: target, Reason: ReasonUnexpectedReply, Err: fmt.Errorf("%d without Location", code)}
			}
			loc = resolveRef(target, loc)
			if len(ms) > 0 {
				return ms, requests, nil
			}
			if !varyAcceptDatetime(resp.values("Vary")) {
				target = loc // a plain redirect in front of the TimeGate
				continue
			}
			requests++
			t, err := u.mementoDatetime(ctx, a, loc)
			if err != nil {
				return nil, requests, slowAnswer(classify(ctx, a, "timegate", loc, err))
			}
			return []memento.Memento{{URIM: loc, Datetime: t}}, requests, nil
		default:
			return nil, requests, statusError(a, "timegate", target, code)
		}
	}
}

func (u *HTTPUpstream) mementoDatetime(ctx context.Context, a *Archive, urim string) (time.Time, error) {
	resp, _, err := u.send(ctx, a, true, http.MethodHead, urim, "")
	if err != nil {
		var re *requestError
		if errors.As(err, &re) {
			return time.Time{}, re.err
		}
		return time.Time{}, err
	}
	drainClose(resp.body)
	t, err := memento.ParseHTTPDateLenient(resp.get("Memento-Datetime"))
	if err != nil {
		return time.Time{}, fmt.Errorf("memento %s: no usable Memento-Datetime: %w", urim, err)
	}
	return t.UTC(), nil
}

// linkMementos returns the memento links of Link header values, resolved
// against base; links without a readable datetime are dropped.
func linkMementos(values []string, base string) []memento.Memento {
	var out []memento.Memento
	for _, v := range values {
		links, _ := memento.ParseLinkFormat(v, &memento.ParseOptions{Base: base})
		for _, l := range links {
			if !l.IsMemento() {
				continue
			}
			dt, ok := l.Param("datetime")
			if !ok {
				continue
			}
			t, err := memento.ParseHTTPDateLenient(dt)
			if err != nil {
				continue
			}
			out = append(out, memento.Memento{URIM: l.Target, Datetime: t.UTC().Truncate(time.Second)})
		}
	}
	return out
}

func varyAcceptDatetime(vary []string) bool {
	for _, v := range vary {
		for _, tok := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(tok), "accept-datetime") {
				return true
			}
		}
	}
	return false
}

func resolveRef(base, ref string) string {
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	if r.IsAbs() {
		return ref
	}
	return b.ResolveReference(r).String()
}
