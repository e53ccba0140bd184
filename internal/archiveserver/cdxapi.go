package archiveserver

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/flagvalue"
)

// CDXPath is the path of the CDX server API; "/{collection}/cdx" answers
// too when CDXOptions.Collection is set (pywb's per-collection path).
const CDXPath = "/cdx"

// CDXOptions sets up a CDXHandler. The zero value serves /cdx only, with
// pywb's default page size and bounds.
type CDXOptions struct {
	// Collection, when not "", also answers at "/{Collection}/cdx", the
	// path pywb gives a collection's CDX API.
	Collection string
	// Run bounds what one request holds in memory and sets the default
	// page size (cdxj.RunOptions; nil fields mean its defaults).
	Run cdxj.RunOptions
	// MaxHeldBytes bounds the memory, in bytes, that all requests
	// together hold at once for sort=reverse, sort=closest and a negative
	// limit: each held line costs cdxj.HeldBytes (its length plus about
	// 100 bytes, 0.4 KB for a CDXJ line of 250 bytes), taken as the line
	// is held and given back when the answer ends. A request that would
	// hold more than MaxHeldBytes by itself is a 400 (a request error:
	// give a limit); one that finds the rest taken by the answers in
	// progress is a 503 with "Retry-After: 1" and {"message": "busy:
	// ..."} (counted in CDXStats.Busy), so that parallel requests cannot
	// hold more than MaxHeldBytes whatever their number. 0 means
	// DefaultMaxHeldBytes.
	MaxHeldBytes int64
	// SkipBad passes over index lines that do not parse, counting them in
	// CDXStats.BadLines and logging each, instead of failing the request
	// (with 500 before the first line of the answer, by breaking the
	// connection after it, so that no client takes a cut answer for a
	// whole one).
	SkipBad bool
	// Logger receives a Debug record per request and a Warn record per
	// failed request or skipped line; nil logs nothing.
	Logger *slog.Logger
}

// DefaultMaxHeldBytes is CDXOptions.MaxHeldBytes when that is 0: 256 MiB,
// what a small machine (2 cores, 2 GB) spares for answers held in memory
// next to the archive's index: about 650,000 held lines of 250 bytes, six
// requests at cdxj.DefaultMaxBuffered lines each.
const DefaultMaxHeldBytes = 256 << 20

// CDXStats counts the requests a CDXHandler answered.
type CDXStats struct {
	Requests   int64 // requests received
	BadRequest int64 // answered 400
	Failed     int64 // answered 500 or broken off
	Lines      int64 // index lines sent
	BadLines   int64 // index lines that did not parse
	Busy       int64 // answered 503: the memory their lines would hold was not free (CDXOptions.MaxHeldBytes)
}

// CDXHandler is an http.Handler that serves the pywb CDX server API
// (pywb docs/manual/cdxserver_api.rst) over an index: a sorted CDX or
// CDXJ file, a ZipNum cluster, or several of them merged (cdxj.Merge).
//
//	GET|HEAD /cdx?url=...               the index lines of the request (cdxj.Request)
//	GET|HEAD /{collection}/cdx?url=...  the same, when CDXOptions.Collection is set
//
// The parameters and their semantics are cdxj.ParseRequest's and
// cdxj.Request.Run's: url, matchType (exact, prefix, host, domain; the
// "*.host" and "url*" forms), from, to, limit (a negative limit for the
// last lines), sort=reverse|closest with closest=, filter ([!][=|~]field:
// value), collapse (field or field:N), fl (or fields), output (cdxj, the
// default, text/x-cdxj; json, one object per line, text/x-ndjson; text,
// text/plain), and over a ZipNum cluster page, pageSize, showNumPages and
// showPagedIndex.
//
// Answers follow pywb: an error in the request is a 400 whose body is
// {"message": "..."} (among them a page past the last, "Page 10 invalid:
// First Page is 0, Last Page is 9", and paging over an index that is not
// a ZipNum cluster); an answer with no line is a 200 with an empty body;
// showNumPages answers {"pages": P, "pageSize": S, "blocks": B}. Unlike
// pywb, a request without page= over a ZipNum cluster gets every line,
// not page 0 only, and a request without limit= gets every line, not the
// first 100,000: the answer streams in bounded memory, except for
// sort=reverse, sort=closest and a negative limit, which hold at most
// CDXOptions.Run.MaxBuffered lines (a 400 beyond), and all such answers in
// progress together at most CDXOptions.MaxHeldBytes of memory (a 503 for a
// request that does not fit). An index that fails
// part way through breaks the connection rather than end the answer as
// if it were whole. A request whose client goes away stops reading the
// index (cdxj.RunOptions.Context is the request's). A CDXHandler is safe
// for concurrent use when its index is.
type CDXHandler struct {
	idx  cdxj.Searcher
	o    CDXOptions
	coll string // "/{Collection}/cdx", or ""

	maxHeld int64
	held    *semaphore.Weighted // bytes held by answers in progress, of maxHeld

	requests, badRequest, failed, lines, badLines, busy atomic.Int64
}

// NewCDXHandler returns a CDXHandler serving idx.
func NewCDXHandler(idx cdxj.Searcher, o *CDXOptions) *CDXHandler {
	h := &CDXHandler{idx: idx}
	if o != nil {
		h.o = *o
	}
	if h.o.Collection != "" {
		h.coll = "/" + h.o.Collection + CDXPath
	}
	h.maxHeld = h.o.MaxHeldBytes
	if h.maxHeld <= 0 {
		h.maxHeld = DefaultMaxHeldBytes
	}
	h.held = semaphore.NewWeighted(h.maxHeld)
	return h
}

// errBusy is wrapped by the error of an answer whose lines do not fit in
// what the answers in progress leave of CDXOptions.MaxHeldBytes.
var errBusy = errors.New("busy")

// hold returns the cdxj.RunOptions.Hold of one request: it takes the bytes
// of each line held from h.held, and gives them back.
func (h *CDXHandler) hold() func(int64) error {
	var mine int64
	return func(n int64) error {
		if n <= 0 {
			h.held.Release(-n)
			mine += n
			return nil
		}
		if mine+n > h.maxHeld {
			return fmt.Errorf("%w: this answer would hold more than %s of lines in memory, all that the server allows its answers at once (-cdx-max-held); give a smaller limit or a narrower url", cdxj.ErrTooManyLines, flagvalue.FormatBytes(h.maxHeld))
		}
		if !h.held.TryAcquire(n) {
			return fmt.Errorf("%w: the answers in progress hold the %s of memory that sort=reverse, sort=closest and negative limits may hold at once (-cdx-max-held), and this one held %s of lines when it ran out; retry in a second, or give a smaller limit", errBusy, flagvalue.FormatBytes(h.maxHeld), flagvalue.FormatBytes(mine))
		}
		mine += n
		return nil
	}
}

// Stats returns the handler's counters.
func (h *CDXHandler) Stats() CDXStats {
	return CDXStats{Requests: h.requests.Load(), BadRequest: h.badRequest.Load(), Failed: h.failed.Load(),
		Lines: h.lines.Load(), BadLines: h.badLines.Load(), Busy: h.busy.Load()}
}

// Handles reports whether the request target raw (its path, any query
// ignored) is one of the handler's paths.
func (h *CDXHandler) Handles(raw string) bool {
	p := pathOf(raw)
	return p == CDXPath || (h.coll != "" && p == h.coll)
}

// WithCDX returns a handler that sends the requests for cdx's paths to cdx
// and every other request to next (an archive Server). The request target
// is looked at as it came, so that next sees URI-Rs unchanged.
func WithCDX(next http.Handler, cdx *CDXHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw := r.RequestURI
		if !strings.HasPrefix(raw, "/") {
			raw = r.URL.RequestURI()
		}
		if cdx.Handles(raw) {
			cdx.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// writeMessage writes pywb's error answer {"message": "..."}.
func writeMessage(w http.ResponseWriter, code int, msg string) {
	b := append(appendJSONString([]byte(`{"message": `), msg), "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(code)
	_, _ = w.Write(b)
}

func appendJSONString(dst []byte, s string) []byte {
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

// ServeHTTP answers one request; see CDXHandler.
func (h *CDXHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.requests.Add(1)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		h.badRequest.Add(1)
		writeMessage(w, http.StatusMethodNotAllowed, "method not allowed: "+r.Method)
		return
	}
	if h.o.Logger != nil {
		h.o.Logger.Debug("cdx request", "query", r.URL.RawQuery)
	}
	// A pair of the query string that does not decode is an error, not
	// left out (url.Values from r.URL.Query() drops it, and a url= so
	// dropped read as "the url= parameter is required").
	v, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		h.bad(w, fmt.Errorf("%w: the query string: %v", cdxj.ErrQuery, err))
		return
	}
	req, err := cdxj.ParseRequest(v)
	if err != nil {
		h.bad(w, err)
		return
	}
	switch {
	case req.ShowNumPages:
		pc, err := req.NumPages(h.idx, &h.o.Run)
		if err != nil {
			h.fail(w, err)
			return
		}
		b := fmt.Appendf(nil, `{"pages": %d, "pageSize": %d, "blocks": %d}`+"\n", pc.Pages, pc.PageSize, pc.Blocks)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		if r.Method == http.MethodGet {
			_, _ = w.Write(b)
		}
	case req.ShowPagedIndex:
		ct := "text/plain; charset=utf-8"
		if req.Output == cdxj.OutputJSON {
			ct = cdxj.OutputJSON.ContentType()
		}
		serveLines(h, w, r, ct, req.PagedIndex(h.idx, &h.o.Run), func(dst []byte, e cdxj.IdxEntry) ([]byte, error) {
			return cdxj.AppendIdxEntry(dst, e, req.Output), nil
		})
	default:
		serveLines(h, w, r, req.Output.ContentType(), h.records(r.Context(), req), req.AppendRecord)
	}
}

// records runs req until ctx (the request's) is done, passing over bad
// lines under SkipBad.
func (h *CDXHandler) records(ctx context.Context, req *cdxj.Request) iter.Seq2[*cdxj.Record, error] {
	return func(yield func(*cdxj.Record, error) bool) {
		run := h.o.Run
		run.Context = ctx
		run.Hold = h.hold()
		for rec, err := range req.Run(h.idx, &run) {
			if err != nil {
				var pe *cdxj.ParseError
				if errors.As(err, &pe) {
					h.badLines.Add(1)
					if h.o.SkipBad {
						if h.o.Logger != nil {
							h.o.Logger.Warn("cdx: skipped a bad index line", "err", err)
						}
						continue
					}
				}
			}
			if !yield(rec, err) {
				return
			}
		}
	}
}

// bad answers a request error with 400.
func (h *CDXHandler) bad(w http.ResponseWriter, err error) {
	h.badRequest.Add(1)
	writeMessage(w, http.StatusBadRequest, message(err))
}

// fail answers err before anything was written: 400 for an error in the
// request, 500 otherwise.
func (h *CDXHandler) fail(w http.ResponseWriter, err error) {
	if errors.Is(err, errBusy) {
		h.busy.Add(1)
		if h.o.Logger != nil {
			h.o.Logger.Warn("cdx request busy", "err", err)
		}
		w.Header().Set("Retry-After", "1")
		writeMessage(w, http.StatusServiceUnavailable, err.Error())
		return
	}
	if errors.Is(err, cdxj.ErrQuery) || errors.Is(err, cdxj.ErrNoPaging) || errors.Is(err, cdxj.ErrTooManyLines) {
		h.bad(w, err)
		return
	}
	h.failed.Add(1)
	if h.o.Logger != nil {
		h.o.Logger.Warn("cdx request failed", "err", err)
	}
	writeMessage(w, http.StatusInternalServerError, err.Error())
}

// message is the text of err for a client: a PageError as pywb words it,
// other errors without the package prefix.
func message(err error) string {
	var pe *cdxj.PageError
	if errors.As(err, &pe) {
		return pe.Error()
	}
	return strings.TrimPrefix(err.Error(), "cdxj: ")
}

// serveLines writes the answer: the first item is read before the status
// is sent, so that an error there is a 400 or 500; an error after it
// breaks the connection.
func serveLines[T any](h *CDXHandler, w http.ResponseWriter, r *http.Request, ct string, seq iter.Seq2[T, error], line func([]byte, T) ([]byte, error)) {
	next, stop := iter.Pull2(seq)
	defer stop()
	first, err, ok := next()
	if err != nil && r.Context().Err() != nil {
		return // the client went away: nobody to answer
	}
	if err != nil {
		h.fail(w, err)
		return
	}
	w.Header().Set("Content-Type", ct)
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	if !ok {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	written := 0
	v := first
	for n := 0; ; n++ {
		if buf, err = line(buf[:0], v); err != nil {
			var pe *cdxj.ParseError
			if !errors.As(err, &pe) || !h.o.SkipBad {
				break
			}
			h.badLines.Add(1) // a line whose JSON block is malformed
			err = nil
		} else {
			if _, werr := bw.Write(buf); werr != nil {
				return // the client went away
			}
			written += len(buf)
			h.lines.Add(1)
		}
		if n%1024 == 1023 && r.Context().Err() != nil {
			return
		}
		v, err, ok = next()
		if err != nil || !ok {
			break
		}
	}
	if err != nil && r.Context().Err() != nil {
		return // the client went away: nobody to answer
	}
	if err != nil {
		if written == 0 {
			h.fail(w, err)
			return
		}
		// Part of the answer is sent: break the connection so that the
		// client sees an answer cut short, not a whole one.
		h.failed.Add(1)
		if h.o.Logger != nil {
			h.o.Logger.Warn("cdx answer broken off", "query", r.URL.RawQuery, "err", err)
		}
		_ = bw.Flush()
		panic(http.ErrAbortHandler)
	}
	if written == 0 {
		w.Header().Set("Content-Length", "0")
		w.WriteHeader(http.StatusOK)
		return
	}
	_ = bw.Flush()
}
