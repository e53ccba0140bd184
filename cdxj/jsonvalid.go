package cdxj

import (
	"encoding/binary"
	"math/bits"
)

// maxJSONDepth is the deepest nesting of objects and arrays that
// encoding/json accepts (its scanner's maxNestingDepth).
const maxJSONDepth = 10000

// validate checks in one pass that b is one JSON value with nothing but
// white space around it, accepting exactly what encoding/json.Valid
// accepts (strings without control bytes and with valid escapes, numbers
// in JSON's grammar, true, false and null, nesting at most 10000 deep),
// and indexes the members of a top-level object into x.members. It
// returns -1, or the byte offset of the first fault in b and a reason.
//
// Strings are scanned eight bytes at a time for the first '"', '\\' or
// control byte (see strictStringEnd); one with an escape is left to
// strictStringEnd.
func (x *jsonIndex) validate(b []byte) (int, string) {
	if x.validateFlat(b) {
		x.flat = true
		return -1, ""
	}
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	var (
		stack      = x.stack[:0] // '{' or '[' for each open level
		top        byte          // the innermost open bracket, 0 at the top level
		members    = x.members
		ks, ke, vs int // the top-level member being read
		i, j, k, e int
		n          = len(b)
		c          byte
		msg        string
	)
	i = skipSpace(b, 0)

value:
	if i >= n {
		e, msg = i, "value missing at end of block"
		goto fail
	}
	c = b[i]
	switch {
	case c == '"':
		goto valueString
	case c == '-' || c >= '0' && c <= '9':
		if e = numberEnd(b, i); e < 0 {
			e, msg = i, "malformed number"
			goto fail
		}
		i = e
		goto afterValue
	case c == '{' || c == '[':
		if len(stack) == maxJSONDepth {
			e, msg = i, "nested more than 10000 levels deep"
			goto fail
		}
		stack = append(stack, c)
		top = c
		i = skipSpace(b, i+1)
		if i < n && b[i] == c+2 { // '}' or ']'
			i++
			goto closed
		}
		if c == '{' {
			goto key
		}
		goto value
	case c == 't', c == 'f', c == 'n':
		lit := "true"
		if c == 'f' {
			lit = "false"
		} else if c == 'n' {
			lit = "null"
		}
		if n-i < len(lit) || string(b[i:i+len(lit)]) != lit {
			e, msg = i, "malformed literal"
			goto fail
		}
		i += len(lit)
		goto afterValue
	}
	e, msg = i, "unexpected character "+quoteByte(c)+" where a value starts"
	goto fail

valueString:
	for j = i + 1; j+8 <= n; j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		q, s := w^(2*ones), w^('\\'*ones)
		if m := ((q-0x21*ones)&^q | (s-ones)&^s) & highs; m != 0 {
			j += bits.TrailingZeros64(m) / 8
			goto valueStringHit
		}
	}
	for j < n && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
		j++
	}
valueStringHit:
	if j >= n || b[j] != '"' {
		if j, msg = strictStringEnd(b, i); j < 0 {
			e = i
			if top == '{' && len(stack) == 1 {
				msg += " in the value of key " + string(b[ks-1:ke+1])
			} else {
				msg += " in a string"
			}
			goto fail
		}
	}
	i = j + 1

afterValue:
	if top == '{' && len(stack) == 1 {
		members = append(members, jsonMember{int32(ks), int32(ke), int32(vs), int32(i)})
	}
	i = skipSpace(b, i)
	if i >= n {
		if len(stack) == 0 {
			x.members, x.stack = members, stack[:0]
			return -1, ""
		}
		e, msg = i, "unterminated object or array"
		goto fail
	}
	switch c = b[i]; {
	case len(stack) == 0:
		e, msg = i, "text after the end of the value"
		goto fail
	case c == ',':
		i = skipSpace(b, i+1)
		if top == '{' {
			goto key
		}
		goto value
	case c == top+2:
		i++
		goto closed
	case top == '{':
		e, msg = i, "expected ',' or '}' after a member's value"
	default:
		e, msg = i, "expected ',' or ']' after an element"
	}
	goto fail

closed: // b[i-1] closed the innermost open level
	stack = stack[:len(stack)-1]
	top = 0
	if len(stack) > 0 {
		top = stack[len(stack)-1]
	}
	goto afterValue

key:
	if i >= n || b[i] != '"' {
		e, msg = i, "expected '\"' to start a key"
		goto fail
	}
	for j = i + 1; j+8 <= n; j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		q, s := w^(2*ones), w^('\\'*ones)
		if m := ((q-0x21*ones)&^q | (s-ones)&^s) & highs; m != 0 {
			j += bits.TrailingZeros64(m) / 8
			goto keyHit
		}
	}
	for j < n && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
		j++
	}
keyHit:
	if j >= n || b[j] != '"' {
		if j, msg = strictStringEnd(b, i); j < 0 {
			e, msg = i, msg+" in a key"
			goto fail
		}
	}
	k = i
	i = skipSpace(b, j+1)
	if i >= n || b[i] != ':' {
		e, msg = i, "expected ':' after key "+string(b[k:j+1])
		goto fail
	}
	i = skipSpace(b, i+1)
	if len(stack) == 1 {
		ks, ke, vs = k+1, j, i
	}
	goto value

fail:
	x.members, x.stack = members, stack[:0]
	return e, msg
}

// validateFlat is validate for the usual shape of a CDXJ block, the one
// pywb and cdxj-indexer write: {"name": "value", "name": "value"}, every
// value a string, one space after each ':' and ',', no escape and nothing
// around the braces. It reports whether b has that shape (then valid, its
// members indexed into x.members); false says nothing about b, which
// validate then reads with the general grammar.
func (x *jsonIndex) validateFlat(b []byte) bool {
	n := len(b)
	if n < 2 || b[0] != '{' || b[n-1] != '}' {
		return false
	}
	members := x.members[:0]
	i := 1
	for {
		if i >= n || b[i] != '"' {
			return false
		}
		ke := plainStringEnd(b, i+1)
		// ke < n-3 leaves room for `: "`; b[n-1] is the '}'.
		if ke >= n-3 || b[ke] != '"' || b[ke+1] != ':' || b[ke+2] != ' ' || b[ke+3] != '"' {
			return false
		}
		vs := ke + 3
		ve := plainStringEnd(b, vs+1)
		if ve >= n-1 || b[ve] != '"' {
			return false
		}
		members = append(members, jsonMember{int32(i + 1), int32(ke), int32(vs), int32(ve + 1)})
		i = ve + 1
		if i == n-1 {
			x.members = members
			return true
		}
		if b[i] != ',' || b[i+1] != ' ' {
			return false
		}
		i += 2
	}
}

// plainStringEnd returns the index of the first '"', '\\' or control byte
// (below 0x20) at or after b[j], or len(b).
func plainStringEnd(b []byte, j int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; j+8 <= len(b); j += 8 {
		w := binary.LittleEndian.Uint64(b[j:])
		q, s := w^(2*ones), w^('\\'*ones)
		if m := ((q-0x21*ones)&^q | (s-ones)&^s) & highs; m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for j < len(b) && b[j] != '"' && b[j] != '\\' && b[j] >= 0x20 {
		j++
	}
	return j
}

// strictStringEnd returns the index of the quote closing the JSON string
// whose opening quote is at b[i], checking that it holds no control byte
// (below 0x20) and only valid escapes; or -1 and a reason.
func strictStringEnd(b []byte, i int) (int, string) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	j := i + 1
	for {
		// The first '"', '\\' or control byte, eight bytes at a time: a
		// byte of q is below 0x21 where x has a quote (0x22^2 is 0x20) or
		// a control byte (below 0x20 either way), and (q - 0x21…) &^ q has
		// its high bit set; a byte of s is zero where x has a backslash.
		// The lowest flag is exact (a borrow only flags bytes above it).
		for ; j+8 <= len(b); j += 8 {
			x := binary.LittleEndian.Uint64(b[j:])
			q, s := x^(2*ones), x^('\\'*ones)
			if m := ((q-0x21*ones)&^q | (s-ones)&^s) & highs; m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
		}
		for ; j < len(b); j++ {
			if c := b[j]; c == '"' || c == '\\' || c < 0x20 {
				break
			}
		}
		if j >= len(b) {
			return -1, "unterminated string"
		}
		switch c := b[j]; {
		case c == '"':
			return j, ""
		case c < 0x20:
			return -1, "control " + quoteByte(c)
		}
		// a backslash
		if j+1 >= len(b) {
			return -1, "unterminated string"
		}
		switch b[j+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			j += 2
		case 'u':
			if _, n := hex4(b[j+2:]); n == 0 {
				return -1, "bad escape: \\u without four hex digits"
			}
			j += 6
		default:
			return -1, "bad escape " + quoteByte(b[j+1])
		}
	}
}

// numberEnd returns the index just past the JSON number starting at b[i]
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?), or -1. Whether what
// follows may end a value is for the caller.
func numberEnd(b []byte, i int) int {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
