package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/summary"
)

// checkFormat settles the output format and rejects flags that do not fit
// it.
func checkFormat(o *options) error {
	if o.format == "" {
		o.format = "cdxj"
		if strings.HasSuffix(strings.ToLower(o.output), ".parquet") || (o.partition != "" && o.partition != "none") {
			o.format = "parquet"
		}
	}
	switch o.format {
	case "cdxj":
		if o.partition != "none" || o.orgRegexp != "" || o.orgMap != "" {
			return cli.Usagef("-partition, -org-regexp and -org-map apply to Parquet output (-format parquet)")
		}
		return nil
	case "parquet":
	default:
		return cli.Usagef("-format %q: want cdxj or parquet", o.format)
	}
	if o.output == "" || o.output == "-" {
		return cli.Usagef("Parquet output needs -o OUT.parquet (or a folder with -partition)")
	}
	if o.sort {
		return cli.Usagef("-sort applies to CDXJ output; a Parquet table keeps the input order (sort the input first)")
	}
	if _, err := columnar.ParsePartition(o.partition); err != nil {
		return cli.AsUsage(err)
	}
	if o.rowGroup < 1 {
		return cli.Usagef("-row-group must be positive")
	}
	if o.orgRegexp != "" && o.orgMap != "" {
		return cli.Usagef("-org-regexp and -org-map exclude each other")
	}
	return nil
}

// orgFunc builds the organization rule of -org-regexp or -org-map (nil:
// summary.OrgByPrefix).
func orgFunc(o options) (summary.OrgFunc, error) {
	switch {
	case o.orgRegexp != "":
		re, err := regexp.Compile(o.orgRegexp)
		if err != nil {
			return nil, cli.Usagef("-org-regexp: %w", err)
		}
		return summary.OrgByRegexp(re), nil
	case o.orgMap != "":
		f, err := os.Open(o.orgMap)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return summary.ReadOrgMapping(f, o.orgMap)
	}
	return nil, nil
}

// runParquet exports every input to one capture table.
func runParquet(ctx context.Context, o options, stdin io.Reader, stderr io.Writer) error {
	part, _ := columnar.ParsePartition(o.partition)
	org, err := orgFunc(o)
	if err != nil {
		return err
	}
	for _, in := range o.files {
		if in != "-" && sameFile(in, o.output) {
			return cli.Usagef("-o %s is also an input", o.output)
		}
	}
	t, err := columnar.Create(o.output, &columnar.Options{RowGroupRows: o.rowGroup, Partition: part, Org: org})
	if err != nil {
		return err
	}
	defer t.Close()
	for _, name := range o.files {
		if err := exportOne(ctx, t, name, stdin, o); err != nil {
			return err
		}
	}
	if err := t.Commit(); err != nil {
		return err
	}
	st := t.Stats()
	fmt.Fprintf(stderr, "cdxj: wrote %s to %s (%s, %s without a valid length, %s without a valid status); skipped %s\n",
		count.Of(int(st.Rows), "row", "rows"), o.output, count.Of(st.Files, "Parquet file", "Parquet files"),
		count.Of(int(st.NoLength), "row", "rows"), count.Of(int(st.NoStatus), "row", "rows"), count.Of(int(st.BadLines), "bad line", "bad lines"))
	if st.BlankLines > 0 {
		fmt.Fprintf(stderr, "cdxj: passed over %d blank lines (empty: no record)\n", st.BlankLines)
	}
	return nil
}

// exportOne adds one input (a file, a ZipNum cluster by its .idx or
// folder, a CDX server URL, or "-" for stdin; see cdxj.Open) to the table.
// A bad line's error reads "FILE:LINE:COLUMN: cause", as on the CDXJ path.
func exportOne(ctx context.Context, t *columnar.Table, name string, stdin io.Reader, o options) error {
	ix, err := cdxj.Open(ctx, name, &cdxj.OpenOptions{Stdin: stdin, MaxLineSize: o.maxLine, Server: o.server})
	if err != nil {
		return err
	}
	defer ix.Close()
	label := name
	if name == "-" {
		label = "stdin"
	}
	return fileLine(t.ReadIndex(ctx, ix, label, o.skipBad))
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}
