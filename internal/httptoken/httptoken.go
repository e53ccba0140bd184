// Package httptoken holds the byte class of HTTP tokens that the module's
// HTTP readers share: the request heads of internal/h1serve, the link
// format of package memento and the aggregator's TimeMap page reader.
package httptoken

// IsTchar reports whether c is a tchar of RFC 9110 §5.6.2: a digit, an
// ASCII letter or one of !#$%&'*+-.^_`|~. A token (a method, a header field
// name, a link parameter name or unquoted value) is one or more of them.
func IsTchar(c byte) bool { return tchar[c] }

var tchar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()
