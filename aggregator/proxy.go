package aggregator

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"time"
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
// URI-R. A memento that cannot be fetched is a 502 naming the URI-M and
// the cause; no memento, the lookup's status (404, 502, 504).
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
		writeBody(w, http.StatusBadGateway, ctText, []byte("Memento not fetched: "+src+": "+err.Error()+"\n"))
		return
	}
	if ua := h.ag.opts.UserAgent; ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	resp, err := h.ag.fetch.Do(req)
	if err != nil {
		writeBody(w, http.StatusBadGateway, ctText, []byte("Memento not fetched: "+src+": "+err.Error()+"\n"))
		return
	}
	defer resp.Body.Close()
	hd := w.Header()
	link := "<" + urir + `>; rel="original"`
	if st, ok := h.ag.byID[m.Archive]; ok && st.TimeGate != "" {
		link += ", <" + st.TimeGate + urir + `>; rel="timegate"`
	}
	hd.Set("Link", link)
	hd.Set("Memento-Datetime", httpDate(m.Datetime))
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		hd.Set("Content-Type", ct)
	}
	if resp.ContentLength >= 0 {
		hd.Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body) // a client gone or an archive cut off ends the copy
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
