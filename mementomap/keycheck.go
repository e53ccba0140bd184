package mementomap

import "bytes"

// simpleSURTMatches reports whether key is, byte for byte, the SURT that
// surt.Canonicalize gives the URL u, deciding it without canonicalizing
// and without allocating for the common URL shape: a lower-case http(s)
// scheme, a lower-case host of [a-z0-9-] labels (no port, no user, no
// "www" prefix, no "xn--" label, a last label starting with a letter, so
// never an IP address), and a path of [a-z0-9._-] segments with no empty,
// "." or ".." segment and no trailing '/' but the root's, then at most a
// query of sorted plain arguments (simpleQuery), no fragment. Its SURT is the labels reversed and joined by ',', ')'
// and the path ("/" when empty) with its query. false means "not known": the caller
// canonicalizes u and compares (a URL of another shape, or a key that
// differs).
func simpleSURTMatches(key, u []byte) bool {
	uh, kh := simpleHostLen(key, u)
	return uh > 0 && simplePathMatches(key[kh:], u[uh:])
}

// simpleHostLen returns the lengths of the scheme and host of u ("https://
// a.example.com") and of the host of key with its ')' ("com,example,a)")
// when the host is one simpleSURTMatches takes and key's is its SURT form;
// else 0, 0. The rest of u (empty, or from its first '/') is then for
// simplePathMatches to compare with the rest of key.
func simpleHostLen(key, u []byte) (uh, kh int) {
	var rest []byte
	switch {
	case len(u) > 7 && string(u[:7]) == "http://":
		rest = u[7:]
	case len(u) > 8 && string(u[:8]) == "https://":
		rest = u[8:]
	default:
		return 0, 0
	}
	hostEnd := len(rest)
	for i, c := range rest {
		if c == '/' {
			hostEnd = i
			break
		}
		if plainByte[c]&plainHost == 0 {
			return 0, 0
		}
	}
	host := rest[:hostEnd]
	if len(host) == 0 || len(host) >= 3 && string(host[:3]) == "www" {
		return 0, 0
	}
	// Walk the host's labels from the last one, matching the key.
	k := 0
	end := len(host)
	first := true
	for end > 0 {
		start := end - 1
		for start >= 0 && host[start] != '.' {
			start--
		}
		label := host[start+1 : end]
		if len(label) == 0 || len(label) >= 4 && string(label[:4]) == "xn--" {
			return 0, 0
		}
		if first {
			if label[0] < 'a' || label[0] > 'z' {
				return 0, 0
			}
			first = false
		} else {
			if k >= len(key) || key[k] != ',' {
				return 0, 0
			}
			k++
		}
		if len(key)-k < len(label) || string(key[k:k+len(label)]) != string(label) {
			return 0, 0
		}
		k += len(label)
		if start < 0 {
			break
		}
		if start == 0 {
			return 0, 0 // a leading '.'
		}
		end = start
	}
	if k >= len(key) || key[k] != ')' {
		return 0, 0
	}
	return len(u) - len(rest) + hostEnd, k + 1
}

// simplePathMatches reports whether key, the rest of a SURT key after its
// host's ')', is what surt.Canonicalize makes of path, the rest of a URL
// after its host (empty, or from its first '/'), for the plain paths and
// queries simpleSURTMatches takes; false means "not known".
func simplePathMatches(key, path []byte) bool {
	var query []byte
	for i, c := range path {
		if c == '?' {
			path, query = path[:i], path[i+1:]
			if len(path) == 0 || !simpleQuery(query) {
				return false
			}
			break
		}
	}
	if len(path) == 0 {
		return string(key) == "/"
	}
	if len(path) > 1 && path[len(path)-1] == '/' {
		return false
	}
	for i := 0; i < len(path); i++ {
		c := path[i]
		if c == '/' {
			if i+1 < len(path) && path[i+1] == '/' {
				return false
			}
			if dotSegment(path[i+1:]) {
				return false
			}
			continue
		}
		if plainByte[c]&plainPath == 0 {
			return false
		}
	}
	if query == nil {
		return string(key) == string(path)
	}
	return len(key) == len(path)+1+len(query) && string(key[:len(path)]) == string(path) &&
		key[len(path)] == '?' && string(key[len(path)+1:]) == string(query)
}

// Classes of the bytes simpleSURTMatches takes as they are: plainHost
// [a-z0-9.-] in a host, plainPath [a-z0-9._-] in a path segment,
// plainQuery [a-z0-9._=-] in a query.
const (
	plainHost = 1 << iota
	plainPath
	plainQuery
)

// plainByte holds the classes of each byte.
var plainByte = func() (t [256]uint8) {
	for c := range 256 {
		b := byte(c)
		if b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '-' || b == '.' {
			t[c] = plainHost | plainPath | plainQuery
		}
	}
	t['_'] = plainPath | plainQuery
	t['='] = plainQuery
	return t
}()

// simpleQuery reports whether q (a query without its '?') is one surt
// keeps as it is: "&"-separated non-empty arguments of [a-z0-9._=-] in
// strictly ascending byte order, none of whose names holds "sid", "sess",
// "cfid" or "cftoken" (session ids that surt strips).
func simpleQuery(q []byte) bool {
	if len(q) == 0 {
		return false
	}
	var prev []byte
	start := 0
	for i := 0; i <= len(q); i++ {
		if i < len(q) && q[i] != '&' {
			c := q[i]
			if plainByte[c]&plainQuery == 0 {
				return false
			}
			continue
		}
		arg := q[start:i]
		if len(arg) == 0 || prev != nil && string(prev) >= string(arg) {
			return false
		}
		name := arg
		if j := bytes.IndexByte(arg, '='); j >= 0 {
			name = arg[:j]
		}
		if bytes.Contains(name, []byte("sid")) || bytes.Contains(name, []byte("sess")) ||
			bytes.Contains(name, []byte("cfid")) || bytes.Contains(name, []byte("cftoken")) {
			return false
		}
		prev = arg
		start = i + 1
	}
	return true
}

// dotSegment reports whether p starts with the segment "." or "..".
func dotSegment(p []byte) bool {
	n := 0
	for n < len(p) && p[n] == '.' {
		n++
	}
	return (n == 1 || n == 2) && (n == len(p) || p[n] == '/')
}

// appendURLFromSURT appends to dst the http URL a SURT key without scheme
// stands for ("org,example,www)/a?b" gives "http://www.example.org/a?b"),
// for index records that carry no original URL (ipwb's CDXJ). A key
// without ')' after its first byte appends nothing.
func appendURLFromSURT(dst, key []byte) []byte {
	close := -1
	for i, c := range key {
		if c == ')' {
			close = i
			break
		}
	}
	if close <= 0 {
		return dst
	}
	host, rest := key[:close], key[close+1:]
	var port []byte
	for i, c := range host {
		if c == ':' {
			host, port = host[:i], host[i:]
			break
		}
	}
	if n := len(host); n > 0 && host[n-1] == ',' {
		host = host[:n-1]
	}
	dst = append(dst, "http://"...)
	end := len(host)
	for end >= 0 {
		start := end - 1
		for start >= 0 && host[start] != ',' {
			start--
		}
		dst = append(dst, host[start+1:end]...)
		if start < 0 {
			break
		}
		dst = append(dst, '.')
		end = start
	}
	dst = append(dst, port...)
	if len(rest) == 0 || rest[0] != '/' {
		dst = append(dst, '/')
	}
	return append(dst, rest...)
}
