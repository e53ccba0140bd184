package surt

//go:generate sh -c "python3 gen/nameprep_tables.py | gofmt > nameprep_tables.go"

import (
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IDNA 2003 (RFC 3490 ToASCII with the nameprep profile of RFC 3491), as
// the standard's Python codec applies it: map (table B.1 to nothing, B.2
// case folding), NFKC over Unicode 3.2, prohibit (tables C.*), check bidi
// (table D), then Punycode (RFC 3492). Unassigned code points are allowed
// (AllowUnassigned, as for queries). The tables are generated from RFC 3454
// over Unicode 3.2 (see gen/nameprep_tables.py); NFKC comes from
// golang.org/x/text with code points unassigned in Unicode 3.2 kept as they
// are, as a Unicode 3.2 normalizer would keep them.

type runeRange struct{ lo, hi rune }

type runeMap struct {
	r  rune
	to string
}

func inRanges(t []runeRange, r rune) bool {
	i := sort.Search(len(t), func(i int) bool { return t[i].hi >= r })
	return i < len(t) && t[i].lo <= r
}

// nameprep returns the nameprep (RFC 3491) form of one label, or false
// when the label holds a prohibited code point or fails the bidi check.
func nameprep(label string) (string, bool) {
	var b strings.Builder
	b.Grow(len(label) + 8)
	for _, r := range label {
		if inRanges(nameprepB1, r) {
			continue
		}
		i := sort.Search(len(nameprepB2), func(i int) bool { return nameprepB2[i].r >= r })
		if i < len(nameprepB2) && nameprepB2[i].r == r {
			b.WriteString(nameprepB2[i].to)
			continue
		}
		b.WriteRune(r)
	}
	s := nfkc32(b.String())
	hasRandAL, hasL := false, false
	for _, r := range s {
		if inRanges(nameprepProhibited, r) {
			return "", false
		}
		if inRanges(nameprepRandAL, r) {
			hasRandAL = true
		} else if inRanges(nameprepL, r) {
			hasL = true
		}
	}
	if hasRandAL {
		first, _ := utf8.DecodeRuneInString(s)
		last, _ := utf8.DecodeLastRuneInString(s)
		if hasL || !inRanges(nameprepRandAL, first) || !inRanges(nameprepRandAL, last) {
			return "", false
		}
	}
	return s, true
}

// nfkc32 normalizes s to NFKC as Unicode 3.2 would: code points that were
// unassigned then have no decomposition and never compose, so the text is
// normalized piecewise between them.
func nfkc32(s string) string {
	start := 0
	var b strings.Builder
	split := false
	for i, r := range s {
		if r >= unassigned32[0].lo && inRanges(unassigned32, r) {
			if !split {
				b.Grow(len(s))
				split = true
			}
			b.WriteString(norm.NFKC.String(s[start:i]))
			b.WriteRune(r)
			start = i + utf8.RuneLen(r)
		}
	}
	if !split {
		return norm.NFKC.String(s)
	}
	b.WriteString(norm.NFKC.String(s[start:]))
	return b.String()
}

// nameprepLabel is RFC 3490 ToASCII for one non-ASCII label: nameprep; an
// ASCII result is returned as it is; otherwise a result starting with the
// ACE prefix "xn--" fails, and anything else becomes "xn--" + Punycode.
// Length limits are the caller's.
func nameprepLabel(l string) (string, bool) {
	m, ok := nameprep(l)
	if !ok {
		return "", false
	}
	if isASCIIString(m) {
		return m, true
	}
	if strings.HasPrefix(m, "xn--") {
		return "", false // "Label starts with ACE prefix"
	}
	if utf8.RuneCountInString(m) >= 60 {
		// "xn--" plus at least one byte per code point: over 63 bytes.
		// Rejecting here keeps the quadratic encoder off long labels.
		return "", false
	}
	return "xn--" + punycodeEncode(m), true
}

// punycodeEncode is the RFC 3492 (section 6.3) encoder with its standard
// parameters: basic code points first, then '-' if there were any, then
// the deltas of the others as generalized variable-length integers.
func punycodeEncode(s string) string {
	const (
		base, tmin, tmax, skew, damp = 36, 1, 26, 38, 700
		initialBias, initialN        = 72, 128
	)
	runes := []rune(s)
	var out []byte
	for _, r := range runes {
		if r < 0x80 {
			out = append(out, byte(r))
		}
	}
	b := len(out)
	h := b
	if b > 0 {
		out = append(out, '-')
	}
	digit := func(d int) byte {
		if d < 26 {
			return byte('a' + d)
		}
		return byte('0' + d - 26)
	}
	adapt := func(delta, numPoints int, first bool) int {
		if first {
			delta /= damp
		} else {
			delta /= 2
		}
		delta += delta / numPoints
		k := 0
		for delta > ((base-tmin)*tmax)/2 {
			delta /= base - tmin
			k += base
		}
		return k + (base-tmin+1)*delta/(delta+skew)
	}
	n, delta, bias := rune(initialN), 0, initialBias
	for h < len(runes) {
		m := rune(0x7fffffff)
		for _, r := range runes {
			if r >= n && r < m {
				m = r
			}
		}
		delta += int(m-n) * (h + 1)
		n = m
		for _, r := range runes {
			if r < n {
				delta++
			}
			if r == n {
				q := delta
				for k := base; ; k += base {
					t := k - bias
					if t < tmin {
						t = tmin
					} else if t > tmax {
						t = tmax
					}
					if q < t {
						break
					}
					out = append(out, digit(t+(q-t)%(base-t)))
					q = (q - t) / (base - t)
				}
				out = append(out, digit(q))
				bias = adapt(delta, h+1, h == b)
				delta = 0
				h++
			}
		}
		delta++
		n++
	}
	return string(out)
}
