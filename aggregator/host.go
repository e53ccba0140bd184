package aggregator

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// Errors of NormalizeHost, wrapped with the host.
var (
	ErrEmptyHost = errors.New("empty host")
	ErrBadHost   = errors.New("not a host name")
)

// maxHostLen is the longest host name, in bytes of its ASCII form
// (RFC 1035 §2.3.4: 253 characters without the root's dot); maxLabelLen
// the longest label.
const (
	maxHostLen  = 253
	maxLabelLen = 63
)

// NormalizeHost returns the one spelling of a host that the aggregator
// uses for everything that depends on a host: the blacklist, the cache key
// (through NormalizeURIR), the URI-R sent to the archives, and the hosts
// the aggregator may contact (AllowList). Two spellings that a browser
// (the WHATWG URL standard) or a resolver reads as one host give one
// result:
//
//   - percent-escapes are decoded ("archive%2Eorg" is archive.org);
//   - upper case is lowered; a non-ASCII name takes its ASCII form
//     (UTS #46 / IDNA 2008 as idna.Lookup maps it: "bücher.example" and
//     "BÜCHER。example" are "xn--bcher-kva.example");
//   - empty labels go: leading, trailing and repeated dots
//     ("archive..org.", ".archive.org" are archive.org);
//   - a host whose last label is a number is an IPv4 address, read as
//     inet_aton(3) and the WHATWG standard read it (1 to 4 parts, each
//     decimal, octal with a leading 0, or hexadecimal with 0x):
//     "2130706433", "0x7f.1" and "0177.0.0.1" are 127.0.0.1; one that is
//     not a valid address is an error;
//   - an IPv6 address (without brackets) is written as RFC 5952 says,
//     and an IPv4-mapped one ("::ffff:127.0.0.1") as its IPv4 address.
//
// Other than letters, digits, '-', '_' and '.', no byte may remain; no
// label starts or ends with '-' (RFC 1123 §2.1, RFC 952). The
// result is at most 253 bytes, labels at most 63. Errors wrap ErrEmptyHost
// or ErrBadHost. NormalizeHost(NormalizeHost(h)) is NormalizeHost(h).
func NormalizeHost(host string) (string, error) {
	if isNormalHost(host) || isCanonicalIPv4(host) {
		return host, nil
	}
	h := host
	if strings.IndexByte(h, '%') >= 0 {
		d, err := url.PathUnescape(h)
		if err != nil {
			return "", fmt.Errorf("host %q: %w: %v", host, ErrBadHost, err)
		}
		h = d
	}
	if strings.IndexByte(h, ':') >= 0 {
		return normalizeIPv6(host, h)
	}
	if !isASCII(h) {
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", fmt.Errorf("host %q: %w: %v", host, ErrBadHost, err)
		}
		h = a
	}
	h = strings.ToLower(h)
	labels := strings.Split(h, ".")
	kept := labels[:0]
	for _, l := range labels {
		if l != "" {
			kept = append(kept, l)
		}
	}
	if len(kept) == 0 {
		return "", fmt.Errorf("host %q: %w", host, ErrEmptyHost)
	}
	if isNumberLabel(kept[len(kept)-1]) {
		ip, err := parseIPv4(kept)
		if err != nil {
			return "", fmt.Errorf("host %q: %w: not a valid IPv4 address (%v)", host, ErrBadHost, err)
		}
		return ip, nil
	}
	for _, l := range kept {
		if len(l) > maxLabelLen {
			return "", fmt.Errorf("host %q: %w: a label is longer than %d bytes", host, ErrBadHost, maxLabelLen)
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return "", fmt.Errorf("host %q: %w: label %q starts or ends with '-'", host, ErrBadHost, l)
		}
		for i := 0; i < len(l); i++ {
			if !hostByte(l[i]) {
				return "", fmt.Errorf("host %q: %w: character %q", host, ErrBadHost, l[i])
			}
		}
	}
	h = strings.Join(kept, ".")
	if len(h) > maxHostLen {
		return "", fmt.Errorf("host %q: %w: longer than %d bytes", host, ErrBadHost, maxHostLen)
	}
	return h, nil
}

// isNormalHost is the fast path of NormalizeHost: a host already in its
// normal form (lower-case letters, digits, '-' inside labels, '_', single dots inside,
// a last label that is not a number, length limits).
func isNormalHost(h string) bool {
	if h == "" || len(h) > maxHostLen || h[0] == '.' || h[len(h)-1] == '.' {
		return false
	}
	label := 0
	lastStart := 0
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case c == '.':
			if label == 0 || h[i-1] == '-' {
				return false
			}
			label, lastStart = 0, i+1
			continue
		case c == '-':
			if label == 0 || i == len(h)-1 {
				return false
			}
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_':
		default:
			return false
		}
		label++
		if label > maxLabelLen {
			return false
		}
	}
	return !isNumberLabel(h[lastStart:])
}

func hostByte(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// isNumberLabel is the WHATWG "ends in a number" test on the last label:
// all decimal digits, or "0x" followed by hexadecimal digits (or nothing).
func isNumberLabel(l string) bool {
	if l == "" {
		return false
	}
	if len(l) >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X') {
		for i := 2; i < len(l); i++ {
			if !isHex(l[i]) {
				return false
			}
		}
		return true
	}
	for i := 0; i < len(l); i++ {
		if l[i] < '0' || l[i] > '9' {
			return false
		}
	}
	return true
}

// parseIPv4 reads 1 to 4 parts as inet_aton(3) does: all parts but the
// last are bytes, the last fills the remaining bytes.
func parseIPv4(parts []string) (string, error) {
	if len(parts) > 4 {
		return "", fmt.Errorf("%d parts", len(parts))
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
			base, digits = 16, p[2:]
		case len(p) >= 2 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		if digits == "" {
			continue // "0x" and "0" are 0
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil {
			return "", fmt.Errorf("part %q", p)
		}
		vals[i] = v
	}
	var v uint64
	for i, x := range vals[:len(vals)-1] {
		if x > 0xff {
			return "", fmt.Errorf("part %q is larger than 255", parts[i])
		}
		v |= x << (24 - 8*i)
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return "", fmt.Errorf("part %q is too large", parts[len(parts)-1])
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}).String(), nil
}

func normalizeIPv6(host, h string) (string, error) {
	if strings.IndexByte(h, '%') >= 0 {
		return "", fmt.Errorf("host %q: %w: an IPv6 zone is not a host on the web", host, ErrBadHost)
	}
	a, err := netip.ParseAddr(h)
	if err != nil || !a.Is6() {
		return "", fmt.Errorf("host %q: %w: not an IPv6 address", host, ErrBadHost)
	}
	var buf [64]byte
	if b := a.Unmap().AppendTo(buf[:0]); string(b) == h {
		return h, nil // already in its one spelling: no new string
	}
	return a.Unmap().String(), nil
}

// isCanonicalIPv4 reports whether h is an IPv4 address in the spelling
// NormalizeHost gives it (netip.Addr.String: four decimal parts of 0-255,
// no leading zeros), which it keeps as it is.
func isCanonicalIPv4(h string) bool {
	parts := 0
	for len(h) > 0 {
		i := strings.IndexByte(h, '.')
		p := h
		if i >= 0 {
			p, h = h[:i], h[i+1:]
			if h == "" {
				return false // a trailing dot
			}
		} else {
			h = ""
		}
		if p == "" || len(p) > 3 || len(p) > 1 && p[0] == '0' || !allDigits(p) {
			return false
		}
		if n, _ := strconv.Atoi(p); n > 255 {
			return false
		}
		parts++
	}
	return parts == 4
}

// hostPort joins a normalized host and a port for a URL authority
// (brackets around an IPv6 address).
func hostPort(host, port string) string {
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if port != "" {
		return host + ":" + port
	}
	return host
}

// splitAuthority cuts a URL authority (without userinfo) into host and
// port; the host of "[v6]:port" is returned without brackets. ok is false
// when brackets do not match or the port is not all digits.
func splitAuthority(auth string) (host, port string, ok bool) {
	if strings.HasPrefix(auth, "[") {
		end := strings.IndexByte(auth, ']')
		if end < 0 {
			return "", "", false
		}
		host, rest := auth[1:end], auth[end+1:]
		switch {
		case rest == "":
			return host, "", true
		case rest[0] != ':':
			return "", "", false
		}
		return host, rest[1:], allDigits(rest[1:]) || rest == ":"
	}
	if i := strings.LastIndexByte(auth, ':'); i >= 0 {
		host, port = auth[:i], auth[i+1:]
		if strings.IndexByte(host, ':') >= 0 {
			return "", "", false // an IPv6 address without brackets
		}
		return host, port, port == "" || allDigits(port)
	}
	return auth, "", true
}

// defaultPort is the port a scheme implies ("80" for http, "443" for
// https).
func defaultPort(scheme string) string {
	if scheme == "https" {
		return "443"
	}
	return "80"
}
