package webui

import (
	"bytes"
	"embed"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/timestamp"
)

//go:embed templates/*.html static/style.css
var files embed.FS

// Options configure a UI. Only Aggregator is required.
type Options struct {
	// Aggregator answers the lookups (aggregator.Lookup with the Time
	// Travel family, so the rules' timetravel_* lists and the cache
	// scenarios apply, as for /api/json).
	Aggregator *aggregator.Aggregator
	// Blacklist is the aggregator's block list; a blocked host gets a 403
	// page before any archive is asked. nil blocks nothing.
	Blacklist *aggregator.Blacklist
	// BaseURL prefixes the links to the aggregator's HTTP API (TimeMaps,
	// TimeGate, /api/json), without a trailing slash; "" writes links
	// relative to the host that served the page.
	BaseURL string
	// Root is the path prefix the pages are served under, such as "/mg"
	// (a server's -root), without a trailing slash: the form, the
	// stylesheet, the home link and the search redirect carry it. The
	// request paths the UI reads are without it (the server strips it).
	Root string
	// Title names the service in page titles and the header
	// (default "mementokit aggregator").
	Title string
	// Now gives the current time, used when the form has no date
	// (default time.Now).
	Now func() time.Time
	// Logger receives a warning for a page that failed to render; nil
	// discards it.
	Logger *slog.Logger
}

// UI serves the form and the result pages (see the package doc). It is an
// http.Handler, safe for concurrent use.
type UI struct {
	o     Options
	pages *template.Template
	css   []byte
	log   *slog.Logger
}

// New parses the embedded templates and returns the UI; it reads *opts
// and keeps a copy. It fails when opts or opts.Aggregator is nil (the only
// option without a default).
func New(opts *Options) (*UI, error) {
	if opts == nil || opts.Aggregator == nil {
		return nil, errors.New("webui: Options.Aggregator is nil")
	}
	o := *opts
	if o.Title == "" {
		o.Title = "mementokit aggregator"
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.BaseURL = strings.TrimSuffix(o.BaseURL, "/")
	pages, err := template.New("").Funcs(template.FuncMap{
		"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05") + " UTC" },
		"iso":  func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
		"ms":   func(d time.Duration) string { return strconv.FormatInt(d.Milliseconds(), 10) + " ms" },
	}).ParseFS(files, "templates/*.html")
	if err != nil {
		return nil, err // the embedded templates are fixed: a test catches this
	}
	css, err := files.ReadFile("static/style.css")
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &UI{o: o, pages: pages, css: css, log: log}, nil
}

// Handles reports whether the request target path (r.URL.Path or the raw
// request URI) belongs to the UI: "/", "/search", "/static/style.css" and
// everything under "/list/". A server that also serves the aggregator's HTTP
// API routes these here and the rest to aggregator.Handler.
func Handles(path string) bool {
	switch {
	case path == "/", path == "/search", path == "/static/style.css":
		return true
	case strings.HasPrefix(path, "/list/"):
		return true
	}
	return false
}

// ServeHTTP serves the pages; any other path gets a 404 page.
func (u *UI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		u.render(w, http.StatusMethodNotAllowed, "message.html", u.message(r, http.StatusMethodNotAllowed,
			"Method not allowed", "This page answers GET and HEAD, not "+r.Method+"."))
		return
	}
	raw := r.RequestURI
	if !strings.HasPrefix(raw, "/") {
		raw = r.URL.RequestURI() // absolute-form request target
	}
	path, _, _ := strings.Cut(raw, "?")
	switch {
	case path == "/":
		u.render(w, http.StatusOK, "index.html", u.page(r, "", ""))
	case path == "/search":
		u.search(w, r)
	case path == "/static/style.css":
		w.Header().Set("Cache-Control", "public, max-age=3600")
		write(w, http.StatusOK, "text/css; charset=utf-8", u.css)
	case strings.HasPrefix(raw, "/list/"):
		u.list(w, r, raw[len("/list/"):])
	default:
		u.render(w, http.StatusNotFound, "message.html", u.message(r, http.StatusNotFound,
			"Not found", "There is no page at "+path+"."))
	}
}

func write(w http.ResponseWriter, status int, ctype string, body []byte) {
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // HEAD: the server drops the body
}

// render executes page into a buffer first, so that a template error gives
// a clean 500 instead of half a page.
func (u *UI) render(w http.ResponseWriter, status int, page string, data any) {
	var b bytes.Buffer
	if err := u.pages.ExecuteTemplate(&b, page, data); err != nil {
		u.log.Warn("webui: rendering", "page", page, "err", err)
		write(w, http.StatusInternalServerError, "text/plain; charset=utf-8", []byte("Internal error while rendering the page\n"))
		return
	}
	write(w, status, "text/html; charset=utf-8", b.Bytes())
}

// Page is what every template sees.
type Page struct {
	Title    string // the service's name
	Root     string // Options.Root: the prefix of the UI's own links
	Heading  string // the page's own heading
	URL      string // the form's URL field
	Date     string // the form's date field
	Error    string // a problem with the form's input
	Status   int    // the HTTP status of the page
	Archives []aggregator.Archive
	Result   *View // the result view, on /list pages
}

func (u *UI) page(_ *http.Request, url, date string) Page {
	return Page{Title: u.o.Title, Root: u.o.Root, URL: url, Date: date, Status: http.StatusOK, Archives: u.o.Aggregator.Archives()}
}

func (u *UI) message(r *http.Request, status int, heading, text string) Page {
	p := u.page(r, "", "")
	p.Status, p.Heading, p.Error = status, heading, text
	return p
}

// search turns the form's fields into a /list URL (303), or shows the form
// again with the problem (400).
func (u *UI) search(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	rawURL, rawDate := strings.TrimSpace(q.Get("url")), strings.TrimSpace(q.Get("date"))
	bad := func(msg string) {
		p := u.page(r, rawURL, rawDate)
		p.Status, p.Heading, p.Error = http.StatusBadRequest, "Bad request", msg
		u.render(w, http.StatusBadRequest, "index.html", p)
	}
	if i := strings.IndexByte(rawURL, '#'); i >= 0 {
		rawURL = rawURL[:i] // a fragment is never part of the URI-R sent to archives
	}
	if rawURL == "" {
		bad("Give the URL of a web page.")
		return
	}
	urir, err := aggregator.NormalizeURIR(rawURL)
	if err != nil {
		bad("That URL cannot be looked up: " + err.Error() + ".")
		return
	}
	at, err := FormDate(rawDate, u.o.Now())
	if err != nil {
		bad(err.Error())
		return
	}
	loc := u.o.Root + "/list/" + timestamp.Format(at) + "/" + urir
	w.Header().Set("Location", loc)
	write(w, http.StatusSeeOther, "text/html; charset=utf-8",
		[]byte(`<a href="`+template.HTMLEscapeString(loc)+`">See the mementos</a>.`+"\n"))
}

// FormDate reads the date field of the search form: empty means now; else
// the digits of YYYY[-MM[-DD[(T| )hh[:mm[:ss]]]]] (a trailing Z allowed),
// read as aggregator.ParsePathDatetime reads a path timestamp (UTC, missing
// parts are the start of the period), or an HTTP date. The result is in UTC,
// truncated to the second. The error says what is accepted.
func FormDate(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return now.UTC().Truncate(time.Second), nil
	}
	digits := strings.Map(func(r rune) rune {
		switch {
		case r >= '0' && r <= '9':
			return r
		case r == '-', r == ':', r == 'T', r == ' ':
			return -1
		}
		return 'x'
	}, strings.TrimSuffix(s, "Z"))
	if !strings.Contains(digits, "x") && digits != "" {
		t, err := aggregator.ParsePathDatetime(digits)
		if err != nil {
			return time.Time{}, errors.New("The date " + strconv.Quote(s) + " is not valid: write YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or YYYYMMDDhhmmss.")
		}
		return t.UTC(), nil
	}
	t, err := aggregator.ParsePathDatetime(s)
	if err != nil {
		return time.Time{}, errors.New("The date " + strconv.Quote(s) + " is not valid: write YYYY-MM-DD, YYYY-MM-DD hh:mm:ss or YYYYMMDDhhmmss.")
	}
	return t.UTC().Truncate(time.Second), nil
}

// list serves /list/{datetime}/{URI-R}; rest is what follows "/list/" in
// the raw request target.
func (u *UI) list(w http.ResponseWriter, r *http.Request, rest string) {
	dt, rawR, ok := strings.Cut(rest, "/")
	if !ok || rawR == "" {
		u.render(w, http.StatusBadRequest, "message.html", u.message(r, http.StatusBadRequest, "Bad request",
			"Expected /list/{DATETIME}/{URL}, with DATETIME as YYYY[MM[DD[hh[mm[ss]]]]]."))
		return
	}
	udt, err := url.PathUnescape(dt)
	if err != nil {
		udt = dt
	}
	at, err := aggregator.ParsePathDatetime(udt)
	if err != nil {
		p := u.page(r, rawR, dt)
		p.Status, p.Heading, p.Error = http.StatusBadRequest, "Bad request", "The date "+strconv.Quote(dt)+" is not valid: "+err.Error()+"."
		u.render(w, http.StatusBadRequest, "index.html", p)
		return
	}
	urir, err := aggregator.NormalizeURIR(rawR)
	if err != nil {
		p := u.page(r, rawR, udt)
		p.Status, p.Heading, p.Error = http.StatusBadRequest, "Bad request", "That URL cannot be looked up: "+err.Error()+"."
		u.render(w, http.StatusBadRequest, "index.html", p)
		return
	}
	date := at.UTC().Format("2006-01-02 15:04:05")
	if u.o.Blacklist.Blocks(urir) {
		p := u.page(r, urir, date)
		p.Status, p.Heading = http.StatusForbidden, "Forbidden"
		p.Error = "The host of " + urir + " is on this aggregator's block list; no archive was asked."
		w.Header().Set("Link", "<"+urir+`>; rel="original"`)
		u.render(w, http.StatusForbidden, "index.html", p)
		return
	}
	ans, err := u.o.Aggregator.Lookup(r.Context(), aggregator.FamilyTimeTravel, urir, at,
		aggregator.ParseCacheControl(r.Header.Values("Cache-Control")))
	if err != nil {
		// The client went away or the aggregator is shutting down.
		u.render(w, http.StatusServiceUnavailable, "message.html", u.message(r, http.StatusServiceUnavailable,
			"Service unavailable", "The lookup did not finish: "+err.Error()+"."))
		return
	}
	v := u.view(ans, at)
	p := u.page(r, urir, date)
	p.Status, p.Result = ans.Status, v
	switch ans.Status {
	case http.StatusOK:
		p.Heading = "Mementos of " + urir
	case http.StatusNotFound:
		p.Heading = "No mementos of " + urir
	case http.StatusBadGateway:
		p.Heading = "Every archive failed for " + urir
	case http.StatusGatewayTimeout:
		if ans.Scenario == "only-if-cached" {
			p.Heading = "Not cached: " + urir
		} else {
			p.Heading = "Every archive timed out for " + urir
		}
	default:
		p.Heading = http.StatusText(ans.Status)
	}
	h := w.Header()
	h.Set("Link", "<"+urir+`>; rel="original"`)
	if ans.Failures != "" {
		h.Set("Archive-Failures", ans.Failures)
	}
	if !ans.Updated.IsZero() {
		h.Set("Last-Modified", ans.Updated.UTC().Format(http.TimeFormat))
	}
	h.Set("X-Memento-Count", strconv.Itoa(len(ans.Mementos)))
	u.render(w, ans.Status, "list.html", p)
}
