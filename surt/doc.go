// Package surt turns URLs into SURTs (Sort-friendly URI Reordering
// Transform), the keys that web-archive indexes (CDX, CDXJ, ZipNum,
// MementoMaps) are sorted by, and works with those keys.
//
//	http://www.Example.com:80/a/b/?y=2&X=1#top  →  com,example)/a/b?x=1&y=2
//
// # The standard
//
// Existing indexes (the Internet Archive's, pywb's, Common Crawl's,
// OpenWayback's) were built with the Internet Archive's canonicalizer. A
// lookup key that differs from theirs by one byte finds nothing, so the
// [Default] profile reproduces the Python package surt 0.3.1 (surt.surt(url)
// with its defaults) byte for byte, including its known defects. Its steps:
//
//  1. Parse (handyurl.parse): an empty string gives "-" and a string starting
//     with "filedesc" is returned unchanged; otherwise strip ASCII white space
//     at both ends, delete TAB, CR and LF everywhere, prefix "http://" when
//     there is no scheme (^[a-zA-Z][a-zA-Z0-9+.-]*:), reduce repeated leading
//     "http://" / "https://" to the last one, split with RFC 3986 Appendix B's
//     expression, and take host and port as Python's urllib does (user info
//     dropped, IPv6 brackets dropped, port after the first ':'). "http:" URLs
//     without "//" or with extra slashes take their host from the path.
//  2. Google-style canonicalization (GoogleURLCanonicalizer, after Google
//     Safe Browsing): drop the fragment; percent-decode query, host and path
//     repeatedly until stable, then re-escape only bytes outside
//     [!-~] and '#', '%'; map non-ASCII hosts through IDNA 2003 (RFC 3490
//     ToASCII with the nameprep profile of RFC 3491, tables of RFC 3454 over
//     Unicode 3.2, NFKC as Python's unicodedata.ucd_3_2_0 computes it on
//     CPython 3.11, whose Unicode 14.0 data decide the combining classes of
//     code points Unicode 3.2 did not assign, Punycode of RFC 3492),
//     keeping the raw bytes where the standard's codec fails; collapse ".."
//     in the host and trim its dots; normalize numeric hosts to dotted quads
//     ("3279880203", "10.0.258", octal "017.0.0.1"); resolve "." and ".."
//     path segments and drop empty ones when there is a host.
//  3. IA canonicalization (IAURLCanonicalizer): lower-case host, path and
//     query; remove one leading "www" or "wwwN" label; drop user info and
//     the default port (80 for http, 443 for https); remove ASP.NET, JSP,
//     PHP and ColdFusion session ids from path and query; drop a trailing
//     '/' unless the path is "/"; sort the query arguments byte-wise; drop an
//     empty query.
//  4. SURT form: host labels reversed and joined with ',', then ')', path
//     and "?" query; optionally "scheme://(" in front ([Options.IncludeScheme])
//     and a ',' before ')' ([Options.TrailingComma]).
//
// Options ([New] takes a *[Options], nil for the standard's defaults):
// IncludeScheme, TrailingComma, NoHostMassage, NoReverseIPAddr,
// NoQueryLowercase, FixDefects. Ready-made profiles: [Default],
// [WithScheme], [Fixed], [FixedWithScheme].
//
// # Pseudo-URIs
//
// Index files hold records whose "URL" is not an http URL. They never make
// Canonicalize fail and never lose or change their scheme:
//
//	dns:www.example.com            → dns:www.example.com   (lower-cased, kept as is)
//	filedesc://x.arc.gz            → filedesc://x.arc.gz   (any input starting "filedesc", verbatim)
//	warcinfo:foo.warc.gz           → warcinfo:foo.warc.gz  (scheme ":" lower-cased rest)
//	urn:uuid:ABC                   → urn:uuid:abc
//	mailto:Bot@Archive.org         → mailto:bot@archive.org
//	metadata://crawl.example.org/x → org,example,crawl)/x  (has a host: a SURT)
//	cdn.example.com:443            → cdn.example.com:443   (Default: "cdn.example.com" is read as a scheme)
//	                               → com,example,cdn:443)/ (Fixed: read as host:port)
//	""                             → -
//
// Only inputs that make the standard raise an exception fail: a URL that is
// nothing but white space ([ErrEmpty]) and a port that is not a number from
// 0 to 65535 ([ErrInvalidPort]). Both come as an [*Error] with the byte
// offset. The Fixed profile also rejects the out-of-range port of a URL it
// reads differently ("cdn.example.com:99999", "youtube-dl:http://x:99999/"),
// which Default keeps as an opaque pseudo-URI.
//
// With Options.IncludeScheme, keys with a host start with the scheme as written
// (not lower-cased): "metadata://(org,example,crawl)/x".
//
// # The Fixed profile
//
// The standard has known defects, recorded in the project's public cases
// (SURT-01 to SURT-06): "www.com" loses its only real label, an escaped '&'
// in a query value splits the value before sorting, IPv6 hosts lose their
// brackets (so the port runs into the address), "host:port" without a
// scheme is read as a scheme, "<http://...>" is taken literally, and
// "youtube-dl:http://..." keeps the embedded URL uncanonicalized. Beyond
// those cases, a scheme-relative "//example.com:8080/a" puts its port
// inside a label ("com:8080,example)/a"). [Fixed] repairs these (see
// [Options.FixDefects]) and gives the same keys as [Default] for every other URL.
// Use it for new indexes whose keys you control; use Default to look up
// keys in existing indexes.
//
// # Keys
//
// [HxPx] cuts a key at '?'. [LookupKeys] lists the keys to probe in a
// MementoMap for a URL, most specific first, as internal/spec/MEMENTOMAP.md (section Keys)
// specifies: com,example)/a/b, com,example)/a/b/*, com,example)/a/*,
// com,example)/*, com,example,*, com,*, *. [ParseKey] gives a [Key] whose
// host labels and path segments can be read without splitting strings.
// [IsPublicSuffix] and [SuffixList] tell whether a host-key prefix such as
// "uk,co" or "com,blogspot" is a public suffix (golang.org/x/net/publicsuffix),
// which compaction must never roll up into a wildcard.
//
// # Performance
//
// Canonicalization works on bytes with pooled scratch buffers; it does not
// use net/url. [Profile.AppendCanonical] allocates nothing for ASCII URLs
// once its buffers are warm (the Fixed profile's public-suffix check of a
// host starting with a www label makes up to two small allocations);
// [Profile.Canonicalize] allocates its result.
// IDNA runs only for hosts with non-ASCII bytes. Memory per call is bounded
// by a small multiple of the URL's length.
package surt
