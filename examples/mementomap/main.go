// Command mementomap builds, compacts, looks up, evaluates, merges, checks
// and describes MementoMaps (package mementomap; internal/spec/MEMENTOMAP.md).
//
//	mementomap build [-o OUT] [-id URI] [-status 2] [-mime text/html] INDEX...
//	mementomap build -domain example.org https://index.example.org/coll/cdx
//	mementomap compact [-hcf W] [-pcf W] [-fit PROFILE.json] IN OUT
//	mementomap lookup MAP [URI|SURT...]      (stdin when none)
//	mementomap eval [-lookups FILE] MAP INDEX...
//	mementomap merge [-o OUT] MAP1 MAP2 [MAP...]
//	mementomap check MAP
//	mementomap stats MAP
//	mementomap profile [-o OUT.json] [filters] INDEX...
//	mementomap logs [-lookups OUT] [-index INDEX]... [-json] [-html OUT.html] LOG...
//
// Outputs are written to a temporary file in the target's folder and
// renamed into place; "-" means standard input or output. A progress bar is
// drawn on standard error when it is a terminal; messages go through slog.
package main

import (
	"github.com/mementokit/mementokit/internal/cli"

	"context"
	"errors"
	"fmt"
	"io"
)

func main() { cli.Main("mementomap", run) }

const usage = `usage: mementomap COMMAND [flags] ARGS
commands:
  build    [-o OUT] [filters] INDEX...   baseline map from CDX/CDXJ files (gzip or not, sorted or not),
                                         ZipNum clusters, or CDX servers (an http(s) URL, with -url-prefix or -domain)
  compact  [-hcf W] [-pcf W] IN OUT      one-pass compaction (the paper's Figure 3)
  lookup   MAP [URI|SURT...]             matched key and frequency (stdin when no URI is given)
  eval     [-lookups FILE] MAP INDEX...  relative cost, accuracy, precision, recall
  merge    [-o OUT] MAP1 MAP2 [MAP...]   union of maps of one archive (URI-R counts of shared keys: upper bounds)
  check    MAP                           validate order, headers and frequencies
  stats    MAP                           lines, totals, wildcards, depths
  profile  [-o OUT.json] INDEX...        the paper's analysis of an archive (Tables 1, 2, 4-8, Figures 5-9)
                                         and the cutoffs fitted to it (for compact -fit)
  logs     [-lookups OUT] [-index INDEX]... LOG...
                                         lookups from access logs (Common, Combined, MemGator, aggregator JSON)
                                         for eval; Table 3 (per archive outcomes) and, with -index, Figure 4
"mementomap COMMAND -h" lists the flags of a command.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usageError{errors.New("no command")}
	}
	cmd, rest := args[0], args[1:]
	env := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	switch cmd {
	case "build":
		return env.build(rest)
	case "compact":
		return env.compact(rest)
	case "lookup":
		return env.lookup(rest)
	case "eval":
		return env.eval(rest)
	case "merge":
		return env.merge(rest)
	case "check":
		return env.check(rest)
	case "stats":
		return env.stats(rest)
	case "profile":
		return env.profile(rest)
	case "logs":
		return env.logs(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError{fmt.Errorf("unknown command %q", cmd)}
}
