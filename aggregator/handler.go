package aggregator

import (
	"bytes"
	"log/slog"

	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/surt"
	"github.com/mementokit/mementokit/timestamp"
)

// DefaultPageSize is the number of mementos per paged TimeMap
// (/timemap/link/{N}/{URI-R}), the Time Travel timemap.page.size.
const DefaultPageSize = 500

// MaxURIRLen is the longest URI-R the HTTP API accepts, in bytes after
// NormalizeURIR (scheme added, non-URI bytes percent-encoded); a longer one
// is a 400 without asking any archive, as the Time Travel service answers
// URLs over 1024 characters (internal/spec/TIMETRAVEL.md §1, "bad URL"). Caches keep
// keys of up to 16 KiB, so stored entries always fit.
const MaxURIRLen = 1024

const (
	ctLink = "application/link-format"
	ctJSON = "application/json"
	ctCDXJ = "application/cdxj+ors"
	ctHTML = "text/html; charset=utf-8"
	ctText = "text/plain; charset=utf-8"
)

// Handler returns the aggregator's HTTP API (GET and HEAD, and POST
// answered as GET, its body unread, as MemGator answers every method on
// its read-only paths; OPTIONS, a browser's CORS preflight, gets 204
// allowing Accept-Datetime and Cache-Control from any origin on the paths
// below, and 404 on any other path, as GET does (IsAPIPath); any other
// method, such as PUT or DELETE, asks for a change this read-only API
// cannot make and gets 405 with Allow: GET, HEAD, POST, OPTIONS):
//
//	/timemap/{link|json|cdxj}/{URI-R}     the whole TimeMap (MemGator layouts)
//	/timemap/{link|json}/{N}/{URI-R}      page N (1-based) of at most 500 mementos
//	/timemap/index/{URI-R}                Time Travel's "DIY" index: one rel="timemap" per archive (no archive asked)
//	/timemap/index/json/{URI-R}           the same index in Time Travel's JSON (timemap_index)
//	/timegate/{URI-R}                     302 to the memento closest to Accept-Datetime
//	/memento/{datetime}/{URI-R}           302 to the memento closest to datetime
//	/memento/{link|json|cdxj}/{datetime}/{URI-R}  MemGator's description: first, prev, closest, next, last
//	/memento/proxy/{datetime}/{URI-R}     the closest memento's own bytes, streamed from its archive (MemGator)
//	/api/json/{datetime}/{URI-R}          the Time Travel JSON description
//	/api/{link|cdxj|proxy}/{datetime}/{URI-R}  MemGator's alias of /memento/{link|cdxj|proxy}/...; another /api/... is 400
//	/list/{datetime}/{URI-R}              an HTML list of the mementos around datetime
//	/about                                endpoints, archives with their state, configuration (text; JSON on Accept: application/json)
//	/archives[/{json|xml}]                the registry as MemGator JSON or Time Travel archivelist.xml
//
// Archives of type "cms" give, at a datetime, their latest memento not
// after it (navigateAt). With Options.MissToList a miss of /memento or
// /api/json asked by a browser is a 302 to /list.
//
// The URI-R is the rest of the raw request target (path and query, never
// decoded, so "%26" reaches the archives as "%26"); a URI-R percent-encoded
// as a whole (http%3A%2F%2F...) is decoded once, a missing scheme becomes
// http:// (also for "//host/..." and "http:host"), an upper-case scheme is
// lower-cased, a doubled "http://http://" is repaired, the host is
// normalized (NormalizeHost: "ARCHIVE.org.", "archive..org" and
// "user@archive.org:80" are all http://archive.org), and bytes that
// cannot appear in a URI ('<', '>', '"', spaces, non-ASCII, a '%' that
// starts no %XX escape) are percent-encoded. {datetime} is YYYY[MM[DD[hh[mm[ss]]]]] or an HTTP date;
// a datetime before 1000-01-01 is read as 1000-01-01 (EarliestDatetime
// gives the one rule for the earliest datetimes).
//
// Statuses: 400 for a bad URI-R, datetime or Accept-Datetime (RFC 7089
// §4.5.3: Accept-Datetime must be an rfc1123-date in GMT), for more than
// one Accept-Datetime header (§2.1.1: the header carries one datetime),
// and for a page number that is not in plain decimal digits without a
// leading zero (/timemap/link/01/... is 400, as +1 is); 403 for a
// blacklisted host, before any archive is asked; 404 when no memento is
// found (also when some archives failed, if any answered "none" or was
// skipped by its MementoMap: the text and Archive-Failures say which);
// 502 when every asked archive failed (or all are dormant) and none was
// skipped by its map; 504 for an only-if-cached miss or when every asked
// archive timed out. The text of an answer without mementos is Headline. Every
// aggregated response carries Archive-Failures: id=reason, ... when some
// archive failed or was not asked because it is dormant (id=dormant), and
// Cache-Degraded: op=reason, ... when a cache call failed or did not answer
// within Options.CacheTimeout (the request was then answered by searching).
//
// Each request that reaches a lookup is logged once: the Handler writes
// a "request" record (info level, to Options.Logger) unless the
// ResponseWriter is an AnswerLogger that takes the answer into its own
// access record.
func (ag *Aggregator) Handler() http.Handler { return handler{ag: ag} }

// AnswerLogger is implemented by an http.ResponseWriter whose server
// writes one access record per request and wants the aggregator's answer
// in it (URI-R, scenario, source, status, memento count, Archive-Failures,
// Accept-Datetime): the Handler calls LogAnswer once per lookup, before
// writing the response, and writes no "request" record of its own when
// LogAnswer returns true. ans must not be modified or kept past the
// request: once every request sharing a search has answered, the
// search's merged list goes back for reuse by later searches.
type AnswerLogger interface {
	LogAnswer(r *http.Request, ans *Answer) bool
}

type handler struct {
	ag    *Aggregator
	al    AnswerLogger // the ResponseWriter's, if it is one
	holds *bodyHolds   // the body bytes of the searches the request used, let go once it is answered
}

// ServeHTTP routes a request to its endpoint (see Aggregator.Handler).
func (h handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.al, _ = w.(AnswerLogger)
	hd := w.Header()
	hd["Access-Control-Allow-Origin"] = hvAllowOrigin // canonical keys, shared values: no allocation
	hd["Access-Control-Expose-Headers"] = hvExposeHeaders
	raw := r.RequestURI
	if !strings.HasPrefix(raw, "/") {
		raw = r.URL.RequestURI() // absolute-form request target
	}
	if r.Method == http.MethodOptions {
		if !IsAPIPath(raw) {
			writeBody(w, http.StatusNotFound, ctText, []byte("Not found: "+ShortTarget(raw)+"\n"))
			return
		}
		preflight(w)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		hd["Allow"] = hvAllow
		writeBody(w, http.StatusMethodNotAllowed, ctText, []byte("Method not allowed: "+r.Method+"\n"))
		return
	}
	if r.Method == http.MethodHead {
		w = headWriter{w} // same headers, no body, whatever the server does
	}
	holds := bodyHolds{request: true}
	h.holds = &holds
	defer holds.release() // the answer is written (and stored): its body bytes go back
	switch {
	case strings.HasPrefix(raw, "/timemap/index/json/"):
		h.diyIndexJSON(w, raw[len("/timemap/index/json/"):])
	case strings.HasPrefix(raw, "/timemap/index/"):
		h.diyIndex(w, raw[len("/timemap/index/"):])
	case strings.HasPrefix(raw, "/timemap/"):
		h.timeMap(w, r, raw[len("/timemap/"):])
	case strings.HasPrefix(raw, "/timegate/"):
		h.timeGate(w, r, raw[len("/timegate/"):])
	case strings.HasPrefix(raw, "/memento/"):
		rest := raw[len("/memento/"):]
		if f, tail, ok := strings.Cut(rest, "/"); ok && (f == "link" || f == "json" || f == "cdxj") {
			h.dated(w, r, raw, tail, func(w http.ResponseWriter, r *http.Request, urir string, t time.Time) {
				h.description(w, r, f, urir, t)
			})
			return
		}
		if tail, ok := strings.CutPrefix(rest, "proxy/"); ok {
			h.dated(w, r, raw, tail, h.proxyMemento)
			return
		}
		if f, tail, ok := strings.Cut(rest, "/"); ok && unknownFormat(f, tail) {
			writeBody(w, http.StatusBadRequest, ctText, []byte("Unknown format: "+ShortTarget(f)+"\nExpected: /memento/{link|json|cdxj|proxy}/{DATETIME}/{URI-R} or /memento/{DATETIME}/{URI-R}\n"))
			return
		}
		h.dated(w, r, raw, rest, h.memento)
	case strings.HasPrefix(raw, "/api/json/"):
		h.dated(w, r, raw, raw[len("/api/json/"):], h.apiJSON)
	case strings.HasPrefix(raw, "/api/link/"), strings.HasPrefix(raw, "/api/cdxj/"):
		// MemGator's alias of /memento/{link|cdxj}/...
		f, tail, _ := strings.Cut(raw[len("/api/"):], "/")
		h.dated(w, r, raw, tail, func(w http.ResponseWriter, r *http.Request, urir string, t time.Time) {
			h.description(w, r, f, urir, t)
		})
	case strings.HasPrefix(raw, "/api/proxy/"):
		h.dated(w, r, raw, raw[len("/api/proxy/"):], h.proxyMemento) // MemGator's alias of /memento/proxy/...
	case strings.HasPrefix(raw, "/api/"):
		writeBody(w, http.StatusBadRequest, ctText, []byte("Malformed request: "+ShortTarget(raw)+"\nExpected: /api/{FORMAT}/{DATETIME}/{URI-R} (FORMAT => link|json|cdxj, DATETIME => YYYY[MM[DD[hh[mm[ss]]]]])\n"))
	case strings.HasPrefix(raw, "/list/"):
		h.dated(w, r, raw, raw[len("/list/"):], h.list)
	case raw == "/about" || strings.HasPrefix(raw, "/about?"):
		h.about(w, r)
	case raw == "/archives" || strings.HasPrefix(raw, "/archives/") || strings.HasPrefix(raw, "/archives?"):
		rest := strings.TrimPrefix(raw, "/archives")
		rest, _, _ = strings.Cut(rest, "?")
		h.registry(w, r, rest)
	default:
		writeBody(w, http.StatusNotFound, ctText, []byte("Not found: "+ShortTarget(raw)+"\n"))
	}
}

// IsAPIPath reports whether the request target raw (path and query, as
// sent) is on one of the Handler's paths (/timemap/, /timegate/,
// /memento/, /api/, /list/, /about, /archives), whatever else it holds:
// the paths a CORS preflight (OPTIONS) is answered on. A target on no path
// is answered 404 by every method.
func IsAPIPath(raw string) bool {
	for _, p := range apiPrefixes {
		if strings.HasPrefix(raw, p) {
			return true
		}
	}
	p, _, _ := strings.Cut(raw, "?")
	return p == "/about" || p == "/archives"
}

// MaxShownTarget is the most bytes of a request target, URI-R, datetime
// or header value that a log record or an error answer shows
// (ShortTarget): 2 KiB. Error answers (text/plain) also write control
// bytes as %XX, so that what they echo is one line; the block page
// (text/html) HTML-escapes the URI-R (TestErrorAnswersCapEchoedText).
const MaxShownTarget = 2048

// ShortTarget returns the request target raw as log records and error
// answers show it: whole up to MaxShownTarget bytes, else its first
// MaxShownTarget bytes (cut at the start of a UTF-8 sequence) and the
// marker "...[N bytes in all]", N the length of raw in bytes.
func ShortTarget(raw string) string {
	if len(raw) <= MaxShownTarget {
		return raw
	}
	n := MaxShownTarget
	for n > MaxShownTarget-utf8.UTFMax && n > 0 && !utf8.RuneStart(raw[n]) {
		n--
	}
	return raw[:n] + "...[" + strconv.Itoa(len(raw)) + " bytes in all]"
}

// shownText is text from a request (a URI-R, a path, a header value) as
// an error answer of type text/plain shows it: cut by ShortTarget, its
// control bytes (CR, LF, NUL, DEL ...) written as %XX, so that it is one
// line of at most MaxShownTarget bytes and a marker.
func shownText(s string) string {
	s = ShortTarget(s)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			var b strings.Builder
			b.Grow(len(s) + 8)
			for j := 0; j < len(s); j++ {
				if c := s[j]; c < 0x20 || c == 0x7f {
					b.WriteString(fmt.Sprintf("%%%02X", c))
				} else {
					b.WriteByte(c)
				}
			}
			return b.String()
		}
	}
	return s
}

// apiPrefixes are the path prefixes the Handler routes (ServeHTTP).
var apiPrefixes = []string{"/timemap/", "/timegate/", "/memento/", "/api/", "/list/", "/archives/"}

// headWriter answers HEAD requests: headers (Content-Length included) as
// for GET, body discarded.
type headWriter struct{ http.ResponseWriter }

func (h headWriter) Write(p []byte) (int, error) { return len(p), nil }

// Header values every answer carries, shared by all (net/http never
// writes them; len == cap, so an Add elsewhere copies).
var (
	hvAllowOrigin   = []string{"*"}
	hvAllow         = []string{"GET, HEAD, POST, OPTIONS"}
	hvExposeHeaders = []string{"Link, Location, X-Memento-Count, Archive-Failures, Cache-Degraded, Memento-Datetime"}
	hvContentType   = map[string][]string{}
)

func init() {
	for _, ct := range []string{ctLink, ctJSON, ctCDXJ, ctHTML, ctText} {
		hvContentType[ct] = []string{ct}
	}
}

func writeBody(w http.ResponseWriter, status int, ctype string, body []byte) {
	hd := w.Header()
	if v, ok := hvContentType[ctype]; ok {
		hd["Content-Type"] = v
	} else {
		hd.Set("Content-Type", ctype)
	}
	hd.Set("Content-Length", strconv.Itoa(len(body)))
	// The answer may echo request text (a URI-R, a datetime, a header):
	// a browser must not sniff it into HTML.
	hd["X-Content-Type-Options"] = hvNoSniff
	w.WriteHeader(status)
	_, _ = w.Write(body) // for HEAD the server discards it
}

var hvNoSniff = []string{"nosniff"}

// NormalizeURIR turns the URI-R part of a request path into the URI-R the
// archives are asked about, the cache is keyed by and the blacklist judges,
// as the Handler documents: the authority is rewritten as
// NormalizeHost[:port] (userinfo dropped, a default port removed; '\'
// ends the authority as in browsers), so that every spelling of a host is
// one URI-R; the rest (path, query, fragment) is kept byte for byte, only
// bytes that cannot appear in a URI percent-encoded (percent-escapes there
// are never decoded). The error names the problem.
func NormalizeURIR(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("empty URI-R")
	}
	if hasPrefixFold(s, "http%3a") || hasPrefixFold(s, "https%3a") {
		d, err := url.PathUnescape(s)
		if err != nil {
			return "", fmt.Errorf("URI-R %q: %v", ShortTarget(s), err)
		}
		s = d
	}
	if i := strings.Index(s, "://"); i > 0 && surt.SchemeLen(s) == i {
		if lower := strings.ToLower(s[:i]); lower != s[:i] {
			s = lower + s[i:]
		}
	} else if ls := strings.ToLower(s); strings.HasPrefix(ls, "http:/") || strings.HasPrefix(ls, "https:/") {
		// a proxy collapsed "//" into "/"
		i := strings.IndexByte(s, '/')
		s = strings.ToLower(s[:i]) + "/" + s[i:]
	} else if strings.HasPrefix(ls, "http:") || strings.HasPrefix(ls, "https:") {
		// "http:example.com": no slashes at all
		i := strings.IndexByte(s, ':')
		s = strings.ToLower(s[:i]) + "://" + s[i+1:]
	} else if strings.HasPrefix(s, "//") {
		s = "http:" + s // scheme-relative
	} else {
		s = "http://" + s
	}
	for _, dbl := range []string{"http://http://", "http://https://", "https://http://", "https://https://"} {
		for strings.HasPrefix(s, dbl) {
			s = s[strings.Index(s, "://")+3:]
		}
	}
	i := strings.Index(s, "://")
	scheme, rest := s[:i], s[i+3:]
	if scheme != "http" && scheme != "https" {
		return "", fmt.Errorf("URI-R %q: scheme %q is not http or https", ShortTarget(s), ShortTarget(scheme))
	}
	// The authority ends at '/', '?' or '#', and at '\', which browsers
	// read as '/' in http(s) URLs (the WHATWG URL standard).
	end := strings.IndexAny(rest, "/?#\\")
	if end < 0 {
		end = len(rest)
	}
	auth, tail := rest[:end], rest[end:]
	if strings.HasPrefix(tail, "\\") {
		tail = "/" + tail[1:]
	}
	// Userinfo is dropped: archives ignore it, and "a.org@b.org" must not
	// be read as one host here and another there.
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		auth = auth[at+1:]
	}
	rawHost, port, ok := splitAuthority(auth)
	if !ok {
		return "", fmt.Errorf("URI-R %q: no valid host", ShortTarget(s))
	}
	host, err := NormalizeHost(rawHost)
	if err != nil {
		return "", fmt.Errorf("URI-R %q: no valid host: %v", ShortTarget(s), ShortTarget(err.Error()))
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return "", fmt.Errorf("URI-R %q: port %q is not in 1-65535", ShortTarget(s), ShortTarget(port))
		}
		port = strings.TrimLeft(port, "0")
		if port == defaultPort(scheme) {
			port = ""
		}
	}
	hp, et := hostPort(host, port), escapeNonURI(tail)
	if h := len(scheme) + len("://"); len(s) != h+len(hp)+len(et) || s[:len(scheme)] != scheme || s[len(scheme):h] != "://" ||
		s[h:h+len(hp)] != hp || s[h+len(hp):] != et {
		s = scheme + "://" + hp + et // the common URI-R, already in this form, is kept as it is
	}
	if len(s) > MaxURIRLen {
		return "", fmt.Errorf("URI-R longer than %d bytes", MaxURIRLen)
	}
	// s parses as a URL (FuzzNormalizeURIR checks it): its host is
	// NormalizeHost's, its port digits, and escapeNonURI left no control,
	// space or stray '%' in the rest.
	return s, nil
}

// hasPrefixFold reports whether s begins with prefix, ASCII letters
// compared without case (prefix in lower case).
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// escapeNonURI percent-encodes the bytes that cannot appear in a URI
// (RFC 3986 §2: controls, space, '"', '<', '>', '\\', '^', '`', '{', '|',
// '}', every non-ASCII byte, and a '%' that does not start a "%XX" escape,
// as in "100%.html" or IIS's "%u00e9"), so that the URI-R can be written
// inside '<...>' in link format and sent upstream; a valid URI is
// unchanged and existing escapes are kept as they are.
func escapeNonURI(s string) string {
	const hex = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		stray := c == '%' && (i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]))
		if uriByte[c] && !stray {
			if b != nil {
				b = append(b, c)
			}
			continue
		}
		if b == nil {
			b = append(make([]byte, 0, len(s)+16), s[:i]...)
		}
		b = append(b, '%', hex[c>>4], hex[c&15])
	}
	if b == nil {
		return s
	}
	return string(b)
}

// uriByte tells the bytes that may appear in a URI as they are (RFC 3986
// §2): printable ASCII except '"', '<', '>', '\\', '^', '`', '{', '|', '}'.
var uriByte = func() (t [256]bool) {
	for c := '!'; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune("\"<>\\^`{|}", c)
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (h handler) base() string { return h.ag.opts.BaseURL }

// prelude normalises the URI-R and applies the blacklist; it reports
// whether the request may go on.
func (h handler) prelude(w http.ResponseWriter, rawR string) (string, bool) {
	urir, err := NormalizeURIR(rawR)
	if err != nil {
		writeBody(w, http.StatusBadRequest, ctText, []byte("Bad request: "+shownText(err.Error())+"\n"))
		return "", false
	}
	if h.ag.opts.Blacklist.blocksNormalized(urir) {
		w.Header().Set("Link", "<"+urir+`>; rel="original"`)
		body := "<!doctype html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1><p>The host of " +
			html.EscapeString(ShortTarget(urir)) + " is on this aggregator's block list; no archive was asked.</p></body></html>\n"
		writeBody(w, http.StatusForbidden, ctHTML, []byte(body))
		return "", false
	}
	return urir, true
}

func (h handler) lookup(w http.ResponseWriter, r *http.Request, f Family, urir string, at time.Time) (*Answer, bool) {
	ans, err := h.ag.lookup(r.Context(), f, urir, at, ParseCacheControl(r.Header.Values("Cache-Control")), true, h.holds)
	if err != nil {
		writeBody(w, http.StatusServiceUnavailable, ctText, []byte("Request ended: "+err.Error()+"\n"))
		return nil, false
	}
	if h.al == nil || !h.al.LogAnswer(r, ans) {
		h.ag.logAnswer(r, urir, ans)
	}
	if ans.Failures != "" {
		w.Header().Set("Archive-Failures", ans.Failures)
	}
	if ans.CacheDegraded != "" {
		w.Header().Set("Cache-Degraded", ans.CacheDegraded)
	}
	switch {
	case ans.prep != nil:
		w.Header()["Last-Modified"] = ans.prep.lastModified // ans.Updated, written once per entry
	case !ans.Updated.IsZero():
		w.Header().Set("Last-Modified", memento.FormatHTTPDate(ans.Updated))
	}
	if ans.Status == http.StatusOK {
		return ans, true
	}
	w.Header().Set("Link", "<"+urir+`>; rel="original"`)
	if ans.Status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(BusyRetryAfter))
	}
	writeBody(w, ans.Status, ctText, []byte(Headline(ans)+"\n"))
	return nil, false
}

// logAnswer writes the "request" record of one answer (the Time Travel
// "stats" line, as a structured record) when the logger takes info
// records: the attributes are built only then, in place. Its "archives"
// attribute is the search's Result.OutcomeLog ("" for an answer without
// a search).
func (ag *Aggregator) logAnswer(r *http.Request, urir string, ans *Answer) {
	ctx := r.Context()
	if !ag.log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	ag.log.LogAttrs(ctx, slog.LevelInfo, "request", slog.String("urir", urir), slog.String("path", r.URL.Path),
		slog.String("scenario", ans.Scenario), slog.Bool("from_cache", ans.Source == FromCache), slog.Int("status", ans.Status),
		slog.Int("mementos", len(ans.Mementos)), slog.String("accept_datetime", r.Header.Get("Accept-Datetime")),
		slog.String("failures", ans.Failures), slog.String("archives", outcomeLog(ans)))
}

// outcomeLog is Result.OutcomeLog of the answer's search, "" for an answer
// made without one.
func outcomeLog(ans *Answer) string {
	if ans.Result == nil {
		return ""
	}
	return ans.Result.OutcomeLog()
}

// Headline is the one-line text of an answer without mementos, naming
// what each archive did: "No mementos found for URI-R" with, after a
// search, the outcome counts (Counts.String) and the Archive-Failures
// value, so that a 404 where some archives failed says so; "Every asked
// archive failed for URI-R" (502); "Every asked archive timed out"
// (504); "Not cached" for an only-if-cached miss (504). A cached "none"
// says it comes from the cache and when it was searched.
func Headline(ans *Answer) string {
	urir := shownText(ans.URIR)
	detail := ""
	if ans.Result != nil {
		detail = " (" + ans.Result.Counts().String()
		if ans.Failures != "" {
			detail += ": " + ans.Failures
		}
		detail += ")"
	} else if ans.Source == FromCache && !ans.Updated.IsZero() {
		detail = " (cached answer of " + isoDate(ans.Updated) + ")"
	}
	switch ans.Status {
	case http.StatusOK:
		return count.Of(len(ans.Mementos), "memento", "mementos") + " of " + urir + detail
	case http.StatusNotFound:
		return "No mementos found for " + urir + detail
	case http.StatusBadGateway:
		if c := ans.Result; c != nil && c.Counts().Failed == 0 {
			return "No archive could be asked for " + urir + ": every one is dormant" + detail
		}
		return "Every asked archive failed for " + urir + detail
	case http.StatusGatewayTimeout:
		if ans.Scenario == "only-if-cached" {
			return "Not cached: " + urir
		}
		return "Every asked archive timed out for " + urir + detail
	case http.StatusServiceUnavailable:
		return "Busy: the memory budget for archive answers is in use by other requests; retry " + urir + " later" + detail
	case http.StatusForbidden:
		return "Blocked host: " + urir
	case http.StatusBadRequest:
		return "Bad URI-R: " + urir
	}
	return http.StatusText(ans.Status) + ": " + urir + detail
}

// ---- TimeMaps ----

func (h handler) timeMap(w http.ResponseWriter, r *http.Request, rest string) {
	format, rawR, _ := strings.Cut(rest, "/")
	switch format {
	case "link", "json", "cdxj":
	default:
		writeBody(w, http.StatusBadRequest, ctText, []byte("Malformed request: /timemap/"+shownText(rest)+"\nExpected: /timemap/{FORMAT}/{URI-R} (FORMAT => link|json|cdxj)\n"))
		return
	}
	page := 0
	if n, tail, ok := strings.Cut(rawR, "/"); ok && tail == "" && isPageNumberLike(n) {
		writeBody(w, http.StatusBadRequest, ctText, []byte("Bad request: empty URI-R after page "+n+"\n"))
		return
	} else if ok && tail != "" && isPageSegment(n, tail) {
		p, err := strconv.Atoi(n)
		switch {
		case err != nil || p < 1 || !allDigits(n):
			writeBody(w, http.StatusBadRequest, ctText, []byte("Bad page number: "+shownText(n)+"\n"))
			return
		case n[0] == '0':
			// One spelling per page, as "+1" is refused: the cache and
			// the page's self link know /timemap/link/1/, not 01.
			writeBody(w, http.StatusBadRequest, ctText, []byte("Bad page number: "+shownText(n)+" (a page number has no leading zero: "+strconv.Itoa(p)+")\n"))
			return
		case format == "cdxj":
			writeBody(w, http.StatusBadRequest, ctText, []byte("Bad page number: "+shownText(n)+" (a cdxj TimeMap has no pages)\n"))
			return
		}
		page, rawR = p, tail
	}
	urir, ok := h.prelude(w, rawR)
	if !ok {
		return
	}
	ans, ok := h.lookup(w, r, FamilyTimeMap, urir, time.Time{})
	if !ok {
		w.Header().Set("X-Memento-Count", "0")
		return
	}
	ms := ans.Mementos
	if ans.prep != nil {
		w.Header()["X-Memento-Count"] = ans.prep.count // len(ms)
	} else {
		w.Header().Set("X-Memento-Count", strconv.Itoa(len(ms)))
	}
	switch {
	case page > 0:
		buf := getBuffer(len(ms))
		defer putBuffer(buf)
		size := h.ag.pageSize()
		pages := (len(ms) + size - 1) / size
		if page > pages {
			writeBody(w, http.StatusNotFound, ctText, []byte(fmt.Sprintf("No page %d: %s %s of %d\n", page, count.Of(len(ms), "memento makes", "mementos make"), count.Of(pages, "page", "pages"), size)))
			return
		}
		if format == "json" {
			h.writeJSONPage(buf, urir, ms, page, size)
			writeBody(w, http.StatusOK, ctJSON, buf.Bytes())
			return
		}
		h.writeLinkPage(buf, urir, ms, page, size)
		writeBody(w, http.StatusOK, ctLink, buf.Bytes())
	case format == "link":
		writeWholeTimeMap(w, ctLink, ans, formatLink, func(buf *bytes.Buffer) { h.writeLink(buf, urir, ms) })
	case format == "json":
		writeWholeTimeMap(w, ctJSON, ans, formatJSON, func(buf *bytes.Buffer) { h.writeJSON(buf, urir, ms) })
	default:
		writeWholeTimeMap(w, ctCDXJ, ans, formatCDXJ, func(buf *bytes.Buffer) { h.writeCDXJ(buf, urir, ms) })
	}
}

// writeWholeTimeMap answers 200 with the whole TimeMap of ans in format
// f: the prepared body of a cached entry (written by write into a pooled
// buffer the first time) with its kept Content-Length value, or write's
// output.
func writeWholeTimeMap(w http.ResponseWriter, ctype string, ans *Answer, f int, write func(*bytes.Buffer)) {
	if ans.prep == nil {
		buf := getBuffer(len(ans.Mementos))
		defer putBuffer(buf)
		write(buf)
		writeBody(w, http.StatusOK, ctype, buf.Bytes())
		return
	}
	var buf *bytes.Buffer // only when the body is not kept yet
	defer func() {
		if buf != nil {
			putBuffer(buf)
		}
	}()
	body, length := ans.prep.body(f, func() []byte { buf = getBuffer(len(ans.Mementos)); write(buf); return buf.Bytes() })
	if length == nil {
		writeBody(w, http.StatusOK, ctype, body)
		return
	}
	hd := w.Header()
	hd["Content-Type"] = hvContentType[ctype]
	hd["Content-Length"] = length
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body) // for HEAD the server discards it
}

// bufferPool holds the buffers TimeMaps are written into, up to
// minListedBuffer bytes; the larger ones, up to maxPooledBuffer, are in
// answerBuffers, which the garbage collector does not empty (a large
// TimeMap's search allocates enough to start it every few answers); a
// buffer larger than maxPooledBuffer is left to the garbage collector so
// that one huge TimeMap does not pin its memory.
var bufferPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const (
	minListedBuffer = 64 << 10
	maxPooledBuffer = 4 << 20
)

// answerBuffers keeps the larger answer buffers: up to 16 MiB in all.
var answerBuffers = freeList[byte]{most: 16 << 20, least: minListedBuffer, one: maxPooledBuffer, dirty: true}

// getBuffer returns an empty pooled buffer with room for about n memento
// links (130 bytes each in the Wayback layout, plus the header links).
func getBuffer(n int) *bytes.Buffer {
	want := min(n*130+1024, maxPooledBuffer)
	if want >= minListedBuffer {
		if s := answerBuffers.get(want, maxPooledBuffer); s != nil { // the smallest kept that fits
			return bytes.NewBuffer(s)
		}
		return bytes.NewBuffer(make([]byte, 0, want))
	}
	b := bufferPool.Get().(*bytes.Buffer)
	b.Grow(want)
	return b
}

// putBuffer returns b to the pool; the caller must not use it afterwards
// (writeBody has copied it into the connection).
func putBuffer(b *bytes.Buffer) {
	b.Reset()
	switch c := b.Cap(); {
	case c > maxPooledBuffer:
	case c >= minListedBuffer:
		answerBuffers.put(b.AvailableBuffer())
	default:
		bufferPool.Put(b)
	}
}

func (ag *Aggregator) pageSize() int {
	if ag.opts.PageSize > 0 {
		return ag.opts.PageSize
	}
	return DefaultPageSize
}

// isPageNumberLike reports whether seg is decimal digits with at most one
// leading sign ("2", "-1", "+1"): a page number, valid or not, wherever
// it follows a TimeMap's format.
func isPageNumberLike(seg string) bool {
	d := strings.TrimLeft(seg, "+-")
	return len(seg)-len(d) <= 1 && allDigits(d)
}

// refusePage answers 400 when the first segment of rawR is a page number
// (isPageSegment) of a TimeMap index, which has no pages: Time Travel's
// /timemap/json/{N}/ is a page of the TimeMap, not of the index, and
// "/timemap/index/2/http://example.com/" is no URI-R "http://0.0.0.2/...".
func refusePage(w http.ResponseWriter, rawR string) bool {
	n, tail, ok := strings.Cut(rawR, "/")
	if !ok || !(tail == "" && isPageNumberLike(n) || tail != "" && isPageSegment(n, tail)) {
		return false
	}
	writeBody(w, http.StatusBadRequest, ctText, []byte("Bad page number: "+shownText(n)+" (a TimeMap index has no pages: /timemap/{link|json}/{N}/{URI-R} is page N of the TimeMap)\n"))
	return true
}

// isPageSegment reports whether seg, the path segment after a TimeMap's
// format that tail follows, is meant as a page number, never as the start
// of a URI-R. It is when seg is an optional sign ('+' or '-') and decimal
// digits; or when tail starts a URI-R of its own (a scheme, "//", or a
// first segment that is a host name with a dot and a last label starting
// with a letter, such as example.com) and seg is no host: it has no ':'
// (a scheme or a port) and no '@', is no dotted-quad IPv4 address, and is
// no host name with a dot and a last label starting with a letter. So
// "abc/example.com/", "1.5/http://example.com/" and "0x10/example.com/"
// are page numbers (refused: a page number is 1 or more, in decimal
// digits alone), while "example.com/abc", "1.2.3.4/example.com/" and
// "abc/def" are URI-Rs. A URI-R whose host is one label followed by a
// path looking like a URI-R is asked with its scheme
// (/timemap/link/http://intranet/example.com/).
func isPageSegment(seg, tail string) bool {
	if isPageNumberLike(seg) {
		return true
	}
	if seg == "" || strings.ContainsAny(seg, ":@[]") || isDNSName(seg) || isDottedQuad(seg) {
		return false
	}
	return startsURIR(tail)
}

// startsURIR reports whether s starts like a URI-R of its own: a scheme
// ("http:", "https:", any case), "//", or a first segment that is a
// dotted host name (isDNSName), with or without a port.
func startsURIR(s string) bool {
	ls := strings.ToLower(s)
	if strings.HasPrefix(ls, "http:") || strings.HasPrefix(ls, "https:") || strings.HasPrefix(s, "//") {
		return true
	}
	first := s
	if i := strings.IndexAny(s, "/?#\\"); i >= 0 {
		first = s[:i]
	}
	if i := strings.LastIndexByte(first, ':'); i >= 0 && allDigits(first[i+1:]) {
		first = first[:i]
	}
	return isDNSName(first) || isDottedQuad(first)
}

// isDNSName reports whether s is a host name with at least one dot whose
// last label (a trailing dot aside) starts with a letter: example.com,
// www.example.co.uk, xn--e1afmkfd.xn--p1ai.
func isDNSName(s string) bool {
	s = strings.TrimSuffix(s, ".")
	i := strings.LastIndexByte(s, '.')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	c := s[i+1] | 0x20
	return 'a' <= c && c <= 'z'
}

// isDottedQuad reports whether s is four dot-separated decimal parts
// (1.2.3.4), the one IPv4 spelling a page number is never mistaken for.
func isDottedQuad(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if !allDigits(p) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}

func isoDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// writeMementoLink writes one memento link-value and its separator
// without fmt: TimeMaps have thousands of them. dates keeps the day of
// the datetime written before (nil: none kept).
func writeMementoLink(b *bytes.Buffer, m memento.Memento, rel string, dates *dateWriter) {
	b.Grow(len(m.URIM) + len(rel) + 64)
	l := append(b.AvailableBuffer(), '<')
	l = append(l, m.URIM...)
	l = append(l, `>; rel="`...)
	l = append(l, rel...)
	l = append(l, `"; datetime="`...)
	if dates != nil {
		l = dates.append(l, m.Datetime)
	} else {
		l = memento.AppendHTTPDate(l, m.Datetime)
	}
	l = append(l, "\",\n"...)
	b.Write(l) // the bytes are in place: Write only moves the length
}

// mementoLinkBytes is the length of a memento link-value and its
// separator less its URI-M: `<`, `>; rel="first last memento"; datetime="`
// (the longest rel), a strict datetime and `",` and a newline.
const mementoLinkBytes = len(`<>; rel="first last memento"; datetime="`) + 29 + len("\",\n")

// writeMementoLinks writes the memento link-values of ms[lo:hi], a
// TimeMap of len(ms) mementos (memento.TimeMapRel), as writeMementoLink
// does one by one, into room grown once for all of them.
func writeMementoLinks(b *bytes.Buffer, ms []memento.Memento, lo, hi int) {
	need := 0
	for i := lo; i < hi; i++ {
		need += len(ms[i].URIM) + mementoLinkBytes
	}
	b.Grow(need)
	l := b.AvailableBuffer()
	var dates dateWriter
	for i := lo; i < hi; i++ {
		m := &ms[i]
		l = append(l, '<')
		l = append(l, m.URIM...)
		l = append(l, `>; rel="`...)
		l = append(l, memento.TimeMapRel(i, len(ms))...)
		l = append(l, `"; datetime="`...)
		l = dates.append(l, m.Datetime)
		l = append(l, "\",\n"...)
	}
	b.Write(l) // in place unless a datetime outside the strict years took more room
}

// dateWriter writes datetimes as memento.AppendHTTPDate does, keeping
// the day of the last one written ("Tue, 20 Jun 2000 "): a TimeMap's
// mementos come in time order, several a day, and a datetime of the same
// day needs only its time of day written. The zero value is ready.
type dateWriter struct {
	days   int64 // the day kept, in days since 1970-01-01
	prefix [17]byte
	kept   bool
}

// Days since 1970-01-01 of 0000-01-01 and 10000-01-01: between them
// memento.AppendHTTPDate writes the strict 29-byte form.
const (
	firstStrictDay = -719528
	pastStrictDay  = 2932897
)

// twoDigitPairs holds the two digits of 00 to 60 at 2n and 2n+1.
const twoDigitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960"

// append appends t as memento.AppendHTTPDate does.
func (w *dateWriter) append(b []byte, t time.Time) []byte {
	sec := t.Unix()
	days := sec / 86400
	if sec%86400 < 0 {
		days--
	}
	if !w.kept || days != w.days {
		n := len(b)
		b = memento.AppendHTTPDate(b, t)
		if w.kept = days >= firstStrictDay && days < pastStrictDay && len(b)-n == 29; w.kept {
			w.days = days
			copy(w.prefix[:], b[n:n+17])
		}
		return b
	}
	tod := int(sec - days*86400)
	hh, mm, ss := tod/3600*2, tod/60%60*2, tod%60*2
	b = append(b, w.prefix[:]...)
	return append(b, twoDigitPairs[hh], twoDigitPairs[hh+1], ':', twoDigitPairs[mm], twoDigitPairs[mm+1], ':', twoDigitPairs[ss], twoDigitPairs[ss+1], ' ', 'G', 'M', 'T')
}

// formats writes the links to the TimeMaps and the TimeGate of urir that
// end a link-format answer; with Options.NoAPILinks none, and the comma
// after the last link written is taken off.
func (h handler) formats(b *bytes.Buffer, urir string) {
	if h.ag.opts.NoAPILinks {
		if bytes.HasSuffix(b.Bytes(), []byte(",\n")) {
			b.Truncate(b.Len() - 2)
			b.WriteByte('\n')
		}
		return
	}
	base := h.base()
	for _, f := range [...][2]string{
		{"/timemap/link/", `>; rel="timemap"; type="application/link-format",` + "\n"},
		{"/timemap/json/", `>; rel="timemap"; type="application/json",` + "\n"},
		{"/timemap/cdxj/", `>; rel="timemap"; type="application/cdxj+ors",` + "\n"},
		{"/timegate/", `>; rel="timegate"` + "\n"},
	} {
		b.WriteByte('<')
		b.WriteString(base)
		b.WriteString(f[0])
		b.WriteString(urir)
		b.WriteString(f[1])
	}
}

// writeLink writes the whole TimeMap in MemGator's layout (RFC 7089 §5).
func (h handler) writeLink(b *bytes.Buffer, urir string, ms []memento.Memento) {
	b.WriteByte('<')
	b.WriteString(urir)
	b.WriteString(`>; rel="original",` + "\n")
	if !h.ag.opts.NoAPILinks {
		b.WriteByte('<')
		b.WriteString(h.base())
		b.WriteString("/timemap/link/")
		b.WriteString(urir)
		b.WriteString(`>; rel="self"; type="application/link-format"; from="`)
		b.Write(memento.AppendHTTPDate(b.AvailableBuffer(), ms[0].Datetime))
		b.WriteString(`"; until="`)
		b.Write(memento.AppendHTTPDate(b.AvailableBuffer(), ms[len(ms)-1].Datetime))
		b.WriteString("\",\n")
	}
	writeMementoLinks(b, ms, 0, len(ms))
	h.formats(b, urir)
}

// writeLinkPage writes page p of size mementos: self with from/until, a
// rel="timemap" link with from/until per other page, and an index link to
// the whole TimeMap (RFC 7089 §5 paging; there are no prev/next rels).
func (h handler) writeLinkPage(b *bytes.Buffer, urir string, ms []memento.Memento, p, size int) {
	pages := (len(ms) + size - 1) / size
	span := func(q int) (memento.Memento, memento.Memento) {
		lo, hi := (q-1)*size, min(q*size, len(ms))-1
		return ms[lo], ms[hi]
	}
	fmt.Fprintf(b, "<%s>; rel=\"original\",\n", urir)
	f, l := span(p)
	fmt.Fprintf(b, "<%s/timemap/link/%d/%s>; rel=\"self\"; type=\"application/link-format\"; from=\"%s\"; until=\"%s\",\n",
		h.base(), p, urir, memento.FormatHTTPDate(f.Datetime), memento.FormatHTTPDate(l.Datetime))
	for q := 1; q <= pages; q++ {
		if q == p {
			continue
		}
		f, l := span(q)
		fmt.Fprintf(b, "<%s/timemap/link/%d/%s>; rel=\"timemap\"; type=\"application/link-format\"; from=\"%s\"; until=\"%s\",\n",
			h.base(), q, urir, memento.FormatHTTPDate(f.Datetime), memento.FormatHTTPDate(l.Datetime))
	}
	lo, hi := (p-1)*size, min(p*size, len(ms))
	writeMementoLinks(b, ms, lo, hi)
	fmt.Fprintf(b, "<%s/timemap/link/%s>; rel=\"index\"; type=\"application/link-format\",\n", h.base(), urir)
	h.formats(b, urir)
}

type tmJSONMemento struct {
	Datetime string `json:"datetime"`
	URI      string `json:"uri"`
}

type tmURIs struct {
	LinkFormat string `json:"link_format"`
	JSONFormat string `json:"json_format"`
	CDXJFormat string `json:"cdxj_format,omitempty"`
}

func (h handler) uris(urir string, cdxj bool) tmURIs {
	u := tmURIs{LinkFormat: h.base() + "/timemap/link/" + urir, JSONFormat: h.base() + "/timemap/json/" + urir}
	if cdxj {
		u.CDXJFormat = h.base() + "/timemap/cdxj/" + urir
	}
	return u
}

func encodeJSON(b *bytes.Buffer, v any, indent bool) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	_ = enc.Encode(v) // plain structs of strings cannot fail
}

// writeJSON writes MemGator's JSON TimeMap: "uri" is a string.
func (h handler) writeJSON(b *bytes.Buffer, urir string, ms []memento.Memento) {
	list := make([]tmJSONMemento, len(ms))
	for i, m := range ms {
		list[i] = tmJSONMemento{Datetime: isoDate(m.Datetime), URI: m.URIM}
	}
	doc := struct {
		OriginalURI string `json:"original_uri"`
		Self        string `json:"self,omitempty"`
		Mementos    struct {
			List  []tmJSONMemento `json:"list"`
			First tmJSONMemento   `json:"first"`
			Last  tmJSONMemento   `json:"last"`
		} `json:"mementos"`
		TimeMapURI  tmURIs `json:"timemap_uri,omitzero"`
		TimeGateURI string `json:"timegate_uri,omitempty"`
	}{OriginalURI: urir}
	if !h.ag.opts.NoAPILinks {
		doc.Self, doc.TimeMapURI, doc.TimeGateURI = h.base()+"/timemap/json/"+urir, h.uris(urir, true), h.base()+"/timegate/"+urir
	}
	doc.Mementos.List = list
	doc.Mementos.First = list[0]
	doc.Mementos.Last = list[len(list)-1]
	encodeJSON(b, doc, true)
}

// writeCDXJ writes MemGator's CDXJ TimeMap (application/cdxj+ors), its
// JSON in MemGator's layout byte for byte (writeMGJSON).
func (h handler) writeCDXJ(b *bytes.Buffer, urir string, ms []memento.Memento) {
	b.WriteString("!context [\"https://oduwsdl.github.io/contexts/memento\"]\n")
	if !h.ag.opts.NoAPILinks {
		b.WriteString("!id ")
		writeMGJSON(b, []mgField{{key: "uri", val: h.base() + "/timemap/cdxj/" + urir}})
		b.WriteByte('\n')
	}
	b.WriteString("!keys [\"memento_datetime_YYYYMMDDhhmmss\"]\n")
	h.cdxjMeta(b, urir)
	for i, m := range ms {
		writeCDXJMemento(b, m, memento.TimeMapRel(i, len(ms)))
	}
}

// ---- TimeGate ----

// isYear1Date reports whether s is an HTTP date in year 0001, which
// package memento refuses (its zero time means "absent"): s with the year
// written 1000 parses.
func isYear1Date(s string, parse func(string) (time.Time, error)) bool {
	i := strings.Index(s, " 0001 ")
	if i < 0 {
		return false
	}
	t, err := parse(s[:i] + " 1000 " + s[i+len(" 0001 "):])
	return err == nil && t.Year() == 1000
}

// parseAcceptDatetime is memento.ParseHTTPDate (RFC 7089's rfc1123-date
// in GMT) with the rule of EarliestDatetime: a date before it, the zero
// time "Mon, 01 Jan 0001 00:00:00 GMT" included, is read as
// EarliestDatetime.
func parseAcceptDatetime(ad string) (time.Time, error) {
	t, err := memento.ParseHTTPDate(ad)
	if err != nil {
		if isYear1Date(ad, memento.ParseHTTPDate) {
			return EarliestDatetime, nil
		}
		return time.Time{}, err
	}
	return atLeastEarliest(t), nil
}

func (h handler) timeGate(w http.ResponseWriter, r *http.Request, rawR string) {
	w.Header().Set("Vary", "accept-datetime")
	at := time.Time{}
	if ads := r.Header.Values("Accept-Datetime"); len(ads) > 1 {
		// RFC 7089 section 2.1.1: the header carries one datetime; which of
		// several the client meant cannot be told.
		writeBody(w, http.StatusBadRequest, ctText, []byte("Bad request: "+strconv.Itoa(len(ads))+" Accept-Datetime headers ("+shownText(strings.Join(ads, " | "))+")\nExpected one Accept-Datetime header with one RFC 1123 date in GMT (RFC 7089 section 2.1.1)\n"))
		return
	}
	if ad := r.Header.Get("Accept-Datetime"); ad != "" {
		t, err := parseAcceptDatetime(ad)
		if err != nil {
			writeBody(w, http.StatusBadRequest, ctText, []byte("Malformed Accept-Datetime: "+shownText(ad)+"\nExpected an RFC 1123 date in GMT, such as Sun, 06 Mar 2016 01:19:12 GMT (RFC 7089 section 2.1.1)\n"))
			return
		}
		at = t
	}
	urir, ok := h.prelude(w, rawR)
	if !ok {
		return
	}
	// Archive routing override (internal/spec/TIMETRAVEL.md §1): a rule that leaves one
	// archive whose timegate@redirect is "yes" or "refuse".
	if ids := h.ag.rules.Archives(TimeGateDynamic, urir); len(ids) == 1 {
		if a, ok := h.ag.byID[ids[0]]; ok && a.TimeGate != "" {
			switch a.Redirect {
			case "yes":
				w.Header().Set("Link", "<"+urir+`>; rel="original"`)
				w.Header().Set("Location", a.TimeGate+urir)
				writeBody(w, http.StatusFound, ctHTML, foundBody(a.TimeGate+urir))
				return
			case "refuse":
				w.Header().Set("Link", "<"+urir+`>; rel="original"`)
				writeBody(w, http.StatusNotFound, ctText, []byte("The archive for "+shownText(urir)+" refuses aggregated TimeGate requests\n"))
				return
			}
		}
	}
	ans, ok := h.lookup(w, r, FamilyTimeGate, urir, at)
	if !ok {
		return
	}
	want := at
	if want.IsZero() {
		want = time.Now()
	}
	ms := ans.Mementos
	n := h.ag.navigateAt(ms, want)
	w.Header().Set("Link", h.navLinks(urir, ms, n))
	w.Header().Set("Location", ms[n.closest].URIM)
	writeBody(w, http.StatusFound, ctHTML, foundBody(ms[n.closest].URIM))
}

func foundBody(loc string) []byte {
	return []byte(`<a href="` + html.EscapeString(loc) + `">Found</a>.` + "\n")
}

// navLinks renders a TimeGate Link header: original, first, prev, the
// closest memento, next, last (one link per URI-M, rels merged, as
// MemGator writes them), then the TimeMaps and the TimeGate.
func (h handler) navLinks(urir string, ms []memento.Memento, n nav) string {
	type item struct {
		i    int
		rels []string
	}
	var items []item
	add := func(i int, rel string) {
		if i < 0 {
			return
		}
		for k := range items {
			if items[k].i == i {
				items[k].rels = append(items[k].rels, rel)
				return
			}
		}
		items = append(items, item{i, []string{rel}})
	}
	add(n.first, "first")
	add(n.last, "last")
	add(n.prev, "prev")
	add(n.next, "next")
	add(n.closest, "")
	// Order by position in the TimeMap.
	for a := 1; a < len(items); a++ {
		for b := a; b > 0 && items[b].i < items[b-1].i; b-- {
			items[b], items[b-1] = items[b-1], items[b]
		}
	}
	parts := []string{"<" + urir + `>; rel="original"`}
	for _, it := range items {
		var rel []string
		for _, want := range []string{"first", "last", "prev", "next"} {
			for _, r := range it.rels {
				if r == want {
					rel = append(rel, r)
				}
			}
		}
		rel = append(rel, "memento")
		parts = append(parts, fmt.Sprintf("<%s>; rel=%q; datetime=\"%s\"", ms[it.i].URIM, strings.Join(rel, " "), memento.FormatHTTPDate(ms[it.i].Datetime)))
	}
	parts = append(parts,
		"<"+h.base()+"/timemap/link/"+urir+`>; rel="timemap"; type="application/link-format"`,
		"<"+h.base()+"/timemap/json/"+urir+`>; rel="timemap"; type="application/json"`,
		"<"+h.base()+"/timemap/cdxj/"+urir+`>; rel="timemap"; type="application/cdxj+ors"`,
		"<"+h.base()+"/timegate/"+urir+`>; rel="timegate"`)
	return strings.Join(parts, ", ")
}

// unknownFormat reports whether the /memento/ path segment seg, followed
// by tail, is a format name rather than a datetime: seg is no datetime
// and tail starts with a segment that is one (/memento/FORMAT/DATETIME/...).
func unknownFormat(seg, tail string) bool {
	if u, err := url.PathUnescape(seg); err == nil {
		seg = u
	}
	if _, err := ParsePathDatetime(seg); err == nil {
		return false
	}
	next, _, ok := strings.Cut(tail, "/")
	if !ok {
		return false
	}
	if u, err := url.PathUnescape(next); err == nil {
		next = u
	}
	_, err := ParsePathDatetime(next)
	return err == nil
}

// ---- dated endpoints ----

func (h handler) dated(w http.ResponseWriter, r *http.Request, raw, rest string, serve func(http.ResponseWriter, *http.Request, string, time.Time)) {
	dt, rawR, ok := strings.Cut(rest, "/")
	if !ok || rawR == "" {
		writeBody(w, http.StatusBadRequest, ctText, []byte("Malformed request: "+ShortTarget(raw)+"\nExpected: /{memento|api/json|list}/{DATETIME}/{URI-R} (DATETIME => YYYY[MM[DD[hh[mm[ss]]]]])\n"))
		return
	}
	udt, err := url.PathUnescape(dt)
	if err != nil {
		udt = dt
	}
	t, err := ParsePathDatetime(udt)
	if err != nil {
		writeBody(w, http.StatusBadRequest, ctText, []byte("Malformed datetime: "+ShortTarget(dt)+"\nExpected "+PathDatetimeForms+"\n"))
		return
	}
	urir, ok := h.prelude(w, rawR)
	if !ok {
		return
	}
	serve(w, r, urir, t)
}

// PathDatetimeForms names the forms of a {datetime} ParsePathDatetime
// reads, as the 400 answer to a malformed one and /about state them.
const PathDatetimeForms = "YYYY[MM[DD[hh[mm[ss]]]]], an RFC 1123 date or an RFC 3339 instant"

// ParsePathDatetime parses the {datetime} of a request path as Time Travel
// reads it: a timestamp YYYY, YYYYMM, YYYYMMDD, YYYYMMDDhh, YYYYMMDDhhmm or
// YYYYMMDDhhmmss (missing parts are the start of the period, UTC; out-of-range
// fields such as month 13 are errors wrapping timestamp.ErrInvalid), or an
// HTTP date in a form memento.ParseHTTPDateLenient reads (RFC 3339 among
// them; PathDatetimeForms states the forms). It is
// memento.ParseDatetime restricted to the timestamp lengths Time Travel
// lists, with the earliest-datetime rule of EarliestDatetime: a datetime
// before 1000-01-01 ("0000", "0001", "0999", years 0000 and 0001 in an
// HTTP date) is read as 1000-01-01T00:00:00Z, never refused and never the
// zero time.Time.
func ParsePathDatetime(s string) (time.Time, error) {
	if allDigits(s) {
		if len(s)%2 != 0 || len(s) > 14 {
			return time.Time{}, fmt.Errorf("timestamp %q: want 4, 6, 8, 10, 12 or 14 digits: %w", s, timestamp.ErrInvalid)
		}
		t, err := timestamp.Parse(s) // "0001" is the zero time, read as EarliestDatetime below
		if err != nil {
			return time.Time{}, err
		}
		return atLeastEarliest(t), nil
	}
	t, err := memento.ParseDatetime(s)
	if err != nil {
		// memento refuses the zero time ("absent"); here it is a date
		// before EarliestDatetime like any other.
		if isYear1Date(s, memento.ParseHTTPDateLenient) {
			return EarliestDatetime, nil
		}
		return time.Time{}, err
	}
	return atLeastEarliest(t), nil
}

// EarliestDatetime is the earliest datetime the aggregator handles,
// 1000-01-01T00:00:00Z (cache.MinTime, the earliest a store accepts: the
// range of a MySQL DATETIME). The one rule for earlier datetimes: a
// requested datetime before it (a {datetime} such as "0000" or "0001",
// an Accept-Datetime in year 0000 or 0001) asks for the earliest memento
// and is read as EarliestDatetime, never refused; a memento an archive
// or a cache lists with a datetime before it (or after cache.MaxTime)
// is no web capture and is left out of the answer, counted in its
// archive's Outcome.Dropped; so no answer, stored entry or output ever
// holds a datetime before it, and the zero time.Time ("0001-01-01",
// which packages memento and cache use for "absent") is never a datetime.
var EarliestDatetime = cache.MinTime

// atLeastEarliest is t, or EarliestDatetime when t is before it.
func atLeastEarliest(t time.Time) time.Time {
	if t.Before(EarliestDatetime) {
		return EarliestDatetime
	}
	return t
}

func (h handler) memento(w http.ResponseWriter, r *http.Request, urir string, t time.Time) {
	ans, ok := h.lookupOrList(w, r, urir, t)
	if !ok {
		return
	}
	n := h.ag.navigateAt(ans.Mementos, t)
	loc := ans.Mementos[n.closest].URIM
	w.Header().Set("Link", "<"+urir+`>; rel="original"`)
	w.Header().Set("Location", loc)
	writeBody(w, http.StatusFound, ctHTML, foundBody(loc))
}

type ttMemento struct {
	Datetime string   `json:"datetime"`
	URI      []string `json:"uri"`
}

func (h handler) apiJSON(w http.ResponseWriter, r *http.Request, urir string, t time.Time) {
	ans, ok := h.lookupOrList(w, r, urir, t)
	if !ok {
		return
	}
	ms := ans.Mementos
	n := h.ag.navigateAt(ms, t)
	at := func(i int) *ttMemento {
		if i < 0 {
			return nil
		}
		return &ttMemento{Datetime: isoDate(ms[i].Datetime), URI: sameSecond(ms, i)}
	}
	type mems struct {
		First   *ttMemento `json:"first"`
		Prev    *ttMemento `json:"prev,omitempty"`
		Closest *ttMemento `json:"closest"`
		Next    *ttMemento `json:"next,omitempty"`
		Last    *ttMemento `json:"last"`
	}
	m := mems{First: at(n.first), Closest: at(n.closest), Last: at(n.last)}
	if n.prev != n.first {
		m.Prev = at(n.prev)
	}
	if n.next != n.last {
		m.Next = at(n.next)
	}
	doc := struct {
		OriginalURI string `json:"original_uri"`
		TimeGateURI string `json:"timegate_uri"`
		TimeMapURI  tmURIs `json:"timemap_uri"`
		Mementos    mems   `json:"mementos"`
	}{urir, h.base() + "/timegate/" + urir, h.uris(urir, false), m}
	var buf bytes.Buffer
	encodeJSON(&buf, doc, true)
	writeBody(w, http.StatusOK, ctJSON, buf.Bytes())
}

// list writes a small HTML page: the navigation mementos around t, then
// each archive's memento closest to t.
func (h handler) list(w http.ResponseWriter, r *http.Request, urir string, t time.Time) {
	ans, ok := h.lookup(w, r, FamilyTimeTravel, urir, t)
	if !ok {
		return
	}
	ms := ans.Mementos
	n := h.ag.navigateAt(ms, t)
	var b bytes.Buffer
	esc := html.EscapeString
	fmt.Fprintf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>Mementos of %s</title></head><body>\n", esc(urir))
	fmt.Fprintf(&b, "<h1>Mementos of <a href=\"%s\">%s</a> near %s</h1>\n<ul>\n", esc(urir), esc(urir), esc(isoDate(t)))
	for _, e := range []struct {
		name string
		i    int
	}{{"first", n.first}, {"prev", n.prev}, {"closest", n.closest}, {"next", n.next}, {"last", n.last}} {
		if e.i < 0 {
			continue
		}
		fmt.Fprintf(&b, "<li>%s: <a href=\"%s\">%s</a> (%s)</li>\n", e.name, esc(ms[e.i].URIM), esc(isoDate(ms[e.i].Datetime)), esc(ms[e.i].Archive))
	}
	b.WriteString("</ul>\n<h2>Per archive</h2>\n<ul>\n")
	byArchive := map[string][]memento.Memento{}
	var order []string
	for _, m := range ms {
		if _, ok := byArchive[m.Archive]; !ok {
			order = append(order, m.Archive)
		}
		byArchive[m.Archive] = append(byArchive[m.Archive], m)
	}
	for _, id := range order {
		am := byArchive[id]
		c := am[h.ag.closestOf(id, am, t)]
		fmt.Fprintf(&b, "<li>%s (%d): <a href=\"%s\">%s</a></li>\n", esc(id), len(am), esc(c.URIM), esc(isoDate(c.Datetime)))
	}
	b.WriteString("</ul>\n</body></html>\n")
	writeBody(w, http.StatusOK, ctHTML, b.Bytes())
}

// lookupOrList is lookup for /memento and /api/json: with
// Options.MissToList, a 404 asked by a browser (Accept: text/html) is a
// 302 to the /list page of the same datetime, as Time Travel answers.
func (h handler) lookupOrList(w http.ResponseWriter, r *http.Request, urir string, t time.Time) (*Answer, bool) {
	if !h.ag.opts.MissToList || !wantsHTML(r) {
		return h.lookup(w, r, FamilyTimeTravel, urir, t)
	}
	rec := &missWriter{ResponseWriter: w}
	ans, ok := h.lookup(rec, r, FamilyTimeTravel, urir, t)
	if rec.status == http.StatusNotFound {
		loc := h.listURL(timestamp.Format(t), urir)
		w.Header().Set("Location", loc)
		writeBody(w, http.StatusFound, ctHTML, foundBody(loc))
		return nil, false
	}
	rec.flush()
	return ans, ok
}

// missWriter holds back an error answer of lookup until lookupOrList
// knows whether it becomes a redirect.
type missWriter struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (m *missWriter) WriteHeader(code int) { m.status = code }

func (m *missWriter) Write(p []byte) (int, error) {
	m.body = append(m.body, p...)
	return len(p), nil
}

func (m *missWriter) flush() {
	if m.status == 0 {
		return
	}
	m.ResponseWriter.WriteHeader(m.status)
	_, _ = m.ResponseWriter.Write(m.body)
}
