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
// byte-wise (as LC_ALL=C sort does) in bounded memory: about -mem bytes of
// lines are sorted at a time and spilled to temporary files in -tmpdir,
// which are then merged. A bad line stops the command with its file and line
// number and exit status 1, unless -skip-bad, which passes over bad lines
// and reports their count on standard error. With -o the output goes to a
// temporary file beside OUT, renamed to OUT only when complete, with the
// mode of the file it replaces (else 0644); OUT may not be one of the inputs,
// and "-o -" is standard output.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("cdxj", run) }

// usageError marks a command-line mistake (exit status 2).
type usageError struct{ error }

// Usage marks the error as a command-line mistake: exit status 2 (internal/cli).
func (usageError) Usage() bool { return true }
