package surt

import (
	"strings"
	"sync"

	"golang.org/x/net/publicsuffix"
)

// scratch holds the reusable buffers of one canonicalization. Buffers grow
// to the largest URL seen and are then reused, so a warm canonicalization
// allocates nothing but its result.
type scratch struct {
	in    []byte // cleaned input
	t1    []byte // temporaries
	t2    []byte
	host  []byte // canonical host
	path  []byte // canonical path
	query []byte // canonical query (before sorting)
	brk   []byte // bracketed IPv6 host (Fixed profile)
	out   []byte // result buffer of Profile.Canonicalize
	spans []qspan
	segs  []int32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooledBuf is the largest buffer kept in the pool; buffers that grew
// beyond it for a huge URL are dropped so the pool's memory stays bounded.
const maxPooledBuf = 64 << 10

func putScratch(sc *scratch) {
	if cap(sc.in) > maxPooledBuf || cap(sc.t1) > maxPooledBuf || cap(sc.t2) > maxPooledBuf ||
		cap(sc.path) > maxPooledBuf || cap(sc.out) > maxPooledBuf || cap(sc.query) > maxPooledBuf || cap(sc.host) > maxPooledBuf {
		return
	}
	scratchPool.Put(sc)
}

// Canonicalize returns the SURT of rawURL under the [Default] profile, byte
// for byte what the Internet Archive's Python surt 0.3.1 surt.surt(rawURL)
// returns: "http://www.Example.com:80/a/b/?y=2&X=1#f" gives
// "com,example)/a/b?x=1&y=2". See the package documentation for the steps
// and for pseudo-URIs. An empty string gives "-"; a URL that is only white
// space or has a non-numeric or out-of-range port gives an [*Error].
func Canonicalize(rawURL string) (string, error) {
	return Default.Canonicalize(rawURL)
}

// Canonicalize returns the SURT of rawURL under profile p. It allocates only
// the returned string. Errors are as for the package-level [Canonicalize].
func (p *Profile) Canonicalize(rawURL string) (string, error) {
	sc := scratchPool.Get().(*scratch)
	out, err := p.appendCanonical(sc.out[:0], rawURL, sc)
	s := string(out)
	sc.out = out[:0]
	putScratch(sc)
	if err != nil {
		return "", err
	}
	return s, nil
}

// AppendCanonical appends the SURT of rawURL under profile p to dst and
// returns the extended slice; with a dst of enough capacity it does not
// allocate for an ASCII URL (see the package documentation, Performance,
// for the one exception). On error dst is returned unchanged with an
// [*Error].
func (p *Profile) AppendCanonical(dst []byte, rawURL string) ([]byte, error) {
	sc := scratchPool.Get().(*scratch)
	out, err := p.appendCanonical(dst, rawURL, sc)
	putScratch(sc)
	return out, err
}

func (p *Profile) appendCanonical(dst []byte, raw string, sc *scratch) ([]byte, error) {
	if raw == "" {
		return append(dst, '-'), nil
	}
	if strings.HasPrefix(raw, "filedesc") {
		return append(dst, raw...), nil
	}
	if p.fix {
		if pre, inner, ok := embeddedURL(raw); ok {
			n := len(dst)
			dst = append(dst, pre...)
			dst = append(dst, ':')
			out, err := p.appendCanonical(dst, inner, sc)
			if err != nil {
				// Report the byte offset in the whole input, not in
				// the embedded URL.
				if e, ok := err.(*Error); ok {
					err = &Error{URL: raw, Offset: e.Offset + len(pre) + 1, Err: e.Err}
				}
				return dst[:n], err
			}
			return out, nil
		}
	}
	u, err := sc.parse(raw, p.fix)
	if err != nil {
		return dst, err
	}
	sc.google(&u, p.fix)
	sc.ia(&u, p)
	return p.format(dst, &u, sc), nil
}

// embeddedURL recognizes "prefix:http://..." (a tool name such as
// "youtube-dl:" before a real URL) for the Fixed profile.
func embeddedURL(raw string) (prefix, inner string, ok bool) {
	s := trimSpaceASCII(raw)
	if hasTabCRLF(s) {
		// The standard deletes TAB, CR and LF before it looks at the
		// scheme; so does this test.
		s = strings.NewReplacer("\t", "", "\r", "", "\n", "").Replace(s)
	}
	n := SchemeLen(s)
	if n < 0 {
		return "", "", false
	}
	name := s[:n]
	if bytesEqualFoldString(name, "http") || bytesEqualFoldString(name, "https") {
		return "", "", false
	}
	rest := s[n+1:]
	if len(rest) >= 7 && bytesEqualFoldString(rest[:7], "http://") ||
		len(rest) >= 8 && bytesEqualFoldString(rest[:8], "https://") {
		return name, rest, true
	}
	return "", "", false
}

// google applies the standard's GoogleURLCanonicalizer: drop the fragment,
// minimally re-escape the query, decode/IDNA/dot-collapse/IPv4-normalize and
// re-escape the host, and decode, dot-segment-normalize (only when there is a
// host) and re-escape the path.
func (sc *scratch) google(u *parsed, fix bool) {
	u.frag, u.hasFrag = nil, false
	if u.hasQuery {
		sc.t1 = appendUnescapeRepeatedly(sc.t1[:0], u.query, fix)
		sc.query = appendEscapeOnce(sc.query[:0], sc.t1, fix)
		u.query = sc.query
	}
	if len(u.host) > 0 && !u.bracket {
		u.host = sc.canonHost(u.host)
	}
	t := appendUnescapeRepeatedly(sc.t1[:0], u.path, false)
	sc.t1 = t
	if len(u.host) > 0 {
		sc.t2, sc.segs = appendNormalizedPath(sc.t2[:0], t, sc.segs)
		t = sc.t2
	}
	sc.path = appendEscapeOnce(sc.path[:0], t, false)
	u.path = sc.path
}

// canonHost returns the host as the Google-style step leaves it, in sc.host.
func (sc *scratch) canonHost(raw []byte) []byte {
	t := appendUnescapeRepeatedly(sc.t1[:0], raw, false)
	sc.t1 = t
	if !isASCII(t) {
		if h, ok := appendIDNA(sc.t2[:0], t); ok {
			sc.t2 = h
			t = h
		}
	}
	t = collapseDots(t)
	if ip, ok := ipv4Form(t); ok {
		sc.host = appendDottedQuad(sc.host[:0], ip)
		return sc.host
	}
	lowerASCII(t)
	sc.host = appendEscapeOnce(sc.host[:0], t, false)
	return sc.host
}

// appendNormalizedPath appends the standard's normalizePath(path): split on
// '/', drop the part before the first '/', skip ".", let ".." remove the
// previous kept part (or be kept when there is none), then join with '/'
// leaving out empty parts except the last ("/a//b/" stays "/a/b/").
func appendNormalizedPath(dst, path []byte, segs []int32) ([]byte, []int32) {
	if len(path) == 0 {
		return append(dst, '/'), segs
	}
	if pathIsNormal(path) {
		return append(dst, path...), segs
	}
	segs = segs[:0] // pairs of start, end
	first := true
	start := 0
	for i := 0; i <= len(path); i++ {
		if i < len(path) && path[i] != '/' {
			continue
		}
		seg := path[start:i]
		s0 := start
		start = i + 1
		if first {
			first = false
			continue
		}
		switch {
		case len(seg) == 1 && seg[0] == '.':
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.':
			if len(segs) > 0 {
				segs = segs[:len(segs)-2]
			} else {
				segs = append(segs, int32(s0), int32(i))
			}
		default:
			segs = append(segs, int32(s0), int32(i))
		}
	}
	dst = append(dst, '/')
	n := len(segs) / 2
	for k := 0; k < n-1; k++ {
		s, e := segs[2*k], segs[2*k+1]
		if e > s {
			dst = append(dst, path[s:e]...)
			dst = append(dst, '/')
		}
	}
	if n > 0 {
		dst = append(dst, path[segs[2*n-2]:segs[2*n-1]]...)
	}
	return dst, segs
}

// pathIsNormal reports whether normalizePath would return path unchanged:
// it starts with '/' and has no empty, "." or ".." segment before its end.
func pathIsNormal(path []byte) bool {
	if path[0] != '/' {
		return false
	}
	for i := 0; i < len(path); i++ {
		if path[i] != '/' || i+1 == len(path) {
			continue
		}
		switch path[i+1] {
		case '/':
			return false
		case '.':
			j := i + 2
			if j < len(path) && path[j] == '.' {
				j++
			}
			if j == len(path) || path[j] == '/' {
				return false
			}
		}
	}
	return true
}

// ia applies the standard's IAURLCanonicalizer with its defaults: lower-case
// and massage the host, drop user info, drop the scheme's default port,
// lower-case the path and strip its session ids and trailing '/', strip
// session ids from the query, lower-case and sort it, and drop it if empty.
func (sc *scratch) ia(u *parsed, p *Profile) {
	if len(u.host) > 0 && !u.bracket {
		lowerASCII(u.host)
		if p.hostMassage && string(u.scheme) != "dns" {
			if n := massageLen(u.host); n > 0 {
				if !p.fix || !isPublicSuffixDomain(u.host[n:]) {
					u.host = u.host[n:]
				}
			}
		}
	}
	if u.port >= 0 && u.port == defaultPort(u.scheme) {
		u.port = -1
	}
	if len(u.path) > 0 {
		lowerASCII(u.path)
		u.path = stripPathSessionIDs(u.path)
		if len(u.path) > 1 && u.path[len(u.path)-1] == '/' {
			u.path = u.path[:len(u.path)-1]
		}
	}
	if u.hasQuery {
		q := stripQuerySessionIDs(u.query)
		if p.queryLowercase {
			lowerASCII(q)
		}
		u.query = q
		u.hasQuery = len(q) > 0
	}
	u.lastDelim = false
}

// isPublicSuffixDomain reports whether the dotted host is itself a public
// suffix (ICANN or private section, or the list's implicit "*" rule).
func isPublicSuffixDomain(h []byte) bool {
	s := string(h)
	ps, _ := publicsuffix.PublicSuffix(s)
	return ps == s
}

// format writes the SURT form: [scheme ":" ["//"] "("] host-labels-reversed
// [":" port] ["," ] ")" path ["?" sorted-query]. Without a host the key is
// scheme ":" path, as the standard writes dns:, mailto: and similar URIs.
func (p *Profile) format(dst []byte, u *parsed, sc *scratch) []byte {
	hasHost := len(u.host) > 0
	if p.withScheme || !hasHost {
		dst = append(dst, u.scheme...)
		dst = append(dst, ':')
		if p.withScheme && hasHost {
			if string(u.scheme) != "dns" {
				dst = append(dst, '/', '/')
			}
			dst = append(dst, '(')
		}
	}
	if hasHost {
		switch {
		case u.bracket:
			dst = append(dst, u.host...)
		case !p.reverseIP && isDottedQuadLike(u.host):
			dst = append(dst, u.host...)
		default:
			dst = appendReversedHost(dst, u.host)
		}
		if u.port >= 0 {
			dst = formatPort(dst, u.port)
		}
		if p.trailingComma {
			dst = append(dst, ',')
		}
		dst = append(dst, ')')
	}
	if len(u.path) > 0 {
		dst = append(dst, u.path...)
	} else if u.hasQuery {
		dst = append(dst, '/')
	}
	if u.hasQuery {
		dst = append(dst, '?')
		dst, sc.spans = appendSortedQuery(dst, u.query, sc.spans)
	}
	return dst
}

// appendReversedHost appends the '.'-separated labels of h in reverse
// order joined by ',' ("www.example.com" gives "com,example,www").
func appendReversedHost(dst, h []byte) []byte {
	end := len(h)
	for i := len(h) - 1; i >= -1; i-- {
		if i >= 0 && h[i] != '.' {
			continue
		}
		dst = append(dst, h[i+1:end]...)
		if i >= 0 {
			dst = append(dst, ',')
		}
		end = i
	}
	return dst
}

// defaultPort returns the standard's default port for a scheme (compared
// without case): 80 for http, 443 for https, 0 (none) otherwise.
func defaultPort(scheme []byte) int {
	switch {
	case bytesEqualFoldString(string(scheme), "http"):
		return 80
	case bytesEqualFoldString(string(scheme), "https"):
		return 443
	}
	return 0
}
