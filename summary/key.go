package summary

import (
	"net/netip"
	"strings"
	"unsafe"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// KeyMode says how a capture's host becomes the key of its summary line.
type KeyMode uint8

// Key modes. Whatever the mode, a key is never empty: see the package
// documentation ("Keys") for IP hosts, pseudo-URIs and records without a host.
const (
	// KeyDomain keys by registrable domain (eTLD+1) through the public suffix
	// list of golang.org/x/net/publicsuffix, private section included:
	// www.bbc.co.uk → bbc.co.uk. A host that is itself a public suffix, or has
	// a single label, is kept whole. This is the default.
	KeyDomain KeyMode = iota
	// KeyHost keys by the full host as the SURT key spells it (so without a
	// leading "www.", which SURT canonicalization drops).
	KeyHost
	// KeyLastTwo keys by the last two host labels, as the original tool does
	// by default: www.bbc.co.uk → co.uk.
	KeyLastTwo
)

// String returns "domain", "host" or "lasttwo".
func (m KeyMode) String() string {
	switch m {
	case KeyDomain:
		return "domain"
	case KeyHost:
		return "host"
	case KeyLastTwo:
		return "lasttwo"
	}
	return "KeyMode(?)"
}

// NoHostKey is the key of captures that have neither a usable SURT key nor a
// host in their URL (warcinfo records indexed with urlkey "-", for example).
const NoHostKey = "-"

// schemeOf returns the scheme class of a URL and, for schemes that name no
// web host (dns:, warcinfo:, urn:, filedesc:, metadata:, whois: ...), the
// lower-cased scheme with its colon, which is then the capture's key. It does
// not allocate for http, https and ftp.
func schemeOf(url string) (Scheme, string) {
	for i := 0; i < len(url) && i < 32; i++ {
		c := url[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			continue
		case i > 0 && (c == '+' || c == '-' || c == '.' || ('0' <= c && c <= '9')):
			continue
		case c == ':' && i > 0:
			s := url[:i]
			switch {
			case strings.EqualFold(s, "http"):
				return SchemeHTTP, ""
			case strings.EqualFold(s, "https"):
				return SchemeHTTPS, ""
			case strings.EqualFold(s, "ftp"):
				return SchemeNone, ""
			}
			// host:port without a scheme ("example.com:80/") is not a
			// pseudo-URI: a scheme is followed by a non-digit.
			if i+1 < len(url) && '0' <= url[i+1] && url[i+1] <= '9' {
				return SchemeNone, ""
			}
			for _, k := range knownPseudo {
				if len(k) == len(s)+1 && strings.EqualFold(k[:len(s)], s) {
					return SchemeNone, k
				}
			}
			return SchemeNone, strings.ToLower(s) + ":"
		}
		break
	}
	return SchemeNone, ""
}

// knownPseudo are pseudo-URI keys returned without allocating.
var knownPseudo = [...]string{"dns:", "warcinfo:", "urn:", "filedesc:", "metadata:", "whois:", "mailto:", "data:", "about:", "javascript:"}

// surtHostPart returns the host part of a SURT key ("com,example,www" for
// "com,example,www:8080)/a") and whether the key is SURT-shaped (has a ')'
// before any '/').
func surtHostPart(key string) (string, bool) {
	for i := 0; i < len(key); i++ {
		switch key[i] {
		case ')':
			h := key[:i]
			if j := strings.LastIndexByte(h, ':'); j >= 0 {
				h = h[:j]
			}
			if j := strings.IndexByte(h, '@'); j >= 0 {
				h = h[:j]
			}
			return h, true
		case '/', ' ':
			return "", false
		}
	}
	return "", false
}

// urlHost returns the lower-case host of an absolute or scheme-less URL,
// without userinfo, port or IPv6 brackets' port; "" when there is none.
func urlHost(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		url = url[i+3:]
	}
	if i := strings.IndexAny(url, "/?#"); i >= 0 {
		url = url[:i]
	}
	if i := strings.LastIndexByte(url, '@'); i >= 0 {
		url = url[i+1:]
	}
	if strings.HasPrefix(url, "[") {
		if i := strings.IndexByte(url, ']'); i >= 0 {
			return strings.ToLower(url[:i+1])
		}
		return ""
	}
	if i := strings.IndexByte(url, ':'); i >= 0 {
		url = url[:i]
	}
	url = strings.TrimSuffix(url, ".")
	return strings.ToLower(url)
}

// isIP reports whether host is an IPv4 address or a bracketed IPv6 one.
func isIP(host string) bool {
	if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		_, err := netip.ParseAddr(host[1 : len(host)-1])
		return err == nil
	}
	if host == "" || !('0' <= host[0] && host[0] <= '9') {
		return false
	}
	_, err := netip.ParseAddr(host)
	return err == nil
}

// appendSURTHost appends the dotted, lower-case host of a SURT host part
// ("com,example,www" → "www.example.com") to b.
func appendSURTHost(b []byte, part string) []byte {
	end := len(part)
	for end > 0 {
		start := strings.LastIndexByte(part[:end], ',') + 1
		label := part[start:end]
		if len(label) > 0 {
			if len(b) > 0 {
				b = append(b, '.')
			}
			for i := 0; i < len(label); i++ {
				c := label[i]
				if 'A' <= c && c <= 'Z' {
					c += 'a' - 'A'
				}
				b = append(b, c)
			}
		}
		end = start - 1
	}
	return b
}

// onlyDigitsAndCommas reports whether a SURT host part could spell an IPv4
// address (in either label order).
func onlyDigitsAndCommas(s string) bool {
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != ',' {
			return false
		}
	}
	return s != ""
}

// canonicalIP returns the canonical text of an IP host (RFC 5952 for IPv6,
// kept in brackets: "[2001:DB8:0::1]" → "[2001:db8::1]"). An IPv4 host
// that parses is already canonical (netip rejects leading zeros). It does
// not allocate when host is canonical.
func canonicalIP(host string) string {
	if !strings.HasPrefix(host, "[") || len(host) < 2 {
		return host
	}
	inner := host[1 : len(host)-1]
	a, err := netip.ParseAddr(inner)
	if err != nil {
		return host
	}
	var buf [64]byte
	if c := a.AppendTo(buf[:0]); string(c) != inner {
		return "[" + string(c) + "]"
	}
	return host
}

// asciiHost returns an internationalized host in its ASCII (Punycode,
// RFC 5891) form, so that "müller.de" and "xn--mller-kva.de" share a key;
// a host that is already ASCII, or that IDNA rejects, is returned as is.
func asciiHost(host string) string {
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			if a, err := idna.Lookup.ToASCII(host); err == nil && a != "" {
				return a
			}
			return host
		}
	}
	return host
}

// escapeBlanks percent-encodes the bytes of host that may not appear in a
// summary key (a key ends at the first space of its line): ASCII control
// characters, space and DEL, as "%20". It does not allocate when there are none.
func escapeBlanks(host string) string {
	i := 0
	for i < len(host) && host[i] > ' ' && host[i] != 0x7f {
		i++
	}
	if i == len(host) {
		return host
	}
	const hex = "0123456789ABCDEF"
	b := make([]byte, 0, len(host)+8)
	for j := 0; j < len(host); j++ {
		if c := host[j]; c <= ' ' || c == 0x7f {
			b = append(b, '%', hex[c>>4], hex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}

// keyOfHost reduces a lower-case host to the key of mode m.
func keyOfHost(host string, m KeyMode) string {
	host = escapeBlanks(host)
	if host == "" {
		return NoHostKey
	}
	if isIP(host) {
		return canonicalIP(host)
	}
	host = asciiHost(host)
	if m == KeyHost {
		return host
	}
	if m == KeyLastTwo {
		return lastTwoLabels(host)
	}
	d, err := publicsuffix.EffectiveTLDPlusOne(host)
	if err != nil {
		return host
	}
	return d
}

// lastTwoLabels returns the last two dot-separated labels of host, or host
// when it has fewer.
func lastTwoLabels(host string) string {
	i := strings.LastIndexByte(host, '.')
	if i < 0 {
		return host
	}
	j := strings.LastIndexByte(host[:i], '.')
	return host[j+1:]
}

// HostKey returns the key of the summary line a capture counts in (its host,
// domain or last two labels, as m says; [NoHostKey] when it has none) from its
// index key (SURT or massaged URL) and original URL. It is the function the
// Summarizer applies (without its cache); see the package documentation for
// the rules. The result is never empty.
func HostKey(indexKey, url string, m KeyMode) string {
	_, pseudo := schemeOf(url)
	if pseudo != "" {
		return pseudo
	}
	k, _ := hostKey(nil, indexKey, url, m)
	return strings.Clone(k)
}

// hostKey computes the key of a non-pseudo capture, using and returning buf
// as scratch. The key may alias buf or the arguments: callers clone it
// before keeping it.
func hostKey(buf []byte, indexKey, url string, m KeyMode) (string, []byte) {
	if part, ok := surtHostPart(indexKey); ok && part != "" {
		if onlyDigitsAndCommas(part) || strings.ContainsAny(part, "[]") {
			if h := urlHost(url); isIP(h) {
				return canonicalIP(h), buf
			}
		}
		buf = appendSURTHost(buf[:0], part)
		return keyOfHost(unsafe.String(unsafe.SliceData(buf), len(buf)), m), buf
	}
	if h := urlHost(url); h != "" {
		return keyOfHost(h, m), buf
	}
	if _, ok := surtHostPart(indexKey); ok {
		// A SURT with an empty host (")/") and no host in the URL.
		return NoHostKey, buf
	}
	// A pseudo-URI index key without a URL, such as "dns:example.com".
	if _, pseudo := schemeOf(indexKey); pseudo != "" {
		return pseudo, buf
	}
	if indexKey != "" && indexKey != "-" {
		return keyOfHost(urlHost(indexKey), m), buf
	}
	return NoHostKey, buf
}
