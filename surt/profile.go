package surt

import (
	"errors"
	"fmt"
)

// Profile is a set of canonicalization options. A Profile is immutable once
// made and safe for concurrent use. The zero Profile has every option off
// (no host massage, no IPv4 reversal, query case kept), which is not the
// standard: start from [New] or one of the ready-made profiles ([Default],
// [WithScheme], [Fixed], [FixedWithScheme]).
type Profile struct {
	withScheme     bool
	trailingComma  bool
	hostMassage    bool
	reverseIP      bool
	queryLowercase bool
	fix            bool
	name           string
}

// Option configures a [Profile] made by [New].
type Option func(*Profile)

// IncludeScheme makes keys start with the scheme, "http://(org,example)/"
// (the standard's with_scheme option). Default false.
func IncludeScheme(on bool) Option { return func(p *Profile) { p.withScheme = on } }

// TrailingComma puts a ',' after the last host label, "org,example,)/" (the
// standard's trailing_comma option). Default false.
func TrailingComma(on bool) Option { return func(p *Profile) { p.trailingComma = on } }

// MassageHost removes one leading "www" or "wwwN" label (regex ^www\d*\.)
// from every host except for dns: URIs (the standard's host_massage option).
// Default true.
func MassageHost(on bool) Option { return func(p *Profile) { p.hostMassage = on } }

// ReverseIP reverses the labels of dotted-quad IPv4 hosts like those of
// names, "4,3,2,1)/" (the standard's reverse_ipaddr option). When false,
// hosts that match (\d{1,3}\.){3}\d{1,3} are written as they are. Default
// true.
func ReverseIP(on bool) Option { return func(p *Profile) { p.reverseIP = on } }

// LowercaseQuery lower-cases the query (the standard's query_lowercase
// option). Default true. Paths are always lower-cased, as in the standard.
func LowercaseQuery(on bool) Option { return func(p *Profile) { p.queryLowercase = on } }

// FixDefects turns on the repairs of the standard's known defects (the surt
// rows of the project's public cases, SURT-01 to SURT-06):
//   - a leading www/wwwN label is kept when removing it would leave a public
//     suffix ("www.com", "www1355544.com");
//   - an escaped '&' (%26) in the query stays escaped, so it no longer splits
//     a query value before sorting;
//   - bracketed IPv6 literals keep their brackets, are written in RFC 5952
//     form (a zone as "%25zone", RFC 6874) and are not reversed:
//     "[2001:db8::1]:8080)/a", "[fe80::1%25eth0])/";
//   - a scheme-less "name.tld:port" (or "localhost:port") is read as an authority,
//     not as a URI scheme, and "<...>" around the URL is removed (unless
//     nothing but white space is inside);
//   - a non-HTTP prefix before an embedded http(s) URL is kept and the
//     embedded URL canonicalized: "youtube-dl:pt,example)/...".
//   - where an http URL's host is taken from its path (scheme-relative
//     "//host:8080/a", "http:///host/", "http:host/"), that text is read as
//     an authority: user info dropped, port parsed (an invalid one fails
//     with [ErrInvalidPort]), a bracketed IP literal kept as above; the
//     standard writes "//example.com:8080/a" as "com:8080,example)/a".
//
// Default false: the default profile reproduces the standard byte for byte,
// defects included.
func FixDefects(on bool) Option { return func(p *Profile) { p.fix = on } }

// New returns a Profile with the standard's defaults (no scheme, no trailing
// comma, host massage on, IPv4 reversal on, query lower-casing on, no
// defect fixes) changed by opts.
func New(opts ...Option) *Profile {
	p := &Profile{hostMassage: true, reverseIP: true, queryLowercase: true, name: "custom"}
	for _, o := range opts {
		o(p)
	}
	return p
}

func named(name string, opts ...Option) *Profile {
	p := New(opts...)
	p.name = name
	return p
}

// Ready-made profiles.
var (
	// Default reproduces the Internet Archive's Python surt 0.3.1
	// surt.surt(url) byte for byte: GoogleURLCanonicalizer, then
	// IAURLCanonicalizer, then the SURT form without scheme.
	Default = named("default")

	// WithScheme is Default with the scheme kept: "http://(org,example)/".
	WithScheme = named("with-scheme", IncludeScheme(true))

	// Fixed is Default plus [FixDefects]: the same keys for ordinary URLs,
	// and sensible keys where the standard is known to be wrong.
	Fixed = named("fixed", FixDefects(true))

	// FixedWithScheme is Fixed with the scheme kept.
	FixedWithScheme = named("fixed-with-scheme", FixDefects(true), IncludeScheme(true))
)

// String returns the profile's name ("default", "with-scheme", "fixed",
// "fixed-with-scheme" or "custom") followed by its options.
func (p *Profile) String() string {
	return fmt.Sprintf("%s{scheme=%t trailing_comma=%t host_massage=%t reverse_ip=%t query_lowercase=%t fix=%t}",
		p.name, p.withScheme, p.trailingComma, p.hostMassage, p.reverseIP, p.queryLowercase, p.fix)
}

// Errors. Canonicalization fails only where the standard raises an exception;
// every such failure is an [*Error] wrapping one of these.
var (
	// ErrEmpty: the URL is only white space (the standard fails on it; an
	// empty string, by contrast, gives the key "-").
	ErrEmpty = errors.New("URL is empty after trimming white space")

	// ErrInvalidPort: the text after the host's ':' is not a decimal number
	// from 0 to 65535 (RFC 3986 section 3.2.3; Python's urllib rejects it).
	ErrInvalidPort = errors.New("invalid port")
)

// Error reports a URL that cannot be canonicalized.
type Error struct {
	URL    string // the input, as given
	Offset int    // byte offset of the problem, counted after trimming white space and deleting TAB, CR and LF
	Err    error  // ErrEmpty or ErrInvalidPort
}

// Error returns "surt: <reason> at byte N in "<url>"".
func (e *Error) Error() string {
	u := e.URL
	if len(u) > 200 {
		u = u[:200] + "..."
	}
	return fmt.Sprintf("surt: %v at byte %d in %q", e.Err, e.Offset, u)
}

// Unwrap returns the sentinel cause.
func (e *Error) Unwrap() error { return e.Err }
