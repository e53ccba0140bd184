package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/columnar"
	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/extsort"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

// options are the command-line settings.
type options struct {
	sort    bool
	skipBad bool
	mem     int64
	tmpdir  string
	maxLine int
	output  string
	files   []string
	server  *cdxj.ServerOptions
	skips   *skipLog // names the first lines -skip-bad leaves out
	// Parquet output (see parquet.go).
	format    string
	partition string
	rowGroup  int
	orgRegexp string
	orgMap    string
}

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("cdxj", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&o.sort, "sort", false, "sort the output byte-wise, in bounded memory")
	fs.BoolVar(&o.skipBad, "skip-bad", false, "pass over bad lines and report their count on stderr, instead of stopping at the first")
	o.mem = mementomap.DefaultSortMemory // one sort memory, as mementomap build's
	fs.Var((*flagvalue.Bytes)(&o.mem), "mem", "with -sort: sort memory before spilling runs to -tmpdir (96MiB, 1GiB, or bytes)")
	fs.StringVar(&o.tmpdir, "tmpdir", os.TempDir(), "with -sort: folder for the temporary sorted runs")
	fs.IntVar(&o.maxLine, "max-line", cdxj.DefaultMaxLineSize, "longest input line accepted, in bytes")
	fs.StringVar(&o.output, "o", "", "write to this file (through a temporary file in its folder, renamed when complete) instead of stdout (\"-\" is stdout)")
	server := cdxflag.Add(fs)
	fs.StringVar(&o.format, "format", "", "output format: cdxj, or parquet (the capture table of package columnar); default parquet when -o ends in .parquet or -partition is set, else cdxj")
	fs.StringVar(&o.partition, "partition", "none", "parquet: none (one file), year or crawl (OUT is a folder of Hive-style partitions, year=2014/part-00000.parquet)")
	fs.IntVar(&o.rowGroup, "row-group", columnar.DefaultRowGroupRows, "parquet: rows per row group")
	fs.StringVar(&o.orgRegexp, "org-regexp", "", "parquet: organization = first capture group of this regular expression on the WARC file name (as summarize daily)")
	fs.StringVar(&o.orgMap, "org-map", "", `parquet: file of "PREFIX ORGANIZATION" lines for WARC file names (as summarize daily)`)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: cdxj [-sort] [-skip-bad] [-mem BYTES] [-tmpdir DIR] [-o OUT] [-url-prefix URL | -domain HOST] [INDEX...]\n       cdxj -o OUT.parquet [-partition none|year|crawl] [-row-group N] [-org-regexp RE | -org-map FILE] [-skip-bad] [INDEX...]\n\nConverts CDX, CDXJ and their .gz forms, ZipNum clusters (their .idx, or their folder) and CDX servers (an http(s) URL; -url-prefix or -domain says what to read) to CDXJ on stdout (stdin when no INDEX or \"-\").")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return o, err
	}
	if o.mem < 1 || o.maxLine < 1 {
		return o, cli.Usagef("-mem and -max-line must be positive")
	}
	o.files = fs.Args()
	if len(o.files) == 0 {
		o.files = []string{"-"}
	}
	var err error
	if o.server, err = server(); err == nil {
		err = cdxflag.Check(o.server, o.files)
	}
	if err != nil {
		return o, cli.AsUsage(err)
	}
	return o, checkFormat(&o)
}

// lineSink receives converted CDXJ lines, newline included.
type lineSink interface {
	add(line []byte) error
}

type writerSink struct{ w *bufio.Writer }

func (s writerSink) add(line []byte) error {
	_, err := s.w.Write(line)
	return err
}

// sortSink adds each line, without its newline, to an external sort.
type sortSink struct{ s *extsort.Sorter }

func (k sortSink) add(line []byte) error {
	return k.s.Add(bytes.TrimSuffix(line, []byte("\n")), 1)
}

// writeSorted writes the lines of s in order, each as often as it was added:
// byte-identical to LC_ALL=C sort of the same lines.
func writeSorted(ctx context.Context, s *extsort.Sorter, w *bufio.Writer) error {
	n := 0
	return s.Each(func(line []byte, count uint64) error {
		for range count {
			if n++; n%8192 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			w.Write(line)
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	if o.format == "parquet" {
		return runParquet(ctx, o, stdin, stderr)
	}
	var outFile *outputFile
	if o.output != "" && o.output != "-" {
		if outFile, err = createOutput(o.output, o.files); err != nil {
			return err
		}
		defer outFile.abort()
		stdout = outFile
	}
	out := bufio.NewWriterSize(stdout, 256<<10)
	var sink lineSink = writerSink{out}
	var sorter *extsort.Sorter
	if o.sort {
		sorter = extsort.New(o.mem, o.tmpdir)
		defer sorter.Close()
		sink = sortSink{sorter}
	}
	var skipped, blank int64
	o.skips = &skipLog{w: stderr}
	for _, name := range o.files {
		n, err := convert(ctx, name, stdin, sink, o, &blank)
		skipped += n
		if err != nil {
			return err
		}
	}
	if sorter != nil {
		if err := writeSorted(ctx, sorter, out); err != nil {
			return err
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if outFile != nil {
		if err := outFile.commit(); err != nil {
			return err
		}
	}
	if o.skipBad {
		fmt.Fprintf(stderr, "cdxj: skipped %d bad lines\n", skipped)
	}
	if blank > 0 {
		fmt.Fprintf(stderr, "cdxj: passed over %d blank lines (empty: no record)\n", blank)
	}
	return nil
}

// convert reads one input (a file, a ZipNum cluster by its .idx or folder,
// or "-" for stdin; see cdxj.Open) and sends its records, as CDXJ lines, to
// sink. It returns the number of bad lines skipped, and adds the blank
// lines passed over to *blank.
func convert(ctx context.Context, name string, stdin io.Reader, sink lineSink, o options, blank *int64) (skipped int64, err error) {
	ix, err := cdxj.Open(ctx, name, &cdxj.OpenOptions{Stdin: stdin, MaxLineSize: o.maxLine, Server: o.server})
	if err != nil {
		return 0, err
	}
	defer ix.Close()
	var line, key []byte
	var bad int64
	i := 0
	for rec, err := range ix.Records(cdxj.Query{Blank: blank}) {
		if i++; i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return bad, err
			}
		}
		if err == nil {
			key, err = columnar.SURTKey(key[:0], rec)
			if err == nil {
				line, err = cdxj.AppendLine(line[:0], key, rec)
			}
			if err != nil {
				err = located(rec, err)
			}
		}
		if err != nil {
			var pe *cdxj.ParseError
			if o.skipBad && errors.As(err, &pe) {
				bad++
				o.skips.note(err)
				continue
			}
			return bad, fileLine(err)
		}
		if err := sink.add(line); err != nil {
			return bad, err
		}
	}
	return bad, ctx.Err()
}

// skipLog writes the first skipped lines to w, each as FILE:LINE: cause,
// so that -skip-bad says which lines it left out.
type skipLog struct {
	w io.Writer
	n int
}

// skipShown is how many skipped lines a run names; the count covers all.
const skipShown = 10

func (s *skipLog) note(err error) {
	if s == nil || s.w == nil {
		return
	}
	if s.n++; s.n <= skipShown {
		fmt.Fprintf(s.w, "cdxj: skipped %v\n", fileLine(err))
	} else if s.n == skipShown+1 {
		fmt.Fprintf(s.w, "cdxj: skipped more bad lines (the count follows)\n")
	}
}

// located places err, a problem with rec, at rec's line (a
// *cdxj.ParseError), unless it is such an error already.
func located(rec *cdxj.Record, err error) error {
	var pe *cdxj.ParseError
	if errors.As(err, &pe) {
		return err
	}
	return rec.ParseError(err)
}

// fileLine writes a bad line's error as "FILE:LINE:" (and ":COLUMN" when
// known), the form compilers and editors understand; other errors are
// returned as they are (they name their source).
func fileLine(err error) error {
	var pe *cdxj.ParseError
	if !errors.As(err, &pe) || pe.Line == 0 {
		return err
	}
	src := pe.Source
	if src == "" {
		src = "input"
	}
	if pe.Column > 0 {
		return fmt.Errorf("%s:%d:%d: %w", src, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s:%d: %w", src, pe.Line, pe.Err)
}

// outputFile is a temporary file beside the output path (internal/atomicfile:
// without a name where the system allows it, so that even a killed run
// leaves nothing), renamed onto it by commit, so that an interrupted run
// never leaves a half-written output.
type outputFile struct {
	*atomicfile.File
}

// createOutput creates the temporary file for path, refusing a path that is
// one of the inputs (inputs are never replaced). The output gets the mode
// of the file it replaces, else rw-r--r--, not the owner-only mode of a
// temporary file: other users (an archive's replay server) read indexes.
func createOutput(path string, inputs []string) (*outputFile, error) {
	if st, err := os.Stat(path); err == nil {
		for _, in := range inputs {
			if in == "-" {
				continue
			}
			if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
				return nil, cli.Usagef("-o %s is also an input", path)
			}
		}
	}
	f, err := atomicfile.Create(path, nil)
	if err != nil {
		return nil, err
	}
	return &outputFile{File: f}, nil
}

func (o *outputFile) commit() error { return o.Commit() }

// abort removes the temporary file unless commit succeeded.
func (o *outputFile) abort() { o.Close() }
