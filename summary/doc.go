// Package summary writes publishable, aggregated summaries of web archive
// indexes in the format of cdx-summarize (github.com/ymaurer/cdx-summarize),
// compares and combines them, builds daily per-organization crawl series,
// and folds them into the figures charts and reports show (Overview).
//
// # Why summaries
//
// A closed web archive cannot open its collection, but it can publish how
// many mementos it holds per host, per year and per kind of resource, and
// how many bytes they take. Such a summary carries no URL, no content and no
// personal data, and two archives' summaries can be compared: which domains
// each holds, how HTML sizes evolved. cdx-summarize defined the format that
// archives already publish; this package reads and writes it.
//
// # The format
//
// One line per key (normally a domain), keys in byte-wise order, each
// followed by a JSON object of periods (years, or year and month as
// 202001) whose values hold 26 counters:
//
//	bnl.lu {"2003": {"n_html": 639, "n_image": 44, ..., "n_total": 728, "s_html": 1295481, ..., "s_total": 4680354}}
//
// n_ counters count captures and s_ counters add their record lengths (the
// compressed WARC record size, the "length" or S field of the index), for
// the categories html, image, video, audio, pdf, js, json, font, css,
// other (see CategorizeMIME), then http and https (the URL's scheme) and
// total. Counter names, their order (CounterNames) and the JSON layout
// (Python json.dumps: ", " and ": " separators) are those the original tool
// writes, so existing consumers read ours. With Compact, counters that are
// zero are left out, as the original's --compact does. Only captures with a
// 2xx HTTP status are counted.
//
// # Keys
//
// By default (KeyDomain) the key is the registrable domain, the public
// suffix plus one label, from the public suffix list of
// golang.org/x/net/publicsuffix (private section included): bbc.co.uk, where
// the original writes co.uk. KeyHost keeps the full host; KeyLastTwo keeps the
// last two labels as the original does. The host comes from the SURT key
// (so without "www.", which SURT drops), or from the URL when the index key
// is not a SURT. Keys are never empty:
//
//   - an IP host is its own key in every mode, in canonical form (RFC 5952
//     for IPv6): 192.0.2.1, [2001:db8::1];
//   - an internationalized host is keyed in its ASCII (Punycode) form, so
//     that "müller.de" and "xn--mller-kva.de" share one line;
//   - a pseudo-URI with a scheme that names no web host is keyed by its
//     scheme: "dns:" for dns:example.com, "warcinfo:", "urn:", "filedesc:",
//     "metadata:" (all such records of one scheme share one line);
//   - control characters, spaces and DEL in a host (found in CDXJ "url"
//     members) are percent-encoded ("%20"), so a key never holds a blank;
//   - a host that is itself a public suffix, or has a single label
//     (localhost), is kept whole;
//   - a record with no host at all (cdxj-indexer's warcinfo lines keyed
//     "-", or a SURT with an empty host such as ")/") has the key
//     NoHostKey, "-".
//
// # Deliberate fixes
//
// Compared with the original tool, the default mode fixes these on purpose
// (Compat reproduces the original instead):
//
//  1. MIME parameters are ignored: "text/html; charset=utf-8" is html (RFC 2045
//     section 5.1: parameters are not part of the type).
//  2. MIME types compare case-insensitively: "TEXT/HTML" is html.
//  3. Revisits are treated the same whether the index is CDX or CDXJ: a
//     record counts only when its status is known to be 2xx. The original
//     drops a CDX revisit (status "-") but counts the CDXJ line of the same
//     capture (no status member) as other.
//  4. Status and length given as JSON numbers ("status": 200) are accepted;
//     the original fails on such lines.
//  5. Non-UTF-8 bytes do not lose the rest of a file: lines are bytes, never
//     decoded (the original abandons the file at the first bad byte, and the
//     8 KiB read chunk that holds it).
//  6. Timestamps outside a sane year range (Options.MinYear..MaxYear, default
//     1991 to next year) are not counted and are reported (Stats.BadTimestamp).
//  7. Keys by registrable domain (see Keys), and never an empty key.
//  8. Any layout package cdxj reads is summarized: headerless 11-column CDX,
//     9-column CDX, ipwb CDXJ with "!" headers, and so on. The original
//     skips a whole file whose first line it does not recognize.
//  9. Periods are written in ascending order (the original writes them in
//     the order first seen in the input).
//  10. The URL scheme compares case-insensitively (HTTPS://...).
//  11. A comma-joined MIME value (a Content-Type header sent twice, "text/html,
//     text/html") is categorized by its first type; the original counts it as other.
//  12. A quoted status with blanks ("200 ") is read as its number.
//  13. A 2xx capture whose length is missing, "-" or invalid (negative,
//     not an integer, above MaxRecordLength) is counted with 0 bytes and
//     reported in Stats.NoLength, never dropped silently.
//
// # Compatibility mode
//
// Compat reproduces cdx-summarize.py, CdxParser.py and mime_counter.py of
// ymaurer/cdx-summarize at commit 1ed5568 (2024-09-05): format detection
// from the first line, the four regular expressions (with Python's Unicode
// \s and \d), last-two-label keys from the SURT (key "" for "-", and for the
// 9-column CDX the raw first field such as "com,example)"), the status and
// application/warc-fields filters, Python's semantics for JSON values of
// every type (a numeric status fails the line), add_mime's partial update
// for a non-string MIME, the first line outside the try block, universal
// newlines, UTF-8 decoding in 8192-byte chunks, periods in first-seen
// order, and the output layout. Known limits: JSON NaN and Infinity, which
// Python accepts, fail the line here; lengths beyond int64 fail the line
// (Python has big integers); for .gz input the original's chunk boundaries
// depend on the Python version, so the lines lost around a bad byte may
// differ there; isnumeric() is approximated by the Unicode N categories.
//
// # Memory
//
// A Summarizer holds one entry per distinct key with 208 bytes per period:
// memory is bounded by the number of distinct keys, not by the input size.
// With Options.Grouped the input must be grouped by key (a sorted index with
// KeyHost, for example) and only the current key is held. Daily holds one
// entry per day and organization, plus the record identifiers seen for
// duplicate detection (see DailyOptions). The hot path makes no allocation
// per line: the last host, and up to 16384 recent hosts, are cached with
// their entry, so the public suffix lookup runs once per new host.
//
// # Other tasks
//
// Combine sums summaries and can re-key them by year or by domain; Overlap
// compares two or more summaries (which keys and years each holds, shared
// and unique counts); Totals and WriteCSV export them; Daily builds the
// per-organization daily series; Overview folds a summary into what its
// charts plot (counters per year, domains by first letter and by top-level
// domain). The command examples/summarize draws those charts and writes an
// HTML report of them.
package summary
