// Package mementokit is a set of small Go packages for web-archive profiling
// and Memento aggregation. This root package holds no code; it is the map.
//
// # The field in brief
//
// A URI-R is an original URL; a URI-M (a memento) is one archived capture of
// it at a Memento-Datetime. RFC 7089 (Memento) defines a TimeMap, the list of
// all mementos of a URI-R in link format (RFC 8288), and a TimeGate, which
// redirects to the memento closest to an Accept-Datetime.
//
// Archives index their captures in CDX (space-separated fields) or CDXJ
// ("surtkey timestamp {json}") files sorted byte-wise by SURT, a reordering
// of the URL that groups a site's pages together:
// http://www.Example.com/a?b=1 becomes com,example)/a?b=1. An HxPx key is a
// SURT without its query.
//
// A MementoMap (Alam et al., "MementoMap Framework for Flexible and Adaptive
// Web Archive Profiling", JCDL 2019) is a small sorted UKVS file of
// "key frequency" lines that says what an archive holds; compaction rolls
// dense sub-trees up into wildcard keys (com,example)/a/*), and lookup is a
// binary search for the most specific matching key. Its contract is zero false
// negatives: a map may say "maybe" wrongly, never "absent" wrongly.
//
// An aggregator, like the Time Travel service, asks many archives at once and
// merges their answers; a MementoMap per archive lets it skip the archives
// that certainly hold nothing.
//
// # The packages
//
//   - surt: URL to SURT canonicalization compatible with the Internet
//     Archive's, HxPx keys, wildcard lookup keys, public-suffix checks.
//   - timestamp: the 4 to 17 digit timestamps of CDX, CDXJ and Wayback
//     URI-Ms (YYYYMMDDhhmmss), one rule for parsing, formatting and the
//     padding of from/to bounds, used by every other package.
//   - ukvs: the UKVS text format of MementoMaps: headers, keys, frequencies.
//   - cdxj: streaming readers and writers for CDXJ, classic CDX and ZipNum
//     clusters, and key-range queries over sorted files.
//   - mementomap: build a map from an index with bounded memory, compact it
//     in one pass, look URIs up in the mmapped file, evaluate and merge maps.
//   - summary: per-host, per-year, per-MIME summaries in the cdx-summarize
//     format, comparisons, and daily per-collection series.
//   - columnar: any index, and summaries, as Parquet tables with Common
//     Crawl's cc-index-table columns and the End of Term fields, for SQL
//     engines (DuckDB, Spark, Athena).
//   - memento: link-format TimeMaps and TimeGates, datetimes, and a client.
//   - cache: the aggregator's cache interface with in-memory
//     (cache/memorycache), bbolt (cache/boltcache) and MySQL
//     (cache/mysqlcache) stores.
//   - aggregator: fan-out to many archives with rules, MementoMap routing,
//     caching, refresh queues and the TimeMap/TimeGate HTTP API.
//
// The examples folder holds thin binaries over these packages.
package mementokit
