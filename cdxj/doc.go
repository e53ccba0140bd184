// Package cdxj reads and writes the index files of web archives: CDXJ
// (pywb, OpenWayback 3, Common Crawl, ipwb), classic space-separated CDX in
// any of its layouts, gzip-compressed files, and ZipNum clusters (Cluster,
// ClusterWriter), and CDX servers (Server), with whole-index walks and
// key-range queries (Query) over every one of them through one opener,
// Open, and the CDX server API's requests over any of them (Request).
//
// # The formats
//
// A web archive indexes each capture it holds with one line, sorted
// byte-wise (LC_ALL=C) so that all captures of one URL are adjacent. The
// line starts with a sort key, usually a SURT ("com,example)/a?b=c": the
// host reversed, see package surt), and a timestamp of 4 to 17 digits
// (YYYYMMDDhhmmss, UTC, 17 digits adding milliseconds). The module's
// one sort rule is on these two fields ([SortKey]): a sorted index has
// them in byte-wise order, and lines equal in both (a response and its
// request record) in any order of the rest.
//
// CDXJ puts a JSON object after them:
//
//	com,example)/ 20170306040206 {"url": "http://example.com/", "mime": "text/html", "status": "200", "digest": "sha1:G7HR...", "length": "1242", "offset": "784", "filename": "example.warc.gz"}
//
// Lines starting with '!' ("!context", "!meta") are headers. Classic CDX
// has fixed space-separated columns whose order a first line " CDX N b a m
// s k r M S V g" declares with the letters of the Internet Archive's CDX
// legend; files without that line are recognised by their field count (see
// Layout). "-" marks an unknown value in both forms.
//
// # Opening an index
//
// Open takes a path (or "-", or a CDX server URL) and gives an Index, a
// Searcher that holds files open: a plain or gzip CDX/CDXJ file (File), a
// ZipNum cluster by its .idx, its folder or the Common Crawl layout
// (Cluster), or a stream read once (Stream). Records(cdxj.Query{}) walks
// the whole index in order; a Query with a key asks for a key range (see
// Query). A gzip member end is a line end everywhere gzip is read, so the
// blocks pywb writes without a final newline never join two lines.
// Open is the one opener a program needs; OpenFile, OpenCluster and
// OpenServer each open one kind by itself, for a caller that relies on
// that kind (see Open and OpenFile).
//
//	ix, err := cdxj.Open(ctx, "index.cdxj.gz", nil) // or "cluster.idx", "indexes/", "-"
//	...
//	defer ix.Close()
//	for rec, err := range ix.Records(cdxj.Query{}) {
//		if err != nil {
//			return err // a *cdxj.ParseError naming file and line: or count it and continue
//		}
//		fmt.Printf("%s %s %d\n", rec.Key(), rec.Timestamp(), rec.Status())
//	}
//
// # CDX servers
//
// OpenServer (and Open, given an http:// or https:// URL) reads a CDX
// server as an Index: pywb's CDX server API, which the Common Crawl index
// server speaks (FlavorPywb), the Internet Archive's wayback CDX server
// (FlavorWayback) and OutbackCDX (FlavorOutback), told apart by host name
// or by one probe. A query becomes requests, paged as the server pages
// (showNumPages and page=, showResumeKey and resumeKey=, or one streamed
// answer), each waiting for a polite rate limit, retried with exponential
// back-off (honouring Retry-After) after a failure or an answer cut
// short, and bounded in time, size and line length; an error names the
// request URL and page (ServerError). Lines come back as an index file of
// the same captures holds them, so Records are those a local file gives.
// The part of the archive a whole-index walk reads is the Scope: the
// url= and matchType= of the server URL, or ServerOptions.Scope (the
// tools' -url-prefix and -domain).
//
//	s, err := cdxj.OpenServer(ctx, "https://index.commoncrawl.org/CC-MAIN-2025-33-index?url=*.example.org", nil)
//	...
//	for rec, err := range s.Records(cdxj.Query{}) { ... }
//
// # CDX server requests
//
// Request is one request of the CDX server API as a value, ParseRequest
// reads it from URL query values and Values writes it back: url and
// matchType (with the "*.host" and "url*" forms), from and to, limit (a
// negative limit for the last lines), sort=reverse|closest, filter (pywb's
// [!][=|~]field:value), collapse, fl, output and the paging parameters.
// Run answers it over any Searcher, NumPages and PagedIndex over a ZipNum
// cluster (a Pager), and AppendRecord writes each line in the output asked
// for; internal/archiveserver serves them over HTTP. Merge reads several
// sorted indexes as one.
//
// # Reading a stream
//
// Reader follows encoding/csv: settings are fields, Read returns one
// *Record per call, All is the iterator form. A Record locates its values
// without copying them and decodes its JSON block lazily: asking for the
// MIME type scans the block only as far as "mime". A bad line gives a
// *ParseError with the source, the line number and a cause (timestamp.ErrInvalid,
// ErrJSON, ...); the reader goes on with the next line if asked again, so
// the caller decides whether to stop, or to skip and count (SkipBad does
// the latter). A blank (empty) line holds no record and is no error: it is
// passed over and counted apart (Reader.BlankLines, and Query.Blank for
// the walks and queries of every index), so that a trailing blank line
// stops nothing and still no line goes uncounted; a line of spaces is a
// bad line. NewDecompressor turns a gzip stream into text for it.
//
// Memory stays bounded whatever the input: a Reader holds one buffer that
// grows only to the longest line (MaxLineSize, 16 MiB by default, caps it),
// and a line over the maximum is an error, never a silent stop.
//
// # Timestamps
//
// A record's timestamp is 4 to 17 digits (Record.Timestamp gives them,
// Record.Time the instant they stand for). Package timestamp owns the rule:
// timestamp.Parse and timestamp.Format convert between digits and
// time.Time, and timestamp.Bounds pads the from and to of a CDX server query
// to inclusive bounds (from=2014 to=2014 is 20140101000000..20141231235959)
// that timestamp.InRange tests a record against at millisecond precision.
//
// # Writing
//
// Writer writes CDXJ with pywb's JSON member names, whatever the source
// format. The command examples/cdxj converts and sorts index files.
package cdxj
