// Command cdxj converts web archive index files (CDXJ, classic CDX in any
// layout, gzip-compressed or not) to CDXJ on standard output.
//
// Usage:
//
//	cdxj [-sort] [-skip-bad] [-mem BYTES] [-tmpdir DIR] [-o OUT] [FILE...]
//
// With no FILE, or with "-", it reads standard input. Keys that are not
// SURTs (wget's CDX, a CDXJ keyed by URL) are recomputed from the original
// URL with package surt (from the key itself when it is a URL and the record
// names no original URL); header lines are not copied. No column is lost: a
// legend column without a well-known CDXJ name is written under its legend
// name (wget's u, the WARC record ID, as "warc_record_id"; see
// cdxj.LegendName). -sort sorts the output
// byte-wise (as LC_ALL=C sort does) in bounded memory with package
// internal/extsort: about -mem bytes of distinct lines (plus 16 bytes each)
// are sorted at a time and spilled to temporary files in -tmpdir, which are
// then merged. A bad line stops the command with its file and line
// number and exit status 1, unless -skip-bad, which passes over bad lines
// and reports their count on standard error. Blank (empty) lines hold no
// record and stop nothing: their count is reported on standard error
// ("passed over N blank lines"); a line of spaces is a bad line. With -o the output goes to a
// temporary file beside OUT, renamed to OUT only when complete, with the
// mode of the file it replaces (else 0644); OUT may not be one of the inputs,
// and "-o -" is standard output.
//
// With -o OUT.parquet (or -format parquet) the records go to a Parquet
// capture table instead (package columnar: Common Crawl's cc-index-table
// columns plus organization, MIME category, revisit flag and record key),
// one file, or with -partition year|crawl a folder of Hive-style partitions
// (OUT/year=2014/part-00000.parquet). -org-regexp and -org-map set the
// organization rule as for summarize daily; -row-group sets the rows per
// row group. The table is written under a temporary name and renamed when
// complete; bad lines stop the export or, with -skip-bad, are counted.
//
//	cdxj -o OUT.parquet [-partition none|year|crawl] [-row-group N] [-org-regexp RE | -org-map FILE] [-skip-bad] [FILE...]
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("cdxj", run) }
