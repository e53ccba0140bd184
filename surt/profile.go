package surt

import (
	"errors"
	"fmt"
)

// Profile is a set of canonicalization options. A Profile is immutable once
// made and safe for concurrent use. The zero Profile has every option off
// (no host massage, no IPv4 reversal, query case kept), which is not the
// standard: make one with [New] or start from a ready-made profile
// ([Default], [WithScheme], [Fixed], [FixedWithScheme]).
type Profile struct {
	withScheme     bool
	trailingComma  bool
	hostMassage    bool
	reverseIP      bool
	queryLowercase bool
	fix            bool
	name           string
}

// Options are the settings of a [Profile] made by [New]. The zero Options,
// like a nil *Options, are the standard's defaults (Python surt 0.3.1): no
// scheme, no trailing comma, host massage, IPv4 reversal and query
// lower-casing on, no defect fixes. Each field that turns a default off
// is named after the standard's option it sets to False.
type Options struct {
	// IncludeScheme makes keys start with the scheme,
	// "http://(org,example)/" (the standard's with_scheme=True).
	IncludeScheme bool

	// TrailingComma puts a ',' after the last host label,
	// "org,example,)/" (the standard's trailing_comma=True).
	TrailingComma bool

	// NoHostMassage keeps a leading "www" or "wwwN" label (the standard's
	// host_massage=False). By default one such label (regex ^www\d*\.) is
	// removed from every host except for dns: URIs.
	NoHostMassage bool

	// NoReverseIPAddr writes hosts that match (\d{1,3}\.){3}\d{1,3} as
	// they are (the standard's reverse_ipaddr=False). By default the labels
	// of a dotted-quad IPv4 host are reversed like those of a name,
	// "4,3,2,1)/".
	NoReverseIPAddr bool

	// NoQueryLowercase keeps the letter case of the query (the standard's
	// query_lowercase=False). Paths are always lower-cased, as in the
	// standard.
	NoQueryLowercase bool

	// FixDefects turns on the repairs of the standard's known defects (the
	// surt rows of the project's public cases, SURT-01 to SURT-06):
	//   - a leading www/wwwN label is kept when removing it would leave a
	//     public suffix ("www.com", "www1355544.com");
	//   - an escaped '&' (%26) in the query stays escaped, so it no longer
	//     splits a query value before sorting;
	//   - bracketed IPv6 literals keep their brackets, are written in RFC
	//     5952 form (a zone as "%25zone", RFC 6874) and are not reversed:
	//     "[2001:db8::1]:8080)/a", "[fe80::1%25eth0])/";
	//   - a scheme-less "name.tld:port" (or "localhost:port") is read as an
	//     authority, not as a URI scheme, and "<...>" around the URL is
	//     removed (unless nothing but white space is inside);
	//   - a non-HTTP prefix before an embedded http(s) URL is kept and the
	//     embedded URL canonicalized: "youtube-dl:pt,example)/...".
	//   - where an http URL's host is taken from its path (scheme-relative
	//     "//host:8080/a", "http:///host/", "http:host/"), that text is read
	//     as an authority: user info dropped, port parsed (an invalid one
	//     fails with [ErrInvalidPort]), a bracketed IP literal kept as
	//     above; the standard writes "//example.com:8080/a" as
	//     "com:8080,example)/a".
	//
	// Off by default: the default profile reproduces the standard byte for
	// byte, defects included.
	FixDefects bool
}

// New returns a Profile with the options opts; nil means the standard's
// defaults (the keys of [Default]). The Profile keeps no reference to opts.
func New(opts *Options) *Profile {
	var o Options
	if opts != nil {
		o = *opts
	}
	return &Profile{
		withScheme: o.IncludeScheme, trailingComma: o.TrailingComma,
		hostMassage: !o.NoHostMassage, reverseIP: !o.NoReverseIPAddr, queryLowercase: !o.NoQueryLowercase,
		fix: o.FixDefects, name: "custom",
	}
}

// Options returns the options of p: New(&o) makes a Profile with the same
// keys as p.
func (p *Profile) Options() Options {
	return Options{
		IncludeScheme: p.withScheme, TrailingComma: p.trailingComma,
		NoHostMassage: !p.hostMassage, NoReverseIPAddr: !p.reverseIP, NoQueryLowercase: !p.queryLowercase,
		FixDefects: p.fix,
	}
}

func named(name string, opts *Options) *Profile {
	p := New(opts)
	p.name = name
	return p
}

// Ready-made profiles.
var (
	// Default reproduces the Internet Archive's Python surt 0.3.1
	// surt.surt(url) byte for byte: GoogleURLCanonicalizer, then
	// IAURLCanonicalizer, then the SURT form without scheme.
	Default = named("default", nil)

	// WithScheme is Default with the scheme kept: "http://(org,example)/".
	WithScheme = named("with-scheme", &Options{IncludeScheme: true})

	// Fixed is Default plus [Options.FixDefects]: the same keys for ordinary URLs,
	// and sensible keys where the standard is known to be wrong.
	Fixed = named("fixed", &Options{FixDefects: true})

	// FixedWithScheme is Fixed with the scheme kept.
	FixedWithScheme = named("fixed-with-scheme", &Options{FixDefects: true, IncludeScheme: true})
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
