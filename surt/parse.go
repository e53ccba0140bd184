package surt

import (
	"bytes"
	"net/netip"
	"strconv"
	"strings"
)

// parsed is the standard's handyurl after parsing: every field is a view into
// scratch memory. An empty host or path stands for Python's None and for the
// empty value alike (the standard treats both as false); query and fragment keep their
// presence flags because the standard distinguishes None from empty there.
type parsed struct {
	scheme    []byte
	host      []byte // hostname: lower-cased before any '%' (zone), brackets dropped
	port      int    // -1 when absent (or 0, which the standard also drops)
	path      []byte
	query     []byte
	hasQuery  bool // the standard's query is not None (it is then non-empty)
	frag      []byte
	hasFrag   bool
	lastDelim bool // the URL ended in '?' with no query: the standard's last_delimiter
	bracket   bool // Fixed profile: host is a bracketed IP literal, kept with its brackets
}

// isSpaceASCII reports the bytes Python's bytes.strip() removes.
func isSpaceASCII(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func trimSpaceASCII(s string) string {
	i, j := 0, len(s)
	for i < j && isSpaceASCII(s[i]) {
		i++
	}
	for j > i && isSpaceASCII(s[j-1]) {
		j--
	}
	return s[i:j]
}

// SchemeLen returns the length of the leading URI scheme of s, the
// RFC 3986 §3.1 syntax (a letter, then letters, digits, "+", "-" or ".")
// followed by a colon, not counting the colon: 4 for "http://x/", 6 for
// "mailto:a@b". It is -1 when s does not start so ("", "//x/", "1a:b",
// "a b:c"). It is the module's one test of a URI scheme.
func SchemeLen(s string) int {
	if s == "" || !isAlpha(s[0]) {
		return -1
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i
		case isAlpha(c) || '0' <= c && c <= '9' || c == '+' || c == '-' || c == '.':
		default:
			return -1
		}
	}
	return -1
}

func isAlpha(c byte) bool { return 'A' <= c&^0x20 && c&^0x20 <= 'Z' }

// looksLikeHostPort reports whether s = "NAME:rest" is really a scheme-less
// authority: NAME is a dotted host name or "localhost" and rest is a port
// number (1 to 5 digits) up to the end or to '/', '?' or '#'. Used by the
// Fixed profile only; "tel:5551234" and "urn:isbn:..." stay URIs.
func looksLikeHostPort(s string, n int) bool {
	name := s[:n]
	if !bytesEqualFoldString(name, "localhost") && !strings.Contains(name, ".") {
		return false
	}
	rest := s[n+1:]
	d := 0
	for d < len(rest) && '0' <= rest[d] && rest[d] <= '9' {
		d++
	}
	return d > 0 && d <= 5 && (d == len(rest) || rest[d] == '/' || rest[d] == '?' || rest[d] == '#')
}

func bytesEqualFoldString(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if lowerByte(a[i]) != lowerByte(b[i]) {
			return false
		}
	}
	return true
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

var slashOnly = []byte{'/'}

// parse splits raw the way the standard's handyurl.parse does: strip ASCII
// white space at both ends, delete every TAB, CR and LF, prefix "http://" when
// no scheme is present, collapse repeated leading "http://" / "https://",
// split with the RFC 2396 Appendix B expression, and read host and port as
// Python's urllib does (userinfo after the last '@' dropped, brackets dropped,
// the port after the first ':'). The Fixed profile also strips "<...>"
// around the URL, reads "name.tld:port" as an authority, and keeps bracketed
// IP literals intact.
func (sc *scratch) parse(raw string, fix bool) (parsed, error) {
	var u parsed
	u.port = -1
	s := trimSpaceASCII(raw)
	if s == "" {
		return u, &Error{URL: raw, Offset: 0, Err: ErrEmpty}
	}
	// Delete TAB, CR and LF everywhere (they survive the trim only inside),
	// before looking for a scheme, as the standard does.
	if hasTabCRLF(s) {
		t := sc.t1[:0]
		start := 0
		for i := 0; i < len(s); i++ {
			if c := s[i]; c == '\t' || c == '\n' || c == '\r' {
				t = append(t, s[start:i]...)
				start = i + 1
			}
		}
		t = append(t, s[start:]...)
		sc.t1 = t
		s = string(t) // rare path: one allocation
	}
	shift := 0 // bytes of "<" and white space cut from the front (Fixed)
	if fix && len(s) >= 2 && s[0] == '<' && s[len(s)-1] == '>' {
		// "<>" and "< >" hold no URL: they stay literal, as in Default.
		if in := trimSpaceASCII(s[1 : len(s)-1]); in != "" {
			shift = 1
			for isSpaceASCII(s[shift]) {
				shift++
			}
			s = in
		}
	}
	b := sc.in[:0]
	n := SchemeLen(s)
	prefixLen := 0
	if n < 0 || fix && looksLikeHostPort(s, n) {
		b = append(b, "http://"...)
		prefixLen = len("http://")
	}
	b = append(b, s...)
	sc.in = b

	// ^(https?://)+ is replaced by its last repetition (case-sensitive).
	last, pos := -1, 0
	for {
		if bytes.HasPrefix(b[pos:], []byte("http://")) {
			last, pos = pos, pos+7
		} else if bytes.HasPrefix(b[pos:], []byte("https://")) {
			last, pos = pos, pos+8
		} else {
			break
		}
	}
	if last > 0 {
		b = b[last:]
	}
	u.lastDelim = b[len(b)-1] == '?'

	colon := bytes.IndexByte(b, ':') // present: either found or prefixed
	u.scheme = b[:colon]
	rest := b[colon+1:]
	var netloc []byte
	hasNetloc := false
	if len(rest) >= 2 && rest[0] == '/' && rest[1] == '/' {
		rest = rest[2:]
		e := 0
		for e < len(rest) && rest[e] != '/' && rest[e] != '?' && rest[e] != '#' {
			e++
		}
		netloc, rest = rest[:e], rest[e:]
		hasNetloc = true
	}
	e := 0
	for e < len(rest) && rest[e] != '?' && rest[e] != '#' {
		e++
	}
	u.path, rest = rest[:e], rest[e:]
	if len(rest) > 0 && rest[0] == '?' {
		rest = rest[1:]
		e = bytes.IndexByte(rest, '#')
		if e < 0 {
			e = len(rest)
		}
		u.query, rest = rest[:e], rest[e:]
		u.hasQuery = len(u.query) > 0
	}
	if len(rest) > 0 && rest[0] == '#' {
		u.frag = rest[1:]
		u.hasFrag = len(u.frag) > 0
	}
	if u.hasQuery {
		u.lastDelim = false
	}

	if hasNetloc {
		if err := sc.authority(&u, netloc, raw, shift-prefixLen, fix); err != nil {
			return u, err
		}
	}
	// "http:////host/x" and "http:host": take the host from the path.
	if len(u.host) == 0 && len(u.path) > 0 && bytes.HasPrefix(u.scheme, []byte("http")) {
		p := u.path
		for len(p) > 0 && p[0] == '/' {
			p = p[1:]
		}
		if i := bytes.IndexByte(p, '/'); i >= 0 {
			u.host, u.path = p[:i], p[i:]
		} else {
			u.host, u.path = p, slashOnly
		}
		u.bracket = false
		if fix {
			// Read the text as the authority it is ("//host:8080/a",
			// "http:///[::1]/", "http:user@host/"), not as a bare host
			// name with the port and brackets in it.
			auth := u.host
			u.host = nil
			if err := sc.authority(&u, auth, raw, shift-prefixLen, fix); err != nil {
				return u, err
			}
		}
	}
	return u, nil
}

// authority reads host and port from netloc into u as Python's urllib does
// (user info up to the last '@' dropped, trailing ':' ignored, brackets
// dropped, the port after the first ':' following them) or, for the Fixed
// profile, keeping a leading bracketed IP literal with its brackets.
// netloc lies in sc.in; the byte offsets of errors are counted from sc.in's
// start plus off.
func (sc *scratch) authority(u *parsed, netloc []byte, raw string, off int, fix bool) error {
	for len(netloc) > 0 && netloc[len(netloc)-1] == ':' {
		netloc = netloc[:len(netloc)-1]
	}
	hostinfo := netloc
	if at := bytes.LastIndexByte(netloc, '@'); at >= 0 {
		hostinfo = netloc[at+1:]
	}
	var host, port []byte
	if ob := bytes.IndexByte(hostinfo, '['); ob >= 0 {
		br := hostinfo[ob+1:]
		cb := bytes.IndexByte(br, ']')
		after := []byte(nil)
		if cb >= 0 {
			host, after = br[:cb], br[cb+1:]
		} else {
			host = br
		}
		if c := bytes.IndexByte(after, ':'); c >= 0 {
			port = after[c+1:]
		}
		if fix && ob == 0 && cb >= 0 {
			u.bracket = true
		}
	} else if c := bytes.IndexByte(hostinfo, ':'); c >= 0 {
		host, port = hostinfo[:c], hostinfo[c+1:]
	} else {
		host = hostinfo
	}
	if len(port) > 0 {
		p, ok := parsePort(port)
		if !ok {
			// Offset of the port in the cleaned input.
			portOff := max(cap(sc.in)-cap(port)+off, 0)
			return &Error{URL: raw, Offset: portOff, Err: ErrInvalidPort}
		}
		if p != 0 {
			u.port = p
		}
	}
	if len(host) > 0 {
		pct := bytes.IndexByte(host, '%')
		if pct < 0 {
			pct = len(host)
		}
		lowerASCII(host[:pct])
		u.host = host
	}
	if u.bracket && len(u.host) > 0 {
		u.host = sc.bracketHost(u.host)
	}
	return nil
}

// hasTabCRLF reports whether s contains a TAB, LF or CR.
func hasTabCRLF(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= '\r' && (c == '\t' || c == '\n' || c == '\r') {
			return true
		}
	}
	return false
}

// parsePort accepts what Python 3.11's SplitResult.port accepts: ASCII
// digits only, value 0..65535 (leading zeros allowed).
func parsePort(p []byte) (int, bool) {
	v := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
		if v > 65535 {
			return 0, false
		}
	}
	return v, true
}

// bracketHost returns the bracketed form of an IP literal for the Fixed
// profile: "[" + canonical text + "]". IPv6 addresses are written in their
// RFC 5952 form (lower case, zeros compressed); anything else that was in
// brackets is kept lower-cased as it came. The text is percent-decoded
// first, as every host is, so an RFC 6874 zone "%25eth0" is the zone "eth0"
// and comes out as "%25eth0" again (the key is stable when canonicalized
// again). Bytes outside the printable ASCII range, and '%', are
// percent-escaped as everywhere else.
func (sc *scratch) bracketHost(h []byte) []byte {
	h = appendUnescapeRepeatedly(sc.t1[:0], h, false)
	sc.t1 = h
	t := sc.t2[:0]
	if a, err := netip.ParseAddr(string(h)); err == nil && a.Is6() {
		t = a.AppendTo(t)
	} else {
		t = append(t, h...)
	}
	lowerASCII(t)
	sc.t2 = t
	out := append(sc.brk[:0], '[')
	out = appendEscapeOnce(out, t, false)
	out = append(out, ']')
	sc.brk = out
	return out
}

// formatPort appends ":" and the decimal port.
func formatPort(dst []byte, port int) []byte {
	dst = append(dst, ':')
	return strconv.AppendInt(dst, int64(port), 10)
}
