package aggregator

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/timestamp"
)

// ConfigLine is one "name: value" line of the configuration section of
// /about (Options.About).
type ConfigLine struct {
	Name, Value string
}

// ---- MemGator's JSON layout for CDXJ lines ----

// mgField is one key of a flat JSON object written in MemGator's CDXJ
// layout; a nested object is given in obj.
type mgField struct {
	key, val string
	obj      []mgField
}

// writeMGJSON writes fields as one JSON object in MemGator's layout:
// `{"key": "value", "key": {...}}`, a space after each ':' and ',', no
// HTML escaping (internal/sampledata/cases/memgator_transcripts.md, "TimeMap,
// CDXJ format").
func writeMGJSON(b *bytes.Buffer, fields []mgField) {
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		writeJSONString(b, f.key)
		b.WriteString(": ")
		if f.obj != nil {
			writeMGJSON(b, f.obj)
		} else {
			writeJSONString(b, f.val)
		}
	}
	b.WriteByte('}')
}

// writeJSONString writes s as a JSON string without HTML escaping. URIs
// are printable ASCII without '"' or '\\' (cleanURIM): they are written
// as they are; any other string goes through encoding/json.
func writeJSONString(b *bytes.Buffer, s string) {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		c := s[i]
		plain = c >= 0x20 && c < 0x7f && c != '"' && c != '\\'
	}
	if plain {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string cannot fail
	b.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
}

func (h handler) mgTimeMapURIs(urir string) []mgField {
	return []mgField{
		{key: "link_format", val: h.base() + "/timemap/link/" + urir},
		{key: "json_format", val: h.base() + "/timemap/json/" + urir},
		{key: "cdxj_format", val: h.base() + "/timemap/cdxj/" + urir},
	}
}

func writeCDXJMemento(b *bytes.Buffer, m memento.Memento, rel string) {
	b.Write(timestamp.Append(b.AvailableBuffer(), m.Datetime))
	b.WriteByte(' ')
	writeMGJSON(b, []mgField{{key: "uri", val: m.URIM}, {key: "rel", val: rel}, {key: "datetime", val: memento.FormatHTTPDate(m.Datetime)}})
	b.WriteByte('\n')
}

// ---- /memento/{link|json|cdxj}/{datetime}/{URI-R} ----

// descriptionRels gives, for the navigation n, the mementos a MemGator
// memento description lists (first, prev, closest, next, last), in
// TimeMap order, each once with its rels merged: rel of the closest is
// closestRel ("memento" in link format, "closest memento" in CDXJ).
func descriptionRels(n nav, closestRel string) (idx []int, rels []string) {
	add := func(i int, r string) {
		if i < 0 {
			return
		}
		for k := range idx {
			if idx[k] == i {
				rels[k] = r + " " + rels[k]
				return
			}
		}
		idx, rels = append(idx, i), append(rels, r)
	}
	add(n.closest, closestRel)
	add(n.next, "next")
	add(n.prev, "prev")
	add(n.last, "last")
	add(n.first, "first")
	// rels read "first prev memento": first/last, then prev/next, then the
	// memento rel; "next"/"prev" before "closest memento" come from add's
	// prepending, so fix the memento rel's place here.
	for k, r := range rels {
		parts := strings.Fields(r)
		var nav, pos []string
		mem := ""
		for _, p := range parts {
			switch p {
			case "first", "last":
				pos = append(pos, p)
			case "prev", "next":
				nav = append(nav, p)
			default:
				mem += " " + p
			}
		}
		if !strings.HasSuffix(mem, "memento") {
			mem += " memento"
		}
		rels[k] = strings.TrimSpace(strings.Join(append(pos, nav...), " ") + mem)
	}
	// TimeMap order.
	for a := 1; a < len(idx); a++ {
		for c := a; c > 0 && idx[c] < idx[c-1]; c-- {
			idx[c], idx[c-1] = idx[c-1], idx[c]
			rels[c], rels[c-1] = rels[c-1], rels[c]
		}
	}
	return idx, rels
}

// description answers MemGator's /memento/{format}/{datetime}/{URI-R}:
// the first, prev, closest, next and last mementos around t, in link
// format, JSON or CDXJ, in MemGator's layouts.
func (h handler) description(w http.ResponseWriter, r *http.Request, format, urir string, t time.Time) {
	ans, ok := h.lookup(w, r, FamilyTimeTravel, urir, t)
	if !ok {
		return
	}
	ms := ans.Mementos
	n := h.ag.navigateAt(ms, t)
	var b bytes.Buffer
	switch format {
	case "link":
		fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", urir)
		idx, rels := descriptionRels(n, "memento")
		for k, i := range idx {
			writeMementoLink(&b, ms[i], rels[k], nil)
		}
		h.formats(&b, urir)
		writeBody(w, http.StatusOK, ctLink, b.Bytes())
	case "cdxj":
		b.WriteString("!context [\"https://oduwsdl.github.io/contexts/memento\"]\n")
		b.WriteString("!keys [\"memento_datetime_YYYYMMDDhhmmss\"]\n")
		h.cdxjMeta(&b, urir)
		idx, rels := descriptionRels(n, "closest memento")
		for k, i := range idx {
			writeCDXJMemento(&b, ms[i], rels[k])
		}
		writeBody(w, http.StatusOK, ctCDXJ, b.Bytes())
	default:
		doc := struct {
			OriginalURI string      `json:"original_uri"`
			Mementos    navMementos `json:"mementos"`
			TimeMapURI  tmURIs      `json:"timemap_uri,omitzero"`
			TimeGateURI string      `json:"timegate_uri,omitempty"`
		}{OriginalURI: urir, Mementos: navMementos{ms: ms, n: n}}
		if !h.ag.opts.NoAPILinks {
			doc.TimeMapURI, doc.TimeGateURI = h.uris(urir, true), h.base()+"/timegate/"+urir
		}
		encodeJSON(&b, doc, true)
		writeBody(w, http.StatusOK, ctJSON, b.Bytes())
	}
}

// navMementos is the "mementos" object of MemGator's JSON memento
// description: one key per navigation rel, in MemGator's order (its
// setNavRels and serializeLinks): the mementos in TimeMap order, and the
// rels of one memento in the order first, last, closest, next, prev. So
// after every memento it reads first, prev, last, closest; with a single
// memento first, last, closest.
type navMementos struct {
	ms []memento.Memento
	n  nav
}

// MarshalJSON writes the object with its keys in that order.
func (v navMementos) MarshalJSON() ([]byte, error) {
	type rel struct {
		name string
		i    int
	}
	var rels []rel
	for _, r := range []rel{{"first", v.n.first}, {"last", v.n.last}, {"closest", v.n.closest}, {"next", v.n.next}, {"prev", v.n.prev}} {
		if r.i >= 0 {
			rels = append(rels, r)
		}
	}
	slices.SortStableFunc(rels, func(a, b rel) int { return a.i - b.i })
	var b bytes.Buffer
	b.WriteByte('{')
	for k, r := range rels {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:", r.name)
		m := tmJSONMemento{Datetime: isoDate(v.ms[r.i].Datetime), URI: v.ms[r.i].URIM}
		encodeJSON(&b, m, false)
		b.Truncate(b.Len() - 1) // Encode's newline
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// cdxjMeta writes the !meta lines of a CDXJ answer: the URI-R, and unless
// Options.NoAPILinks the TimeGate and TimeMaps of this API.
func (h handler) cdxjMeta(b *bytes.Buffer, urir string) {
	b.WriteString("!meta ")
	writeMGJSON(b, []mgField{{key: "original_uri", val: urir}})
	if h.ag.opts.NoAPILinks {
		b.WriteByte('\n')
		return
	}
	b.WriteString("\n!meta ")
	writeMGJSON(b, []mgField{{key: "timegate_uri", val: h.base() + "/timegate/" + urir}})
	b.WriteString("\n!meta ")
	writeMGJSON(b, []mgField{{key: "timemap_uri", obj: h.mgTimeMapURIs(urir)}})
	b.WriteByte('\n')
}

// ---- cms archives ----

// navigateAt is navigate with the Time Travel rule for archives of type
// "cms" (internal/spec/TIMETRAVEL.md §1.2, §3.1): a content management
// system's memento is the version in force at t, so one of theirs may be
// the closest only if it is not after t (the floor); other archives'
// mementos follow closestIndex's rule. Without cms archives it is
// navigate.
func (ag *Aggregator) navigateAt(ms []memento.Memento, t time.Time) nav {
	n := navigate(ms, t)
	if !ag.hasCMS || len(ms) == 0 {
		return n
	}
	best := -1
	var bestD time.Duration
	for i, m := range ms {
		if ag.isCMS(m.Archive) && m.Datetime.After(t) {
			continue
		}
		d := m.Datetime.Sub(t)
		if d < 0 {
			d = -d
		}
		// Tie: the later wins; within a second the first listed.
		if best < 0 || d < bestD || d == bestD && m.Datetime.After(ms[best].Datetime) {
			best, bestD = i, d
		}
	}
	if best < 0 || best == n.closest {
		return n
	}
	n.closest, n.prev, n.next = best, -1, -1
	if g := groupStart(ms, best); g > 0 {
		n.prev = groupStart(ms, g-1)
	}
	j := best
	for j < len(ms) && ms[j].Datetime.Equal(ms[best].Datetime) {
		j++
	}
	if j < len(ms) {
		n.next = j
	}
	return n
}

// isCMS reports whether archive id is of type "cms".
func (ag *Aggregator) isCMS(id string) bool {
	st, ok := ag.byID[id]
	return ok && strings.EqualFold(st.Type, "cms")
}

// closestOf is closestIndex for the mementos of one archive: the floor
// for a cms archive (its first memento when none is at or before t).
func (ag *Aggregator) closestOf(id string, ms []memento.Memento, t time.Time) int {
	if !ag.isCMS(id) {
		return closestIndex(ms, t)
	}
	i := 0
	for k, m := range ms {
		if !m.Datetime.After(t) {
			i = groupStart(ms, k)
		}
	}
	return i
}

// ---- DIY TimeMap index ----

// diyIndex answers /timemap/index/{URI-R}: Time Travel's "DIY" TimeMap
// index (internal/spec/TIMETRAVEL.md §1.3): the original, the TimeGate,
// one rel="timemap" per archive the TimeMap rule selects for urir (with
// title="memento_compliant:yes|no|archive_id:ID"), and self. No archive is
// asked.
func (h handler) diyIndex(w http.ResponseWriter, rawR string) {
	if refusePage(w, rawR) {
		return
	}
	urir, ok := h.prelude(w, rawR)
	if !ok {
		return
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "<%s>; rel=\"original\",\n", urir)
	fmt.Fprintf(&b, "<%s/timegate/%s>; rel=\"timegate\",\n", h.base(), urir)
	for _, id := range h.ag.rules.Archives(TimeMapCache, urir) {
		a, ok := h.ag.byID[id]
		if !ok || a.TimeMap == "" {
			continue
		}
		mc := "no"
		if a.MementoCompliant {
			mc = "yes"
		}
		fmt.Fprintf(&b, "<%s%s>; rel=\"timemap\"; type=\"application/link-format\"; title=\"memento_compliant:%s|archive_id:%s\",\n", a.TimeMap, urir, mc, id)
	}
	fmt.Fprintf(&b, "<%s/timemap/index/%s>; rel=\"self\"; type=\"application/link-format\"\n", h.base(), urir)
	writeBody(w, http.StatusOK, ctLink, b.Bytes())
}

// ---- /timemap/json/{N}/{URI-R} ----

// writeJSONPage writes page p of size mementos in the JSON layout of the
// whole TimeMap, with "self" the page's URL and "pages" (the page count)
// and "timemap_index" (the whole TimeMap's JSON URL).
func (h handler) writeJSONPage(b *bytes.Buffer, urir string, ms []memento.Memento, p, size int) {
	lo, hi := (p-1)*size, min(p*size, len(ms))
	list := make([]tmJSONMemento, 0, hi-lo)
	for _, m := range ms[lo:hi] {
		list = append(list, tmJSONMemento{Datetime: isoDate(m.Datetime), URI: m.URIM})
	}
	doc := struct {
		OriginalURI string `json:"original_uri"`
		Self        string `json:"self"`
		Page        int    `json:"page"`
		Pages       int    `json:"pages"`
		Mementos    struct {
			List []tmJSONMemento `json:"list"`
		} `json:"mementos"`
		TimeMapIndex string `json:"timemap_index"`
		TimeMapURI   tmURIs `json:"timemap_uri"`
		TimeGateURI  string `json:"timegate_uri"`
	}{OriginalURI: urir, Self: h.base() + "/timemap/json/" + strconv.Itoa(p) + "/" + urir, Page: p, Pages: (len(ms) + size - 1) / size,
		TimeMapIndex: h.base() + "/timemap/json/" + urir, TimeMapURI: h.uris(urir, true), TimeGateURI: h.base() + "/timegate/" + urir}
	doc.Mementos.List = list
	encodeJSON(b, doc, true)
}

// ---- CORS preflight ----

// preflight answers an OPTIONS request (a browser's CORS preflight, sent
// before a script's GET with Accept-Datetime): 204, GET, HEAD, POST and
// OPTIONS allowed from any origin with the request headers the API reads.
func preflight(w http.ResponseWriter) {
	hd := w.Header()
	hd["Allow"] = hvAllow
	hd.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS")
	hd.Set("Access-Control-Allow-Headers", "Accept-Datetime, Cache-Control, Accept, Prefer")
	hd.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// ---- miss → /list ----

// wantsHTML reports whether the request comes from a browser: its Accept
// header names text/html.
func wantsHTML(r *http.Request) bool {
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// ---- /about ----

// about answers /about: the endpoints, the archives in rank order with
// their state and the configuration (no secret: the cache is named by its
// kind, never by its DSN); JSON when the request accepts application/json
// and not text/plain, else plain text. An archive's state is one of ok,
// dormant, failing, unknown (ArchiveState, Stats.State) and its detail
// says why (Stats.Detail); with it go the counters of Stats since the
// start: requests sent and their outcomes (found, none, failed), the
// memento links of its answers left out (Stats.Dropped: no http(s) URI-M,
// no readable datetime, or one out of range), requests saved by the archive's MementoMap (skipped by map), requests skipped
// while dormant, requests the AllowList refused, probes, and the map's
// state (loaded when, dropped, reloads). The text marks an archive as
// MemGator's /about does, with the detail ("(Consecutive failures: N)",
// "(DORMANT until T)"), on the archive's line, and writes the state and
// the counters on the line below it, indented (aboutStateLine). The body
// memory budget (BodyMemory: limit, bytes held now, peak, refusals by
// reason) is the configuration's "Body memory" line (bodyMemoryText) and,
// in JSON, also the object body_memory, in bytes.
func (h handler) about(w http.ResponseWriter, r *http.Request) {
	ag, base := h.ag, h.base()
	stats, bm := ag.Stats(), ag.BodyMemory()
	type archiveDoc struct {
		ID            string       `json:"id"`
		Name          string       `json:"name"`
		TimeMap       string       `json:"timemap,omitempty"`
		TimeGate      string       `json:"timegate,omitempty"`
		Type          string       `json:"type,omitempty"`
		State         ArchiveState `json:"state"`
		Detail        string       `json:"detail,omitempty"`
		Failures      int          `json:"consecutive_failures"`
		DormantUntil  string       `json:"dormant_until,omitempty"`
		Sent          int64        `json:"sent"`
		Found         int64        `json:"found"`
		None          int64        `json:"none"`
		Failed        int64        `json:"failed"`
		Dropped       int64        `json:"dropped_mementos"`
		SkippedByMap  int64        `json:"skipped_by_map"`
		DormantSkips  int64        `json:"skipped_dormant"`
		Refused       int64        `json:"refused"`
		Probes        int64        `json:"probes"`
		ProbeFailures int64        `json:"probe_failures"`
		LastProbe     string       `json:"last_probe,omitempty"`
		MapLoaded     bool         `json:"mementomap_loaded"`
		MapLoadedAt   string       `json:"mementomap_loaded_at,omitempty"`
		MapDropped    bool         `json:"mementomap_dropped"`
		MapReloads    int64        `json:"mementomap_reloads"`
		stateLine     string
	}
	archives := make([]archiveDoc, len(stats))
	for i, s := range stats {
		a := ag.archives[i].Archive
		archives[i] = archiveDoc{ID: a.ID, Name: a.Name, TimeMap: a.TimeMap, TimeGate: a.TimeGate, Type: a.Type, State: s.State(),
			Detail: s.Detail(), Failures: s.ConsecutiveFailures, Sent: s.Sent, Found: s.Found, None: s.None, Failed: s.Failed, Dropped: s.Dropped,
			SkippedByMap: s.Saved, DormantSkips: s.DormantSkips, Refused: s.Refused, Probes: s.Probes, ProbeFailures: s.ProbeFailures,
			MapLoaded: !s.MapLoaded.IsZero(), MapDropped: s.MapDropped, MapReloads: s.MapReloads, stateLine: aboutStateLine(s)}
		if !s.DormantUntil.IsZero() {
			archives[i].DormantUntil = isoDate(s.DormantUntil)
		}
		if !s.LastProbe.IsZero() {
			archives[i].LastProbe = isoDate(s.LastProbe)
		}
		if !s.MapLoaded.IsZero() {
			archives[i].MapLoadedAt = isoDate(s.MapLoaded)
		}
	}
	endpoints := [][2]string{
		{"TimeMap", base + "/timemap/{link|json|cdxj}/{URI-R}"},
		{"TimeMap page", base + "/timemap/{link|json}/{N}/{URI-R}"},
		{"TimeMap index", base + "/timemap/index[/json]/{URI-R}"},
		{"TimeGate", base + "/timegate/{URI-R} [Accept-Datetime]"},
		{"Memento", base + "/memento[/{link|json|cdxj|proxy}]/{DATETIME}/{URI-R}"},
		{"Time Travel JSON", base + "/api/json/{DATETIME}/{URI-R}"},
		{"MemGator aliases", base + "/api/{link|cdxj|proxy}/{DATETIME}/{URI-R}"},
		{"List", base + "/list/{DATETIME}/{URI-R}"},
		{"Archives", base + "/archives[/{json|xml}]"},
		{"About", base + "/about"},
	}
	config := append([]ConfigLine{
		{"Base URL", base},
		{"User-agent", ag.opts.UserAgent},
		{"Request timeout", ag.opts.RequestTimeout.String()},
		{"Dynamic budget", ag.opts.DynamicBudget.String()},
		{"Thorough budget", ag.opts.ThoroughBudget.String()},
		{"Tolerance", strconv.Itoa(ag.opts.Tolerance)},
		{"Dormant for", ag.opts.DormantFor.String()},
		{"Top-k", topkText(ag.opts.TopK)},
		{"Cache", cacheText(ag.opts.Cache != nil)},
		{"Cache timeout", ag.opts.CacheTimeout.String()},
		{"Max concurrent", strconv.Itoa(ag.opts.MaxConcurrent)},
		{"Fan-out", strconv.Itoa(ag.opts.FanOut)},
		{"Max body bytes", strconv.FormatInt(ag.opts.MaxBodyBytes, 10)},
		{"Body memory", bodyMemoryText(bm)},
		{"Max pages", strconv.Itoa(ag.opts.MaxPages)},
		{"MementoMap max age", ag.opts.MapMaxAge.String()},
		{"MementoMap check", ag.opts.MapCheckEvery.String()},
		{"Rules", rulesText(ag.opts.Rules)},
		{"Blacklisted hosts", strconv.Itoa(ag.opts.Blacklist.Len())},
		{"Miss to /list", strconv.FormatBool(ag.opts.MissToList)},
	}, ag.opts.About...)
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/plain") {
		cfg := map[string]string{}
		for _, c := range config {
			cfg[c.Name] = c.Value
		}
		eps := map[string]string{}
		for _, e := range endpoints {
			eps[e[0]] = e[1]
		}
		var b bytes.Buffer
		type bodyMemoryDoc struct {
			Limit      int64 `json:"limit"`
			Held       int64 `json:"held"`
			Peak       int64 `json:"peak"`
			Busy       int64 `json:"refused_memory_busy"`
			OverBudget int64 `json:"refused_over_memory_budget"`
		}
		encodeJSON(&b, struct {
			Endpoints  map[string]string `json:"endpoints"`
			Archives   []archiveDoc      `json:"archives"`
			Config     map[string]string `json:"config"`
			BodyMemory bodyMemoryDoc     `json:"body_memory"`
		}{eps, archives, cfg, bodyMemoryDoc(bm)}, true)
		writeBody(w, http.StatusOK, ctJSON, b.Bytes())
		return
	}
	var b bytes.Buffer
	b.WriteString("# mementokit aggregator\n\nA Memento aggregator (RFC 7089) over the archives below.\n\n\n## API Endpoints\n\n")
	for _, e := range endpoints {
		fmt.Fprintf(&b, "%-17s %s\n", e[0]+":", e[1])
	}
	b.WriteString("\n  {DATETIME}        => " + PathDatetimeForms + "\n  [Accept-Datetime] => Header in RFC1123 format\n\n\n## Upstream Archives\n\n")
	for i, a := range archives {
		name := a.Name
		if name == "" {
			name = a.ID
		}
		fmt.Fprintf(&b, "%d. [%s](%s)", i+1, name, a.ID)
		if a.Detail != "" {
			fmt.Fprintf(&b, " - (%s)", a.Detail)
		}
		b.WriteString("\n   " + a.stateLine + "\n")
	}
	b.WriteString("\n\n## Configs\n\n")
	for _, c := range config {
		fmt.Fprintf(&b, "%-24s%s\n", c.Name+":", c.Value)
	}
	writeBody(w, http.StatusOK, ctText, b.Bytes())
}

// aboutStateLine is an archive's state and counters in /about's text:
// "state ok; sent 3 (found 2, none 1, failed 0); 1 memento left out;
// skipped 4 by MementoMap,
// 0 while dormant; refused 0; probes 0 (0 failed); MementoMap loaded T"
// (or "no MementoMap", "MementoMap dropped (changed in place)"), with
// "until T" after a dormant state.
func aboutStateLine(s Stats) string {
	var b strings.Builder
	b.WriteString("state " + string(s.State()))
	if !s.DormantUntil.IsZero() {
		b.WriteString(" until " + isoDate(s.DormantUntil))
	}
	fmt.Fprintf(&b, "; sent %d (found %d, none %d, failed %d); %s left out; skipped %d by MementoMap, %d while dormant; refused %d; probes %d (%d failed)",
		s.Sent, s.Found, s.None, s.Failed, count.Of(int(s.Dropped), "memento", "mementos"), s.Saved, s.DormantSkips, s.Refused, s.Probes, s.ProbeFailures)
	switch {
	case s.MapDropped:
		b.WriteString("; MementoMap dropped (changed in place)")
	case s.MapLoaded.IsZero():
		b.WriteString("; no MementoMap")
	default:
		b.WriteString("; MementoMap loaded " + isoDate(s.MapLoaded))
	}
	if s.MapReloads > 0 {
		fmt.Fprintf(&b, ", reloaded %d", s.MapReloads)
	}
	return b.String()
}

// bodyMemoryText is the body memory budget in /about's text: "limit
// 256MiB; held 0; peak 32MiB; refused 1 memory-busy, 0
// over-memory-budget" (sizes by flagvalue.FormatBytes, "limit none" when
// Options.BodyMemory is negative).
func bodyMemoryText(m BodyMemoryStats) string {
	limit := "none"
	if m.Limit > 0 {
		limit = flagvalue.FormatBytes(m.Limit)
	}
	return fmt.Sprintf("limit %s; held %s; peak %s; refused %d %s, %d %s", limit, flagvalue.FormatBytes(m.Held), flagvalue.FormatBytes(m.Peak),
		m.Busy, ReasonMemoryBusy, m.OverBudget, ReasonOverMemoryBudget)
}

// rulesText describes Options.Rules in /about: the count of rules, or
// that every archive serves every service.
func rulesText(r *Rules) string {
	if r == nil {
		return "none (every archive for every service)"
	}
	return count.Of(len(r.List()), "rule", "rules")
}

func topkText(k int) string {
	if k <= 0 {
		return "all archives"
	}
	return strconv.Itoa(k) + " by probability"
}

func cacheText(on bool) string {
	if on {
		return "on"
	}
	return "none (every request searches)"
}

// ---- /archives ----

// registry answers /archives (JSON, MemGator's archives.json keys),
// /archives/json, and /archives/xml (the Time Travel archivelist.xml,
// internal/spec/TIMETRAVEL.md §3.1): the registry in rank order, as
// loaded (ignored entries are not in it). The XML has the attributes the
// registry keeps (link id and longname, timegate uri and redirect,
// timemap uri and paging-status, archive type and memento-status), each
// only when it has a value; the others (rewritten-urls, access-policy,
// calendar, icon) are not kept, so not written.
//
// The format is the path's (/archives/json, /archives/xml), else the query's
// format parameter (?format=json or ?format=xml; another value, or one the
// path contradicts, is 400), else the Accept header's choice between
// application/json and application/xml or text/xml by RFC 9110 §12.5.1
// (q-values, the more specific range first: negotiate), JSON on a tie, with
// no Accept or when the header accepts neither (Vary: Accept then).
func (h handler) registry(w http.ResponseWriter, r *http.Request, rest string) {
	format := strings.Trim(rest, "/")
	if q := r.URL.Query(); q.Has("format") {
		f := q.Get("format")
		if f != "json" && f != "xml" || format != "" && format != f {
			writeBody(w, http.StatusBadRequest, ctText, []byte("Bad format: "+strconv.Quote(f)+" for /archives"+shownText(rest)+"\nExpected: /archives?format={json|xml} or /archives/{json|xml}\n"))
			return
		}
		format = f
	}
	if format == "" {
		w.Header().Add("Vary", "Accept")
		format = "json"
		if o := negotiate(r.Header.Values("Accept"), "application/json", "application/xml", "text/xml"); o == "application/xml" || o == "text/xml" {
			format = "xml"
		}
	}
	as := h.ag.Archives()
	var b bytes.Buffer
	switch format {
	case "json":
		type entry struct {
			ID          string  `json:"id"`
			Name        string  `json:"name"`
			TimeMap     string  `json:"timemap,omitempty"`
			TimeGate    string  `json:"timegate,omitempty"`
			Probability float64 `json:"probability,omitempty"`
			Type        string  `json:"type,omitempty"`
			Compliant   bool    `json:"memento_compliant"`
		}
		list := make([]entry, len(as))
		for i, a := range as {
			list[i] = entry{a.ID, a.Name, a.TimeMap, a.TimeGate, a.Probability, a.Type, a.MementoCompliant}
		}
		encodeJSON(&b, list, true)
		writeBody(w, http.StatusOK, ctJSON, b.Bytes())
	case "xml":
		b.WriteString(xml.Header + "<links>\n")
		esc := func(s string) string {
			var e bytes.Buffer
			_ = xml.EscapeText(&e, []byte(s))
			return e.String()
		}
		attr := func(name, v string) {
			if v != "" {
				b.WriteString(" " + name + `="` + esc(v) + `"`)
			}
		}
		for _, a := range as {
			b.WriteString("  <link")
			attr("id", a.ID)
			attr("longname", a.Name)
			b.WriteString(">\n")
			if a.TimeGate != "" {
				redirect := a.Redirect
				if redirect == "" {
					redirect = "no"
				}
				b.WriteString("    <timegate")
				attr("uri", a.TimeGate)
				attr("redirect", redirect)
				b.WriteString("/>\n")
			}
			if a.TimeMap != "" {
				b.WriteString("    <timemap")
				attr("uri", a.TimeMap)
				attr("paging-status", strconv.Itoa(a.PagingStatus))
				b.WriteString("/>\n")
			}
			ms := "no"
			if a.MementoCompliant {
				ms = "yes"
			}
			b.WriteString("    <archive")
			attr("type", a.Type)
			attr("memento-status", ms)
			b.WriteString("/>\n")
			b.WriteString("  </link>\n")
		}
		b.WriteString("</links>\n")
		writeBody(w, http.StatusOK, "application/xml; charset=utf-8", b.Bytes())
	default:
		writeBody(w, http.StatusNotFound, ctText, []byte("Not found: /archives/"+shownText(format)+"\nExpected: /archives[/{json|xml}]\n"))
	}
}

// negotiate returns the offer (a media type "type/subtype", lower case)
// that the Accept header values prefer (RFC 9110 §12.5.1): each offer
// takes the q-value of the most specific range matching it (type/subtype,
// then type/*, then */*), a q of 0 refusing it; the highest q wins, the
// earlier offer on a tie. No Accept header gives the first offer; a header
// accepting none gives "". A range that does not parse is ignored.
func negotiate(accept []string, offers ...string) string {
	if len(accept) == 0 {
		return offers[0]
	}
	best, bestQ := "", 0.0
	for _, o := range offers {
		typ, _, _ := strings.Cut(o, "/")
		q, spec := 0.0, -1
		for _, h := range accept {
			for rng := range strings.SplitSeq(h, ",") {
				if strings.TrimSpace(rng) == "" {
					continue
				}
				mt, params, err := mime.ParseMediaType(rng)
				if err != nil {
					continue
				}
				s := -1
				switch {
				case mt == o:
					s = 2
				case mt == typ+"/*":
					s = 1
				case mt == "*/*":
					s = 0
				}
				if s <= spec {
					continue
				}
				rq := 1.0
				if v, ok := params["q"]; ok {
					f, err := strconv.ParseFloat(v, 64)
					if err != nil || f < 0 || f > 1 {
						continue
					}
					rq = f
				}
				q, spec = rq, s
			}
		}
		if q > bestQ {
			best, bestQ = o, q
		}
	}
	return best
}

// listURL is the /list page of urir at the path datetime dt (as the
// request gave it, escaped for a path).
func (h handler) listURL(dt, urir string) string {
	return h.base() + "/list/" + url.PathEscape(dt) + "/" + urir
}
