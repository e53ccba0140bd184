package aggregator

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// rawTimestamp is the 14-digit timestamp segment of a Wayback-style URI-M.
var rawTimestamp = regexp.MustCompile(`/(\d{14})/`)

// rawURIM is the URI-M of a memento's original bytes, as MemGator's
// /memento/proxy asks for it: "id_" after the first 14-digit timestamp
// segment of a Wayback-style URI-M (/web/20120615080910/... becomes
// /web/20120615080910id_/...); any other URI-M as it is.
func rawURIM(u string) string {
	loc := rawTimestamp.FindStringSubmatchIndex(u)
	if loc == nil {
		return u
	}
	return u[:loc[3]] + "id_" + u[loc[3]:]
}

// proxyMemento answers /memento/proxy/{datetime}/{URI-R} as MemGator
// does: it finds the memento closest to t (as /memento/{datetime}/...)
// and streams it from its archive, unrewritten (rawURIM), within
// Options.RequestTimeout, the request sent with Options.UserAgent only to
// a host the AllowList allows (the archives' own). The answer carries the
// archive's status, Content-Type and body, with Memento-Datetime (the
// memento's) and Link: the original and the archive's TimeGate for the
// URI-R. A memento that cannot be fetched, or whose Content-Length is over
// Options.MaxProxyBytes, is a 502 naming the URI-M and the cause; no
// memento, the lookup's status (404, 502, 504). A body cut short once
// sent (the archive's connection broken, RequestTimeout reached, more
// than MaxProxyBytes) is never ended as if whole: the handler panics with
// http.ErrAbortHandler, so net/http drops the connection without the end
// of the answer (no last chunk, or fewer bytes than Content-Length), after
// a warning record and a count in ProxyAborts.
func (h handler) proxyMemento(w http.ResponseWriter, r *http.Request, urir string, t time.Time) {
	ans, ok := h.lookup(w, r, FamilyTimeTravel, urir, t)
	if !ok {
		return
	}
	m := ans.Mementos[h.ag.navigateAt(ans.Mementos, t).closest]
	src := rawURIM(m.URIM)
	ctx, cancel := context.WithTimeout(r.Context(), h.ag.opts.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		writeBody(w, http.StatusBadGateway, ctText, []byte("Memento not fetched: "+shownText(src)+": "+err.Error()+"\n"))
		return
	}
	if ua := h.ag.opts.UserAgent; ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	resp, err := h.ag.fetch.Do(req)
	if err != nil {
		writeBody(w, http.StatusBadGateway, ctText, []byte("Memento not fetched: "+shownText(src)+": "+err.Error()+"\n"))
		return
	}
	defer resp.Body.Close()
	limit := h.ag.opts.MaxProxyBytes
	if resp.ContentLength > limit {
		h.ag.proxyAborts[1].Add(1)
		writeBody(w, http.StatusBadGateway, ctText, []byte("Memento not fetched: "+shownText(src)+": Content-Length "+strconv.FormatInt(resp.ContentLength, 10)+
			" is over the proxy's limit of "+strconv.FormatInt(limit, 10)+" bytes\n"))
		return
	}
	hd := w.Header()
	link := "<" + urir + `>; rel="original"`
	if st, ok := h.ag.byID[m.Archive]; ok && st.TimeGate != "" {
		link += ", <" + st.TimeGate + urir + `>; rel="timegate"`
	}
	hd.Set("Link", link)
	hd.Set("Memento-Datetime", memento.FormatHTTPDate(m.Datetime))
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		hd.Set("Content-Type", ct)
	}
	if resp.ContentLength >= 0 {
		hd.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	w.WriteHeader(resp.StatusCode)
	if r.Method == http.MethodHead {
		return
	}
	// Read one byte past the limit: a body that has it is over the limit.
	n, err := io.Copy(writerOnly{w}, io.LimitReader(resp.Body, limit+1))
	var cause string
	var kind int
	switch {
	case n > limit:
		cause, kind = "more than "+strconv.FormatInt(limit, 10)+" bytes (MaxProxyBytes)", 1
	case err != nil && r.Context().Err() != nil:
		return // the client went away: nothing to tell it
	case err != nil:
		cause = err.Error()
		if ctx.Err() != nil {
			cause = "not whole within the request timeout " + h.ag.opts.RequestTimeout.String() + ": " + cause
		}
	case resp.ContentLength >= 0 && n < resp.ContentLength:
		cause = "ended after " + strconv.FormatInt(n, 10) + " of " + strconv.FormatInt(resp.ContentLength, 10) + " bytes"
	default:
		return
	}
	h.ag.proxyAborts[kind].Add(1)
	h.ag.log.LogAttrs(r.Context(), slog.LevelWarn, "memento proxy: body cut off, answer aborted",
		slog.String("urim", src), slog.String("archive", m.Archive), slog.Int64("sent", n), slog.String("cause", cause))
	panic(http.ErrAbortHandler) // net/http closes the connection without ending the answer
}

// writerOnly hides every method of a ResponseWriter but Write, so that
// io.Copy takes no ReadFrom shortcut around the limit (an
// http.response's ReadFrom).
type writerOnly struct{ io.Writer }

// ProxyAborts are the /memento/proxy answers cut off since the start
// (Options.MaxProxyBytes): Cut is the memento bodies that broke off or did
// not arrive within Options.RequestTimeout, OverLimit those over
// MaxProxyBytes (refused with 502 when announced by Content-Length,
// aborted when found while streaming).
type ProxyAborts struct {
	Cut, OverLimit int64
}

// ProxyAborts returns the counts of /memento/proxy answers cut off.
func (ag *Aggregator) ProxyAborts() ProxyAborts {
	return ProxyAborts{Cut: ag.proxyAborts[0].Load(), OverLimit: ag.proxyAborts[1].Load()}
}

// diyIndexJSON answers /timemap/index/json/{URI-R}: Time Travel's JSON
// TimeMap index (internal/spec/TIMETRAVEL.md §1.3, its /timemap/json/
// {URI-R}): original_uri, timegate_uri, timemap_index (one entry per
// archive the TimeMap rule selects for urir: uri, memento_compliant "yes"
// or "no", archive_id) and timemap_uri (this index in link and JSON
// format). No archive is asked.
func (h handler) diyIndexJSON(w http.ResponseWriter, rawR string) {
	if refusePage(w, rawR) {
		return
	}
	urir, ok := h.prelude(w, rawR)
	if !ok {
		return
	}
	type entry struct {
		URI              string `json:"uri"`
		MementoCompliant string `json:"memento_compliant"`
		ArchiveID        string `json:"archive_id"`
	}
	doc := struct {
		OriginalURI  string  `json:"original_uri"`
		TimeGateURI  string  `json:"timegate_uri"`
		TimeMapIndex []entry `json:"timemap_index"`
		TimeMapURI   struct {
			JSONFormat string `json:"json_format"`
			LinkFormat string `json:"link_format"`
		} `json:"timemap_uri"`
	}{OriginalURI: urir, TimeGateURI: h.base() + "/timegate/" + urir, TimeMapIndex: []entry{}}
	doc.TimeMapURI.JSONFormat = h.base() + "/timemap/index/json/" + urir
	doc.TimeMapURI.LinkFormat = h.base() + "/timemap/index/" + urir
	for _, id := range h.ag.rules.Archives(TimeMapCache, urir) {
		a, ok := h.ag.byID[id]
		if !ok || a.TimeMap == "" {
			continue
		}
		mc := "no"
		if a.MementoCompliant {
			mc = "yes"
		}
		doc.TimeMapIndex = append(doc.TimeMapIndex, entry{URI: a.TimeMap + urir, MementoCompliant: mc, ArchiveID: id})
	}
	var b bytes.Buffer
	encodeJSON(&b, doc, true)
	writeBody(w, http.StatusOK, ctJSON, b.Bytes())
}
