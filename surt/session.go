package surt

import (
	"bytes"
	"slices"
)

// Session-id removal and query ordering, as the standard's
// URLRegexTransformer and IAURLCanonicalizer do them. The regular expressions
// are evaluated by hand with the same (backtracking, greedy) semantics.

// hasPrefixFold reports whether b starts with lower (an ASCII lower-case
// token), ignoring ASCII case.
func hasPrefixFold(b []byte, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lowerByte(b[i]) != lower[i] {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool { return isAlpha(c) || '0' <= c && c <= '9' }

// runOf returns how many of the first n bytes of b satisfy ok, stopping at the first that does not.
func runOf(b []byte, n int, ok func(byte) bool) int {
	i := 0
	for i < n && i < len(b) && ok(b[i]) {
		i++
	}
	return i
}

// querySessionMatch tries one of the standard's five query patterns at q[p:]
// and returns the end of the matched id, or -1. The end must be followed by
// '&' or the end of the query. amp1 and amp2 are the positions of the first
// two '&' at or after p (len(q) when absent), so every test takes constant
// time.
func querySessionMatch(q []byte, p, pattern, amp1, amp2 int) int {
	r := q[p:]
	end := -1
	switch pattern {
	case 0, 1, 2: // (jsessionid|phpsessid|sid)=[0-9a-zA-Z]{32}
		tok := [...]string{"jsessionid=", "phpsessid=", "sid="}[pattern]
		if !hasPrefixFold(r, tok) {
			return -1
		}
		if runOf(r[len(tok):], 32, isAlnum) != 32 {
			return -1
		}
		end = len(tok) + 32
	case 3: // ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24}
		const tok = "aspsessionid"
		if !hasPrefixFold(r, tok) || runOf(r[len(tok):], 8, isAlpha) != 8 {
			return -1
		}
		i := len(tok) + 8
		if i >= len(r) || r[i] != '=' || runOf(r[i+1:], 24, isAlpha) != 24 {
			return -1
		}
		end = i + 1 + 24
	case 4: // cfid=[^&]+&cftoken=[^&]+
		const tok = "cfid="
		if !hasPrefixFold(r, tok) {
			return -1
		}
		// amp1 and amp2 are the first two '&' at or after p (or len(q)):
		// the cfid value runs to amp1, the cftoken value to amp2.
		j := amp1 - p
		if j <= len(tok) || !hasPrefixFold(r[j:], "&cftoken=") {
			return -1
		}
		m := amp2 - p
		if m <= j+len("&cftoken=") {
			return -1
		}
		end = m
	}
	if end < len(r) && r[end] != '&' {
		return -1
	}
	return p + end
}

// stripQuerySessionIDs removes the session ids the standard removes from a
// query (jsessionid, phpsessid, sid with 32 alphanumerics, ASPSESSIONIDxxxxxxxx
// with 24 letters, CFID+CFTOKEN), case-insensitively, in place. For each
// pattern in turn the last occurrence is removed together with the '&' that
// follows it: "^(.*)ID(?:&(.*))?$" becomes group 1 + group 2.
func stripQuerySessionIDs(q []byte) []byte {
	js, sid, asp, cf := sessionTokens(q)
	if !js && !sid && !asp && !cf {
		return q
	}
	for pat := 0; pat < 5; pat++ {
		if pat == 0 && !js || (pat == 1 || pat == 2) && !sid || pat == 3 && !asp || pat == 4 && !cf {
			continue
		}
		amp1, amp2 := len(q), len(q)
		for p := len(q) - 1; p >= 0; p-- {
			if q[p] == '&' {
				amp1, amp2 = p, amp1
			}
			end := querySessionMatch(q, p, pat, amp1, amp2)
			if end < 0 {
				continue
			}
			rest := end
			if rest < len(q) {
				rest++ // skip '&'
			}
			q = append(q[:p], q[rest:]...)
			// The join may have formed a new token: look again.
			js, sid, asp, cf = sessionTokens(q)
			break
		}
	}
	return q
}

// sessionTokens reports which session-id patterns can match q at all:
// pattern 0 needs "jsessionid=", 1 and 2 need "sid=", 3 "aspsessionid" and
// 4 "cfid=" (all without regard to case).
func sessionTokens(q []byte) (js, sid, asp, cf bool) {
	for i := 0; i+4 <= len(q); i++ {
		switch q[i] | 0x20 {
		case 's':
			sid = sid || hasPrefixFold(q[i:], "sid=")
		case 'j':
			js = js || hasPrefixFold(q[i:], "jsessionid=")
		case 'c':
			cf = cf || hasPrefixFold(q[i:], "cfid=")
		case 'a':
			asp = asp || hasPrefixFold(q[i:], "aspsessionid")
		}
	}
	return
}

// pathSessionMatch tries the standard's two ASP.NET path patterns at
// path[i:] (just after a '/') and returns the length of the "(...)/"
// session part, or -1. What follows must also match [^?]+\.aspx.* (see
// aspxScanner).
func pathSessionMatch(r []byte, pattern int) int {
	if len(r) == 0 || r[0] != '(' {
		return -1
	}
	n := -1
	switch pattern {
	case 0: // \((?:[a-z]\([0-9a-z]{24}\))+\)/
		i := 1
		items := 0
		for i+27 <= len(r) && isAlpha(r[i]) && r[i+1] == '(' && runOf(r[i+2:], 24, isAlnum) == 24 && r[i+26] == ')' {
			i += 27
			items++
		}
		if items == 0 || i+1 >= len(r) || r[i] != ')' || r[i+1] != '/' {
			return -1
		}
		n = i + 2
	case 1: // \([0-9a-z]{24}\)/
		if len(r) < 27 || runOf(r[1:], 24, isAlnum) != 24 || r[25] != ')' || r[26] != '/' {
			return -1
		}
		n = 27
	}
	return n
}

// aspxScanner answers, for positions t met in decreasing order, whether
// p[t:] matches [^?]+\.aspx (some ".aspx" starting after t with no '?' in
// between), in linear total time: stop(x), the first position >= x holding
// '?' or starting ".aspx", is the same for every x up to it, so the last
// answer is reused.
type aspxScanner struct {
	p        []byte
	lo, stop int // stop(x) == stop for lo <= x <= stop; lo > stop when empty
}

func (a *aspxScanner) stopFrom(x int) int {
	if a.lo <= x && x <= a.stop {
		return a.stop
	}
	y := x
	for ; y < len(a.p); y++ {
		if a.lo <= y && y <= a.stop {
			y = a.stop
			break
		}
		if a.p[y] == '?' || a.p[y] == '.' && hasPrefixFold(a.p[y:], ".aspx") {
			break
		}
	}
	a.lo, a.stop = x, y
	return y
}

func (a *aspxScanner) matches(t int) bool {
	if t >= len(a.p) || a.p[t] == '?' {
		return false
	}
	s := a.stopFrom(t + 1)
	return s < len(a.p) && a.p[s] == '.'
}

// stripPathSessionIDs removes ASP.NET cookieless session ids such as
// "/(S(4hqa0555fwsecu455xqckv45))/" from a path whose remainder names an
// .aspx page, as the standard's two path patterns do (the last matching
// '/' wins, as the greedy "^(.*/)" does). It works in place.
func stripPathSessionIDs(p []byte) []byte {
	if bytes.IndexByte(p, '(') < 0 {
		return p
	}
	for pat := 0; pat < 2; pat++ {
		scan := aspxScanner{p: p, lo: 1, stop: 0}
		for i := len(p) - 1; i >= 1; i-- {
			if p[i-1] != '/' {
				continue
			}
			n := pathSessionMatch(p[i:], pat)
			if n < 0 || !scan.matches(i+n) {
				continue
			}
			p = append(p[:i], p[i+n:]...)
			break
		}
	}
	return p
}

// qspan is one '&'-separated query argument: q[start:end], with the first
// '=' at eq (or -1).
type qspan struct {
	start, end, eq int32
}

// appendSortedQuery appends the '&'-separated arguments of q sorted as the
// standard's alphaReorderQuery sorts them: as Python tuples (name,) or
// (name, value) split at the first '=', compared byte-wise, a name without
// '=' before the same name with one. Queries of 0 or 1 bytes are copied.
func appendSortedQuery(dst, q []byte, spans []qspan) ([]byte, []qspan) {
	if len(q) <= 1 {
		return append(dst, q...), spans
	}
	spans = spans[:0]
	start := 0
	sorted := true
	for i := 0; i <= len(q); i++ {
		if i < len(q) && q[i] != '&' {
			continue
		}
		s := qspan{int32(start), int32(i), -1}
		if e := bytes.IndexByte(q[start:i], '='); e >= 0 {
			s.eq = int32(start + e)
		}
		if len(spans) > 0 && sorted && compareArgs(q, spans[len(spans)-1], s) > 0 {
			sorted = false
		}
		spans = append(spans, s)
		start = i + 1
	}
	if sorted {
		return append(dst, q...), spans
	}
	slices.SortFunc(spans, func(a, b qspan) int { return compareArgs(q, a, b) })
	for i, s := range spans {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = append(dst, q[s.start:s.end]...)
	}
	return dst, spans
}

func compareArgs(q []byte, a, b qspan) int {
	ak, bk := a.end, b.end
	if a.eq >= 0 {
		ak = a.eq
	}
	if b.eq >= 0 {
		bk = b.eq
	}
	if c := bytes.Compare(q[a.start:ak], q[b.start:bk]); c != 0 {
		return c
	}
	switch {
	case a.eq < 0 && b.eq < 0:
		return 0
	case a.eq < 0:
		return -1
	case b.eq < 0:
		return 1
	}
	return bytes.Compare(q[a.eq+1:a.end], q[b.eq+1:b.end])
}
