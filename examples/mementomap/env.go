package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// env carries what every command needs.
type env struct {
	ctx            context.Context
	stdin          io.Reader
	stdout, stderr io.Writer
	log            *slog.Logger
	progress       bool
	server         *cdxj.ServerOptions // for CDX server inputs (-url-prefix, -domain, ...)
}

// indexFlags is flags plus the CDX server input flags of package cdxflag
// (-url-prefix, -domain, ...), for commands that read indexes: its parse
// also sets e.server from them.
func (e *env) indexFlags(name, args string) (*flag.FlagSet, func([]string) error) {
	fs, parse := e.flags(name, args)
	server := cdxflag.Add(fs)
	return fs, func(a []string) error {
		if err := parse(a); err != nil {
			return err
		}
		var err error
		e.server, err = server()
		return err
	}
}

// flags returns a FlagSet with the common flags (-v, -q, -progress) and
// the function that parses it (cli.ParseFlags) and applies them.
func (e *env) flags(name, args string) (*flag.FlagSet, func([]string) error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	verbose := fs.Bool("v", false, "log debug messages")
	quiet := fs.Bool("q", false, "log warnings and errors only")
	progress := fs.String("progress", "auto", "progress bar on standard error: auto (when a terminal), on, off")
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: mementomap %s [flags] %s\n", name, args)
		fs.PrintDefaults()
	}
	parse := func(a []string) error {
		if err := cli.ParseFlags(fs, a); err != nil {
			return err
		}
		level := slog.LevelInfo
		if *verbose {
			level = slog.LevelDebug
		}
		if *quiet {
			level = slog.LevelWarn
		}
		e.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
		switch *progress {
		case "on":
			e.progress = true
		case "off":
			e.progress = false
		case "auto":
			f, ok := e.stderr.(*os.File)
			e.progress = ok && term.IsTerminal(int(f.Fd())) && !*quiet
		default:
			return cli.Usagef("-progress must be auto, on or off, not %q", *progress)
		}
		return nil
	}
	return fs, parse
}

// bar returns a byte progress bar for total bytes (-1 when unknown), or nil.
func (e *env) bar(total int64, what string) *progressbar.ProgressBar {
	if !e.progress {
		return nil
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// counting passes reads through and moves the progress bar.
type counting struct {
	r   io.Reader
	bar *progressbar.ProgressBar
}

func (c *counting) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.bar != nil && n > 0 {
		c.bar.Add64(int64(n))
	}
	return n, err
}

// openInput opens the map file path ("-" is stdin) for one sequential
// pass, decompressing gzip (cdxj.NewDecompressor), with the progress bar
// counting the bytes read. Reads end with the run's context
// (internal/cli.Open: a signal stops a read that waits on a FIFO or a
// pipe), and the reader has the file's name, for errors.
func (e *env) openInput(path string, bar *progressbar.ProgressBar) (io.ReadCloser, error) {
	if path == "-" {
		rc, err := cdxj.NewDecompressor(&counting{r: cli.Reader(e.ctx, e.stdin), bar: bar})
		if err != nil {
			return nil, fmt.Errorf("standard input: %w", err)
		}
		return &readCloser{Reader: rc, close: rc.Close, name: "standard input"}, nil
	}
	f, err := cli.Open(e.ctx, path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	rc, err := cdxj.NewDecompressor(&counting{r: f, bar: bar})
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r := &readCloser{Reader: rc, close: f.Close, name: path}
	if fi.Mode().IsRegular() {
		r.unchanged = func() error {
			now, err := f.Stat()
			if err != nil {
				return err
			}
			if now.Size() != fi.Size() || !now.ModTime().Equal(fi.ModTime()) {
				return fmt.Errorf("%s changed while it was read (%d bytes, modified %s, when opened; %d bytes, modified %s, now): its output is not written",
					path, fi.Size(), fi.ModTime().UTC().Format(time.RFC3339Nano), now.Size(), now.ModTime().UTC().Format(time.RFC3339Nano))
			}
			return nil
		}
	}
	return r, nil
}

type readCloser struct {
	io.Reader
	close     func() error
	name      string
	unchanged func() error // nil, or reports a change of the file since it was opened
}

func (r *readCloser) Close() error { return r.close() }

// checkUnchanged returns err, or an error saying so when an input is a
// file that changed (its size or modification time) since it was opened:
// a map made from a file cut or rewritten under the reader could miss
// keys, and the change explains an error it caused (a cut line).
func checkUnchanged(err error, rs ...io.Reader) error {
	for _, r := range rs {
		if rc, ok := r.(*readCloser); ok && rc.unchanged != nil {
			if cerr := rc.unchanged(); cerr != nil {
				if err != nil {
					return fmt.Errorf("%w (and then: %v)", cerr, err)
				}
				return cerr
			}
		}
	}
	return err
}

// Name returns the input's name, which errors of package mementomap use.
func (r *readCloser) Name() string { return r.name }

// totalSize sums the sizes of the files, the bytes the progress bar
// counts; stdin, folders and secondary indexes (ZipNum clusters, whose
// parts are elsewhere) make it -1, a spinner.
func totalSize(paths []string) int64 {
	var n int64
	for _, p := range paths {
		if p == "-" || strings.HasSuffix(p, ".idx") || strings.HasSuffix(p, ".summary") {
			return -1
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		n += fi.Size()
	}
	return n
}

// writeOutput writes through fn to path: "-" or "" is stdout; a file is
// written to a temporary file in its folder (internal/atomicfile: without
// a name where the system allows it, so that even a killed run leaves
// nothing), synced and renamed into place only when fn succeeds, so an
// interrupted run never leaves a partial map.
func (e *env) writeOutput(path string, fn func(w io.Writer) error) error {
	if path == "" || path == "-" {
		return fn(e.stdout)
	}
	f, err := atomicfile.Create(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := fn(f); err != nil {
		return err
	}
	if e.ctx.Err() != nil {
		// Interrupted after the last read: leave no output.
		return fmt.Errorf("%s not written: %w", path, context.Cause(e.ctx))
	}
	return f.Commit()
}

// intList parses the -status value "2,3" (or "2xx,3xx") into [2 3]; a
// field that is not an HTTP status class, 1 to 5, is a usage error naming
// it (a class 7 would keep no record and build an empty map).
func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSuffix(f, "xx"))
		if err != nil || n < 1 || n > 5 {
			return nil, cli.Usagef("-status %q: want HTTP status classes, 1 to 5, such as 2 or 2,3", f)
		}
		out = append(out, n)
	}
	return out, nil
}

func strList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// checkOutput refuses an output path that names one of the inputs (the
// same file, through any path, link or symlink): writing it would replace
// an input, and inputs are never modified. "-" and "" (standard output)
// and outputs that do not exist yet pass.
func checkOutput(cmd, out string, ins ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	fo, err := os.Stat(out)
	if err != nil {
		return nil // a new file: creating and committing it report real errors
	}
	for _, in := range ins {
		if in == "-" {
			continue
		}
		if fi, err := os.Stat(in); err == nil && os.SameFile(fo, fi) {
			return fmt.Errorf("%s: output %s is the input %s; write to another file", cmd, out, in)
		}
	}
	return nil
}

// checkDistinctOutputs refuses two output flags naming one file (by
// path, or by os.SameFile when it exists): the second write would replace
// the first. outs alternates flag names and paths; "" and "-" are skipped.
func checkDistinctOutputs(cmd string, outs ...string) error {
	for i := 0; i+1 < len(outs); i += 2 {
		a := outs[i+1]
		if a == "" || a == "-" {
			continue
		}
		for j := i + 2; j+1 < len(outs); j += 2 {
			b := outs[j+1]
			if b == "" || b == "-" {
				continue
			}
			same := filepath.Clean(a) == filepath.Clean(b)
			if !same {
				fa, errA := os.Stat(a)
				fb, errB := os.Stat(b)
				same = errA == nil && errB == nil && os.SameFile(fa, fb)
			}
			if same {
				return fmt.Errorf("%s: %s and %s both name %s; give each output its own file", cmd, outs[i], outs[j], b)
			}
		}
	}
	return nil
}
