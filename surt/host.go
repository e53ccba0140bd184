package surt

import (
	"strings"
	"unicode/utf8"
)

// appendIDNA appends to dst the ASCII form of a host whose bytes are not all
// ASCII, as Python's host.decode('utf-8', 'ignore').encode('idna') computes
// it (RFC 3490 ToASCII per label, see nameprep.go; labels split on the four
// IDNA dots). ok is
// false when the standard's codec would raise; the caller then keeps the raw
// bytes.
func appendIDNA(dst, host []byte) ([]byte, bool) {
	// decode('utf-8', 'ignore'): drop every byte that is not part of a valid
	// UTF-8 sequence.
	var sb strings.Builder
	sb.Grow(len(host))
	ascii := true
	for i := 0; i < len(host); {
		r, size := utf8.DecodeRune(host[i:])
		if r == utf8.RuneError && size <= 1 {
			i++
			continue
		}
		if r >= utf8.RuneSelf {
			ascii = false
		}
		sb.WriteRune(r)
		i += size
	}
	s := sb.String()
	if s == "" {
		return dst, true
	}
	if ascii {
		// The codec's ASCII fast path: only label lengths are checked.
		labels := strings.Split(s, ".")
		for i, l := range labels {
			if len(l) >= 64 || len(l) == 0 && i < len(labels)-1 {
				return dst, false
			}
		}
		return append(dst, s...), true
	}
	labels := splitIDNADots(s)
	trailingDot := false
	if len(labels) > 0 && labels[len(labels)-1] == "" {
		trailingDot = true
		labels = labels[:len(labels)-1]
	}
	n := len(dst)
	for i, l := range labels {
		if i > 0 {
			dst = append(dst, '.')
		}
		if isASCIIString(l) {
			if len(l) == 0 || len(l) >= 64 {
				return dst[:n], false
			}
			dst = append(dst, l...)
			continue
		}
		a, ok := nameprepLabel(l)
		if !ok || len(a) == 0 || len(a) >= 64 {
			return dst[:n], false
		}
		dst = append(dst, a...)
	}
	if trailingDot {
		dst = append(dst, '.')
	}
	return dst, true
}

// splitIDNADots splits s on '.', U+3002, U+FF0E and U+FF61.
func splitIDNADots(s string) []string {
	var out []string
	start := 0
	for i, r := range s {
		if r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61' {
			out = append(out, s[start:i])
			start = i + utf8.RuneLen(r)
		}
	}
	return append(out, s[start:])
}

func isASCIIString(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// collapseDots applies the standard's host.replace(b'..', b'.').strip(b'.'):
// one left-to-right, non-overlapping pass ("a...b" becomes "a..b"), then
// every leading and trailing dot removed. It works in place.
func collapseDots(h []byte) []byte {
	w := 0
	for i := 0; i < len(h); i++ {
		if h[i] == '.' && i+1 < len(h) && h[i+1] == '.' {
			h[w] = '.'
			w++
			i++
			continue
		}
		h[w] = h[i]
		w++
	}
	h = h[:w]
	for len(h) > 0 && h[0] == '.' {
		h = h[1:]
	}
	for len(h) > 0 && h[len(h)-1] == '.' {
		h = h[:len(h)-1]
	}
	return h
}

// ipv4Form returns the dotted quad the standard's attemptIPFormats gives for
// h: a host of ASCII digits only is read as a decimal number masked to 32
// bits; a host matching ^[1-9][0-9]*(\.[0-9]+){0,3}$ or
// ^0[0-7]*(\.[0-7]+){0,3}$ is read as inet_aton(3) reads it (parts with a
// leading 0 are octal; a.b, a.b.c and a.b.c.d forms) and kept only when
// inet_aton accepts it. ok is false for every other host.
func ipv4Form(h []byte) (ip [4]byte, ok bool) {
	if len(h) == 0 {
		return ip, false
	}
	allDigits := true
	for _, c := range h {
		if c < '0' || c > '9' {
			allDigits = false
			break
		}
	}
	if allDigits {
		var v uint32
		for _, c := range h {
			v = v*10 + uint32(c-'0') // wraps: the low 32 bits, as "& 0xffffffff"
		}
		return [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}, true
	}
	// Split into 1..4 non-empty digit parts.
	var parts [4][]byte
	np := 0
	start := 0
	for i := 0; i <= len(h); i++ {
		if i < len(h) && h[i] != '.' {
			if h[i] < '0' || h[i] > '9' {
				return ip, false
			}
			continue
		}
		if i == start || np == 4 {
			return ip, false
		}
		parts[np] = h[start:i]
		np++
		start = i + 1
	}
	octal := parts[0][0] == '0'
	if octal {
		for k := 0; k < np; k++ {
			for _, c := range parts[k] {
				if c > '7' {
					return ip, false
				}
			}
		}
	}
	// inet_aton: values base 0 (leading 0 = octal), non-last parts <= 0xff.
	var vals [4]uint64
	for k := 0; k < np; k++ {
		p := parts[k]
		base := uint64(10)
		if len(p) > 1 && p[0] == '0' {
			base = 8
		}
		var v uint64
		for _, c := range p {
			d := uint64(c - '0')
			if d >= base {
				return ip, false
			}
			v = v*base + d
			if v > 0xffffffff {
				return ip, false
			}
		}
		if k < np-1 && v > 0xff {
			return ip, false
		}
		vals[k] = v
	}
	limits := [5]uint64{0, 0xffffffff, 0xffffff, 0xffff, 0xff}
	last := vals[np-1]
	if last > limits[np] {
		return ip, false
	}
	var v uint64
	switch np {
	case 1:
		v = last
	case 2:
		v = vals[0]<<24 | last
	case 3:
		v = vals[0]<<24 | vals[1]<<16 | last
	case 4:
		v = vals[0]<<24 | vals[1]<<16 | vals[2]<<8 | last
	}
	return [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}, true
}

// appendDottedQuad appends ip as "a.b.c.d".
func appendDottedQuad(dst []byte, ip [4]byte) []byte {
	for i, b := range ip {
		if i > 0 {
			dst = append(dst, '.')
		}
		if b >= 100 {
			dst = append(dst, '0'+b/100)
		}
		if b >= 10 {
			dst = append(dst, '0'+b/10%10)
		}
		dst = append(dst, '0'+b%10)
	}
	return dst
}

// isDottedQuadLike reports whether h matches the standard's
// (?:\d{1,3}\.){3}\d{1,3}$ (anchored at both ends): the hosts that the
// reverse-IP option leaves unreversed.
func isDottedQuadLike(h []byte) bool {
	parts, n := 0, 0
	for _, c := range h {
		switch {
		case '0' <= c && c <= '9':
			n++
			if n > 3 {
				return false
			}
		case c == '.':
			if n == 0 {
				return false
			}
			parts++
			n = 0
		default:
			return false
		}
	}
	return parts == 3 && n > 0
}

// massageLen returns how many leading bytes the standard's massageHost
// removes: the length of a leading "www" + digits + "." (regex ^www\d*\.),
// or 0.
func massageLen(h []byte) int {
	if len(h) < 4 || h[0] != 'w' || h[1] != 'w' || h[2] != 'w' {
		return 0
	}
	i := 3
	for i < len(h) && '0' <= h[i] && h[i] <= '9' {
		i++
	}
	if i < len(h) && h[i] == '.' {
		return i + 1
	}
	return 0
}
