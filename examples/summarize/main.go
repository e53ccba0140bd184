// Command summarize writes publishable summaries of CDX/CDXJ indexes in the
// cdx-summarize format, and combines, compares, exports and charts them.
//
//	summarize [-fullhost] [-monthly] [-compact] [-compat] [-grouped] [-strict] FILE...
//	summarize combine [-yearly] [-compact] [-rekey none|domain|lasttwo] SUMMARY...
//	summarize overlap [-noyear] [-format text|csv|json|tables] SUMMARY...
//	summarize totals [-noyear] [-nototal] [-format text|csv|json] [-noheader] SUMMARY...
//	summarize csv SUMMARY...
//	summarize daily [-org-regexp RE | -org-map FILE] [-adjacent] [-strict] FILE...
//	summarize chart -kind KIND -o OUT.svg|OUT.png [-tld TLD] [-noyear] [-org-regexp RE | -org-map FILE] FILE...
//
//	summarize report [-o report.html] [-title TITLE] [-tld TLD]... [-daily DAILY]... [-index INDEX]... [SUMMARY...]
//
// Chart kinds: bytes-per-type, types-by-captures, types-by-bytes (one
// summary, or the sum of several), captures-per-year, domains-per-year,
// domains-by-letter, overlap (one or more summaries, compared), and
// daily-captures, daily-bytes, daily-2xx (from index files). Charts fold
// all but the 7 largest series into "other", write counts and bytes in
// human units, and break daily lines at missing days.
//
// A report is one HTML file that opens from disk without a network: the
// same charts, interactive (hover for values, zoom on date axes), sortable
// tables, and the numbers behind each as CSV. Flags may follow the file
// names.
//
// Results go to standard output (charts to -o); messages and, on a
// terminal, a progress bar go to standard error. Index files ending in .gz
// are decompressed. Usage errors exit with status 2, other errors with 1.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("summarize", run) }
