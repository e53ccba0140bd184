package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/summary"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// env is what every sub-command gets.
type env struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger
	bar            *progressbar.ProgressBar
	server         *cdxj.ServerOptions // for CDX server inputs (-url-prefix, -domain, ...)
}

// run is the whole command; main only wires signals and exit codes.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr,
		log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	if len(args) > 0 {
		cs := e.commands()
		if c := cs.Find(args[0]); c != nil {
			return c.Run(args[1:])
		}
		if cli.IsWord(args[0]) {
			// A word that names no command is one mistyped, unless a file
			// of that name exists ("summarize index" reads ./index).
			if _, err := os.Lstat(args[0]); errors.Is(err, fs.ErrNotExist) {
				return cs.Unknown(args[0])
			}
		}
	}
	return e.summarize(args)
}

// commands is summarize's command table (the first argument, when it is
// none of these, is an index of the summarize command itself, unless it is
// a word such as "combine" and no file of that name exists: a mistyped
// command, a usage error); the usages are made from it.
func (e *env) commands() cli.Commands {
	return cli.Commands{
		{Name: "combine", Args: "[-yearly] [-compact] [-rekey none|domain|lasttwo] SUMMARY...",
			Summary: "one summary of several (counts of a key and period summed)", Run: e.combine},
		{Name: "overlap", Args: "[-noyear] [-format text|csv|json|tables] SUMMARY...",
			Summary: "keys that two or more summaries share, per period and combination", Run: e.overlap},
		{Name: "totals", Args: "[-noyear] [-nototal] [-format text|csv|json] [-noheader] SUMMARY...",
			Summary: "n_total and s_total per key and period, labelled", Run: e.totals},
		{Name: "csv", Args: "SUMMARY...",
			Summary: "every counter as one CSV table (a summary column first when there are several)", Run: e.csv},
		{Name: "daily", Args: "[-org-regexp RE | -org-map FILE] [-adjacent] [-strict] INDEX...",
			Summary: "captures, bytes and 2xx per day and organization, from indexes", Run: e.daily},
		{Name: "chart", Args: "-kind KIND -o OUT.svg|OUT.png [-tld TLD] [-noyear] [-org-regexp RE | -org-map FILE] [-url-prefix URL | -domain HOST] FILE...",
			Summary: "one chart as SVG or PNG (kinds: " + strings.Join(chartKinds, ", ") + ")", Run: e.chart},
		{Name: "report", Args: "[-o report.html] [-title TITLE] [-tld TLD]... [-daily DAILY]... [-index INDEX]... [-org-regexp RE | -org-map FILE] [-url-prefix URL | -domain HOST] [SUMMARY...]",
			Summary: "one self-contained HTML report: interactive charts, sortable tables, CSV", Run: e.report},
		{Name: "export", Args: "-o OUT.parquet [-row-group N] SUMMARY...",
			Summary: "summaries as one Parquet summary table (package columnar)", Run: e.export},
	}
}

// newFlags returns the FlagSet of the command name, whose usage is the
// command's line of the table and then more.
func (e *env) newFlags(name, more string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	line := "summarize " + name
	if c := e.commands().Find(name); c != nil {
		line += " " + c.Args
	}
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: %s\n", line)
		if more != "" {
			fmt.Fprintln(e.stderr, more)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parse reads the flags, before and after the file names
// ("summarize report A.sum B.sum -o report.html"); after "--" every
// argument is a file name. No file name is a usage error, naming the
// command ("summarize: combine: no input files").
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	files, err := parseArgs(fs, args)
	if err == nil && len(files) == 0 {
		if fs.Name() != "summarize" {
			return nil, cli.Usagef("%s: no input files (run with -h for usage)", fs.Name())
		}
		return nil, cli.Usagef("no input files (run with -h for usage)")
	}
	return files, err
}

// parseArgs is parse without the need for a file name.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var files []string
	for {
		if err := cli.ParseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			files = append(files, rest...)
			break
		}
		if len(rest) == 0 {
			break
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
	return files, nil
}

// startBar shows a byte progress bar over files on standard error when it
// is a terminal.
func (e *env) startBar(files []string) {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return
	}
	var total int64
	for _, name := range files {
		if st, err := os.Stat(name); err == nil {
			total += st.Size()
		}
	}
	e.bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(e.stderr), progressbar.OptionShowBytes(true),
		progressbar.OptionSetDescription("summarize"), progressbar.OptionClearOnFinish(), progressbar.OptionThrottle(100_000_000))
}

func (e *env) endBar() {
	if e.bar != nil {
		e.bar.Finish()
	}
}

// countingReader reports the bytes read to the progress bar and stops on
// cancellation.
type countingReader struct {
	ctx context.Context
	r   io.Reader
	bar *progressbar.ProgressBar
}

func (c *countingReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(p)
	if c.bar != nil && n > 0 {
		c.bar.Add64(int64(n))
	}
	return n, err
}

// open opens an input file (raw bytes, for the progress bar), decompressing
// a .gz name when gz is set.
func (e *env) open(name string, gz bool) (io.Reader, func() error, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, err
	}
	var r io.Reader = &countingReader{ctx: e.ctx, r: bufio.NewReaderSize(f, 1<<20), bar: e.bar}
	if gz && strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			f.Close()
			if err == io.EOF {
				err = errors.New("empty file, not gzip data")
			}
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		r = zr
	}
	return r, f.Close, nil
}

func (e *env) summarize(args []string) error {
	fs := flag.NewFlagSet("summarize", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: summarize [-fullhost] [-monthly] [-compact] [-compat] [-grouped] [-strict] INDEX...\n       summarize COMMAND [flags] ARGS")
		fmt.Fprintln(e.stderr, "A publishable summary (the cdx-summarize format) of the indexes; a COMMAND works on summaries.")
		e.commands().WriteUsage(e.stderr)
		fmt.Fprintln(e.stderr, `INDEX: a CDX or CDXJ file, plain or .gz, a ZipNum cluster by its .idx or folder, - for stdin, or a
CDX server's http(s) URL with -url-prefix URL or -domain HOST saying what to read.
"summarize COMMAND -h" lists the flags of a command. The flags of summarize itself:`)
		fs.PrintDefaults()
	}
	fullhost := fs.Bool("fullhost", false, "key by full host instead of registrable domain")
	monthly := fs.Bool("monthly", false, "periods by month (YYYYMM) instead of year")
	compact := fs.Bool("compact", false, "leave zero counters out")
	compat := fs.Bool("compat", false, "reproduce cdx-summarize at 1ed5568 exactly (keys, counts, quirks)")
	grouped := fs.Bool("grouped", false, "input grouped by key: write each key as soon as it ends (memory: one key)")
	strict := fs.Bool("strict", false, "stop at the first malformed line instead of skipping and counting it")
	minYear := fs.Int("min-year", 0, "first year counted (default 1991)")
	maxYear := fs.Int("max-year", 0, "last year counted (default next year)")
	server := cdxflag.Add(fs)
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if e.server, err = server(); err != nil {
		return cli.Usagef("%v", err)
	}
	// The range is checked with the defaults in force (1991, next year), so
	// that -min-year 3000 alone, which would count no capture, is refused too.
	lo, hi := *minYear, *maxYear
	if lo == 0 {
		lo = 1991
	}
	if hi == 0 {
		hi = time.Now().Year() + 1
	}
	if *minYear < 0 || *maxYear < 0 || lo > hi {
		return cli.Usagef("-min-year %d and -max-year %d: want 0 (the default: 1991, and next year) or years with min <= max", *minYear, *maxYear)
	}
	e.startBar(files)
	defer e.endBar()
	if *compat {
		c := summary.NewCompat(*monthly, *fullhost, e.log)
		for _, name := range files {
			r, closeFn, err := e.open(name, true)
			if err != nil {
				e.log.Warn("Error (dowork)", "file", name, "err", err) // the original goes on
				continue
			}
			err = c.ReadFile(name, r)
			closeFn()
			if ctxErr := e.ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			_ = err // reported through the logger, as the original does
		}
		e.endBar()
		if *compact {
			_, err = c.WriteCompactTo(e.stdout)
		} else {
			_, err = c.WriteTo(e.stdout)
		}
		return err
	}
	keys := summary.KeyDomain
	if *fullhost {
		keys = summary.KeyHost
	}
	out := bufio.NewWriterSize(e.stdout, 64<<10)
	s := summary.New(&summary.Options{Keys: keys, Monthly: *monthly, Compact: *compact, Grouped: *grouped, Out: out,
		MinYear: *minYear, MaxYear: *maxYear, Logger: e.log})
	err = e.eachIndex(files, func(src cdxj.Searcher) error { return s.ReadIndex(e.ctx, src, !*strict) },
		func() (int64, int64) {
			st := s.Stats()
			return st.Counted + st.NotOK + st.BadTimestamp, st.BadLines
		})
	if err != nil {
		return err
	}
	e.endBar()
	if _, err := s.WriteTo(out); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return err
	}
	st := s.Stats()
	if st.NotOK+st.BadTimestamp+st.BadLines+st.NoLength > 0 {
		fmt.Fprintf(e.stderr, "summarize: counted %d captures (%d of them without a valid length, counted as 0 bytes); not counted: %d not 2xx or unknown status, %d out-of-range timestamps, %d malformed lines\n",
			st.Counted, st.NoLength, st.NotOK, st.BadTimestamp, st.BadLines)
	}
	if st.BadLines > 0 {
		fmt.Fprintf(e.stderr, "summarize: the summary's !meta line records the %d malformed lines skipped; the first: %s\n",
			st.BadLines, strings.Join(st.BadExamples, "; "))
	}
	if st.BlankLines > 0 {
		fmt.Fprintf(e.stderr, "summarize: passed over %d blank lines (empty: no record)\n", st.BlankLines)
	}
	return nil
}

// eachIndex opens each index file with cdxj.Open (CDX and CDXJ files,
// plain or gzip, ZipNum clusters by their .idx or folder, "-" for stdin)
// and hands it to read. counts gives the records read and the bad lines
// skipped so far: an input that gave no record but bad lines could not be
// read as an index, and is an error, never an empty summary.
func (e *env) eachIndex(files []string, read func(cdxj.Searcher) error, counts func() (records, bad int64)) error {
	if err := cdxflag.Check(e.server, files); err != nil {
		return cli.Usagef("%v", err)
	}
	if e.server != nil {
		e.server.Logger = e.log
	}
	opt := &cdxj.OpenOptions{Stdin: e.stdin, Server: e.server}
	if e.bar != nil {
		opt.Progress = func(n int64) { e.bar.Add64(n) }
	}
	for _, name := range files {
		if err := e.ctx.Err(); err != nil {
			return err
		}
		ix, err := cdxj.Open(e.ctx, name, opt)
		if err != nil {
			return err
		}
		recs0, bad0 := counts()
		err = read(ix)
		ix.Close()
		if err != nil {
			return err
		}
		if recs, bad := counts(); recs == recs0 && bad > bad0 {
			return fmt.Errorf("%s: no line could be read as an index record (%d bad lines); is it an index?", name, bad-bad0)
		}
	}
	return nil
}

// readSummaries opens summary files one after another for fn.
func (e *env) eachFile(files []string, fn func(name string, r io.Reader) error) error {
	for _, name := range files {
		r, closeFn, err := e.open(name, true)
		if err != nil {
			return err
		}
		err = fn(name, r)
		closeFn()
		if err != nil {
			return err
		}
	}
	return nil
}

func (e *env) combine(args []string) error {
	fs := e.newFlags("combine", "")
	yearly := fs.Bool("yearly", false, "fold monthly periods into years")
	compact := fs.Bool("compact", false, "leave zero counters out")
	rekey := fs.String("rekey", "none", "re-key: none, domain (public suffix list) or lasttwo (the original's lvl2)")
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	opts := summary.CombineOptions{Yearly: *yearly, Compact: *compact}
	switch *rekey {
	case "none":
	case "domain":
		opts.Rekey = summary.RekeyDomain
	case "lasttwo":
		opts.Rekey = summary.RekeyLastTwo
	default:
		return cli.Usagef("-rekey %q: want none, domain or lasttwo", *rekey)
	}
	c := summary.NewCombiner(&opts)
	if err := e.eachFile(files, func(name string, r io.Reader) error { return c.AddSummary(r, name) }); err != nil {
		return err
	}
	_, err = c.WriteTo(e.stdout)
	return err
}

func (e *env) dailyFlags(fs *flag.FlagSet) func() (*summary.DailyOptions, error) {
	orgRE := fs.String("org-regexp", "", `organization = first capture group of this regular expression on the WARC file's base name; names it does not match count for "`+summary.UnmatchedOrg+`"`)
	orgMap := fs.String("org-map", "", `file of "PREFIX ORGANIZATION" lines for WARC file names`)
	adjacent := fs.Bool("adjacent", false, "sorted input: look for duplicates only among lines with the same key and timestamp")
	return func() (*summary.DailyOptions, error) {
		opts := &summary.DailyOptions{AdjacentDuplicates: *adjacent, Logger: e.log}
		switch {
		case *orgRE != "" && *orgMap != "":
			return nil, cli.Usagef("-org-regexp and -org-map exclude each other")
		case *orgRE != "":
			re, err := regexp.Compile(*orgRE)
			if err != nil {
				return nil, cli.Usagef("-org-regexp: %v", err)
			}
			opts.Org = summary.OrgByRegexp(re)
		case *orgMap != "":
			f, err := os.Open(*orgMap)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			if opts.Org, err = summary.ReadOrgMapping(f, *orgMap); err != nil {
				return nil, err
			}
		}
		return opts, nil
	}
}

func (e *env) buildDaily(files []string, opts *summary.DailyOptions, strict bool) (*summary.Daily, error) {
	d := summary.NewDaily(opts)
	e.startBar(files)
	defer e.endBar()
	err := e.eachIndex(files, func(src cdxj.Searcher) error { return d.ReadIndex(e.ctx, src, !strict) },
		func() (int64, int64) { st := d.Stats(); return st.Records, st.BadLines })
	return d, err
}

func (e *env) daily(args []string) error {
	fs := e.newFlags("daily", "")
	getOpts := e.dailyFlags(fs)
	strict := fs.Bool("strict", false, "stop at the first malformed line")
	server := cdxflag.Add(fs)
	files, err := parse(fs, args)
	if err != nil {
		return err
	}
	if e.server, err = server(); err != nil {
		return cli.Usagef("%v", err)
	}
	opts, err := getOpts()
	if err != nil {
		return err
	}
	d, err := e.buildDaily(files, opts, *strict)
	if err != nil {
		return err
	}
	if _, err := d.WriteTo(e.stdout); err != nil {
		return err
	}
	st := d.Stats()
	fmt.Fprintf(e.stderr, "summarize daily: %d records (%d without a valid length, counted as 0 bytes), %d revisits apart, %d duplicates, %d bad lines\n", st.Records, st.NoLength, st.Revisits, st.Duplicates, st.BadLines)
	if st.BadLines > 0 {
		fmt.Fprintf(e.stderr, "summarize daily: the series' !meta line records the %d bad lines skipped; the first: %s\n",
			st.BadLines, strings.Join(st.BadExamples, "; "))
	}
	if st.BlankLines > 0 {
		fmt.Fprintf(e.stderr, "summarize daily: passed over %d blank lines (empty: no record)\n", st.BlankLines)
	}
	return nil
}
