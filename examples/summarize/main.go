// Command summarize writes publishable summaries of CDX/CDXJ indexes in the
// cdx-summarize format, and combines, compares, exports and charts them.
//
//	summarize [-fullhost] [-monthly] [-compact] [-compat] [-grouped] [-strict] FILE...
//	summarize combine [-yearly] [-compact] [-rekey none|domain|lasttwo] SUMMARY...
//	summarize overlap [-noyear] [-csv] SUMMARY...
//	summarize totals [-noyear] [-nototal] SUMMARY...
//	summarize csv SUMMARY...
//	summarize daily [-org-regexp RE | -org-map FILE] [-adjacent] [-strict] FILE...
//	summarize chart -kind html|domains|daily -o OUT.svg|OUT.png FILE...
//
// Results go to standard output (charts to -o); messages and, on a
// terminal, a progress bar go to standard error. Index files ending in .gz
// are decompressed. Usage errors exit with status 2, other errors with 1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // -h: usage was printed
		}
		fmt.Fprintln(os.Stderr, "summarize:", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}
