package surt

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/net/publicsuffix"
)

// HxPx returns the HxPx key of a SURT key: the key cut at its first '?'
// ("com,example)/a?b=c" gives "com,example)/a"). A key without a query is
// returned unchanged. See internal/spec/MEMENTOMAP.md, section Keys.
func HxPx(key string) string {
	if i := strings.IndexByte(key, '?'); i >= 0 {
		return key[:i]
	}
	return key
}

// hostClose returns the index of the ')' that closes the host part of a key
// (the first ")/", or a final ')'), or -1 for keys without a host part.
func hostClose(s string) int {
	if i := strings.Index(s, ")/"); i >= 0 {
		return i
	}
	if strings.HasSuffix(s, ")") {
		return len(s) - 1
	}
	return -1
}

// schemePrefixLen returns the length of a "scheme://(" or "scheme:(" prefix
// (keys made with Options.IncludeScheme), or 0.
func schemePrefixLen(s string, close int) int {
	if close < 0 {
		return 0
	}
	if i := strings.IndexByte(s[:close], '('); i > 0 && SchemeLen(s) > 0 && SchemeLen(s) < i {
		return i + 1
	}
	return 0
}

// LookupKeys appends to dst the keys to look up in a MementoMap for the HxPx
// key hxpx, most specific first, exactly as internal/spec/MEMENTOMAP.md (section Keys)
// lists them: the key itself, then "KEY/*" for the path and each ancestor
// path, then "HOST,*" for the host and each shorter host prefix, then "*".
//
//	com,example)/a/b → com,example)/a/b, com,example)/a/b/*, com,example)/a/*,
//	                   com,example)/*, com,example,*, com,*, *
//	com,example)/    → com,example)/, com,example)/*, com,example,*, com,*, *
//
// Commas in the path are path characters. A query, if present, is cut off
// first. Keys without a comma work ("localhost)/a" gives ..., "localhost,*",
// "*"); a key with a port keeps it on its last label ("com,example:8080,*").
// A host wildcard such as "com,example,*" gives itself, then its shorter
// host prefixes, then "*". A key with no host part ("dns:archive.org") gives
// itself and "*". The stripped root form "com,example)" that some tools
// write is not among the results; a map reader that accepts it looks it up
// itself. All returned strings share one allocation.
//
// Path wildcards of more than [MaxLookupDepth] segments and host wildcards
// of more than MaxLookupDepth labels are left out (the key itself always
// comes first): no MementoMap compaction tracks that deep, and listing every
// level of a pathological key (a 1 MiB URL of 500,000 path segments) would
// take memory quadratic in its length. So at most 2·MaxLookupDepth+4 keys
// are returned, of at most len(hxpx)+2 bytes each.
func LookupKeys(dst []string, hxpx string) []string {
	s := HxPx(hxpx)
	if s == "" || s == "*" {
		return append(dst, "*")
	}
	close := hostClose(s)
	var host, prefix string
	var buf []byte
	type cut struct{ a, b int }
	var cuts [24]cut
	cs := cuts[:0]
	add := func(parts ...string) {
		a := len(buf)
		for _, p := range parts {
			buf = append(buf, p...)
		}
		cs = append(cs, cut{a, len(buf)})
	}
	if close < 0 {
		if !strings.HasSuffix(s, ",*") {
			return append(dst, s, "*")
		}
		host = s[:len(s)-2]
	} else {
		pre := schemePrefixLen(s, close)
		prefix, host = s[:pre], s[pre:close]
		buf = make([]byte, 0, 4*len(s)+32)
		q := s[close+1:]
		q = strings.TrimSuffix(q, "/*") // a path wildcard starts from its own node
		for len(q) > 0 && q[len(q)-1] == '/' {
			q = q[:len(q)-1]
		}
		head := s[:close+1]
		add(s)
		// Only the first MaxLookupDepth segments make wildcards.
		q = q[:nthIndexByte(q, '/', MaxLookupDepth+1)]
		for {
			add(head, q, "/*")
			if q == "" {
				break
			}
			if i := strings.LastIndexByte(q, '/'); i >= 0 {
				q = q[:i]
			} else {
				q = ""
			}
		}
	}
	if buf == nil {
		buf = make([]byte, 0, 2*len(s)+16)
		add(s)
	}
	host = strings.TrimSuffix(host, ",")
	// Only the first MaxLookupDepth labels make wildcards.
	host = host[:nthIndexByte(host, ',', MaxLookupDepth)]
	for end := len(host); end > 0; {
		add(prefix, host[:end], ",*")
		i := strings.LastIndexByte(host[:end], ',')
		if i < 0 {
			break
		}
		end = i
	}
	all := string(buf)
	last := ""
	for _, c := range cs {
		k := all[c.a:c.b]
		if k != last {
			dst = append(dst, k)
		}
		last = k
	}
	return append(dst, "*")
}

// MaxLookupDepth is the deepest host or path level for which [LookupKeys]
// lists a wildcard: 64 labels or path segments, as deep as
// mementomap.Compact can track.
const MaxLookupDepth = 64

// nthIndexByte returns the index of the n-th (counting from 1) c in s, or
// len(s) when s has fewer.
func nthIndexByte(s string, c byte, n int) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			if n--; n == 0 {
				return i
			}
		}
	}
	return len(s)
}

// Key is a parsed SURT or HxPx key that exposes its parts without further
// splitting: an optional scheme prefix ("http://("), the host part (labels
// separated by ',', an optional ":port"), the path (segments separated by
// '/'; commas are ordinary path characters) and the query. Keys without a
// host part (pseudo-URIs such as "dns:archive.org", or "-") have only
// [Key.String]. Wildcard keys ("com,example,*", "com,example)/a/*", "*")
// parse too. The zero Key is the empty key.
type Key struct {
	s        string
	prefix   int     // length of "scheme://(" prefix
	hostEnd  int     // end of the host part (index of ')'), or -1 (and 0 in the zero Key: see close)
	portAt   int     // index of ':' of the port in the host part, or -1
	pathEnd  int     // index of '?' or len(s)
	labelEnd []int32 // end offset (exclusive) of each host label
	segStart []int32 // start offset of each path segment (after its '/')
	hostWild bool
}

// ErrKey is wrapped by the errors of [ParseKey].
var ErrKey = errors.New("invalid SURT key")

// ParseKey parses a SURT key such as "com,example)/a/b?c=d" (or an HxPx
// key, a wildcard key, or a with-scheme key "http://(com,example,)/"). It
// fails (with an error wrapping [ErrKey] and naming the byte offset) on an
// empty key and on keys containing white space or control bytes, which can
// never come out of canonicalization and would break space-separated index
// lines.
func ParseKey(s string) (Key, error) {
	if s == "" {
		return Key{}, fmt.Errorf("%w: empty", ErrKey)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c == 0x7f {
			return Key{}, fmt.Errorf("%w: byte %#02x at offset %d in %q", ErrKey, c, i, s)
		}
	}
	k := Key{s: s, hostEnd: -1, portAt: -1, pathEnd: len(s)}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		k.pathEnd = i
	}
	hx := s[:k.pathEnd]
	close := hostClose(hx)
	host := ""
	hostStart := 0
	switch {
	case close >= 0:
		k.prefix = schemePrefixLen(hx, close)
		k.hostEnd = close
		hostStart = k.prefix
		host = hx[k.prefix:close]
	case hx == "*":
		k.hostWild = true
	case strings.HasSuffix(hx, ",*"):
		k.hostWild = true
		host = hx[:len(hx)-2]
	default:
		return k, nil
	}
	// Port: ":digits" at the end of the host part, for hosts with no other
	// ':' (an IPv6 address without brackets keeps its colons) or after ']'.
	h := strings.TrimSuffix(host, ",")
	if c := strings.LastIndexByte(h, ':'); c >= 0 && c+1 < len(h) && allDigits(h[c+1:]) &&
		(strings.IndexByte(h[:c], ':') < 0 || c > 0 && h[c-1] == ']') {
		k.portAt = hostStart + c
		h = h[:c]
	}
	if h != "" {
		for i := 0; i < len(h); i++ {
			if h[i] == ',' {
				k.labelEnd = append(k.labelEnd, int32(hostStart+i))
			}
		}
		k.labelEnd = append(k.labelEnd, int32(hostStart+len(h)))
	}
	if k.hostEnd >= 0 {
		p := k.hostEnd + 1
		for i := p; i < k.pathEnd; i++ {
			if s[i] == '/' && i+1 < k.pathEnd {
				k.segStart = append(k.segStart, int32(i+1))
			}
		}
	}
	return k, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// close returns the index of the ')' that ends the host part, or -1. The
// zero Key, whose hostEnd is 0, has none.
func (k Key) close() int {
	if k.s == "" {
		return -1
	}
	return k.hostEnd
}

// String returns the key as parsed.
func (k Key) String() string { return k.s }

// HxPx returns the key without its query.
func (k Key) HxPx() string { return k.s[:k.pathEnd] }

// HasHost reports whether the key has a host part: a "host)" key or a host
// wildcard such as "com,example,*".
func (k Key) HasHost() bool { return k.close() >= 0 || k.hostWild }

// IsWildcard reports whether the key is a wildcard: "*", "com,*",
// "com,example,*" or "com,example)/a/*".
func (k Key) IsWildcard() bool {
	return k.hostWild || k.close() >= 0 && strings.HasSuffix(k.s[:k.pathEnd], "/*")
}

// Prefix returns the scheme prefix of a with-scheme key ("http://("), or "".
func (k Key) Prefix() string { return k.s[:k.prefix] }

// Host returns the host part: "com,example" for "com,example)/a",
// "com,example:8080" with a port, "com,example," with a trailing comma,
// "com,example" for the wildcard "com,example,*"; "" without a host.
func (k Key) Host() string {
	switch {
	case k.close() >= 0:
		return k.s[k.prefix:k.hostEnd]
	case k.hostWild && k.pathEnd > 1: // "com,example,*", not "*"
		return k.s[:k.pathEnd-2]
	}
	return ""
}

// NumLabels returns the number of host labels ("com,example)/" has 2).
func (k Key) NumLabels() int { return len(k.labelEnd) }

// Label returns host label i, counting from the top-level domain: for
// "com,example,www)/" Label(0) is "com" and Label(2) is "www". The port is
// not part of the last label. It panics if i is out of range, like a slice.
func (k Key) Label(i int) string {
	start := k.prefix
	if i > 0 {
		start = int(k.labelEnd[i-1]) + 1
	}
	return k.s[start:k.labelEnd[i]]
}

// HostPrefix returns the first n labels joined by ',' ("com,example" for
// n=2): the host-layer node at level n-1 of internal/spec/MEMENTOMAP.md's compaction.
// For n <= 0 it returns ""; for n at or past [Key.NumLabels], all labels
// (without a port).
func (k Key) HostPrefix(n int) string {
	if n <= 0 || len(k.labelEnd) == 0 {
		return ""
	}
	n = min(n, len(k.labelEnd))
	return k.s[k.prefix:k.labelEnd[n-1]]
}

// Port returns the port digits ("8080"), or "" when the key has none.
func (k Key) Port() string {
	if k.portAt < 0 || k.s == "" {
		return ""
	}
	end := k.hostEnd
	if end < 0 {
		end = len(k.s[:k.pathEnd]) - 2
	}
	return strings.TrimSuffix(k.s[k.portAt+1:end], ",")
}

// Path returns the path ("/a/b" for "com,example)/a/b?c"), "" without a
// host part.
func (k Key) Path() string {
	if k.close() < 0 {
		return ""
	}
	return k.s[k.hostEnd+1 : k.pathEnd]
}

// NumSegments returns the number of non-empty-tail path segments: "/" has
// 0, "/a" has 1, "/a/b,c" has 2 ("a" and "b,c").
func (k Key) NumSegments() int { return len(k.segStart) }

// Segment returns path segment i ("a" for i=0 in "/a/b"). It panics if i is
// out of range, like a slice.
func (k Key) Segment(i int) string {
	end := k.pathEnd
	if i+1 < len(k.segStart) {
		end = int(k.segStart[i+1]) - 1
	} else if k.s[end-1] == '/' {
		end-- // "/x/": the last segment is "x"
	}
	return k.s[k.segStart[i]:end]
}

// PathPrefix returns the host part, ')' and the first n path segments:
// "com,example)/a" for n=1 of "com,example)/a/b", "com,example)" for n=0
// (the path-layer node at level n of internal/spec/MEMENTOMAP.md's compaction). For n at
// or past [Key.NumSegments] it returns the whole HxPx key.
func (k Key) PathPrefix(n int) string {
	if k.close() < 0 {
		return ""
	}
	if n <= 0 {
		return k.s[:k.hostEnd+1]
	}
	end := k.pathEnd
	if n < len(k.segStart) {
		end = int(k.segStart[n]) - 1
	}
	return k.s[:end]
}

// Query returns the query without '?', "" if none.
func (k Key) Query() string {
	if k.pathEnd == len(k.s) {
		return ""
	}
	return k.s[k.pathEnd+1:]
}

// SuffixList answers public-suffix questions about host keys using
// golang.org/x/net/publicsuffix (the Public Suffix List compiled into that
// module). The zero SuffixList uses both the ICANN and the private sections.
type SuffixList struct {
	// ICANNOnly ignores the list's private section (blogspot.com,
	// github.io, ...): only ICANN suffixes (co.uk, com) count.
	ICANNOnly bool
}

// IsPublicSuffix reports whether hostKey, a SURT host key or host-key prefix
// such as "uk,co" or "com,blogspot", names a public suffix, so that
// compaction must not roll it up into a wildcard. A trailing ',', ",*" or
// ":port" is ignored. Single-label keys ("com", "localhost") are public
// suffixes (the list's implicit "*" rule); with ICANNOnly only those the
// ICANN section lists are. IP addresses, keys with a ')', and keys with a
// '*' label left after the trailing ",*" is ignored ("*", "*,com") are not:
// "*" covers every host and names none.
func (l SuffixList) IsPublicSuffix(hostKey string) bool {
	h := strings.TrimSuffix(hostKey, ",*")
	h = strings.TrimSuffix(h, ",")
	if c := strings.LastIndexByte(h, ':'); c >= 0 && allDigits(h[c+1:]) {
		h = h[:c]
	}
	if h == "" || strings.ContainsAny(h, ")(/:[] *") {
		return false
	}
	// Reverse the labels: "uk,co" → "co.uk".
	var b strings.Builder
	b.Grow(len(h))
	end := len(h)
	for i := len(h) - 1; i >= -1; i-- {
		if i >= 0 && h[i] != ',' {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(h[i+1 : end])
		end = i
	}
	d := b.String()
	if isDottedQuadLike([]byte(d)) {
		return false
	}
	ps, icann := publicsuffix.PublicSuffix(d)
	return ps == d && (icann || !l.ICANNOnly)
}

// IsPublicSuffix is SuffixList{}.IsPublicSuffix: ICANN and private entries.
func IsPublicSuffix(hostKey string) bool { return SuffixList{}.IsPublicSuffix(hostKey) }

// RegisteredDomain splits a dotted host name ("www.images.amazon.co.uk") into
// its registered domain ("amazon.co.uk": the public suffix plus one label)
// and the labels left of it ("www.images"). A host that is itself a public
// suffix ("co.uk", and every single-label host such as "localhost") gives
// ("", ""), as Python's tldextract does. Unlike tldextract, a host under a
// top-level label the list does not know ("a.b.example") takes that label as
// its suffix (the list's implicit "*" rule): ("b.example", "a"). Used by
// per-organization summaries; the zero SuffixList uses both PSL sections,
// ICANNOnly only the ICANN one (tldextract's default).
func (l SuffixList) RegisteredDomain(host string) (domain, subdomain string) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "" {
		return "", ""
	}
	ps := l.suffixOf(host)
	if ps == host || len(ps) >= len(host) {
		return "", ""
	}
	rest := host[:len(host)-len(ps)-1] // labels left of the suffix
	i := strings.LastIndexByte(rest, '.')
	domain = host[i+1:]
	if i >= 0 {
		subdomain = rest[:i]
	}
	return domain, subdomain
}

// suffixOf returns the public suffix of a dotted host under l's sections.
func (l SuffixList) suffixOf(host string) string {
	ps, icann := publicsuffix.PublicSuffix(host)
	if icann || !l.ICANNOnly {
		return ps
	}
	// A private rule matched: the ICANN suffix is the longest shorter
	// suffix of ps that the ICANN section lists.
	for c := ps; ; {
		i := strings.IndexByte(c, '.')
		if i < 0 {
			return c
		}
		c = c[i+1:]
		if p, ic := publicsuffix.PublicSuffix(c); p == c && ic {
			return c
		}
	}
}
