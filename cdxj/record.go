package cdxj

import (
	"bytes"
	"strconv"
	"time"

	"github.com/mementokit/mementokit/timestamp"
)

// Record is one capture read from a CDXJ or classic CDX line.
//
// Its byte-slice results alias the line it was read from: with
// Reader.ReuseRecord set they stay valid only until the next Read (Clone
// makes a copy that lasts); otherwise each Record owns its line. A value that
// is absent, or "-" in the source, is unknown: a nil slice, a zero status, or
// ok == false. A Record is not safe for concurrent use: its JSON block is
// indexed lazily.
//
// For a CDXJ line the well-known values come from the JSON block under the
// names pywb, Common Crawl and OpenWayback use (url, mime, status, digest,
// length, offset, filename, redirect), falling back on the ipwb/ORS names
// (original_uri, mime_type, status_code). A JSON block that is invalid where
// it is scanned makes those values unknown; Field, RawField, Fields and
// CheckJSON report the error with the line number.
type Record struct {
	line    []byte
	lineNo  int64
	inOff   int64
	src     string       // the source's name, for errors
	lines   *lineCounter // for a record of a part: finds lineNo from inOff when asked
	layout  *Layout      // nil for a CDXJ line
	key, ts []byte
	tsPad   timestamp.Digits // ts padded to its earliest instant
	cols    [numFields][]byte
	json    []byte // the JSON block of a CDXJ line, nil for CDX
	jx      jsonIndex
	scratch []byte
	spans   [maxColumns + 1][2]int32
}

// reset prepares r for a new line. The columns are parseCDX's to set:
// only a classic CDX record (json nil after a parse) reads them.
func (r *Record) reset(line []byte) {
	r.line = line
	r.layout = nil
	r.key, r.ts, r.json = nil, nil, nil
	r.jx.reset()
	r.scratch = r.scratch[:0]
}

// ParseLine parses one CDXJ or classic CDX line (without its newline) into a
// new Record that aliases line. layout is the column order of a classic CDX
// line, or nil to infer it from the field count (see Reader). Header lines
// ("!..." and " CDX ...") are not records: they give an error wrapping
// ErrFieldCount or timestamp.ErrInvalid. An error is a *ParseError whose Line is 0.
func ParseLine(line []byte, layout *Layout) (*Record, error) {
	r := new(Record)
	if err := r.parse(line, layout, nil); err != nil {
		return nil, err
	}
	return r, nil
}

// maxParseLen is the longest line a Record can hold: positions in it are
// kept as int32.
const maxParseLen = 1<<31 - 1

func perr(col int, err error) *ParseError { return &ParseError{Column: col, Err: err} }

// parse reads line. hdr is the layout a " CDX" header declared (it forces
// classic CDX); def is the caller's default for headerless CDX lines.
func (r *Record) parse(line []byte, hdr, def *Layout) error {
	r.reset(line)
	if len(line) > maxParseLen {
		return perr(0, causef(ErrLineTooLong, "%d bytes, at most %d can be parsed", len(line), maxParseLen))
	}
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 {
		return perr(0, causef(ErrFieldCount, "one field, no space-separated timestamp"))
	}
	if sp == 0 {
		return perr(1, causef(ErrFieldCount, "line starts with a space (empty key)"))
	}
	// A run of spaces separates like one space (hand-edited files).
	rest := trimSpaces(line[sp+1:])
	if hdr == nil && len(rest) > 0 && rest[0] == '{' {
		// The ORS TimeMap form "datetime {json}" (ipwb): the key is the
		// timestamp, and the block must say what was captured.
		if !namesURL(rest) {
			return perr(len(line)-len(rest)+1, causef(ErrNotCapture,
				"key %q is a datetime and the JSON block has no \"uri\", \"url\" or \"original_uri\" string: a date-keyed series (such as summarize daily's output), not an index", clip(line[:sp])))
		}
		return r.setCDXJ(line[:sp], line[:sp], rest, 0)
	}
	if sp2 := bytes.IndexByte(rest, ' '); sp2 >= 0 {
		// After a " CDX" legend, a line is CDXJ only when its third field is
		// a whole JSON object (a CDX and a CDXJ file concatenated).
		js := trimSpaces(rest[sp2+1:])
		if len(js) > 0 && js[0] == '{' && (hdr == nil || bytes.HasSuffix(bytes.TrimRight(js, " "), []byte("}"))) {
			return r.setCDXJ(line[:sp], rest[:sp2], js, len(line)-len(rest))
		}
	}
	err := r.parseCDX(line, hdr, def)
	if err != nil && hdr == nil && def == nil {
		// A CDXJ key with spaces in it (CDX-01: a file: URL with a space):
		// the timestamp is the token just before the JSON block.
		if j := bytes.Index(line, []byte(" {")); j > 0 {
			head := bytes.TrimRight(line[:j], " ")
			k := bytes.LastIndexByte(head, ' ')
			key := bytes.TrimRight(head[:max(k, 0)], " ")
			if k <= 0 || len(key) == 0 {
				return perr(j+2, causef(ErrFieldCount, "JSON block without a timestamp before it"))
			}
			r.reset(line)
			return r.setCDXJ(key, head[k+1:], line[j+1:], k+1)
		}
	}
	return err
}

// trimSpaces drops leading spaces.
func trimSpaces(b []byte) []byte {
	for len(b) > 0 && b[0] == ' ' {
		b = b[1:]
	}
	return b
}

// setCDXJ records the parts of a CDXJ line; tsOff is where ts starts.
func (r *Record) setCDXJ(key, ts, json []byte, tsOff int) error {
	r.key, r.ts, r.json = key, ts, json
	var err error
	if r.tsPad, err = timestamp.Earliest(ts); err != nil {
		return perr(tsOff+1, err)
	}
	return nil
}

// parseCDX splits a classic CDX line on runs of spaces.
func (r *Record) parseCDX(line []byte, hdr, def *Layout) error {
	n := 0
	start := -1 // start of the current field, -1 between fields
	for i, c := range line {
		if c == ' ' {
			if start >= 0 {
				if n == len(r.spans) {
					return perr(start+1, causef(ErrFieldCount, "more than %d fields", maxColumns))
				}
				r.spans[n] = [2]int32{int32(start), int32(i)}
				n++
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		if n == len(r.spans) {
			return perr(start+1, causef(ErrFieldCount, "more than %d fields", maxColumns))
		}
		r.spans[n] = [2]int32{int32(start), int32(len(line))}
		n++
	}
	layout := hdr
	if layout == nil {
		layout = def
	}
	// A MIME type with a space in it ("text/plain; charset=utf-8") splits
	// into two fields; join them back.
	m := 3 // where every headerless layout has its MIME type
	if layout != nil {
		m = int(layout.idx[fMIME])
	}
	for m >= 0 && m+1 < n && (layout == nil || n > len(layout.cols)) {
		a, b := r.spans[m], r.spans[m+1]
		next := line[b[0]:b[1]]
		if !(line[a[1]-1] == ';' && bytes.IndexByte(next, '=') > 0 || next[0] == ';') {
			break
		}
		r.spans[m][1] = b[1]
		copy(r.spans[m+1:n], r.spans[m+2:n])
		n--
	}
	if layout == nil {
		layout = layoutForCount(n)
		if layout == nil {
			return perr(0, causef(ErrFieldCount, "%d fields; a CDX line without a header has 7, 9, 10, 11 or 14", n))
		}
	} else if n != len(layout.cols) {
		return perr(0, causef(ErrFieldCount, "%d fields, the layout %q has %d", n, layout.name, len(layout.cols)))
	}
	r.layout = layout
	for f := fKey; f < numFields; f++ {
		if c := layout.idx[f]; c >= 0 {
			s := r.spans[c]
			r.cols[f] = line[s[0]:s[1]:s[1]]
		} else {
			r.cols[f] = nil
		}
	}
	r.key, r.ts = r.cols[fKey], r.cols[fTimestamp]
	var err error
	if r.tsPad, err = timestamp.Earliest(r.ts); err != nil {
		return perr(int(r.spans[layout.idx[fTimestamp]][0])+1, err)
	}
	return nil
}

// Key returns the sort key: a SURT such as "com,example)/a" in CDXJ and in
// CDX with an N or A column, the original URL under wget's layout (see
// KeyIsSURT), "-" for cdxj-indexer's warcinfo records, or the datetime in
// an ipwb TimeMap line. It is never empty.
func (r *Record) Key() []byte { return r.key }

// KeyIsSURT reports whether Key looks like a SURT rather than an original
// URL, a datetime or "-". For classic CDX it follows the layout (N or A
// column); otherwise the key is taken for a SURT when it has a ')' and no
// "://", or starts with a scheme followed by "://(" (IA's full SURT form).
func (r *Record) KeyIsSURT() bool {
	if r.layout != nil && r.layout.keyIsURL {
		return false
	}
	k := r.key
	if i := schemeSep(k); i >= 0 {
		return i+3 < len(k) && k[i+3] == '('
	}
	return bytes.IndexByte(k, ')') > 0
}

// schemeSep returns the index of the first "://" in k, or -1. Most SURT
// keys hold no ':' at all, which one IndexByte tells.
func schemeSep(k []byte) int {
	if bytes.IndexByte(k, ':') < 0 {
		return -1
	}
	return bytes.Index(k, []byte("://"))
}

// Timestamp returns the timestamp as its raw 4 to 17 digits, as in the line.
func (r *Record) Timestamp() []byte { return r.ts }

// Time returns the timestamp as a UTC time: the earliest instant the digits
// cover (200101011200 is 2001-01-01T12:00:00Z; 17 digits keep the
// milliseconds).
func (r *Record) Time() time.Time { return r.tsPad.Time() }

// Year returns the timestamp's year without building a time.Time.
func (r *Record) Year() int { return r.tsPad.Year() }

// jsonNames lists the JSON member names of each well-known value, in order
// of preference.
var jsonNames = [numFields][]string{
	fURL:      {"url", "original_uri", "original"},
	fMIME:     {"mime", "mime_type", "mimetype"},
	fStatus:   {"status", "status_code", "statuscode"},
	fDigest:   {"digest"},
	fRedirect: {"redirect"},
	fRobots:   {"robotflags"},
	fLength:   {"length"},
	fOffset:   {"offset"},
	fFilename: {"filename"},
}

// get returns a well-known value, nil when unknown.
func (r *Record) get(f field) []byte {
	v, _ := r.getNamed(f)
	return v
}

// getNamed returns a well-known value, nil when unknown, and for CDXJ the
// JSON member it came from.
func (r *Record) getNamed(f field) ([]byte, string) {
	var v []byte
	var from string
	if r.json == nil {
		v = r.cols[f]
	} else {
		for _, name := range jsonNames[f] {
			raw, ok := r.jx.lookup(r.json, name)
			if !ok {
				continue
			}
			from = name
			if r.jx.flat {
				v = raw[1 : len(raw)-1] // a string without escapes
			} else if raw[0] == '"' {
				s, scratch, ok := unquote(raw, r.scratch)
				r.scratch = scratch
				if !ok {
					return nil, ""
				}
				v = s
			} else if raw[0] != '{' && raw[0] != '[' && string(raw) != "null" {
				v = raw
			}
			break
		}
	}
	if len(v) == 0 || len(v) == 1 && v[0] == '-' {
		return nil, ""
	}
	return v, from
}

// URL returns the original URL (CDX column a, JSON url), or nil.
func (r *Record) URL() []byte { return r.get(fURL) }

// MIME returns the MIME type as recorded ("text/html",
// "text/html; charset=utf-8", "warc/revisit", "unk"), or nil.
func (r *Record) MIME() []byte { return r.get(fMIME) }

// MIMEString returns [Record.MIME] as a string ("" when the record has none);
// the string is the caller's own, valid after the record is reused.
func (r *Record) MIMEString() string { return string(r.get(fMIME)) }

// Status returns the HTTP status code, or 0 when it is unknown: absent, "-",
// "0", or anything but three digits from 100 to 999 (revisit lines carry
// "-", "0", "=" or "html>" there).
func (r *Record) Status() int {
	v := r.get(fStatus)
	if len(v) != 3 || v[0] < '1' || v[0] > '9' || v[1] < '0' || v[1] > '9' || v[2] < '0' || v[2] > '9' {
		return 0
	}
	return int(v[0]-'0')*100 + int(v[1]-'0')*10 + int(v[2]-'0')
}

// Digest returns the payload digest (base32 SHA-1, possibly with a "sha1:"
// prefix), or nil.
func (r *Record) Digest() []byte { return r.get(fDigest) }

// Redirect returns the redirect target (CDX column r, JSON redirect), or nil.
func (r *Record) Redirect() []byte { return r.get(fRedirect) }

// RobotFlags returns the robot flags (CDX column M, meta tags), or nil.
func (r *Record) RobotFlags() []byte { return r.get(fRobots) }

// Filename returns the WARC or ARC file name (it may contain '/'), or nil.
func (r *Record) Filename() []byte { return r.get(fFilename) }

// parseUint parses v as a non-negative decimal of at most 18 digits.
func parseUint(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Length returns the record's length in bytes in its (compressed) WARC file
// (CDX column S, JSON length); ok is false when unknown or not a number.
func (r *Record) Length() (n int64, ok bool) { return parseUint(r.get(fLength)) }

// Offset returns the record's byte offset in its (compressed) WARC file (CDX
// column V, JSON offset); ok is false when unknown or not a number.
func (r *Record) Offset() (n int64, ok bool) { return parseUint(r.get(fOffset)) }

// Original returns, for a revisit in the 14-column layout, the length, offset
// and file name of the original record it resolves to; ok is false for
// other layouts or when any of the three is unknown.
func (r *Record) Original() (length, offset int64, filename []byte, ok bool) {
	if r.json != nil || r.layout == nil || r.layout.idx[fOrigLength] < 0 {
		return 0, 0, nil, false
	}
	l, ok1 := parseUint(r.cols[fOrigLength])
	o, ok2 := parseUint(r.cols[fOrigOffset])
	f := r.cols[fOrigFilename]
	if !ok1 || !ok2 || len(f) == 0 || string(f) == "-" {
		return 0, 0, nil, false
	}
	return l, o, f, true
}

// OtherColumns calls fn, in column order, with the JSON member name (see
// [LegendName]) and the value of each column of a classic CDX record that no
// well-known value takes (wget's u column, the WARC record ID, is
// "warc_record_id"), until fn returns false. A value "-" (unknown) is
// passed over, as the well-known accessors treat it. CDXJ records and the
// headerless layouts have no such columns.
func (r *Record) OtherColumns(fn func(name string, value []byte) bool) {
	if r.json != nil || r.layout == nil {
		return
	}
	for _, o := range r.layout.other {
		s := r.spans[o.col]
		v := r.line[s[0]:s[1]:s[1]]
		if len(v) == 1 && v[0] == '-' {
			continue
		}
		if !fn(o.name, v) {
			return
		}
	}
}

// IsRevisit reports whether the record is a WARC revisit (its MIME type is
// "warc/revisit", as CDX writers record revisit records).
func (r *Record) IsRevisit() bool { return string(r.get(fMIME)) == "warc/revisit" }

// IsCDXJ reports whether the record came from a CDXJ line (with a JSON
// block) rather than a classic CDX line.
func (r *Record) IsCDXJ() bool { return r.json != nil }

// Layout returns the column layout of a classic CDX record, or nil for CDXJ.
func (r *Record) Layout() *Layout { return r.layout }

// JSON returns the raw JSON block of a CDXJ record (unchecked), or nil.
func (r *Record) JSON() []byte { return r.json }

// Line returns the whole line the record was read from, without its line
// terminator.
func (r *Record) Line() []byte { return r.line }

// LineNumber returns the 1-based number of the record's line in the input
// (0 for ParseLine). For a record of a part that starts inside a file
// (PartRecords) it is counted when asked, by reading the file up to the
// line (once per part, on from the last line counted).
func (r *Record) LineNumber() int64 {
	if r.lineNo == 0 && r.lines != nil {
		return r.lines.lineAt(r.inOff)
	}
	return r.lineNo
}

// Source returns the name of the input the record was read from (a file
// name, or a ZipNum block), as errors about it name it; "" when unknown.
func (r *Record) Source() string { return r.src }

// ParseError returns a *ParseError that places cause at r's line: r's
// source, line number and offset. It is for problems a caller finds in a
// record that parsed (a URL that does not canonicalize), so that every bad
// line is reported the same way.
func (r *Record) ParseError(cause error) *ParseError {
	return &ParseError{Source: r.src, Line: r.LineNumber(), Offset: r.inOff, Err: cause}
}

// InputOffset returns the byte offset of the start of the record's line in
// the (decompressed) input.
func (r *Record) InputOffset() int64 { return r.inOff }

// jsonErr builds the error for a bad JSON block.
func (r *Record) jsonErr() error {
	col := 0
	if r.json != nil {
		col = len(r.line) - len(r.json) + r.jx.errPos + 1
	}
	return &ParseError{Source: r.src, Line: r.LineNumber(), Offset: r.inOff, Column: col, Err: causef(ErrJSON, "%s", r.jx.errMsg)}
}

// RawField returns the raw JSON text of the top-level member name of a CDXJ
// record's JSON block (a string keeps its quotes and escapes). ok is false
// when there is no such member, and for classic CDX records. name is
// compared with the key as written between its quotes (escapes in keys are
// not decoded); the first member of that name wins.
//
// The first call checks the structure of the whole block (see CheckJSON):
// when it is malformed, every call returns a *ParseError wrapping ErrJSON
// that names the line and column, even for a member before the fault. (The
// well-known accessors such as MIME stay lazy and scan only as far as they
// need.) It does not allocate once the record's index has grown.
func (r *Record) RawField(name string) (raw []byte, ok bool, err error) {
	if err := r.CheckJSON(); err != nil {
		return nil, false, err
	}
	if r.json == nil {
		return nil, false, nil
	}
	raw, ok = r.jx.lookup(r.json, name)
	return raw, ok, nil
}

// Field returns the top-level member name of a CDXJ record's JSON block as
// a string: a JSON string decoded, any other value as its raw JSON text.
// ok and err are as for RawField; err also reports a string with a bad
// escape.
func (r *Record) Field(name string) (value string, ok bool, err error) {
	raw, ok, err := r.RawField(name)
	if !ok {
		return "", ok, err
	}
	if raw[0] != '"' {
		return string(raw), true, nil
	}
	s, scratch, good := unquote(raw, r.scratch)
	r.scratch = scratch
	if !good {
		col := len(r.line) - len(r.json) + (cap(r.json) - cap(raw)) + 1
		return "", false, &ParseError{Source: r.src, Line: r.LineNumber(), Offset: r.inOff, Column: col, Err: causef(ErrJSON, "bad escape in the value of %q", name)}
	}
	return string(s), true, nil
}

// CheckJSON scans the whole JSON block of a CDXJ record and returns a
// *ParseError wrapping ErrJSON, with the column of the fault, unless it is
// a JSON object that encoding/json.Valid accepts (strings, escapes,
// numbers, literals, nesting and separators are checked); nil for classic
// CDX. The block is checked once: later calls return the same answer.
func (r *Record) CheckJSON() error {
	if r.json == nil {
		return nil
	}
	x := &r.jx
	if !x.checked {
		x.checked = true
		x.members = x.members[:0]
		pos, msg := x.validate(r.json)
		if pos < 0 && r.json[skipSpace(r.json, 0)] == '{' {
			x.state = jsonDone
		} else {
			// The structural scan's reason where it finds the fault (a
			// JSON value that is not an object, too), else the
			// validator's.
			x.members, x.pos, x.state = x.members[:0], 0, jsonUnread
			for x.scanNext(r.json) {
			}
			if x.state != jsonBad {
				x.state, x.errPos, x.errMsg = jsonBad, pos, msg
			}
		}
	}
	if x.state == jsonBad {
		return r.jsonErr()
	}
	return nil
}

// Fields calls fn for each top-level member of a CDXJ record's JSON block,
// in order, with the member's key (its text between the quotes) and raw
// value, until fn returns false. It returns the *ParseError of a malformed
// block (after calling fn for the members before the fault).
func (r *Record) Fields(fn func(key, raw []byte) bool) error {
	if r.json == nil {
		return nil
	}
	for i := 0; ; i++ {
		if i == len(r.jx.members) && !r.jx.scanNext(r.json) {
			if r.jx.state == jsonBad {
				return r.jsonErr()
			}
			return nil
		}
		m := r.jx.members[i]
		if !fn(r.json[m.ks:m.ke], r.json[m.vs:m.ve]) {
			return nil
		}
	}
}

// Clone returns a deep copy of r that owns its line, for keeping a record
// past the next Read of a Reader with ReuseRecord set.
func (r *Record) Clone() *Record {
	c := new(Record)
	line := append([]byte{}, r.line...)
	// Parsing the same bytes with the same layout cannot fail.
	if err := c.parse(line, r.layout, nil); err != nil {
		c.reset(line)
	}
	c.lineNo, c.inOff, c.src, c.lines = r.lineNo, r.inOff, r.src, r.lines
	return c
}

// String returns the line of the record, for debugging.
func (r *Record) String() string {
	return strconv.Quote(string(r.line))
}
