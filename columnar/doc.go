// Package columnar exports web archive indexes as Parquet tables that SQL
// engines (DuckDB, Spark, Trino/Athena, pandas/Arrow) query directly: one
// row per capture, with the column names and Parquet types of Common
// Crawl's columnar index ("cc-index-table"), plus the fields of the End of
// Term crawl datasets (EOTCD): organization, MIME category, revisit flag and
// record key. Summaries (package summary) export to a second, small table.
//
// # Why a table
//
// A CDXJ index answers "what does this archive hold for this URL"; research
// asks other questions: how many captures per organization per day, which
// hosts, which media types per year. Common Crawl publishes its index as
// Parquet for that reason, and researchers query it with engines that scan
// only the columns a query names and skip row groups by their statistics.
// Table writes the same shape from any index package cdxj reads, so the
// same SQL runs over an archive's own CDX.
//
// # The capture table
//
// Columns, in order (Row's fields document each). Source: Common Crawl's
// schemas, copied in internal/spec/cc-index-table/ (cc-index-schema-flat.json
// and eot-index-schema.json of github.com/commoncrawl/cc-index-table); a
// column named there has the meaning and Parquet type given there.
//
//	column                      Parquet type                      from
//	url_surtkey                 BYTE_ARRAY STRING                 index key (SURT)
//	url                         BYTE_ARRAY STRING, null           CDX a, CDXJ url
//	url_host_name               BYTE_ARRAY STRING, null           host of url
//	url_host_tld                BYTE_ARRAY STRING, null           last label
//	url_host_2nd_last_part      ... to url_host_5th_last_part     labels right to left
//	url_host_registry_suffix    BYTE_ARRAY STRING, null           Public Suffix List, ICANN section
//	url_host_registered_domain  BYTE_ARRAY STRING, null           suffix + one label (bbc.co.uk)
//	url_host_private_suffix     BYTE_ARRAY STRING, null           PSL with private section (blogspot.com)
//	url_host_private_domain     BYTE_ARRAY STRING, null           that suffix + one label
//	url_host_name_reversed      BYTE_ARRAY STRING, null           com.example.www
//	url_protocol                BYTE_ARRAY STRING, null           scheme
//	url_port                    INT32, null                       explicit port
//	url_path, url_query         BYTE_ARRAY STRING, null           path, query
//	fetch_time                  INT64 TIMESTAMP(MILLIS, UTC)      timestamp
//	fetch_status                INT32 INT(16), -1 if absent       CDX s, CDXJ status
//	fetch_redirect              BYTE_ARRAY STRING, null           CDX r, CDXJ redirect
//	content_digest              BYTE_ARRAY STRING, null           CDX k, CDXJ digest
//	content_mime_type           BYTE_ARRAY STRING, null           CDX m, CDXJ mime
//	content_mime_detected       BYTE_ARRAY STRING, null           CDXJ mime-detected
//	content_charset             BYTE_ARRAY STRING, null           CDXJ charset (or encoding)
//	content_languages           BYTE_ARRAY STRING, null           CDXJ languages
//	content_truncated           BYTE_ARRAY STRING, null           CDXJ truncated
//	warc_filename               BYTE_ARRAY STRING, null           CDX g, CDXJ filename
//	warc_record_offset          INT64, -1 if absent               CDX V, CDXJ offset
//	warc_record_length          INT64, -1 if absent               CDX S, CDXJ length
//	warc_segment, crawl, subset BYTE_ARRAY STRING, null           crawl-data/CRAWL/segments/SEGMENT/SUBSET/
//	record_key                  BYTE_ARRAY STRING                 summary.RecordID (EOTCD)
//	organization                BYTE_ARRAY STRING                 Options.Org of warc_filename (EOTCD)
//	content_mime_category       BYTE_ARRAY STRING                 summary.CategorizeMIME
//	revisit                     BOOLEAN                           media type warc/revisit
//	fetch_time_digits           INT32 INT(8)                      digits of the timestamp
//	input_file, input_line      BYTE_ARRAY STRING, INT64          where the row was read
//
// Differences from Common Crawl's tables, on purpose: warc_record_offset and
// warc_record_length are 64-bit (as in the End of Term schema: WARC files
// pass 2 GiB); url and url_host_name may be NULL (warcinfo lines have no
// URL); fetch_status is -1 when absent, as in the End of Term schema;
// registered and private domains come from golang.org/x/net/publicsuffix, so
// a host under a top-level label the list does not know takes that label as
// its suffix (the list's implicit "*" rule), where crawler-commons gives
// NULL.
//
// Every data page is compressed with Zstandard (its fastest level), but
// fetch_time's, warc_record_offset's and warc_record_length's, which are
// stored uncompressed (their DELTA_BINARY_PACKED deltas are as random as
// the values in key order, and Zstandard gives them back at the same
// size), and url_surtkey's, url's, url_path's and url_query's, also
// uncompressed (DELTA_BYTE_ARRAY has taken the prefixes sorted keys
// share; Zstandard would take a third of the rest, about 7 % of the
// table, for about a tenth of the export's CPU). record_key's and content_digest's frames hold Huffman-coded
// literals without match finding: a hash has no repeats, only 5 bits of
// information per base-32 character, which Huffman codes take (the pages
// shrink to about 63 %) at a fraction of the CPU of Zstandard's levels,
// which leave such pages as they are.
// Strings that repeat
// (hosts, MIME types, file names) are dictionary-encoded; url_surtkey, url,
// url_path, content_digest and record_key are DELTA_BYTE_ARRAY (sorted
// keys share prefixes, digests their "sha1:", and the lengths of hashes
// pack to nothing); times, offsets and lengths DELTA_BINARY_PACKED. The package writes the pages itself, column by
// column (a dictionary column looks its value up only when it differs
// from the row before), in parquet-go's file layout for the schema of Row:
// version 2 data pages, a column index for the columns with bounds and an
// offset index for all. Row groups hold
// Options.RowGroupRows rows; keys, hosts, domains, times, statuses, media
// types, file names and organizations carry page bounds for pruning.
//
// # Partitions
//
// With Options.Partition a Table is a folder of Hive-style partitions, the
// layout every engine reads as a partitioned table:
//
//	export/year=2012/part-00000.parquet
//	export/year=2013/part-00000.parquet
//	export/crawl=CC-MAIN-2017-34/part-00000.parquet   (ByCrawl)
//	export/crawl=__HIVE_DEFAULT_PARTITION__/...       (rows without a crawl)
//
// DuckDB: read_parquet('export/**/*.parquet', hive_partitioning = true).
// The partition value is in the folder name; the files keep every column
// (crawl included), so a file read alone is complete.
//
// # The summary table
//
// SummaryWriter turns summaries (the cdx-summarize format; see package
// summary) into one row per summary file, key, period and MIME category:
// summary_file, key, year, month (NULL for yearly summaries), category,
// captures (the n_ counter) and bytes (the s_ counter); zero categories are
// left out. The summary's scheme and total counters, which count the same
// captures again and are not split by category, are columns of the
// period: n_http, s_http, n_https, s_https, n_total and s_total, the same
// on every category row of a period. Aggregate them per period, not per
// row:
//
//	SELECT summary_file, year, sum(n_https) AS n_https, sum(n_total) AS n_total
//	FROM (SELECT DISTINCT summary_file, key, year, month, n_https, n_total FROM summaries)
//	GROUP BY summary_file, year;
//
// # SQL
//
// The folder sql/ beside this file holds ready DuckDB queries. The tests of
// columnar/duckdbtest (a module of its own, so that DuckDB's cgo bindings
// never reach importers) run each file as written, with DuckDB, over exports
// of the shipped sample indexes (one file, and partitioned by year and by
// crawl), and compare every value with this module's own figures:
//
//   - daily.sql: the EOTCD daily series, per organization per day: captures,
//     bytes, 2xx captures and 2xx bytes, revisits apart; a record key seen
//     twice counts once. It equals summary.Daily's series (`summarize daily`).
//   - top_hosts.sql: the hosts with the most captures, with bytes and years.
//   - mime_shares.sql: each MIME category's share of each year's 2xx
//     captures and bytes, as summaries count them.
//   - summary_mime_shares.sql: the same from a summary table.
//
// Each query reads a view named captures (or summaries):
//
//	CREATE VIEW captures AS SELECT * FROM read_parquet('export/**/*.parquet', hive_partitioning = true);
//
// # Streaming and memory
//
// A Table reads its input once and holds one row group per open partition:
// per column, the page of values being filled (64 KiB before encoding)
// and the dictionary of the row group, while finished pages wait in
// temporary files beside the output. The dictionaries grow with the row
// group: one file at the default row group size peaked at 40 MiB resident
// on 16 M generated lines, 23 year partitions at 263 MiB (about 11 MiB per
// open partition; internal/bench/columnar). A partitioned export keeps at
// most Options.MaxOpenPartitions files open; past it, the least recently
// written one is finished and its next row starts a new part file; a
// smaller Options.RowGroupRows lowers the memory per partition. Nothing is
// visible at the output path until Commit.
package columnar
