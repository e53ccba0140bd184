package main

import (
	"context"
	"flag"
	"fmt"
	"github.com/mementokit/mementokit/internal/cli"
	"io"

	"github.com/mementokit/mementokit/internal/demo"
)

// run parses args and runs the demo (package internal/demo), writing the
// report to stdout. It fails when routing lost a memento (recall below 1),
// when a lookup failed, or when the aggregator asking every archive found
// other mementos than the indexes hold.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := demo.DefaultConfig()
	fs.Int64Var(&cfg.Gen, "gen", cfg.Gen, "CDXJ lines of each generated index (three, one per archive)")
	fs.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of the generated indexes and of the absent URI-Rs")
	fs.IntVar(&cfg.Workers, "workers", cfg.Workers, "lookups in flight at once")
	fs.IntVar(&cfg.Rows, "rows", cfg.Rows, "table rows to print (-1: all)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: demo [flags]\n\nStarts three Memento archives on 127.0.0.1 serving the shipped real indexes plus generated ones, an aggregator routing by their MementoMaps and one asking every archive, looks up every URI-R held and as many absent, and prints the rows and totals (upstream requests saved, recall).")
		fs.PrintDefaults()
	}
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("unexpected argument %q (run with -h for usage)", fs.Arg(0))
	}
	if cfg.Gen < 0 || cfg.Workers < 1 {
		return cli.Usagef("-gen must be >= 0 and -workers >= 1")
	}
	sum, err := demo.Run(ctx, cfg, stdout)
	if err != nil {
		return err
	}
	switch {
	case sum.Failures > 0:
		return fmt.Errorf("%d lookups failed", sum.Failures)
	case sum.MementosAll != sum.MementosTruth:
		return fmt.Errorf("asking every archive found %d mementos, the indexes hold %d", sum.MementosAll, sum.MementosTruth)
	case sum.Recall < 1:
		return fmt.Errorf("routing lost mementos: recall %.4f", sum.Recall)
	}
	return nil
}
