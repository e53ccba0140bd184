// Package archiveserver serves CDX and CDXJ indexes as a Memento archive
// (RFC 7089), so that the demo, the aggregator benchmark, tests and the
// examples/archive binary share one implementation of "an archive":
//
//   - LoadIndex reads indexes (any layout package cdxj reads, sorted or not)
//     into an in-memory Index: SURT keys in byte-wise order, each with its
//     captures sorted by time. A lookup canonicalizes the requested URI-R
//     with surt.Canonicalize and binary-searches the keys, so
//     http://www.example.com:80/ and https://example.com/ reach the same
//     captures, as they do in a Wayback machine.
//   - New wraps an Index in a Server, an http.Handler with a TimeMap in link
//     format at /timemap/link/{URI-R}, a TimeGate at /timegate/{URI-R} (302
//     to the closest memento, Vary: accept-datetime, Link headers, 400 on an
//     Accept-Datetime that is not an RFC 1123 date in GMT), mementos at
//     /{YYYYMMDDhhmmss}/{URI-R} and /{YYYYMMDDhhmmss}id_/{URI-R} (the
//     Wayback identity form, IdentityModifier; Memento-Datetime and Link
//     headers, a small placeholder body: there is no WARC replay), and the archive's
//     MementoMap at /.well-known/mementomap: mementomap.Build of the same
//     inputs, run by LoadIndex in the pass that loads them, compacted when
//     the Server is made (internal/spec/MEMENTOMAP.md), so it is what
//     "mementomap build" and "mementomap compact" write for those inputs
//     and options. Its frequencies count index records, a record repeating
//     a capture included, where a TimeMap lists each URI-M once. TimeMap answers
//     also link to the map with rel="mementomap", the two places an
//     aggregator looks for it (package aggregator, MapSource.Discover).
//   - NewCDXHandler serves the pywb CDX server API (/cdx and
//     /{collection}/cdx) over a cdxj.Searcher: a sorted file, a ZipNum
//     cluster or several merged, with the query semantics of
//     cdxj.Request; WithCDX puts it in front of a Server. It reads the
//     index files where they are, so it serves indexes of any size.
//   - Options add latency, a share of 5xx answers and slow bodies, so that
//     a local archive can imitate a distant or failing one.
//
// # Memory
//
// The whole index is held in memory, about 24 bytes per capture plus each
// SURT key and original URL once, plus the baseline MementoMap; New adds the
// compacted one. Index
// files of a few million lines fit; larger ones belong behind a CDX server
// (package cdxj answers key-range queries over sorted files and ZipNum
// clusters without loading them).
package archiveserver
