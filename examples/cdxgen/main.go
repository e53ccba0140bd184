// Command cdxgen writes a synthetic, sorted, SURT-keyed CDXJ index whose
// shape follows the Arquivo.pt statistics of the MementoMap paper (see
// internal/cdxgen), or lookup URIs for it.
//
//	cdxgen -n 1000000 -seed 1 > index.cdxj
//	cdxgen -n 1000000 -seed 1 -lookups 100000 -held 0.0164 > lookups.txt
package main

import (
	"github.com/mementokit/mementokit/internal/cli"

	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mementokit/mementokit/internal/cdxgen"
)

func main() { cli.Main("cdxgen", run) }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cdxgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int64("n", 100000, "number of CDXJ lines of the index")
	seed := fs.Uint64("seed", 1, "random seed (the same seed gives the same index)")
	lookups := fs.Int("lookups", 0, "instead of the index, write this many lookup URIs for it")
	held := fs.Float64("held", 0.0164, "share of lookup URIs held by the index (the paper's logs: 1.64%)")
	asSURT := fs.Bool("surt", false, "write lookup keys as SURTs instead of URLs")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: cdxgen [-n LINES] [-seed S] [-lookups N [-held SHARE] [-surt]]\n")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected arguments %q (run with -h for usage)", fs.Args())
	}
	if *n < 0 || *lookups < 0 || *held < 0 || *held > 1 {
		return cli.Usagef("-n and -lookups must be ≥ 0 and -held in [0, 1]")
	}
	cfg := cdxgen.Config{Lines: *n, Seed: *seed}
	w := &ctxWriter{ctx: ctx, w: stdout}
	if *lookups > 0 {
		_, err := cdxgen.WriteLookups(w, cfg, cdxgen.LookupConfig{N: *lookups, Held: *held, SURT: *asSURT})
		return err
	}
	_, err := cdxgen.New(cfg).Write(w)
	return err
}

// ctxWriter stops writing once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c *ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
