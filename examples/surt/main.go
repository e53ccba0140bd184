// Command surt reads URLs, one per line, on standard input and writes their
// SURT keys, one per line and in the same order, on standard output.
//
//	go run ./examples/surt < examples/surt/testdata/urls.txt
//	go run ./examples/surt -profile fixed -scheme < urls.txt
//
// A line that cannot be canonicalized (only white space, a bad port, or
// longer than -max-line bytes) gives an empty output line and a message on
// standard error naming its line number (and, for a bad port, the byte where
// the port starts, counted from 1 after the line's leading white space and
// without its TABs); the exit status is then 1. An empty line gives "-", as
// the standard does for an empty URL. Usage errors exit with status 2; -h
// prints the flags.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("surt", run) }
