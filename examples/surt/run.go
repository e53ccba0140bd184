package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/surt"
)

// errBadLines is wrapped by run's error when some lines failed.
var errBadLines = errors.New("lines could not be canonicalized")

// run is the whole program: parse args, stream stdin to stdout. Memory is
// bounded by -max-line plus the output buffer, whatever the input size.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("surt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "default", "base profile: default (Python surt 0.3.1 byte for byte) or fixed (repairs the standard's known defects)")
	scheme := fs.Bool("scheme", false, "keep the scheme: http://(org,example)/")
	trailingComma := fs.Bool("trailing-comma", false, "write a ',' after the last host label: org,example,)/")
	massage := fs.Bool("host-massage", true, "remove one leading www/wwwN label")
	reverseIP := fs.Bool("reverse-ip", true, "reverse the labels of dotted-quad IPv4 hosts")
	lowerQuery := fs.Bool("query-lowercase", true, "lower-case the query")
	hxpx := fs.Bool("hxpx", false, "write HxPx keys (the SURT cut at '?')")
	maxLine := fs.Int("max-line", 1<<20, "longest accepted input line in bytes; longer lines are reported and skipped")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: surt [flags] < urls > surts\n\nReads URLs one per line, writes one SURT per line in the same order.\n\n")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q: input is read from stdin", fs.Args())
	}
	if *maxLine < 1 {
		return cli.Usagef("-max-line must be positive, not %d", *maxLine)
	}
	var fix bool
	switch *profile {
	case "default":
	case "fixed":
		fix = true
	default:
		return cli.Usagef("unknown -profile %q (want default or fixed)", *profile)
	}
	p := surt.New(&surt.Options{FixDefects: fix, IncludeScheme: *scheme, TrailingComma: *trailingComma,
		NoHostMassage: !*massage, NoReverseIPAddr: !*reverseIP, NoQueryLowercase: !*lowerQuery})

	in := bufio.NewReaderSize(stdin, 64<<10)
	out := bufio.NewWriterSize(stdout, 64<<10)
	var key []byte
	lineNo, bad := 0, 0
	for {
		if lineNo%1024 == 0 {
			if err := ctx.Err(); err != nil {
				out.Flush()
				return err
			}
		}
		line, tooLong, err := readLine(in, *maxLine)
		if err == io.EOF && line == nil {
			break
		}
		if err != nil && err != io.EOF {
			out.Flush()
			return fmt.Errorf("reading line %d: %w", lineNo+1, err)
		}
		lineNo++
		key = key[:0]
		var cerr error
		if tooLong {
			cerr = fmt.Errorf("longer than %d bytes", *maxLine)
		} else {
			key, cerr = p.AppendCanonical(key, string(line))
		}
		if cerr != nil {
			bad++
			var se *surt.Error
			if errors.As(cerr, &se) {
				fmt.Fprintf(stderr, "surt: line %d, byte %d: %v\n", lineNo, se.Offset+1, se.Err)
			} else {
				fmt.Fprintf(stderr, "surt: line %d: %v\n", lineNo, cerr)
			}
			key = key[:0]
		} else if *hxpx {
			for i, c := range key {
				if c == '?' {
					key = key[:i]
					break
				}
			}
		}
		key = append(key, '\n')
		if _, werr := out.Write(key); werr != nil {
			return fmt.Errorf("writing output: %w", werr)
		}
		if err == io.EOF {
			break
		}
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d %w", bad, lineNo, errBadLines)
	}
	return nil
}

// readLine returns the next line without its "\n" or "\r\n". A line longer
// than max bytes is read to its end and discarded (tooLong is true), so
// memory stays bounded. At the end of input it returns io.EOF, with the
// last line if that line had no final newline.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		frag, e := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(frag) > max+2 { // +2: the line ending is not counted
				tooLong, buf = true, nil
			} else {
				buf = append(buf, frag...)
			}
		}
		if e == bufio.ErrBufferFull {
			continue
		}
		if e == io.EOF && len(buf) == 0 && !tooLong {
			return nil, false, io.EOF
		}
		if e != nil && e != io.EOF {
			return nil, false, e
		}
		n := len(buf)
		if n > 0 && buf[n-1] == '\n' {
			n--
			if n > 0 && buf[n-1] == '\r' {
				n--
			}
		}
		if !tooLong && n > max {
			tooLong = true
		}
		if tooLong {
			return []byte{}, true, e
		}
		return buf[:n], false, e
	}
}
