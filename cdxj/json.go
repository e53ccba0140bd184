package cdxj

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON block of a CDXJ line is read lazily: nothing is checked when the
// record is read; asking for a field scans the top-level object from the
// left only as far as that field, remembering the members it has passed, so
// asking for mime, status and length scans each byte once and stops at
// length. Values are located, not decoded: a string value is returned
// without its quotes and is only unescaped when it contains a backslash.

// jsonMember is the position, within the JSON block, of one top-level
// member: the key's text between its quotes, and the raw value.
type jsonMember struct {
	ks, ke, vs, ve int32
}

type jsonIndex struct {
	members []jsonMember
	pos     int   // where the next member starts; see scanNext
	state   uint8 // jsonUnread, jsonOpen, jsonDone, jsonBad
	errPos  int   // byte offset in the block of the error
	errMsg  string
	// checked is set once the whole block has been validated (CheckJSON);
	// flat too when it has the flat shape (validateFlat: every value a
	// string without escapes, so a value's text is its bytes between the
	// quotes); stack is validate's scratch.
	checked, flat bool
	stack         []byte
}

const (
	jsonUnread uint8 = iota
	jsonOpen
	jsonDone
	jsonBad
)

func (x *jsonIndex) reset() {
	x.members = x.members[:0]
	x.pos = 0
	x.state = jsonUnread
	x.errMsg = ""
	x.checked, x.flat = false, false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// jsonSpaces has bit c set for each JSON white-space byte c.
const jsonSpaces = 1<<' ' | 1<<'\t' | 1<<'\r' | 1<<'\n'

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space (len(b) if none); a byte above ' ', the usual one, is
// told with one comparison.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && jsonSpaces>>b[i]&1 != 0 {
		i++
	}
	return i
}

// stringEnd returns the index of the quote closing the JSON string whose
// opening quote is at b[i], or -1.
func stringEnd(b []byte, i int) int {
	// The first '"' or '\\', eight bytes at a time (member names and most
	// values are short; a call of IndexByte for each costs more): a quote
	// ends the string; a backslash sends it to the general loop below,
	// from its start.
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := i + 1
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		q, s := x^('"'*ones), x^('\\'*ones)
		// A byte of q or s is zero where x has a quote or a backslash;
		// the lowest high bit set marks the first of them.
		if m := ((q-ones)&^q | (s-ones)&^s) & highs; m != 0 {
			j += bits.TrailingZeros64(m) / 8
			if b[j] == '"' {
				return j
			}
			j = i + 1
			goto general
		}
	}
	for ; j < len(b); j++ {
		if c := b[j]; c == '"' {
			return j
		} else if c == '\\' {
			j = i + 1
			goto general
		}
	}
	return -1
general:
	for j <= len(b) {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		j = q + 1
	}
	return -1
}

// valueEnd returns the index just past the JSON value starting at b[i], or
// -1 and a reason.
func valueEnd(b []byte, i int) (int, string) {
	if i >= len(b) {
		return -1, "value missing at end of block"
	}
	switch c := b[i]; c {
	case '"':
		e := stringEnd(b, i)
		if e < 0 {
			return -1, "unterminated string"
		}
		return e + 1, ""
	case '{', '[':
		// kinds holds one bit per open level, 1 for an object, so that a
		// closing bracket must match; 64 levels are plenty for an index.
		var kinds uint64
		depth := 0
		for j := i; j < len(b); j++ {
			switch c := b[j]; c {
			case '"':
				e := stringEnd(b, j)
				if e < 0 {
					return -1, "unterminated string"
				}
				j = e
			case '{', '[':
				if depth == 64 {
					return -1, "nested more than 64 levels deep"
				}
				kinds <<= 1
				if c == '{' {
					kinds |= 1
				}
				depth++
			case '}', ']':
				if (kinds&1 == 1) != (c == '}') {
					return -1, "mismatched " + quoteByte(c)
				}
				kinds >>= 1
				depth--
				if depth == 0 {
					return j + 1, ""
				}
			}
		}
		return -1, "unterminated object or array"
	default:
		j := i
		for j < len(b) {
			c := b[j]
			if c == ',' || c == '}' || c == ']' || isSpace(c) {
				break
			}
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E') {
				return -1, "unexpected character " + quoteByte(c)
			}
			j++
		}
		if j == i {
			return -1, "value missing"
		}
		return j, ""
	}
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	const hex = "0123456789abcdef"
	return "byte 0x" + string([]byte{hex[c>>4], hex[c&15]})
}

// scanNext indexes the next top-level member of b. It returns false when the
// object is finished or bad (x.state tells which).
func (x *jsonIndex) scanNext(b []byte) bool {
	fail := func(pos int, msg string) bool {
		x.state, x.errPos, x.errMsg = jsonBad, pos, msg
		return false
	}
	i := x.pos
	switch x.state {
	case jsonDone, jsonBad:
		return false
	case jsonUnread:
		i = skipSpace(b, 0)
		if i >= len(b) || b[i] != '{' {
			return fail(i, "block does not start with '{'")
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			x.finish(b, i+1)
			return false // an empty object has no member
		}
		x.state = jsonOpen
	}
	if i >= len(b) || b[i] != '"' {
		return fail(i, "expected '\"' to start a key")
	}
	ke := stringEnd(b, i)
	if ke < 0 {
		return fail(i, "unterminated key")
	}
	j := skipSpace(b, ke+1)
	if j >= len(b) || b[j] != ':' {
		return fail(j, "expected ':' after key "+string(b[i:ke+1]))
	}
	vs := skipSpace(b, j+1)
	ve, msg := valueEnd(b, vs)
	if ve < 0 {
		return fail(vs, msg+" in the value of key "+string(b[i:ke+1]))
	}
	x.members = append(x.members, jsonMember{int32(i + 1), int32(ke), int32(vs), int32(ve)})
	k := skipSpace(b, ve)
	switch {
	case k < len(b) && b[k] == ',':
		x.pos = skipSpace(b, k+1)
	case k < len(b) && b[k] == '}':
		x.finish(b, k+1)
	default:
		return fail(k, "expected ',' or '}' after the value of key "+string(b[i:ke+1]))
	}
	return true
}

func (x *jsonIndex) finish(b []byte, i int) bool {
	if j := skipSpace(b, i); j < len(b) {
		x.state, x.errPos, x.errMsg = jsonBad, j, "text after the closing '}'"
		return false
	}
	x.state = jsonDone
	return true
}

// lookup returns the raw value of the top-level member name, scanning
// further into b as needed. ok is false when the object has no such member
// or is malformed before it (x.state == jsonBad then).
func (x *jsonIndex) lookup(b []byte, name string) (raw []byte, ok bool) {
	for _, m := range x.members {
		if string(b[m.ks:m.ke]) == name {
			return b[m.vs:m.ve], true
		}
	}
	for x.scanNext(b) {
		m := x.members[len(x.members)-1]
		if string(b[m.ks:m.ke]) == name {
			return b[m.vs:m.ve], true
		}
	}
	return nil, false
}

// unquote returns the text of the JSON string raw (quotes included),
// decoding escapes into scratch when there are any. ok is false when raw is
// not a string or has a bad escape.
func unquote(raw, scratch []byte) (s, newScratch []byte, ok bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return nil, scratch, false
	}
	body := raw[1 : len(raw)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return body, scratch, true
	}
	start := len(scratch)
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c != '\\' {
			scratch = append(scratch, c)
			continue
		}
		i++
		if i >= len(body) {
			return nil, scratch[:start], false
		}
		switch body[i] {
		case '"', '\\', '/':
			scratch = append(scratch, body[i])
		case 'b':
			scratch = append(scratch, '\b')
		case 'f':
			scratch = append(scratch, '\f')
		case 'n':
			scratch = append(scratch, '\n')
		case 'r':
			scratch = append(scratch, '\r')
		case 't':
			scratch = append(scratch, '\t')
		case 'u':
			r, n := hex4(body[i+1:])
			if n == 0 {
				return nil, scratch[:start], false
			}
			i += 4
			if utf16.IsSurrogate(r) {
				if i+2 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					if r2, n2 := hex4(body[i+3:]); n2 > 0 {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							r = d
							i += 6
						}
					}
				}
			}
			scratch = utf8.AppendRune(scratch, r)
		default:
			return nil, scratch[:start], false
		}
	}
	return scratch[start:], scratch, true
}

func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}

// namesURL reports whether the JSON object b has, at its top level, a
// "uri", "url" or "original_uri" member whose value is a string: what a
// "datetime {json}" line needs to describe a capture (ErrNotCapture). It
// reads members up to the first such one and stops at the first fault
// (ipwb's TimeMaps write "datetime"="..." after "uri"), without
// validating the rest.
func namesURL(b []byte) bool {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return false
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != '"' {
			return false
		}
		e := stringEnd(b, i)
		if e < 0 {
			return false
		}
		name := b[i+1 : e]
		i = skipSpace(b, e+1)
		if i >= len(b) || b[i] != ':' {
			return false
		}
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '"' {
			switch string(name) {
			case "uri", "url", "original_uri":
				return true
			}
		}
		end, _ := valueEnd(b, i)
		if end < 0 {
			return false
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ',' {
			return false
		}
		i++
	}
}
