package surt

//go:generate sh -c "python3 gen/nameprep_tables.py | gofmt > nameprep_tables.go"

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// IDNA 2003 (RFC 3490 ToASCII with the nameprep profile of RFC 3491), as
// the standard's Python codec applies it: map (table B.1 to nothing, B.2
// case folding), NFKC as Python's unicodedata.ucd_3_2_0 computes it (see
// nfkc32), prohibit (tables C.*), check bidi (table D), then Punycode (RFC
// 3492). Unassigned code points are allowed (AllowUnassigned, as for
// queries). The tables are generated from RFC 3454 over Unicode 3.2 (see
// gen/nameprep_tables.py); the normalization data come from
// golang.org/x/text.

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
		if c, ok := nfkc32Corrected(r); ok {
			r = c
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

// nfkc32Corrected returns the Unicode 3.2 decomposition of the five CJK
// compatibility ideographs whose decomposition Unicode 4.0 corrected
// (NormalizationCorrections.txt; U+F951 was corrected in 3.2 itself). The
// standard's codec normalizes with Python's unicodedata.ucd_3_2_0, which
// keeps the uncorrected mappings; golang.org/x/text has the corrected ones.
// The targets are CJK ideographs that neither decompose nor compose, so
// mapping them before NFKC gives Unicode 3.2's NFKC.
func nfkc32Corrected(r rune) (rune, bool) {
	switch r {
	case 0x2F868:
		return 0x2136A, true
	case 0x2F874:
		return 0x5F33, true
	case 0x2F91F:
		return 0x43AB, true
	case 0x2F95F:
		return 0x7AAE, true
	case 0x2F9BF:
		return 0x4D57, true
	}
	return r, false
}

// nfkc32 normalizes s to NFKC as the standard's codec does it: with
// Python's unicodedata.ucd_3_2_0, which is the current Unicode normalizer
// except that code points unassigned in Unicode 3.2 are never decomposed
// (and the five corrected mappings, see nfkc32Corrected, which nameprep
// has already applied). Canonical ordering and composition use the current
// data for every code point, so unassigned ones may still compose
// (U+1B05 U+1B35 gives U+1B06). Unlike golang.org/x/text's normalizer,
// Python does not insert U+034F after 30 non-starters in a row (UAX #15's
// Stream-Safe Text Format). So golang.org/x/text normalizes the whole
// string only when it is short (10 code points decompose to fewer than 31
// non-starters in a row) and has no unassigned code point; otherwise the
// steps run here, in O(n log n) time for n code points.
func nfkc32(s string) string {
	fast := utf8.RuneCountInString(s) <= 10
	for _, r := range s {
		if !fast {
			break
		}
		if r >= unassigned32[0].lo && inRanges(unassigned32, r) {
			fast = false
		}
	}
	if fast {
		return norm.NFKC.String(s)
	}
	// Decompose rune by rune, leaving unassigned code points alone.
	type cp struct {
		r   rune
		ccc uint8
	}
	var d []cp
	for _, r := range s {
		if inRanges(unassigned32, r) {
			d = append(d, cp{r, ccc(r)})
			continue
		}
		for _, x := range norm.NFKD.String(string(r)) {
			d = append(d, cp{x, ccc(x)})
		}
	}
	// Canonical ordering: each run of non-starters sorted stably by
	// combining class (what CPython's insertion sort in nfd_nfkd gives).
	for i := 0; i < len(d); {
		if d[i].ccc == 0 {
			i++
			continue
		}
		j := i
		for j < len(d) && d[j].ccc != 0 {
			j++
		}
		slices.SortStableFunc(d[i:j], func(a, b cp) int { return int(a.ccc) - int(b.ccc) })
		i = j
	}
	// Canonical composition, as CPython's nfc_nfkc does it: a starter
	// combines with the following unblocked code points while a primary
	// composite exists. No primary composite starts with a non-starter
	// (true over all of Unicode), so only starters look ahead, each up to
	// the next starter: linear time.
	out := make([]rune, 0, len(d))
	used := make([]bool, len(d))
	for i := 0; i < len(d); i++ {
		if used[i] {
			continue
		}
		code := d[i].r
		comb := uint8(0)
		for j := i + 1; j < len(d) && d[i].ccc == 0; j++ {
			if used[j] {
				continue
			}
			c1 := d[j].ccc
			if comb != 0 {
				if c1 == 0 {
					break
				}
				if comb >= c1 {
					continue // blocked
				}
			}
			if p, ok := composePair(code, d[j].r); ok {
				code = p
				used[j] = true
				continue
			}
			if c1 == 0 {
				break
			}
			comb = c1
		}
		out = append(out, code)
	}
	return string(out)
}

// ccc returns the canonical combining class of r as the reference's Python
// (3.11, Unicode 14.0) knows it: golang.org/x/text's class, except 0 for the
// combining marks Unicode 15.0 added (golang.org/x/text has 15.0), which
// Python 3.11 does not know and treats as class 0.
func ccc(r rune) uint8 {
	switch {
	case 0x10EFD <= r && r <= 0x10EFF, r == 0x11F41, r == 0x11F42, r == 0x1E08F, 0x1E4EC <= r && r <= 0x1E4EF:
		return 0
	}
	return norm.NFD.PropertiesString(string(r)).CCC()
}

// composePair returns the primary composite of a followed by b, if the
// current Unicode data has one (Hangul LV and LVT syllables included).
func composePair(a, b rune) (rune, bool) {
	if ccc(a) > ccc(b) && ccc(b) != 0 {
		return 0, false // NFC would reorder the pair: no composite
	}
	c := norm.NFC.String(string([]rune{a, b}))
	r, n := utf8.DecodeRuneInString(c)
	if n != len(c) || r == utf8.RuneError && n <= 1 {
		return 0, false
	}
	return r, true
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
