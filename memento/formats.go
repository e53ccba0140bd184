package memento

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// ErrFormat: a JSON or CDXJ TimeMap does not have the expected shape.
var ErrFormat = errors.New("malformed TimeMap")

// formatPages turns a timemap_uri object into Pages of the known types.
func formatPages(m map[string]string) []Page {
	var ps []Page
	for _, f := range jsonFormats {
		if u, ok := m[f.key]; ok && u != "" {
			ps = append(ps, Page{URI: u, Type: f.typ})
		}
	}
	return ps
}

type jsonEntry struct {
	Datetime string `json:"datetime"`
	URI      string `json:"uri"`
}

// ReadJSON reads a JSON TimeMap in the form WriteJSON (and MemGator)
// writes. Self becomes the "self" URI with type application/json, Pages
// the timemap_uri entries, mementos come from "list" (sorted afterwards).
// Datetimes must be RFC 3339. The whole document is decoded in memory.
// Errors wrap ErrFormat; a JSON syntax or type error gives its byte
// offset, and anything but white space after the document is an error.
func ReadJSON(r io.Reader) (*TimeMap, error) {
	var doc struct {
		Original string `json:"original_uri"`
		Self     string `json:"self"`
		Mementos struct {
			List []jsonEntry `json:"list"`
		} `json:"mementos"`
		TimeMapURI map[string]string `json:"timemap_uri"`
		TimeGate   string            `json:"timegate_uri"`
	}
	if err := decodeDocument(r, &doc); err != nil {
		return nil, fmt.Errorf("memento: JSON TimeMap: %w: %w", ErrFormat, err)
	}
	tm := &TimeMap{Original: doc.Original, RawOriginal: doc.Original, TimeGate: doc.TimeGate, Pages: formatPages(doc.TimeMapURI)}
	if doc.Self != "" {
		tm.Self = Page{URI: doc.Self, Type: MediaTypeJSON}
	}
	for i, e := range doc.Mementos.List {
		t, err := time.Parse(time.RFC3339, e.Datetime)
		if err != nil || e.URI == "" {
			return nil, fmt.Errorf("memento: JSON TimeMap: list[%d]: %w: datetime %q uri %q", i, ErrFormat, e.Datetime, e.URI)
		}
		tm.Mementos = append(tm.Mementos, Memento{URIM: e.URI, Datetime: t.UTC()})
	}
	tm.Sort()
	return tm, nil
}

// decodeDocument decodes the one JSON value r holds into v. A syntax or
// type error names the byte offset where it was found, and anything but
// white space after the value is an error (a truncated or concatenated
// answer must not pass for a complete TimeMap).
func decodeDocument(r io.Reader, v any) error {
	dec := json.NewDecoder(r)
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("at byte %d: %w", se.Offset, err)
		case errors.As(err, &te):
			return fmt.Errorf("at byte %d: %w", te.Offset, err)
		case errors.Is(err, io.EOF):
			return fmt.Errorf("empty document: %w", io.ErrUnexpectedEOF)
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the JSON value")
		}
		return fmt.Errorf("at byte %d: %w", dec.InputOffset(), err)
	}
	return nil
}

// ReadCDXJ reads a CDXJ TimeMap in the form WriteCDXJ (and MemGator)
// writes, line by line (memory: the mementos plus one line of at most
// 1 MiB). "!id" becomes Self (type application/cdxj+ors), "!meta" lines
// give the original, timegate and timemap_uri pages; each other line is
// "<14-digit timestamp> <JSON object>" whose "uri" is the URI-M and whose
// "datetime" (rfc1123-date), or else the timestamp, is its datetime.
// Errors name the line and wrap ErrFormat.
func ReadCDXJ(r io.Reader) (*TimeMap, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	tm := &TimeMap{}
	line := 0
	bad := func(msg string, args ...any) error {
		return fmt.Errorf("memento: CDXJ TimeMap line %d: %w: %s", line, ErrFormat, fmt.Sprintf(msg, args...))
	}
	for sc.Scan() {
		line++
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if len(b) == 0 {
			continue
		}
		key, rest, ok := bytes.Cut(b, []byte(" "))
		if !ok || len(key) == 0 {
			return tm, bad("want \"<key> <JSON>\"")
		}
		if key[0] == '!' {
			switch string(key) {
			case "!id":
				var v struct {
					URI string `json:"uri"`
				}
				if err := json.Unmarshal(rest, &v); err != nil {
					return tm, bad("!id: %v", err)
				}
				tm.Self = Page{URI: v.URI, Type: MediaTypeCDXJ}
			case "!meta":
				var v struct {
					Original   *string           `json:"original_uri"`
					TimeGate   *string           `json:"timegate_uri"`
					TimeMapURI map[string]string `json:"timemap_uri"`
				}
				if err := json.Unmarshal(rest, &v); err != nil {
					return tm, bad("!meta: %v", err)
				}
				if v.Original != nil {
					tm.Original, tm.RawOriginal = *v.Original, *v.Original
				}
				if v.TimeGate != nil {
					tm.TimeGate = *v.TimeGate
				}
				if v.TimeMapURI != nil {
					tm.Pages = formatPages(v.TimeMapURI)
				}
			}
			continue
		}
		var v struct {
			URI      string `json:"uri"`
			Datetime string `json:"datetime"`
		}
		if err := json.Unmarshal(rest, &v); err != nil {
			return tm, bad("%v", err)
		}
		if v.URI == "" {
			return tm, bad("memento without \"uri\"")
		}
		var t time.Time
		var err error
		if v.Datetime != "" {
			t, err = ParseHTTPDate(v.Datetime)
		} else {
			t, err = parseTimestamp(string(key))
		}
		if err != nil {
			return tm, bad("%v", err)
		}
		tm.Mementos = append(tm.Mementos, Memento{URIM: v.URI, Datetime: t})
	}
	tm.Sort()
	if err := sc.Err(); err != nil {
		return tm, fmt.Errorf("memento: CDXJ TimeMap after line %d: %w", line, err)
	}
	return tm, nil
}

// TimeTravelEntry is one of first, prev, closest, next and last in a Time
// Travel /api/json answer: a datetime and every URI-M of that second.
type TimeTravelEntry struct {
	Datetime time.Time // the Memento-Datetime, UTC, whole seconds
	URI      []string  // every URI-M captured in that second, in TimeMap order
}

// TimeTravelResult is the Time Travel /api/json/{datetime}/{URI-R} answer
// (see WriteTimeTravelJSON). Prev and Next are nil when absent.
type TimeTravelResult struct {
	OriginalURI string // the URI-R (original_uri)
	TimeGateURI string // the aggregator's TimeGate for it (timegate_uri)
	// LinkFormat and JSONFormat are the timemap_uri entries.
	LinkFormat, JSONFormat           string
	First, Prev, Closest, Next, Last *TimeTravelEntry
}

// NewTimeTravelResult selects, for datetime t, the Time Travel summary of a
// sorted TimeMap: the closest second (tie → later, see ClosestIndex), the
// first, last, previous and next seconds, each with every URI-M of that
// second. prev is left out when it would equal first, next when it would
// equal last, as Time Travel does. OriginalURI, TimeGateURI and the
// timemap URIs come from tm (its application/link-format and
// application/json pages). It returns nil for an empty TimeMap.
func NewTimeTravelResult(tm *TimeMap, t time.Time) *TimeTravelResult {
	c := tm.ClosestIndex(t)
	if c < 0 {
		return nil
	}
	entry := func(i int) *TimeTravelEntry {
		ms := tm.SameSecond(i)
		e := &TimeTravelEntry{Datetime: ms[0].Datetime}
		for _, m := range ms {
			e.URI = append(e.URI, m.URIM)
		}
		return e
	}
	last := tm.groupStart(len(tm.Mementos) - 1)
	res := &TimeTravelResult{
		OriginalURI: tm.Original,
		TimeGateURI: tm.TimeGate,
		LinkFormat:  tm.pageOfType(MediaTypeLinkFormat),
		JSONFormat:  tm.pageOfType(MediaTypeJSON),
		First:       entry(0),
		Closest:     entry(c),
		Last:        entry(last),
	}
	if p := tm.PrevIndex(c); p >= 0 && tm.groupStart(p) > 0 {
		res.Prev = entry(p)
	}
	if n := tm.NextIndex(c); n >= 0 && n != last {
		res.Next = entry(n)
	}
	return res
}

// WriteTimeTravelJSON writes res in the Time Travel /api/json form,
// two-space indented, keys in this order (Time Travel itself does not fix
// one):
//
//	{
//	  "original_uri": "http://example.com/",
//	  "timegate_uri": "http://timetravel.mementoweb.org/timegate/http://example.com/",
//	  "timemap_uri": {"link_format": "...", "json_format": "..."},
//	  "mementos": {
//	    "first":   {"datetime": "2002-01-20T14:25:10Z", "uri": ["http://..."]},
//	    "prev":    {...}, "closest": {...}, "next": {...}, "last": {...}
//	  }
//	}
//
// "uri" is always an array; datetimes are yyyy-MM-ddTHH:mm:ssZ in UTC;
// absent entries and empty URIs are left out. A nil res (what
// NewTimeTravelResult gives for an empty TimeMap) or a datetime whose year
// is outside 0000-9999 is refused, before anything is written, with an
// error wrapping ErrFormat.
func WriteTimeTravelJSON(w io.Writer, res *TimeTravelResult) error {
	if res == nil {
		return fmt.Errorf("memento: Time Travel JSON: nil result (NewTimeTravelResult of an empty TimeMap): %w", ErrFormat)
	}
	for _, e := range []*TimeTravelEntry{res.First, res.Prev, res.Closest, res.Next, res.Last} {
		if e != nil && !writableYear(e.Datetime) {
			return fmt.Errorf("memento: Time Travel JSON: datetime year %d outside 0000-9999: %w", e.Datetime.UTC().Year(), ErrFormat)
		}
	}
	b := []byte("{\n")
	first := true
	kv := func(k, v string) {
		if v == "" {
			return
		}
		if !first {
			b = append(b, ",\n"...)
		}
		first = false
		b = appendKV(b, "  ", k, v, false)
	}
	kv("original_uri", res.OriginalURI)
	kv("timegate_uri", res.TimeGateURI)
	if res.LinkFormat != "" || res.JSONFormat != "" {
		if !first {
			b = append(b, ",\n"...)
		}
		first = false
		b = append(b, "  \"timemap_uri\": {"...)
		sep := "\n"
		if res.LinkFormat != "" {
			b = append(b, sep...)
			b = appendKV(b, "    ", "link_format", res.LinkFormat, false)
			sep = ",\n"
		}
		if res.JSONFormat != "" {
			b = append(b, sep...)
			b = appendKV(b, "    ", "json_format", res.JSONFormat, false)
		}
		b = append(b, "\n  }"...)
	}
	if !first {
		b = append(b, ",\n"...)
	}
	b = append(b, "  \"mementos\": {"...)
	sep := "\n"
	for _, e := range []struct {
		k string
		v *TimeTravelEntry
	}{{"first", res.First}, {"prev", res.Prev}, {"closest", res.Closest}, {"next", res.Next}, {"last", res.Last}} {
		if e.v == nil {
			continue
		}
		b = append(b, sep...)
		sep = ",\n"
		b = append(b, "    "...)
		b = appendJSONString(b, e.k)
		b = append(b, `: {"datetime": `...)
		b = appendJSONString(b, rfc3339(e.v.Datetime))
		b = append(b, `, "uri": [`...)
		for i, u := range e.v.URI {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = appendJSONString(b, u)
		}
		b = append(b, "]}"...)
	}
	b = append(b, "\n  }\n}\n"...)
	_, err := w.Write(b)
	return err
}

// ReadTimeTravelJSON reads a Time Travel /api/json answer. "uri" may be an
// array (Time Travel) or a single string (MemGator's emulation). Errors
// wrap ErrFormat; a JSON syntax or type error gives its byte offset, and
// anything but white space after the document is an error.
func ReadTimeTravelJSON(r io.Reader) (*TimeTravelResult, error) {
	var doc struct {
		Original   string                     `json:"original_uri"`
		TimeGate   string                     `json:"timegate_uri"`
		TimeMapURI map[string]string          `json:"timemap_uri"`
		Mementos   map[string]json.RawMessage `json:"mementos"`
	}
	if err := decodeDocument(r, &doc); err != nil {
		return nil, fmt.Errorf("memento: Time Travel JSON: %w: %w", ErrFormat, err)
	}
	res := &TimeTravelResult{
		OriginalURI: doc.Original,
		TimeGateURI: doc.TimeGate,
		LinkFormat:  doc.TimeMapURI["link_format"],
		JSONFormat:  doc.TimeMapURI["json_format"],
	}
	for k, raw := range doc.Mementos {
		var e struct {
			Datetime string          `json:"datetime"`
			URI      json.RawMessage `json:"uri"`
		}
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, fmt.Errorf("memento: Time Travel JSON: mementos.%s: %w: %w", k, ErrFormat, err)
		}
		t, err := time.Parse(time.RFC3339, e.Datetime)
		if err != nil {
			return nil, fmt.Errorf("memento: Time Travel JSON: mementos.%s: %w: %w", k, ErrFormat, err)
		}
		entry := &TimeTravelEntry{Datetime: t.UTC()}
		if err := json.Unmarshal(e.URI, &entry.URI); err != nil {
			var one string
			if err2 := json.Unmarshal(e.URI, &one); err2 != nil {
				return nil, fmt.Errorf("memento: Time Travel JSON: mementos.%s.uri: %w: %w", k, ErrFormat, err)
			}
			entry.URI = []string{one}
		}
		switch strings.ToLower(k) {
		case "first":
			res.First = entry
		case "prev":
			res.Prev = entry
		case "closest":
			res.Closest = entry
		case "next":
			res.Next = entry
		case "last":
			res.Last = entry
		}
	}
	return res, nil
}
