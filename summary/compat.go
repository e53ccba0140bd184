package summary

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// Compat reproduces the original tool, cdx-summarize.py of
// ymaurer/cdx-summarize at commit 1ed5568 (2024-09-05, with CdxParser.py and
// mime_counter.py of that commit), quirks included, so that an archive can
// be compared with summaries that tool already published. It reads raw index
// files itself, as the original does, rather than through package cdxj. See
// the package documentation ("Compatibility mode") for what it reproduces
// and the few documented limits.
//
// Lines are matched in one pass without regular expressions, following
// the path Python's backtracking matcher tries first through the original's
// expressions; the rare line on which that path fails goes to the
// expressions themselves (translated to RE2), so the groups are the same.
// Flat CDXJ blocks are checked and read in the same pass; any other block
// goes to a JSON decoder with Python's semantics.
//
// Memory: one entry per distinct key, as Summarizer. Not safe for concurrent use.
type Compat struct {
	monthly  bool
	fullhost bool
	log      *slog.Logger
	entries  map[string]*entry
	stats    CompatStats
	last     *entry     // the entry summarize added to last
	aggBuf   []byte     // the key aggFromSURT builds
	json     jsonFields // the CDXJ block scanFlatJSON read
}

// CompatStats counts what a Compat run did, as the original would have
// reported it on standard error.
type CompatStats struct {
	Files        int   // files read
	SkippedFiles int   // files whose first line had no supported format ("Unsupported cdx format")
	FailedFiles  int   // files abandoned part-way ("Error (dowork)"): bad first line, bad UTF-8, read error
	Lines        int64 // lines read
	LineErrors   int64 // lines that raised an error ("Unexpected error")
}

// NewCompat returns an emulation of the original tool with its --monthly and
// --fullhost options. logger, when not nil, receives the messages the
// original prints on standard error, at Warn level.
func NewCompat(monthly, fullhost bool, logger *slog.Logger) *Compat {
	return &Compat{monthly: monthly, fullhost: fullhost, log: logger, entries: make(map[string]*entry)}
}

// Stats returns the counts so far.
func (c *Compat) Stats() CompatStats { return c.stats }

// The index formats the original recognizes.
type compatFormat int

const (
	fmtUnknown compatFormat = iota
	fmtCDX7
	fmtCDXJ
	fmtCDXNbams
	fmtCDXNbamskrMSVg
)

// Python's str character classes: \s and \S (str.isspace), \d (Unicode Nd).
const (
	pySpaceChars = `\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}`
	pyS          = `[` + pySpaceChars + `]`
	pyNS         = `[^` + pySpaceChars + `]`
	pyD          = `\p{Nd}`
)

// pyRegexp translates the original's regular expressions (Python re syntax
// with \s \S \d and a final "$") to Go's RE2, whose leftmost-first submatch
// semantics equal Python's backtracking for these expressions.
func pyRegexp(expr string) *regexp.Regexp {
	r := strings.NewReplacer(`\s`, pyS, `\S`, pyNS, `\d`, pyD, `$)`, `)\n?\z`).Replace(expr)
	return regexp.MustCompile(r)
}

// The original's expressions (CdxParser.py), by format.
var (
	reCDXNbamskrMSVg = pyRegexp(`^(?P<surt>([^ ):,]+)(,[^ ):,]+)*)(?:[):]\S*\s+|\s+)(?P<year>[0-9][0-9][0-9][0-9])(?P<month>[0-9][0-9])\d+\s+(?:(?P<scheme>https?)://)?\S+\s+(?P<mime>\S+)\s+(?P<status>\S+)\s+\S+\s+\S+\s+\S+\s+(?P<length>\S+)`)
	reCDXNbams       = pyRegexp(`^(?P<host>[^ /:]+)\S*\s+(?P<year>[0-9][0-9][0-9][0-9])(?P<month>[0-9][0-9])\d+\s+(?:(?P<scheme>https?)://)?\S+\s+(?P<mime>\S+)\s+(?P<status>\S+)`)
	reCDX7           = pyRegexp(`^(?P<surt>([^ ):,]+)(,[^ ):,]+)*)(?:[):]\S*\s+|\s+)(?P<year>[0-9][0-9][0-9][0-9])(?P<month>[0-9][0-9])\d+\s+(?:(?P<scheme>https?)://)?\S+\s+(?P<mime>\S+)\s+(?P<status>\S+)\s+\S+\s+(?P<length>\S+)`)
	// The CDXJ expression ends in (?P<data>.*$). Lines hold no "\n" but a
	// final one, so ".*$" always matches the rest of the line without it:
	// the prefix is matched and data is taken as that rest, which is
	// equivalent and spares the backtracking over the JSON.
	reCDXJ = pyRegexp(`^(?P<surt>([^ ):,]+)(,[^ ):,]+)*)(?:[):]\S*\s+|\s+)(?P<year>[0-9][0-9][0-9][0-9])(?P<month>[0-9][0-9])\d+\s+`)
)

func pyIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// pySplit is Python's str.split() without arguments.
func pySplit(s string) []string { return strings.FieldsFunc(s, pyIsSpace) }

// determineFormat is the original's determine_cdx_type on a file's first line.
func determineFormat(line string) compatFormat {
	tokens := pySplit(line)
	if len(tokens) < 3 {
		return fmtUnknown
	}
	if len(tokens) >= 6 {
		if strings.TrimFunc(line, pyIsSpace) == "CDX N b a m s k r M S V g" {
			return fmtCDXNbamskrMSVg
		}
		if tokens[0] == "CDX" {
			if strings.HasPrefix(line, " CDX N b a m s") {
				return fmtCDXNbams
			}
			return fmtUnknown
		}
	}
	if utf8.RuneCountInString(tokens[1]) != 14 {
		return fmtUnknown
	}
	if strings.HasSuffix(strings.TrimRightFunc(line, pyIsSpace), `"}`) {
		return fmtCDXJ
	}
	switch len(tokens) {
	case 7:
		return fmtCDX7
	case 10:
		return fmtCDXNbams
	}
	return fmtUnknown
}

// compatRecord is what the original's parse_line returns for a counted line.
type compatRecord struct {
	date       int
	agg        string
	scheme     Scheme
	mime       string
	mimeNotStr bool // the media type is mimeOther, a JSON value that is not a string
	mimeOther  any
	length     int64
}

// errPy stands for a Python exception raised while handling a line.
type errPy struct{ msg string }

func (e *errPy) Error() string { return e.msg }

func pyErr(format string, args ...any) error { return &errPy{fmt.Sprintf(format, args...)} }

// ReadFile reads one index file as the original's read_cdx_file does: the
// first line decides the format (a file whose first line fits none is
// skipped whole), then every line is parsed and counted. name is used in
// messages only; a ".gz" name is the caller's to decompress. The error is
// non-nil when the original would have abandoned the file part-way (it then
// keeps the counts made so far, and so does Compat); the caller may go on
// with the next file, as the original does.
func (c *Compat) ReadFile(name string, r io.Reader) error {
	c.stats.Files++
	pr := newPyLineReader(r)
	first, err := pr.readLine()
	if err == io.EOF {
		first, err = "", nil
	}
	if err != nil {
		c.stats.FailedFiles++
		return c.fail(name, err)
	}
	c.stats.Lines++
	f := determineFormat(first)
	if f == fmtUnknown {
		c.stats.SkippedFiles++
		if c.log != nil {
			c.log.Warn("Unsupported cdx format", "file", name, "line", strings.TrimRight(first, "\n"))
		}
		return nil
	}
	// The first line is parsed outside the original's try block: an error
	// there abandons the file.
	if rec, ok, err := c.parseLine(f, first); err != nil {
		c.stats.FailedFiles++
		return c.fail(name, &ParseError{Name: name, Line: 1, Err: err})
	} else if ok {
		if err := c.summarize(rec); err != nil {
			c.stats.FailedFiles++
			return c.fail(name, &ParseError{Name: name, Line: 1, Err: err})
		}
	}
	for n := int64(2); ; n++ {
		line, err := pr.readLine()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			c.stats.FailedFiles++
			return c.fail(name, &ParseError{Name: name, Line: n, Err: err})
		}
		c.stats.Lines++
		rec, ok, err := c.parseLine(f, line)
		if err == nil && ok {
			err = c.summarize(rec)
		}
		if err != nil {
			c.stats.LineErrors++
			if c.log != nil {
				c.log.Warn("Unexpected error", "file", name, "line", n, "err", err)
			}
		}
	}
}

func (c *Compat) fail(name string, err error) error {
	if c.log != nil {
		c.log.Warn("Error (dowork)", "file", name, "err", err)
	}
	return err
}

// parseLine is CdxParser.parse_line. ok is false for lines that do not
// match or are filtered out; err stands for a Python exception. rec.agg may
// alias line or c.aggBuf: summarize copies it when it keeps it.
func (c *Compat) parseLine(f compatFormat, line string) (compatRecord, bool, error) {
	g, sure := matchFast(f, line)
	if !sure {
		var ok bool
		if g, ok = matchRegexp(f, line); !ok {
			return compatRecord{}, false, nil
		}
	}
	if f != fmtCDXJ {
		// The expressions with a status group always match it.
		if !strings.HasPrefix(g.status, "2") {
			return compatRecord{}, false, nil
		}
		if g.mime == "application/warc-fields" {
			return compatRecord{}, false, nil
		}
	}
	var rec compatRecord
	rec.date = int(g.year[0]-'0')*1000 + int(g.year[1]-'0')*100 + int(g.year[2]-'0')*10 + int(g.year[3]-'0')
	if c.monthly {
		rec.date = rec.date*100 + int(g.month[0]-'0')*10 + int(g.month[1]-'0')
	}
	if f == fmtCDXNbams {
		if c.fullhost {
			rec.agg = g.key
		} else {
			rec.agg = pyLvl2FromHost(g.key)
		}
	} else {
		rec.agg = c.aggFromSURT(g.key)
	}
	if f == fmtCDXJ {
		data := strings.TrimSuffix(line[g.end:], "\n")
		return c.parseJSON(rec, data)
	}
	if f != fmtCDXNbams {
		v, num, err := pyIsNumericInt(g.length)
		if err != nil {
			return compatRecord{}, false, err
		}
		if num {
			rec.length = v
		}
	}
	switch g.scheme {
	case "http":
		rec.scheme = SchemeHTTP
	case "https":
		rec.scheme = SchemeHTTPS
	}
	rec.mime = g.mime
	return rec, true, nil
}

// aggFromSURT is CdxParser.agg_from_surt: the first two labels swapped and
// joined by "." (with fullhost, all of them reversed); "" for a SURT of one
// label. The result aliases c.aggBuf.
func (c *Compat) aggFromSURT(surt string) string {
	b := c.aggBuf[:0]
	if c.fullhost {
		end := len(surt)
		for i := len(surt) - 1; i >= 0; i-- {
			if surt[i] == ',' {
				b = append(b, surt[i+1:end]...)
				b = append(b, '.')
				end = i
			}
		}
		b = append(b, surt[:end]...)
	} else {
		c1 := strings.IndexByte(surt, ',')
		if c1 < 0 {
			return ""
		}
		c2 := strings.IndexByte(surt[c1+1:], ',')
		if c2 < 0 {
			c2 = len(surt)
		} else {
			c2 += c1 + 1
		}
		b = append(b, surt[c1+1:c2]...)
		b = append(b, '.')
		b = append(b, surt[:c1]...)
	}
	c.aggBuf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// pyLvl2FromHost is the original's lvl2_from_host, Python slice rules included.
func pyLvl2FromHost(host string) string {
	p := strings.LastIndexByte(host, '.')
	if p < 0 {
		return host
	}
	end := p - 1
	if end < 0 {
		end += len(host) // Python: a negative slice end counts from the end
		if end < 0 {
			end = 0
		}
	}
	p1 := strings.LastIndexByte(host[:end], '.')
	return host[p1+1:]
}

// parseJSON is the CDXJ branch of parse_line, with Python's semantics for
// every JSON type the fields may have.
func (c *Compat) parseJSON(rec compatRecord, data string) (compatRecord, bool, error) {
	if scanFlatJSON(data, &c.json) {
		return c.parseFlatJSON(rec)
	}
	d, err := pyJSONLoads(data)
	if err != nil {
		return compatRecord{}, false, err
	}
	has := func(k string) (bool, error) { return pyIn(k, d) }
	get := func(k string) (any, error) {
		if m, ok := d.(map[string]any); ok {
			return m[k], nil
		}
		return nil, pyErr("TypeError: %s indices must be integers", pyTypeName(d))
	}
	if ok, err := has("status"); err != nil {
		return compatRecord{}, false, err
	} else if ok {
		st, err := get("status")
		if err != nil {
			return compatRecord{}, false, err
		}
		switch st := st.(type) {
		case string:
			if !strings.HasPrefix(st, "2") {
				return compatRecord{}, false, nil
			}
		case []any:
			return compatRecord{}, false, nil // a list slice never equals '2'
		default:
			return compatRecord{}, false, pyErr("TypeError: '%s' object is not subscriptable", pyTypeName(st))
		}
	}
	if ok, err := has("mime"); err != nil {
		return compatRecord{}, false, err
	} else if ok {
		mi, err := get("mime")
		if err != nil {
			return compatRecord{}, false, err
		}
		if s, isStr := mi.(string); isStr && s == "application/warc-fields" {
			return compatRecord{}, false, nil
		}
	}
	if ok, err := has("length"); err != nil {
		return compatRecord{}, false, err
	} else if ok {
		l, err := get("length")
		if err != nil {
			return compatRecord{}, false, err
		}
		s, isStr := l.(string)
		if !isStr {
			return compatRecord{}, false, pyErr("AttributeError: '%s' object has no attribute 'isnumeric'", pyTypeName(l))
		}
		v, num, err := pyIsNumericInt(s)
		if err != nil {
			return compatRecord{}, false, err
		}
		if num {
			rec.length = v
		}
	}
	if ok, err := has("url"); err != nil {
		return compatRecord{}, false, err
	} else if ok {
		u, err := get("url")
		if err != nil {
			return compatRecord{}, false, err
		}
		switch u := u.(type) {
		case string:
			if utf8.RuneCountInString(u) >= 8 {
				if strings.HasPrefix(u, "http://") {
					rec.scheme = SchemeHTTP
				} else if strings.HasPrefix(u, "https://") {
					rec.scheme = SchemeHTTPS
				}
			}
		case []any:
			// len() works, the slices never equal a string
		case map[string]any:
			if len(u) >= 8 {
				return compatRecord{}, false, pyErr("TypeError: unhashable type: 'slice'")
			}
		default:
			return compatRecord{}, false, pyErr("TypeError: object of type '%s' has no len()", pyTypeName(u))
		}
	}
	rec.mime = "unknown"
	if ok, _ := has("mime"); ok {
		mi, _ := get("mime")
		if s, isStr := mi.(string); isStr {
			rec.mime = s
		} else {
			rec.mime, rec.mimeNotStr, rec.mimeOther = "", true, mi
		}
	}
	return rec, true, nil
}

// parseFlatJSON is parseJSON for a block scanFlatJSON read into c.json:
// every member it looks at is a string.
func (c *Compat) parseFlatJSON(rec compatRecord) (compatRecord, bool, error) {
	j := &c.json
	if j.hasStatus && !strings.HasPrefix(j.status, "2") {
		return compatRecord{}, false, nil
	}
	if j.hasMime && j.mime == "application/warc-fields" {
		return compatRecord{}, false, nil
	}
	if j.hasLength {
		v, num, err := pyIsNumericInt(j.length)
		if err != nil {
			return compatRecord{}, false, err
		}
		if num {
			rec.length = v
		}
	}
	if j.hasURL {
		// len(url) >= 8, then url[0:7] == 'http://' or url[0:8] == 'https://'
		if strings.HasPrefix(j.url, "https://") {
			rec.scheme = SchemeHTTPS
		} else if len(j.url) > 7 && strings.HasPrefix(j.url, "http://") {
			rec.scheme = SchemeHTTP // more than 7 bytes of valid UTF-8 after 7 ASCII: at least 8 characters
		}
	}
	rec.mime = "unknown"
	if j.hasMime {
		rec.mime = j.mime
	}
	return rec, true, nil
}

// pyJSONLoads decodes like Python's json.loads, as far as encoding/json can:
// numbers are kept as json.Number. Python also accepts NaN and Infinity,
// which are an error here (documented).
func pyJSONLoads(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, pyErr("JSONDecodeError: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, pyErr("JSONDecodeError: Extra data")
	}
	return v, nil
}

// pyIn is Python's "k in d" for the JSON value d.
func pyIn(k string, d any) (bool, error) {
	switch d := d.(type) {
	case map[string]any:
		_, ok := d[k]
		return ok, nil
	case []any:
		for _, e := range d {
			if s, ok := e.(string); ok && s == k {
				return true, nil
			}
		}
		return false, nil
	case string:
		return strings.Contains(d, k), nil
	}
	return false, pyErr("TypeError: argument of type '%s' is not iterable", pyTypeName(d))
}

func pyTypeName(v any) string {
	switch v.(type) {
	case string:
		return "str"
	case []any:
		return "list"
	case map[string]any:
		return "dict"
	case json.Number:
		return "int"
	case bool:
		return "bool"
	case nil:
		return "NoneType"
	}
	return "object"
}

// pyIsNumericInt is `s.isnumeric()` followed by `int(s)`: num is false when
// isnumeric is false (the size then stays 0); an error stands for int()'s
// ValueError on numeric characters that are not decimal digits ("½").
func pyIsNumericInt(s string) (v int64, num bool, err error) {
	if s == "" {
		return 0, false, nil
	}
	if len(s) <= 18 {
		ascii := true
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				ascii = false
				break
			}
			v = v*10 + int64(s[i]-'0')
		}
		if ascii {
			return v, true, nil
		}
		v = 0
	}
	for _, r := range s {
		if !unicode.In(r, unicode.Nd, unicode.Nl, unicode.No) {
			return 0, false, nil
		}
	}
	for _, r := range s {
		d, ok := digitValue(r)
		if !ok {
			return 0, false, pyErr("ValueError: invalid literal for int() with base 10: %q", s)
		}
		if v > (1<<63-1-int64(d))/10 {
			return 0, false, pyErr("summary: length %q exceeds int64 (the original uses big integers)", s)
		}
		v = v*10 + int64(d)
	}
	return v, true, nil
}

// digitValue returns the value of a Unicode decimal digit (category Nd).
func digitValue(r rune) (int, bool) {
	if '0' <= r && r <= '9' {
		return int(r - '0'), true
	}
	for _, rg := range unicode.Nd.R16 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) && (r-rune(rg.Lo))%rune(rg.Stride) == 0 {
			return int((r - rune(rg.Lo)) % 10), true
		}
	}
	for _, rg := range unicode.Nd.R32 {
		if rune(rg.Lo) <= r && r <= rune(rg.Hi) && (r-rune(rg.Lo))%rune(rg.Stride) == 0 {
			return int((r - rune(rg.Lo)) % 10), true
		}
	}
	return 0, false
}

// summarize is summarize_line followed by mime_counter.add_mime and
// add_scheme, including add_mime's partial update when the media type is not
// a string (n_total and s_total are counted, then the exception).
func (c *Compat) summarize(rec compatRecord) error {
	e := c.last
	if e == nil || e.key != rec.agg {
		e = c.entries[rec.agg]
		if e == nil {
			key := strings.Clone(rec.agg)
			e = &entry{key: key}
			c.entries[key] = e
		}
		c.last = e
	}
	ctr := e.counters(Period(rec.date))
	if rec.mimeNotStr {
		ctr[NTotal]++
		ctr[STotal] += rec.length
		return pyErr("AttributeError: '%s' object has no attribute 'find'", pyTypeName(rec.mimeOther))
	}
	ctr.Add(compatCategory(rec.mime), rec.scheme, rec.length)
	return nil
}

// WriteTo writes the summary as the original's output_results: keys sorted
// (code point order, which is byte-wise order), periods in the order they
// were first seen, json.dumps layout; with compact, counters that are not
// greater than zero are left out. It implements io.WriterTo.
func (c *Compat) WriteTo(w io.Writer) (int64, error) { return c.write(w, false) }

// WriteCompactTo is WriteTo with the original's --compact. As WriteTo, it
// returns the bytes written and w's first write error (writing stops
// there).
func (c *Compat) WriteCompactTo(w io.Writer) (int64, error) { return c.write(w, true) }

func (c *Compat) write(w io.Writer, compact bool) (int64, error) {
	bw := bufio.NewWriter(w)
	var n int64
	var line []byte
	for _, k := range sortedKeys(c.entries) {
		line = appendLine(line[:0], c.entries[k], compact, false)
		m, err := bw.Write(line)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

// IsDecodeError reports whether err is the bad-UTF-8 failure that makes the
// original abandon a file.
func IsDecodeError(err error) bool { return errors.Is(err, errDecode) }
