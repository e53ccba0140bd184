package surt

// Percent-decoding and minimal re-escaping, as the standard's Google-style
// canonicalizer does it (Python urllib.parse.unquote_to_bytes applied until the
// value stops changing, then quote_from_bytes with a wide "safe" set).

// escapeSafe reports the bytes that escapeOnce leaves alone: the RFC 3986
// unreserved set plus !"$&'()*+,-./:;<=>?@[\]^_`{|}~ . Everything else (C0
// controls, space, '#', '%', DEL and every byte >= 0x80) becomes %XX.
var escapeSafe = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "_.-~!\"$&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		t[c] = true
	}
	return t
}()

// hexVal maps an ASCII hex digit to its value and every other byte to 0xff.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xff
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c - 'a' + 10)
	}
	for c := 'A'; c <= 'F'; c++ {
		t[c] = byte(c - 'A' + 10)
	}
	return t
}()

const upperHex = "0123456789ABCDEF"

// appendUnescapeRepeatedly appends src to dst and percent-decodes the
// appended part until it no longer changes (the standard's
// unescapeRepeatedly: "%2525" becomes "%").
//
// The standard decodes in whole passes until nothing changes, which takes
// quadratic time on "%252525...". Escapes never overlap (the two bytes after
// '%' are hex digits, never '%'), so every order of decoding reaches the same
// result; this one pass decodes each escape as soon as its last byte is
// written, including escapes that decoding itself completes, in linear time.
func appendUnescapeRepeatedly(dst, src []byte, keep26 bool) []byte {
	i := 0
	for i < len(src) && src[i] != '%' {
		i++
	}
	dst = append(dst, src[:i]...)
	if i == len(src) {
		return dst
	}
	n := len(dst) - i // start of the appended part
	for ; i < len(src); i++ {
		dst = append(dst, src[i])
		for len(dst)-n >= 3 {
			k := len(dst) - 3
			if dst[k] != '%' {
				break
			}
			h, l := hexVal[dst[k+1]], hexVal[dst[k+2]]
			if h == 0xff || l == 0xff || keep26 && h == 2 && l == 6 {
				break
			}
			dst[k] = h<<4 | l
			dst = dst[:k+1]
		}
	}
	return dst
}

// appendEscapeOnce appends src to dst with every byte outside escapeSafe
// written as %XX (upper-case hex). If keep26 is set, an existing "%26" in src
// is copied unchanged instead of becoming "%2526".
func appendEscapeOnce(dst, src []byte, keep26 bool) []byte {
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if escapeSafe[c] {
			continue
		}
		if keep26 && c == '%' && i+2 < len(src) && src[i+1] == '2' && src[i+2] == '6' {
			continue
		}
		dst = append(dst, src[start:i]...)
		dst = append(dst, '%', upperHex[c>>4], upperHex[c&15])
		start = i + 1
	}
	return append(dst, src[start:]...)
}

// lowerASCII lower-cases the ASCII letters of b in place (Python's
// bytes.lower: other bytes are unchanged).
func lowerASCII(b []byte) {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
}

// isASCII reports whether every byte of b is below 0x80.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
