package memento

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mementokit/mementokit/timestamp"
)

// Media types of the TimeMap serialisations.
const (
	// MediaTypeLinkFormat is the RFC 6690 / RFC 7089 §5 TimeMap media type.
	MediaTypeLinkFormat = "application/link-format"
	// MediaTypeJSON is the media type of the MemGator JSON TimeMap.
	MediaTypeJSON = "application/json"
	// MediaTypeCDXJ is the media type MemGator gives its CDXJ TimeMap
	// ("Object Resource Stream").
	MediaTypeCDXJ = "application/cdxj+ors"
)

// pageOfType returns the URI of the first page with media type typ.
func (tm *TimeMap) pageOfType(typ string) string {
	for _, p := range tm.Pages {
		if strings.EqualFold(p.Type, typ) {
			return p.URI
		}
	}
	return ""
}

// selfFor returns the self URI for a serialisation: the rel="timemap" page
// of that media type if there is one (MemGator lists its TimeMap in every
// format), else Self.URI.
func (tm *TimeMap) selfFor(typ string) string {
	if u := tm.pageOfType(typ); u != "" {
		return u
	}
	return tm.Self.URI
}

// TimeMapRel is the rel value of memento i (0-based) of the n mementos of
// a whole TimeMap in date order, as the writers give it (RFC 7089 §5,
// MemGator): "first last memento" for a single one (n 1), "first memento"
// for i 0, "last memento" for i n-1, else "memento".
func TimeMapRel(i, n int) string {
	switch {
	case n == 1:
		return "first last memento"
	case i == 0:
		return "first memento"
	case i == n-1:
		return "last memento"
	}
	return "memento"
}

// appendTarget writes "<target>", percent-encoding the bytes a
// URI-Reference cannot hold and the parser refuses: '<', '>', '"', space
// and control bytes (RFC 3986 §2.1). Targets read from archives never
// contain them.
func appendTarget(b []byte, t string) []byte {
	const hex = "0123456789ABCDEF"
	b = append(b, '<')
	for i := 0; i < len(t); i++ {
		c := t[i]
		if c <= ' ' || c == 0x7f || c == '<' || c == '>' || c == '"' {
			b = append(b, '%', hex[c>>4], hex[c&0xf])
			continue
		}
		b = append(b, c)
	}
	return append(b, '>')
}

// appendQuoted writes s as an RFC 9110 quoted-string, escaping '"' and '\'.
// Control bytes other than HTAB cannot appear in a quoted-string at all
// and are written as spaces.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\')
		case c < 0x20 && c != '\t' || c == 0x7f:
			c = ' '
		}
		b = append(b, c)
	}
	return append(b, '"')
}

func appendParam(b []byte, name, value string) []byte {
	b = append(b, "; "...)
	b = append(b, name...)
	b = append(b, '=')
	return appendQuoted(b, value)
}

func appendParams(b []byte, ps []Param) []byte {
	for _, p := range ps {
		if p.NoValue {
			b = append(b, "; "...)
			b = append(b, p.Name...)
			continue
		}
		b = appendParam(b, p.Name, p.Value)
	}
	return b
}

// AppendLink appends l in link-value syntax (RFC 8288 §3) to b: its
// RawTarget (or Target when RawTarget is empty) in angle brackets ('<',
// '>', space and controls percent-encoded), then rel (when Rel is not nil) and every
// parameter, values as quoted-strings. Parsing the output (strict or
// lenient) gives back l's RawTarget, Rel and Params for any l that a strict
// parse produced.
func AppendLink(b []byte, l *Link) []byte {
	t := l.RawTarget
	if t == "" {
		t = l.Target
	}
	b = appendTarget(b, t)
	if l.Rel != nil {
		b = appendParam(b, "rel", strings.Join(l.Rel, " "))
	}
	return appendParams(b, l.Params)
}

// FormatLinks returns links as one Link header field value, link-values
// separated by ", " (see AppendLink).
func FormatLinks(links []Link) string {
	var b []byte
	for i := range links {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = AppendLink(b, &links[i])
	}
	return string(b)
}

// WriteLinks writes links in application/link-format with one link per
// line, lines joined by ",\n" and a final "\n" (the layout of WriteLinkFormat
// and of MemGator's link-format answers); see AppendLink for each line.
// Its only errors are w's, returned as they come: writing stops at the
// first, and a part of the links may have been written.
func WriteLinks(w io.Writer, links []Link) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	b := make([]byte, 0, 512)
	for i := range links {
		b = b[:0]
		if i > 0 {
			b = append(b, ",\n"...)
		}
		b = AppendLink(b, &links[i])
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	if len(links) > 0 {
		if _, err := bw.WriteString("\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// NavigationLinks returns the links a TimeGate or a memento description
// sends for memento i of a sorted TimeMap (RFC 7089 §4.2.1, §5): the
// original; the first, previous (PrevIndex), selected, next (NextIndex) and
// last mementos in time order, each with its datetime, a memento playing
// several roles appearing once with its rels merged in the order first,
// last, prev, next, memento ("first prev memento", "first last memento");
// then the rel="timemap" pages with their types (and from/until when
// set), and the timegate. Absent
// parts are left out; i out of range gives no memento links. FormatLinks
// makes a Link header of the result, WriteLinks a link-format body; both
// match MemGator's answers byte for byte.
func NavigationLinks(tm *TimeMap, i int) []Link {
	var links []Link
	if tm.Original != "" {
		links = append(links, Link{Target: tm.Original, RawTarget: tm.Original, Rel: relOriginal[:1:1]})
	}
	n := len(tm.Mementos)
	if i >= 0 && i < n {
		type role struct {
			idx int
			rel string
		}
		roles := []role{{0, "first"}, {n - 1, "last"}, {tm.PrevIndex(i), "prev"}, {tm.NextIndex(i), "next"}, {i, ""}}
		var idxs []int
		for _, r := range roles {
			if r.idx >= 0 && !slices.Contains(idxs, r.idx) {
				idxs = append(idxs, r.idx)
			}
		}
		slices.Sort(idxs)
		for _, k := range idxs {
			var rel []string
			for _, r := range roles {
				if r.idx == k && r.rel != "" {
					rel = append(rel, r.rel)
				}
			}
			m := &tm.Mementos[k]
			links = append(links, Link{Target: m.URIM, RawTarget: m.URIM, Rel: append(rel, "memento"),
				Params: []Param{{Name: "datetime", Value: FormatHTTPDate(m.Datetime)}}})
		}
	}
	for _, p := range tm.Pages {
		l := Link{Target: p.URI, RawTarget: p.URI, Rel: relTimeMap[:1:1]}
		if p.Type != "" {
			l.Params = append(l.Params, Param{Name: "type", Value: p.Type})
		}
		if !p.From.IsZero() {
			l.Params = append(l.Params, Param{Name: "from", Value: FormatHTTPDate(p.From)})
		}
		if !p.Until.IsZero() {
			l.Params = append(l.Params, Param{Name: "until", Value: FormatHTTPDate(p.Until)})
		}
		links = append(links, l)
	}
	if tm.TimeGate != "" {
		links = append(links, Link{Target: tm.TimeGate, RawTarget: tm.TimeGate, Rel: relTimeGate[:1:1]})
	}
	return links
}

// writableYear reports whether t's UTC year fits the 4 digits of an
// rfc1123-date and of a 14-digit timestamp (RFC 7089 §2.1.1).
func writableYear(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 0 && y <= 9999
}

// checkWritable refuses a TimeMap holding a datetime that no TimeMap form
// can carry (a year outside 0000-9999), before anything is written: the
// output would not parse back ("Sat, 01 Jan 10000 ...", a 15-digit CDXJ
// key). The error wraps ErrFormat and names the memento or page.
func checkWritable(tm *TimeMap) error {
	for i := range tm.Mementos {
		if m := &tm.Mementos[i]; !writableYear(m.Datetime) {
			return fmt.Errorf("memento: memento %d (%q): datetime year %d outside 0000-9999: %w", i, m.URIM, m.Datetime.UTC().Year(), ErrFormat)
		}
	}
	pages := append([]Page{tm.Self}, tm.Pages...)
	for _, p := range pages {
		for _, t := range []time.Time{p.From, p.Until} {
			if !t.IsZero() && !writableYear(t) {
				return fmt.Errorf("memento: page %q: from/until year %d outside 0000-9999: %w", p.URI, t.UTC().Year(), ErrFormat)
			}
		}
	}
	return nil
}

func appendPage(b []byte, p *Page, rel string) []byte {
	b = appendTarget(b, p.URI)
	b = appendParam(b, "rel", rel)
	if p.Type != "" {
		b = appendParam(b, "type", p.Type)
	}
	if !p.From.IsZero() {
		b = appendParam(b, "from", FormatHTTPDate(p.From))
	}
	if !p.Until.IsZero() {
		b = appendParam(b, "until", FormatHTTPDate(p.Until))
	}
	return appendParams(b, p.Params)
}

// WriteLinkFormat writes tm as an application/link-format TimeMap
// (RFC 7089 §5) in the layout MemGator serves: one link per line, lines
// joined by ",\n", a final "\n"; first the original, then self, the
// mementos in order ("first memento" and "last memento" marked, a single
// one "first last memento"; each with datetime and its Extra parameters),
// then the rel="timemap" pages and last the timegate. Absent parts are
// left out. Mementos should be sorted (see Sort). Output is written through
// a 32 KiB buffer; memory does not grow with tm.
//
// A memento or page datetime whose year is outside 0000-9999 is refused,
// before anything is written, with an error wrapping ErrFormat.
func WriteLinkFormat(w io.Writer, tm *TimeMap) error {
	if err := checkWritable(tm); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	b := make([]byte, 0, 512)
	first := true
	emit := func() error {
		if !first {
			if _, err := bw.WriteString(",\n"); err != nil {
				return err
			}
		}
		first = false
		_, err := bw.Write(b)
		b = b[:0]
		return err
	}
	if tm.Original != "" {
		b = appendTarget(b, tm.Original)
		b = appendParam(b, "rel", "original")
		if err := emit(); err != nil {
			return err
		}
	}
	if tm.Self.URI != "" {
		b = appendPage(b, &tm.Self, "self")
		if err := emit(); err != nil {
			return err
		}
	}
	for i := range tm.Mementos {
		m := &tm.Mementos[i]
		b = appendTarget(b, m.URIM)
		b = appendParam(b, "rel", TimeMapRel(i, len(tm.Mementos)))
		b = append(b, `; datetime="`...)
		b = AppendHTTPDate(b, m.Datetime)
		b = append(b, '"')
		b = appendParams(b, m.Extra)
		if err := emit(); err != nil {
			return err
		}
	}
	for i := range tm.Pages {
		b = appendPage(b, &tm.Pages[i], "timemap")
		if err := emit(); err != nil {
			return err
		}
	}
	if tm.TimeGate != "" {
		b = appendTarget(b, tm.TimeGate)
		b = appendParam(b, "rel", "timegate")
		if err := emit(); err != nil {
			return err
		}
	}
	if !first {
		if _, err := bw.WriteString("\n"); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// appendJSONString appends s as a JSON string. Unlike encoding/json it does
// not escape '<', '>' and '&' (MemGator does not either); invalid UTF-8
// becomes U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// rfc3339 formats t in UTC as "2006-01-02T15:04:05Z", the datetime form of
// the JSON TimeMaps.
func rfc3339(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// jsonFormats lists the timemap_uri keys and the media type each stands for.
var jsonFormats = []struct{ key, typ string }{
	{"link_format", MediaTypeLinkFormat},
	{"json_format", MediaTypeJSON},
	{"cdxj_format", MediaTypeCDXJ},
}

// WriteJSON writes tm as the JSON TimeMap MemGator serves at
// /timemap/json/{URI-R}, two-space indented, keys in its order:
//
//	{
//	  "original_uri": "http://example.com/",
//	  "self": "http://localhost:1208/timemap/json/http://example.com/",
//	  "mementos": {
//	    "list": [{"datetime": "1999-01-25T09:30:00Z", "uri": "http://..."}, ...],
//	    "first": {...}, "last": {...}
//	  },
//	  "timemap_uri": {"link_format": ..., "json_format": ..., "cdxj_format": ...},
//	  "timegate_uri": "http://localhost:1208/timegate/http://example.com/"
//	}
//
// "uri" is a string (one memento per list entry; mementos of the same
// second are separate entries); datetimes are RFC 3339 in UTC. "self" is the
// application/json page of Pages if there is one, else Self.URI;
// timemap_uri holds the pages of the three media types that exist. Absent
// parts are left out; an empty TimeMap gives an empty "list" and no
// first/last. The document is built in memory (about 120 bytes per memento).
//
// A memento or page datetime whose year is outside 0000-9999 is refused,
// before anything is written, with an error wrapping ErrFormat.
func WriteJSON(w io.Writer, tm *TimeMap) error {
	if err := checkWritable(tm); err != nil {
		return err
	}
	b := make([]byte, 0, 256+160*len(tm.Mementos))
	b = append(b, "{\n"...)
	b = appendKV(b, "  ", "original_uri", tm.Original, true)
	if s := tm.selfFor(MediaTypeJSON); s != "" {
		b = appendKV(b, "  ", "self", s, true)
	}
	b = append(b, "  \"mementos\": {\n    \"list\": ["...)
	for i := range tm.Mementos {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      "...)
		b = appendEntry(b, "      ", &tm.Mementos[i])
	}
	if len(tm.Mementos) > 0 {
		b = append(b, "\n    "...)
	}
	b = append(b, ']')
	if f, ok := tm.First(); ok {
		b = append(b, ",\n    \"first\": "...)
		b = appendEntry(b, "    ", &f)
		l, _ := tm.Last()
		b = append(b, ",\n    \"last\": "...)
		b = appendEntry(b, "    ", &l)
	}
	b = append(b, "\n  }"...)
	b = appendFormats(b, tm, jsonFormats)
	if tm.TimeGate != "" {
		b = append(b, ",\n"...)
		b = appendKV(b, "  ", "timegate_uri", tm.TimeGate, false)
	}
	b = append(b, "\n}\n"...)
	_, err := w.Write(b)
	return err
}

// appendFormats writes ",\n  \"timemap_uri\": {...}" when any page exists.
func appendFormats(b []byte, tm *TimeMap, formats []struct{ key, typ string }) []byte {
	n := 0
	for _, f := range formats {
		u := tm.pageOfType(f.typ)
		if u == "" {
			continue
		}
		if n == 0 {
			b = append(b, ",\n  \"timemap_uri\": {"...)
		} else {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = appendJSONString(b, f.key)
		b = append(b, ": "...)
		b = appendJSONString(b, u)
		n++
	}
	if n > 0 {
		b = append(b, "\n  }"...)
	}
	return b
}

func appendKV(b []byte, indent, k, v string, comma bool) []byte {
	b = append(b, indent...)
	b = appendJSONString(b, k)
	b = append(b, ": "...)
	b = appendJSONString(b, v)
	if comma {
		b = append(b, ',', '\n')
	}
	return b
}

// appendEntry writes {"datetime": ..., "uri": ...} indented for MemGator's
// layout; indent is the indentation of the line holding the '{'.
func appendEntry(b []byte, indent string, m *Memento) []byte {
	b = append(b, "{\n"...)
	b = append(b, indent...)
	b = append(b, `  "datetime": "`...)
	b = m.Datetime.UTC().AppendFormat(b, "2006-01-02T15:04:05Z")
	b = append(b, "\",\n"...)
	b = appendKV(b, indent+"  ", "uri", m.URIM, false)
	b = append(b, '\n')
	b = append(b, indent...)
	return append(b, '}')
}

// CDXJContext is the JSON-LD context MemGator names in its CDXJ TimeMaps.
const CDXJContext = "https://oduwsdl.github.io/contexts/memento"

// WriteCDXJ writes tm as the CDXJ TimeMap MemGator serves at
// /timemap/cdxj/{URI-R}: header lines
//
//	!context ["https://oduwsdl.github.io/contexts/memento"]
//	!id {"uri": "<the application/cdxj+ors page, else Self.URI>"}
//	!keys ["memento_datetime_YYYYMMDDhhmmss"]
//	!meta {"original_uri": "..."}
//	!meta {"timegate_uri": "..."}
//	!meta {"timemap_uri": {"link_format": "...", "json_format": "...", "cdxj_format": "..."}}
//
// then one line per memento, keyed by its 14-digit timestamp:
//
//	19990125093000 {"uri": "http://...", "rel": "first memento", "datetime": "Mon, 25 Jan 1999 09:30:00 GMT"}
//
// Absent parts are left out. Lines end in LF; the lines are sorted because
// Mementos is. Output goes through a 32 KiB buffer.
//
// A memento or page datetime whose year is outside 0000-9999 is refused,
// before anything is written, with an error wrapping ErrFormat.
func WriteCDXJ(w io.Writer, tm *TimeMap) error {
	if err := checkWritable(tm); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	b := make([]byte, 0, 512)
	b = append(b, "!context [\""+CDXJContext+"\"]\n"...)
	if s := tm.selfFor(MediaTypeCDXJ); s != "" {
		b = append(b, `!id {"uri": `...)
		b = appendJSONString(b, s)
		b = append(b, "}\n"...)
	}
	b = append(b, "!keys [\"memento_datetime_YYYYMMDDhhmmss\"]\n"...)
	if tm.Original != "" {
		b = append(b, `!meta {"original_uri": `...)
		b = appendJSONString(b, tm.Original)
		b = append(b, "}\n"...)
	}
	if tm.TimeGate != "" {
		b = append(b, `!meta {"timegate_uri": `...)
		b = appendJSONString(b, tm.TimeGate)
		b = append(b, "}\n"...)
	}
	n := 0
	for _, f := range jsonFormats {
		u := tm.pageOfType(f.typ)
		if u == "" {
			continue
		}
		if n == 0 {
			b = append(b, `!meta {"timemap_uri": {`...)
		} else {
			b = append(b, ", "...)
		}
		b = appendJSONString(b, f.key)
		b = append(b, ": "...)
		b = appendJSONString(b, u)
		n++
	}
	if n > 0 {
		b = append(b, "}}\n"...)
	}
	for i := range tm.Mementos {
		m := &tm.Mementos[i]
		b = timestamp.Append(b, m.Datetime)
		b = append(b, ` {"uri": `...)
		b = appendJSONString(b, m.URIM)
		b = append(b, `, "rel": `...)
		b = appendJSONString(b, TimeMapRel(i, len(tm.Mementos)))
		b = append(b, `, "datetime": `...)
		b = append(b, '"')
		b = AppendHTTPDate(b, m.Datetime)
		b = append(b, '"')
		b = append(b, "}\n"...)
		if len(b) > 16<<10 {
			if _, err := bw.Write(b); err != nil {
				return err
			}
			b = b[:0]
		}
	}
	if _, err := bw.Write(b); err != nil {
		return err
	}
	return bw.Flush()
}
