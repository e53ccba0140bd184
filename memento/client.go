package memento

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strings"
	"time"
)

// Client defaults.
const (
	DefaultTimeout      = 30 * time.Second
	DefaultMaxBodyBytes = 64 << 20
	DefaultMaxRedirects = 10
	DefaultMaxPages     = 100
	DefaultUserAgent    = "mementokit (+https://github.com/mementokit/mementokit)"
)

// Client talks to Memento archives: it fetches TimeMaps (following their
// pages), asks TimeGates for a datetime and reads the Memento headers of a
// URI-M. The zero value is usable; set fields before the first call and do
// not change them afterwards. A Client is safe for concurrent use.
//
// Every call takes a context and is bounded by Timeout, MaxBodyBytes and
// MaxRedirects. Errors are *Error values; IsNotFound tells an archive's
// "nothing here" from a failure.
type Client struct {
	// HTTP is the underlying client (its Transport, Jar and Timeout are
	// used; its CheckRedirect is not: Client follows redirects itself).
	// nil means http.DefaultTransport.
	HTTP *http.Client
	// Timeout bounds each call as a whole (all redirects, all pages and
	// body reads), on top of the context's own deadline. 0: DefaultTimeout.
	Timeout time.Duration
	// MaxBodyBytes bounds each response body and, for FetchTimeMap, the sum
	// over all pages. 0: DefaultMaxBodyBytes (64 MiB).
	MaxBodyBytes int64
	// MaxRedirects bounds the plain redirects followed per request.
	// 0: DefaultMaxRedirects; negative: none.
	MaxRedirects int
	// MaxPages bounds the TimeMap pages FetchTimeMap fetches. 0: DefaultMaxPages.
	MaxPages int
	// UserAgent is sent with every request; "" sends DefaultUserAgent.
	UserAgent string
	// Strict parses Link headers and TimeMaps in strict mode (see
	// ParseOptions.Strict); the default is lenient, as archives need.
	Strict bool
	// Logger, if set, receives Debug records of requests and dropped links.
	Logger *slog.Logger
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

func (c *Client) maxBody() int64 {
	if c.MaxBodyBytes > 0 {
		return c.MaxBodyBytes
	}
	return DefaultMaxBodyBytes
}

func (c *Client) maxRedirects() int {
	switch {
	case c.MaxRedirects > 0:
		return c.MaxRedirects
	case c.MaxRedirects < 0:
		return 0
	}
	return DefaultMaxRedirects
}

func (c *Client) maxPages() int {
	if c.MaxPages > 0 {
		return c.MaxPages
	}
	return DefaultMaxPages
}

func (c *Client) httpClient() *http.Client {
	var hc http.Client
	if c.HTTP != nil {
		hc = *c.HTTP
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &hc
}

func (c *Client) debug(msg string, args ...any) {
	if c.Logger != nil {
		c.Logger.Debug(msg, args...)
	}
}

// send performs one request without following redirects.
func (c *Client) send(ctx context.Context, hc *http.Client, method, uri string, hdr http.Header) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, uri, nil)
	if err != nil {
		return nil, err
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	ua := c.UserAgent
	if ua == "" {
		ua = DefaultUserAgent
	}
	req.Header.Set("User-Agent", ua)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	c.debug("memento: response", "method", method, "uri", uri, "status", resp.StatusCode)
	return resp, nil
}

// discard drains a little of the body so the connection can be reused, and
// closes it.
func discard(resp *http.Response) {
	io.CopyN(io.Discard, resp.Body, 64<<10)
	resp.Body.Close()
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// Causes of a redirect that cannot be followed; TimeGate reports them
// wrapped in ErrNotTimeGate.
var (
	errNoLocation = errors.New("redirect without Location")
	errBadScheme  = errors.New("redirect to a URI that is not http or https")
)

// location resolves a response's Location against its request URL. A
// Location that is not an http or https URI ("javascript:", "ftp:",
// "file:") is refused: it can be neither fetched nor handed on as a URI-M.
func location(resp *http.Response) (string, error) {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "", errNoLocation
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return "", fmt.Errorf("bad Location %q: %w", loc, err)
	}
	if !isHTTPScheme(u.Scheme) {
		return "", fmt.Errorf("%w: %q", errBadScheme, loc)
	}
	return u.String(), nil
}

// isHTTPScheme reports whether scheme is http or https (case-insensitive,
// RFC 3986 §3.1).
func isHTTPScheme(scheme string) bool {
	return strings.EqualFold(scheme, "http") || strings.EqualFold(scheme, "https")
}

// hasHTTPScheme reports whether the absolute URI u starts with http: or
// https:.
func hasHTTPScheme(u string) bool {
	i := strings.IndexByte(u, ':')
	return i > 0 && isHTTPScheme(u[:i])
}

// headLike performs method (HEAD first) on uri, falling back to GET when the
// server refuses HEAD (405, 501), and follows redirects for which follow
// returns true, at most maxRedirects, failing on a loop. The caller closes
// the returned body.
func (c *Client) headLike(ctx context.Context, hc *http.Client, uri string, hdr http.Header, follow func(*http.Response) bool) (*http.Response, int, error) {
	method := http.MethodHead
	visited := map[string]bool{uri: true}
	for hops := 0; ; {
		resp, err := c.send(ctx, hc, method, uri, hdr)
		if err != nil {
			return nil, 0, err
		}
		if method == http.MethodHead && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
			discard(resp)
			method = http.MethodGet
			continue
		}
		if !isRedirect(resp.StatusCode) || !follow(resp) {
			return resp, hops, nil
		}
		next, err := location(resp)
		discard(resp)
		if err != nil {
			return nil, resp.StatusCode, err
		}
		if visited[next] {
			return nil, resp.StatusCode, fmt.Errorf("%w: %s", ErrRedirectLoop, next)
		}
		hops++
		if hops > c.maxRedirects() {
			return nil, resp.StatusCode, ErrTooManyRedirects
		}
		visited[next] = true
		uri = next
	}
}

// varyHas reports whether the Vary header lists token (case-insensitive).
func varyHas(h http.Header, token string) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); strings.EqualFold(f, token) || f == "*" {
				return true
			}
		}
	}
	return false
}

// linkHeader parses every Link field of h (joined as one list) against base.
func (c *Client) linkHeader(h http.Header, base string) ([]Link, error) {
	vs := h.Values("Link")
	if len(vs) == 0 {
		return nil, nil
	}
	return ParseLinkFormat(strings.Join(vs, ", "), &ParseOptions{Base: base, Strict: c.Strict})
}

// statusErr maps a final HTTP status to ErrNotFound or ErrStatus.
func statusErr(code int, notFound ...int) error {
	if code == http.StatusNotFound || code == http.StatusGone {
		return ErrNotFound
	}
	for _, n := range notFound {
		if code == n {
			return ErrNotFound
		}
	}
	return ErrStatus
}

// FetchTimeMap fetches the application/link-format TimeMap at uri
// (RFC 7089 §5) and every page it links with rel="timemap" whose type is
// absent or application/link-format and whose URI is http or https (others
// are skipped), breadth first, and returns the union,
// sorted and de-duplicated (see TimeMap.Sort). Original, TimeGate, Self and
// Pages come from the first document. A visited set (which also holds each
// page's rel="self") keeps pages that link back to each other, or to
// themselves, from being fetched twice; at most MaxPages pages are fetched
// and at most MaxBodyBytes read in total. Memory is that of the mementos.
//
// Errors are *Error with Op "timemap". A 404/410 for uri gives ErrNotFound;
// a 404 for a linked page counts as an empty page. Any other failure
// (network, timeout, 5xx, an HTML or XML page, whatever its Content-Type,
// a parse error, too many pages) returns the mementos gathered so far
// together with the error, so a caller can tell a partial TimeMap from a
// complete one: those of the pages read before, and, when a page's link
// format cannot be read on (a *ParseError), the mementos of that page
// before the error (the first page's too); a first page that fails
// otherwise gives no TimeMap.
func (c *Client) FetchTimeMap(ctx context.Context, uri string) (*TimeMap, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	hc := c.httpClient()
	budget := c.maxBody()
	visited := map[string]bool{stripFragment(uri): true}
	queue := []string{uri}
	var tm *TimeMap
	for pages := 0; len(queue) > 0; pages++ {
		u := queue[0]
		queue = queue[1:]
		if pages >= c.maxPages() {
			tm.Sort()
			return tm, &Error{Op: "timemap", URI: u, Err: fmt.Errorf("%w (limit %d)", ErrTooManyPages, c.maxPages())}
		}
		page, final, err := c.fetchPage(ctx, hc, u, &budget)
		if err != nil {
			if page != nil {
				// the mementos read before the error (a cut or broken body)
				tm = joinPage(tm, page)
			}
			if tm == nil {
				return nil, err
			}
			if IsNotFound(err) {
				continue
			}
			tm.Sort()
			return tm, err
		}
		visited[stripFragment(final)] = true
		if page.Self.URI != "" {
			visited[stripFragment(page.Self.URI)] = true
		}
		tm = joinPage(tm, page)
		for _, p := range page.Pages {
			if p.Type != "" {
				// Compare the media type itself: a page typed
				// "application/link-format; charset=utf-8" is one too.
				if mt, _, err := mime.ParseMediaType(p.Type); err != nil || mt != MediaTypeLinkFormat {
					continue
				}
			}
			if !hasHTTPScheme(p.URI) {
				// A page that cannot be fetched over HTTP ("ftp:",
				// "urn:", "mailto:") is not part of this TimeMap's
				// paging; it must not fail the mementos already read.
				c.debug("memento: skipped non-HTTP TimeMap page", "uri", p.URI)
				continue
			}
			k := stripFragment(p.URI)
			if visited[k] {
				continue
			}
			visited[k] = true
			queue = append(queue, p.URI)
		}
	}
	tm.Sort()
	return tm, nil
}

func stripFragment(u string) string {
	if i := strings.IndexByte(u, '#'); i >= 0 {
		return u[:i]
	}
	return u
}

// joinPage adds page's mementos and counts to tm (the first page: page
// itself).
func joinPage(tm, page *TimeMap) *TimeMap {
	if tm == nil {
		return page
	}
	tm.Mementos = append(tm.Mementos, page.Mementos...)
	tm.Invalid += page.Invalid
	tm.Duplicates += page.Duplicates
	if tm.Original == "" {
		tm.Original, tm.RawOriginal = page.Original, page.RawOriginal
	}
	if tm.TimeGate == "" {
		tm.TimeGate = page.TimeGate
	}
	return tm
}

// fetchPage GETs one TimeMap document, following plain redirects, and
// parses it against its final URL.
func (c *Client) fetchPage(ctx context.Context, hc *http.Client, uri string, budget *int64) (*TimeMap, string, error) {
	fail := func(code int, err error) (*TimeMap, string, error) {
		return nil, "", &Error{Op: "timemap", URI: uri, StatusCode: code, Err: err}
	}
	visited := map[string]bool{uri: true}
	cur := uri
	var resp *http.Response
	for hops := 0; ; hops++ {
		r, err := c.send(ctx, hc, http.MethodGet, cur, http.Header{"Accept": {MediaTypeLinkFormat + ", */*;q=0.1"}})
		if err != nil {
			return fail(0, err)
		}
		if !isRedirect(r.StatusCode) {
			resp = r
			break
		}
		next, err := location(r)
		discard(r)
		if err != nil {
			return fail(r.StatusCode, err)
		}
		if visited[next] {
			return fail(r.StatusCode, fmt.Errorf("%w: %s", ErrRedirectLoop, next))
		}
		if hops+1 > c.maxRedirects() {
			return fail(r.StatusCode, ErrTooManyRedirects)
		}
		visited[next] = true
		cur = next
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fail(resp.StatusCode, statusErr(resp.StatusCode))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/html" {
		return fail(resp.StatusCode, fmt.Errorf("%w: Content-Type %s", ErrNotTimeMap, mt))
	}
	if resp.ContentLength > *budget {
		return fail(resp.StatusCode, fmt.Errorf("%w: Content-Length %d > %d", ErrBodyTooLarge, resp.ContentLength, *budget))
	}
	// An HTML or XML page served under another type (an error or soft-404
	// page as text/plain or application/link-format) parses leniently as
	// links without rels, an empty TimeMap: recognise it by its first
	// bytes (the WHATWG sniffing rules), so that it is a failure, not "no
	// mementos".
	body := bufio.NewReaderSize(resp.Body, 4<<10)
	if head, _ := body.Peek(512); len(head) > 0 {
		if ct := http.DetectContentType(head); strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "text/xml") {
			return fail(resp.StatusCode, fmt.Errorf("%w: the body is %s", ErrNotTimeMap, ct))
		}
	}
	lr := &limitReader{r: body, n: *budget, size: resp.ContentLength}
	tm, err := ReadTimeMap(lr, &ParseOptions{Base: cur, Strict: c.Strict, Logger: c.Logger})
	*budget = lr.n
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
			// The transport may report a cancelled body read as a closed
			// connection; say why it was closed (Error.Timeout).
			err = fmt.Errorf("%w: %w", cerr, err)
		}
		var pe *ParseError
		if errors.As(err, &pe) && (len(tm.Mementos) > 0 || tm.Invalid > 0) {
			// a body that cannot be read on: the links before the error
			// are the archive's
			_, _, err = fail(resp.StatusCode, err)
			return tm, cur, err
		}
		return fail(resp.StatusCode, err)
	}
	return tm, cur, nil
}

// limitReader fails with ErrBodyTooLarge once more than n bytes are read.
// Len reports the Content-Length as a size hint for ReadTimeMap.
type limitReader struct {
	r    io.Reader
	n    int64
	size int64
}

func (l *limitReader) Len() int {
	if l.size > 0 && l.size <= l.n {
		return int(l.size)
	}
	return 0
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, ErrBodyTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		return 0, ErrBodyTooLarge
	}
	return n, err
}

// TimeGateResult is a TimeGate's answer for one Accept-Datetime.
type TimeGateResult struct {
	// URIM is the selected memento: the Location of a 302/303/307
	// (pattern 2.1) or the Content-Location of a 200 (pattern 2.2), or the
	// TimeGate's own final URI for a 200 without it (pattern 2.3),
	// resolved against the request URI.
	URIM string
	// Datetime is the selected memento's datetime: the Memento-Datetime
	// header of a 200, else the datetime of the Link header's memento link
	// for URIM; zero when neither is given.
	Datetime time.Time
	// StatusCode is the status of the answer (302, 303, 307 or 200).
	StatusCode int
	// Vary is true when the answer's Vary lists accept-datetime, as
	// RFC 7089 §4.1.2/§4.2.1 require of TimeGates.
	Vary bool
	// URIG is the TimeGate URI that answered (after plain redirects).
	URIG string
	// Links is the answer's Link header, resolved against URIG.
	Links []Link
	// Original and TimeMapURI are the targets of its rel="original" and
	// first rel="timemap" links; empty when absent.
	Original, TimeMapURI string
}

// TimeGate asks the TimeGate at uriG for the memento closest to t
// (RFC 7089 §4): HEAD with Accept-Datetime (GET when HEAD gives 405 or
// 501). A zero t sends no Accept-Datetime (the TimeGate then picks the most
// recent). A 301/302/303/307/308 is the TimeGate's answer when it has
// Vary: accept-datetime or a Link header with rel original or memento;
// other redirects (http→https, moved services) are followed, at most
// MaxRedirects, loops refused. A redirect with Memento-Datetime but without
// Vary is a memento, not a TimeGate answer (ErrNotTimeGate). A 200 with
// Memento-Datetime is an answer (patterns 2.2 and 2.3).
//
// Errors are *Error with Op "timegate": ErrNotFound for 404, 406 and 410;
// ErrNotTimeGate for a 200 without Memento-Datetime, a redirect without
// Location, to a URI that is not http or https ("javascript:", "ftp:") or
// back to the TimeGate itself (also ErrRedirectLoop), or an unparsable Link
// header; ErrStatus for other statuses.
func (c *Client) TimeGate(ctx context.Context, uriG string, t time.Time) (*TimeGateResult, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	fail := func(code int, err error) (*TimeGateResult, error) {
		return nil, &Error{Op: "timegate", URI: uriG, StatusCode: code, Err: err}
	}
	hdr := http.Header{}
	if !t.IsZero() {
		hdr.Set("Accept-Datetime", FormatHTTPDate(t))
	}
	resp, code, err := c.headLike(ctx, c.httpClient(), uriG, hdr, func(r *http.Response) bool {
		if varyHas(r.Header, "accept-datetime") || r.Header.Get("Memento-Datetime") != "" {
			return false
		}
		links, _ := c.linkHeader(r.Header, r.Request.URL.String())
		for i := range links {
			if links[i].HasRel("original") || links[i].IsMemento() {
				return false
			}
		}
		return true
	})
	if err != nil {
		if errors.Is(err, errNoLocation) || errors.Is(err, errBadScheme) {
			err = fmt.Errorf("%w: %w", ErrNotTimeGate, err)
		}
		return fail(code, err)
	}
	defer discard(resp)
	final := resp.Request.URL.String()
	res := &TimeGateResult{StatusCode: resp.StatusCode, URIG: final, Vary: varyHas(resp.Header, "accept-datetime")}
	switch {
	case isRedirect(resp.StatusCode) && !res.Vary && resp.Header.Get("Memento-Datetime") != "":
		// A redirect that is itself a memento (a captured redirect,
		// RFC 7089 §4.5.4), not a TimeGate's choice.
		return fail(resp.StatusCode, fmt.Errorf("%w: redirect with Memento-Datetime and without Vary: accept-datetime is a memento", ErrNotTimeGate))
	case isRedirect(resp.StatusCode):
		loc, err := location(resp)
		if err != nil {
			return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrNotTimeGate, err))
		}
		if stripFragment(loc) == stripFragment(final) {
			// Following it would ask the same TimeGate again.
			return fail(resp.StatusCode, fmt.Errorf("%w: %w: Location is the TimeGate itself", ErrNotTimeGate, ErrRedirectLoop))
		}
		res.URIM = loc
	case resp.StatusCode == http.StatusOK:
		md := resp.Header.Get("Memento-Datetime")
		if md == "" {
			return fail(resp.StatusCode, fmt.Errorf("%w: 200 without Memento-Datetime", ErrNotTimeGate))
		}
		dt, err := ParseHTTPDateLenient(md)
		if err != nil {
			return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrNotTimeGate, err))
		}
		res.Datetime = dt
		res.URIM = final
		if cl := resp.Header.Get("Content-Location"); cl != "" {
			if u, err := resp.Request.URL.Parse(cl); err == nil {
				res.URIM = u.String()
			}
		}
	default:
		return fail(resp.StatusCode, statusErr(resp.StatusCode, http.StatusNotAcceptable))
	}
	links, err := c.linkHeader(resp.Header, final)
	if err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%w: Link header: %w", ErrNotTimeGate, err))
	}
	res.Links = links
	for i := range links {
		l := &links[i]
		if l.HasRel("original") && res.Original == "" {
			res.Original = l.Target
		}
		if l.HasRel("timemap") && res.TimeMapURI == "" {
			res.TimeMapURI = l.Target
		}
		if res.Datetime.IsZero() && l.IsMemento() && l.Target == res.URIM {
			if dv, ok := l.Param("datetime"); ok {
				if dt, err := ParseHTTPDateLenient(dv); err == nil {
					res.Datetime = dt
				}
			}
		}
	}
	return res, nil
}

// TimeMap returns the mementos and links of the answer's Link header as a
// sorted TimeMap (the first/prev/next/last navigation most TimeGates send).
// Memento links without a usable datetime are counted in Invalid.
func (r *TimeGateResult) TimeMap() *TimeMap {
	tm, _ := NewTimeMap(r.Links, nil)
	return tm
}

// MementoInfo is what a URI-M says about itself in its headers
// (RFC 7089 §4.1.1, §4.2.2).
type MementoInfo struct {
	// URIM is the URI that answered with Memento-Datetime (after the
	// archive's own redirects between captures).
	URIM string
	// Datetime is its Memento-Datetime; it wins over any datetime
	// advertised for the URI-M elsewhere (RFC 7089 §4.5.4).
	Datetime time.Time
	// StatusCode is the status of that response; a 3xx memento (a captured
	// redirect) carries Memento-Datetime too (§4.5.4).
	StatusCode int
	// Links is its Link header, resolved against URIM.
	Links []Link
	// Original, TimeGate and TimeMapURI are the targets of its first
	// rel="original", rel="timegate" and rel="timemap" links.
	Original, TimeGate, TimeMapURI string
}

// Memento reads the Memento headers of uriM: HEAD (GET when HEAD gives 405
// or 501), following redirects that carry no Memento-Datetime (or that are
// TimeGate answers, with Vary: accept-datetime), at most MaxRedirects.
// Errors are *Error with Op "memento": ErrNotFound for 404/410,
// ErrNotMemento for an answer without a valid Memento-Datetime, ErrStatus
// for other statuses.
func (c *Client) Memento(ctx context.Context, uriM string) (*MementoInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout())
	defer cancel()
	fail := func(code int, err error) (*MementoInfo, error) {
		return nil, &Error{Op: "memento", URI: uriM, StatusCode: code, Err: err}
	}
	resp, code, err := c.headLike(ctx, c.httpClient(), uriM, nil, func(r *http.Response) bool {
		return r.Header.Get("Memento-Datetime") == "" || varyHas(r.Header, "accept-datetime")
	})
	if err != nil {
		return fail(code, err)
	}
	defer discard(resp)
	md := resp.Header.Get("Memento-Datetime")
	if md == "" {
		if resp.StatusCode >= 400 {
			return fail(resp.StatusCode, statusErr(resp.StatusCode))
		}
		return fail(resp.StatusCode, fmt.Errorf("%w: no Memento-Datetime", ErrNotMemento))
	}
	dt, err := ParseHTTPDateLenient(md)
	if err != nil {
		return fail(resp.StatusCode, fmt.Errorf("%w: %w", ErrNotMemento, err))
	}
	final := resp.Request.URL.String()
	info := &MementoInfo{URIM: final, Datetime: dt, StatusCode: resp.StatusCode}
	links, err := c.linkHeader(resp.Header, final)
	if err != nil {
		// The datetime is known; a broken Link header is reported, not fatal.
		c.debug("memento: bad Link header", "uri", final, "err", err)
	}
	info.Links = links
	for i := range links {
		l := &links[i]
		if l.HasRel("original") && info.Original == "" {
			info.Original = l.Target
		}
		if l.HasRel("timegate") && info.TimeGate == "" {
			info.TimeGate = l.Target
		}
		if l.HasRel("timemap") && info.TimeMapURI == "" {
			info.TimeMapURI = l.Target
		}
	}
	return info, nil
}
