package main

import (
	"context"
	"flag"
	"fmt"
	"io"
)

// run parses args and runs the demo (see the package comment), writing the
// report to stdout. It fails when routing lost a memento (recall below 1),
// when a lookup failed, or when the aggregator asking every archive found
// other mementos than the indexes hold.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	fs.Int64Var(&cfg.gen, "gen", 300, "CDXJ lines of each generated index (three, one per archive)")
	fs.Uint64Var(&cfg.seed, "seed", 1, "seed of the generated indexes and of the absent URI-Rs")
	fs.IntVar(&cfg.workers, "workers", 8, "lookups in flight at once")
	fs.IntVar(&cfg.rows, "rows", -1, "table rows to print (-1: all)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if cfg.gen < 0 || cfg.workers < 1 {
		return fmt.Errorf("-gen must be >= 0 and -workers >= 1")
	}
	sum, err := demo(ctx, cfg, stdout)
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
