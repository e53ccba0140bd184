package memento

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/mementokit/mementokit/internal/httptoken"
)

// Link is one link-value of an RFC 8288 Link header or of an
// application/link-format document (RFC 6690): a target URI, its relation
// types and its other target attributes.
type Link struct {
	// Target is the target URI resolved against the base URI the parser
	// was given (RFC 3986 §5): absolute targets are kept byte for byte,
	// scheme-relative ones ("//host/path") take the base's scheme, relative
	// ones are resolved. Without a base it equals RawTarget.
	Target string
	// RawTarget is the target exactly as written between '<' and '>'.
	RawTarget string
	// Rel holds the relation types of the first "rel" parameter, split on
	// whitespace, lower-cased, duplicates removed, in input order
	// (RFC 8288 §3.3: later "rel" parameters are ignored for Rel but kept
	// in Params). nil when the link has no "rel"; empty but not nil for
	// rel="". Read-only: links with the same common rel set share it.
	Rel []string
	// Params holds every other parameter in input order, names lower-cased
	// (RFC 8288 §3: names are case-insensitive), values unquoted and
	// unescaped. Unknown parameters are kept.
	Params []Param
	// Offset is the byte offset of the link-value's first byte in the input.
	Offset int64
}

// Param is one link-param (RFC 8288 §3): a lower-cased name and its value.
type Param struct {
	Name  string
	Value string
	// NoValue is true for a parameter written without "=" (such as
	// "; crossorigin"); Value is then empty.
	NoValue bool
}

// HasRel reports whether rel (compared case-insensitively) is one of l's
// relation types.
func (l *Link) HasRel(rel string) bool {
	for _, r := range l.Rel {
		if r == rel || strings.EqualFold(r, rel) {
			return true
		}
	}
	return false
}

// Param returns the value of the first parameter called name (compared
// case-insensitively) and whether it is present.
func (l *Link) Param(name string) (string, bool) {
	for _, p := range l.Params {
		if p.Name == name || strings.EqualFold(p.Name, name) {
			return p.Value, true
		}
	}
	return "", false
}

// IsMemento reports whether l describes a memento: its rel set contains
// "memento" (RFC 7089 §2.2.1; "first", "last", "prev" and "next" only
// qualify it).
func (l *Link) IsMemento() bool { return l.HasRel("memento") }

// ParseError reports a link-format syntax error. Offset counts bytes from the
// start of the input (header value or TimeMap body); Link is the 1-based index
// of the link-value in which the error occurred.
type ParseError struct {
	Offset int64
	Link   int
	Err    error
}

// Error formats the error as "memento: link-format error at byte N (link
// K): cause".
func (e *ParseError) Error() string {
	return fmt.Sprintf("memento: link-format error at byte %d (link %d): %v", e.Offset, e.Link, e.Err)
}

// Unwrap returns the cause, one of the Err* syntax sentinels.
func (e *ParseError) Unwrap() error { return e.Err }

// Syntax errors wrapped by *ParseError.
var (
	// ErrExpectedTarget: a link-value does not start with '<' (strict mode),
	// or in lenient mode it has neither '<' nor any parameter.
	ErrExpectedTarget = errors.New("expected '<'")
	// ErrUnterminatedTarget: a '<' has no matching '>' before the end of input.
	ErrUnterminatedTarget = errors.New("unterminated '<' (no '>' before end of input)")
	// ErrUnterminatedQuote: a quoted-string has no closing '"'.
	ErrUnterminatedQuote = errors.New("unterminated quoted-string")
	// ErrEmptyTarget: the target between '<' and '>' is empty.
	ErrEmptyTarget = errors.New("empty target")
	// ErrTargetByte: the target between '<' and '>' holds a byte no
	// URI-Reference has (RFC 3986 §2): a space, a control byte (CR, LF),
	// '"' or '<'; in both modes, the offset is that byte's.
	ErrTargetByte = errors.New("byte not allowed in a target (space, control, '\"' or '<')")
	// ErrParamName: a ';' is not followed by a parameter name (a token).
	ErrParamName = errors.New("expected parameter name")
	// ErrNotToken: an unquoted value contains a byte outside tchar (strict mode).
	ErrNotToken = errors.New("unquoted value is not a token")
	// ErrUnexpected: a byte that the grammar does not allow at that place.
	ErrUnexpected = errors.New("unexpected byte")
	// ErrLinkTooLong: one link-value is longer than the reader's MaxLinkBytes.
	ErrLinkTooLong = errors.New("link-value too long")
)

// errShort is returned by parseOne when the data ends inside a link-value
// and more input may follow.
var errShort = errors.New("short")

func isWS(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// parser holds the per-input state: mode, base URI and a small cache for
// resolution.
type parser struct {
	strict bool
	base   *url.URL
	// baseScheme is "http:" etc. for scheme-relative targets.
	baseScheme string
	// pend collects the parameters of the link being parsed (reused).
	pend []pendParam
	// scratch makes every link's Params share params, overwritten by the
	// next link: for callers that copy what they keep (ReadTimeMap).
	scratch bool
	params  []Param
}

func newParser(strict bool, base string) (*parser, error) {
	p := &parser{strict: strict}
	if base != "" {
		u, err := url.Parse(base)
		if err != nil {
			return nil, fmt.Errorf("memento: bad base URI %q: %w", base, err)
		}
		p.base = u
		if u.Scheme != "" {
			p.baseScheme = u.Scheme + ":"
		}
	}
	return p, nil
}

// resolve turns a raw target into an absolute URI reference (RFC 3986 §5.2),
// keeping absolute targets byte for byte.
func (p *parser) resolve(raw string) string {
	if p.base == nil || hasScheme(raw) {
		return raw
	}
	if strings.HasPrefix(raw, "//") && p.baseScheme != "" {
		return p.baseScheme + raw
	}
	ref, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return p.base.ResolveReference(ref).String()
}

// hasScheme reports whether s starts with an RFC 3986 scheme and ':'.
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
			if i == 0 {
				return false
			}
		case c == ':':
			return i > 0
		default:
			return false
		}
	}
	return false
}

// utf8BOM is the UTF-8 byte order mark, skipped at the start of a lenient parse.
var utf8BOM = []byte("\xef\xbb\xbf")

// parseOne parses the link-value that starts in data after optional
// whitespace and empty list elements. It returns the link, the number of
// bytes consumed (through the ',' that ends it, if any), ok=false when only
// whitespace and commas remained, and an error. off is the absolute offset
// of data[0]; idx the 1-based link index for errors. When the data ends
// inside a link-value and atEOF is false it returns errShort.
func (p *parser) parseOne(data []byte, atEOF bool, off int64, idx int) (l Link, n int, ok bool, err error) {
	i := 0
	// Lenient: a UTF-8 byte order mark at the very start of the input
	// (TimeMap files saved by editors) is not part of the first target.
	if off == 0 && !p.strict && len(data) > 0 && data[0] == 0xef {
		if len(data) < len(utf8BOM) && !atEOF && bytes.HasPrefix(utf8BOM, data) {
			return l, 0, false, errShort
		}
		if bytes.HasPrefix(data, utf8BOM) {
			i = len(utf8BOM)
		}
	}
	// Skip OWS and empty list elements (RFC 9110 §5.6.1 allows recipients
	// to accept "," with nothing in between).
	for i < len(data) && (isWS(data[i]) || data[i] == ',') {
		i++
	}
	if i == len(data) {
		if !atEOF {
			return l, i, false, errShort
		}
		return l, i, false, nil
	}
	start := i
	l.Offset = off + int64(start)
	p.pend = p.pend[:0]
	var ts, te int // target span in data
	finish := func(end, consumed int) (Link, int, bool, error) {
		return p.finish(l, data[start:end], start, ts, te), consumed, true, nil
	}
	perr := func(at int, e error) (Link, int, bool, error) {
		return Link{}, 0, false, &ParseError{Offset: off + int64(at), Link: idx, Err: e}
	}

	// Target.
	if data[i] == '<' {
		k := bytes.IndexByte(data[i+1:], '>')
		if k < 0 {
			if !atEOF {
				return l, 0, false, errShort
			}
			return perr(start, ErrUnterminatedTarget)
		}
		end := i + 1 + k
		// Lenient: in "<a>b>" the first '>' is part of the target: it is
		// directly followed by bytes other than OWS, ';' and ',', and a
		// later '>' closes the target with no whitespace or '<' between.
		for !p.strict {
			m := end + 1
			if m == len(data) {
				if !atEOF {
					return l, 0, false, errShort
				}
				break
			}
			if c := data[m]; isWS(c) || c == ';' || c == ',' {
				break
			}
			for m < len(data) && data[m] != '>' && data[m] != '<' && !isWS(data[m]) {
				m++
			}
			if m == len(data) && !atEOF {
				return l, 0, false, errShort
			}
			if m == len(data) || data[m] != '>' {
				break
			}
			end = m
		}
		raw := data[i+1 : end]
		if len(raw) == 0 {
			return perr(i, ErrEmptyTarget)
		}
		// A URI-Reference has no spaces, controls, '"' or '<' (RFC 3986
		// §2): such a target is junk in both modes, never a URI.
		for k, c := range raw {
			if c <= ' ' || c == 0x7f || c == '<' || c == '"' {
				return perr(i+1+k, ErrTargetByte)
			}
		}
		ts, te = i+1, end
		i = end + 1
	} else {
		if p.strict {
			return perr(start, ErrExpectedTarget)
		}
		// Lenient recovery: the target runs to the first ';'. A ',' followed
		// by OWS and '<' first, or the end, means there are no parameters.
		j := i
		for ; j < len(data); j++ {
			if data[j] == ';' {
				break
			}
			if data[j] == ',' {
				m := j + 1
				for m < len(data) && isWS(data[m]) {
					m++
				}
				if m == len(data) && !atEOF {
					return l, 0, false, errShort
				}
				if m == len(data) || data[m] == '<' {
					return perr(start, ErrExpectedTarget)
				}
			}
		}
		if j == len(data) {
			if !atEOF {
				return l, 0, false, errShort
			}
			return perr(start, ErrExpectedTarget)
		}
		te = j
		for te > i && isWS(data[te-1]) {
			te--
		}
		if te == i || bytes.ContainsAny(data[i:te], " \t\r\n") {
			return perr(start, ErrExpectedTarget)
		}
		ts = i
		i = j
	}

	// Parameters.
	for {
		for i < len(data) && isWS(data[i]) {
			i++
		}
		if i == len(data) {
			if !atEOF {
				return l, 0, false, errShort
			}
			return finish(i, i)
		}
		c := data[i]
		if c == ',' {
			return finish(i, i+1)
		}
		if c != ';' {
			if p.strict {
				return perr(i, ErrUnexpected)
			}
			// Lenient: a '<' here, or after white space in the junk, starts
			// the next link-value whose separating ',' is missing (links
			// one per line without commas): end this link before it rather
			// than swallow the next one.
			if c == '<' {
				return finish(i, i)
			}
			// Otherwise skip junk up to the next ';' or ','.
			for i < len(data) && data[i] != ';' && data[i] != ',' {
				if data[i] == '<' && isWS(data[i-1]) {
					return finish(i, i)
				}
				i++
			}
			continue
		}
		i++ // ';'
		for i < len(data) && isWS(data[i]) {
			i++
		}
		if i == len(data) {
			if !atEOF {
				return l, 0, false, errShort
			}
			if p.strict {
				return perr(i, ErrParamName)
			}
			return finish(i, i)
		}
		if !p.strict && (data[i] == ';' || data[i] == ',') {
			continue // empty parameter
		}
		ns := i
		for i < len(data) && httptoken.IsTchar(data[i]) {
			i++
		}
		if i == len(data) && !atEOF {
			return l, 0, false, errShort
		}
		if i == ns {
			return perr(i, ErrParamName)
		}
		name := internName(data[ns:i])
		// BWS "=" BWS
		k := i
		for k < len(data) && isWS(data[k]) {
			k++
		}
		if k == len(data) && !atEOF {
			return l, 0, false, errShort
		}
		prm := pendParam{name: name}
		if k < len(data) && data[k] == '=' {
			i = k + 1
			for i < len(data) && isWS(data[i]) {
				i++
			}
			if i == len(data) {
				if !atEOF {
					return l, 0, false, errShort
				}
				if p.strict {
					return perr(i, ErrUnexpected)
				}
				prm.vs, prm.ve = i, i // lenient: "name=" at the end, empty value
			} else if data[i] == '"' {
				e, esc, err := p.quoted(data, i, atEOF)
				if err != nil {
					if err == errShort {
						return l, 0, false, err
					}
					return perr(i, err)
				}
				prm.vs, prm.ve = i+1, e-1
				if esc {
					prm.val, prm.useVal = unescapeQuoted(data[i+1:e-1]), true
				}
				i = e
			} else {
				vs := i
				for i < len(data) && httptoken.IsTchar(data[i]) {
					i++
				}
				if i == len(data) && !atEOF {
					return l, 0, false, errShort
				}
				if p.strict {
					if i < len(data) && !isWS(data[i]) && data[i] != ';' && data[i] != ',' {
						return perr(i, ErrNotToken)
					}
					if i == vs {
						return perr(i, ErrUnexpected)
					}
					prm.vs, prm.ve = vs, i
				} else {
					// Lenient: an unquoted value runs to the next ';' or ','
					// ("type=application/link-format"), past the comma of
					// an unquoted date ("datetime=Mon, 09 May 2016 ...").
					// A '<' after white space starts the next link-value
					// (missing ','), as above.
					for i < len(data) && data[i] != ';' && data[i] != ',' && !(data[i] == '<' && i > vs && isWS(data[i-1])) {
						i++
					}
					if i < len(data) && data[i] == ',' && isDateParam(name) && isDayName(bytes.TrimSpace(data[vs:i])) {
						i++
						for i < len(data) && data[i] != ';' && data[i] != ',' && !(data[i] == '<' && isWS(data[i-1])) {
							i++
						}
					}
					if i == len(data) && !atEOF {
						return l, 0, false, errShort
					}
					ve := i
					for ve > vs && isWS(data[ve-1]) {
						ve--
					}
					prm.vs, prm.ve = vs, ve
				}
			}
		} else {
			prm.noValue = true
		}
		p.pend = append(p.pend, prm)
	}
}

func isDateParam(name string) bool {
	return name == "datetime" || name == "from" || name == "until"
}

// isDayName reports whether b is an English day name, abbreviated or not,
// in any case: the part of an HTTP date before its comma.
func isDayName(b []byte) bool {
	for _, d := range [...]string{"mon", "tue", "wed", "thu", "fri", "sat", "sun",
		"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"} {
		if eqFold(b, d) {
			return true
		}
	}
	return false
}

// pendParam is a parameter whose value is still a span of the input.
type pendParam struct {
	name    string
	vs, ve  int    // value span in data
	val     string // the unescaped value when useVal
	useVal  bool
	noValue bool
}

// finish builds the link from the spans recorded by parseOne. All strings
// of the link (target and unescaped values) share one allocation of the
// link's text, data[start:end] given as text.
func (p *parser) finish(l Link, text []byte, start, ts, te int) Link {
	s := string(text)
	sub := func(a, b int) string { return s[a-start : b-start] }
	l.RawTarget = sub(ts, te)
	l.Target = p.resolve(l.RawTarget)
	n := len(p.pend)
	relSeen := false
	for _, pp := range p.pend {
		if pp.name == "rel" && !relSeen {
			n--
			relSeen = true
		}
	}
	switch {
	case p.scratch:
		l.Params = p.params[:0]
	case n > 0:
		l.Params = make([]Param, 0, n)
	}
	relSeen = false
	for _, pp := range p.pend {
		var v string
		switch {
		case pp.useVal:
			v = pp.val
		case !pp.noValue:
			v = sub(pp.vs, pp.ve)
		}
		if pp.name == "rel" && !relSeen {
			relSeen = true
			l.Rel = splitRel(v)
			continue
		}
		l.Params = append(l.Params, Param{Name: pp.name, Value: v, NoValue: pp.noValue})
	}
	if p.scratch {
		p.params = l.Params
	}
	return l
}

// quoted parses the quoted-string that starts at data[i] == '"'. It returns
// the index after the closing quote and whether the content has escapes.
func (p *parser) quoted(data []byte, i int, atEOF bool) (int, bool, error) {
	j := i + 1
	esc := false
	for k := j; k < len(data); k++ {
		c := data[k]
		switch {
		case c == '\\':
			esc = true
			k++
			if k == len(data) {
				if !atEOF {
					return 0, false, errShort
				}
				return 0, false, ErrUnterminatedQuote
			}
			// quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
			if e := data[k]; p.strict && (e < 0x20 && e != '\t' || e == 0x7f) {
				return 0, false, ErrUnexpected
			}
			continue
		case c == '"':
			return k + 1, esc, nil
		case p.strict && (c < 0x20 && c != '\t' || c == 0x7f):
			return 0, false, ErrUnexpected
		}
	}
	if !atEOF {
		return 0, false, errShort
	}
	return 0, false, ErrUnterminatedQuote
}

func unescapeQuoted(b []byte) string {
	out := make([]byte, 0, len(b))
	for k := 0; k < len(b); k++ {
		if b[k] == '\\' && k+1 < len(b) {
			k++
		}
		out = append(out, b[k])
	}
	return string(out)
}

// commonNames are the parameter names internName returns as constants.
var commonNames = [...]string{"rel", "type", "from", "until", "title", "anchor", "license", "datetime", "collection"}

// internName lower-cases a parameter name, returning constant strings for
// the common ones so that parsing them does not allocate.
func internName(b []byte) string {
	for _, n := range commonNames {
		if eqFold(b, n) {
			return n
		}
	}
	return strings.ToLower(string(b))
}

// eqFold compares ASCII b with lower-case s case-insensitively.
func eqFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}

// splitRel splits a rel value into lower-cased, de-duplicated tokens.
// The common rel sets, shared by every link that has them (see Link.Rel:
// read-only). The three-index slices make an append copy.
var (
	relMemento      = []string{"memento"}
	relFirstMemento = []string{"first", "memento"}
	relLastMemento  = []string{"last", "memento"}
	relOriginal     = []string{"original"}
	relTimeGate     = []string{"timegate"}
	relTimeMap      = []string{"timemap"}
	relSelf         = []string{"self"}
)

func splitRel(v string) []string {
	switch v { // the common sets, without allocating
	case "memento":
		return relMemento[:1:1]
	case "first memento":
		return relFirstMemento[:2:2]
	case "last memento":
		return relLastMemento[:2:2]
	case "original":
		return relOriginal[:1:1]
	case "timegate":
		return relTimeGate[:1:1]
	case "timemap":
		return relTimeMap[:1:1]
	case "self":
		return relSelf[:1:1]
	}
	out := []string{} // non-nil: a rel parameter was present
	for len(v) > 0 {
		k := 0
		for k < len(v) && !isWS(v[k]) {
			k++
		}
		if k > 0 {
			tok := internRel(v[:k])
			dup := false
			for _, o := range out {
				if o == tok {
					dup = true
					break
				}
			}
			if !dup {
				out = append(out, tok)
			}
		}
		for k < len(v) && isWS(v[k]) {
			k++
		}
		v = v[k:]
	}
	return out
}

func internRel(s string) string {
	switch s {
	case "memento", "first", "last", "prev", "next", "original", "timegate", "timemap", "self", "index":
		return s
	}
	lower := strings.ToLower(s)
	switch lower {
	case "memento":
		return "memento"
	case "first":
		return "first"
	case "last":
		return "last"
	case "prev":
		return "prev"
	case "next":
		return "next"
	case "original":
		return "original"
	case "timegate":
		return "timegate"
	case "timemap":
		return "timemap"
	}
	return lower
}
