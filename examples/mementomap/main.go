// Command mementomap builds, compacts, looks up, evaluates, merges, checks
// and describes MementoMaps (package mementomap; internal/spec/MEMENTOMAP.md).
//
//	mementomap build [-o OUT] [-archive-id ID] [-status 2] [-mime text/html] INDEX...
//	mementomap build -domain example.org https://index.example.org/coll/cdx
//	mementomap compact [-hcf W] [-pcf W] [-fit PROFILE.json] IN OUT
//	mementomap lookup MAP [URI|SURT...]      (stdin when none)
//	mementomap eval -lookups FILE MAP INDEX...
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
	"context"
	"fmt"
	"io"

	"github.com/mementokit/mementokit/internal/cli"
)

func main() { cli.Main("mementomap", run) }

// commands is mementomap's command table; its usage is made from it.
func (e *env) commands() cli.Commands {
	return cli.Commands{
		{Name: "build", Args: "[-o OUT] [filters] INDEX...", Summary: "baseline map from CDX/CDXJ files (gzip or not, sorted or not), ZipNum clusters,\nor CDX servers (an http(s) URL, with -url-prefix or -domain)", Run: e.build},
		{Name: "compact", Args: "[-hcf W] [-pcf W] [-fit PROFILE.json] IN OUT", Summary: "one-pass compaction (the paper's Figure 3)", Run: e.compact},
		{Name: "lookup", Args: "MAP [URI|SURT...]", Summary: "matched key and frequency (stdin when no URI is given)", Run: e.lookup},
		{Name: "eval", Args: "-lookups FILE MAP INDEX...", Summary: "relative cost, accuracy, precision, recall", Run: e.eval},
		{Name: "merge", Args: "[-o OUT] MAP1 MAP2 [MAP...]", Summary: "union of maps of one archive (URI-R counts of shared keys: upper bounds)", Run: e.merge},
		{Name: "check", Args: "MAP", Summary: "validate order, headers and frequencies", Run: e.check},
		{Name: "stats", Args: "MAP", Summary: "lines, totals, wildcards, depths", Run: e.stats},
		{Name: "profile", Args: "[-o OUT.json] [filters] INDEX...", Summary: "the paper's analysis of an archive (Tables 1, 2, 4-8, Figures 5-9)\nand the cutoffs fitted to it (for compact -fit)", Run: e.profile},
		{Name: "logs", Args: "[-lookups OUT] [-index INDEX]... [-json] [-html OUT.html] LOG...", Summary: "lookups from access logs (Common, Combined, MemGator, aggregator JSON) for eval;\nTable 3 (per archive outcomes) and, with -index, Figure 4", Run: e.logs},
	}
}

// usage writes mementomap's usage to w.
func (e *env) usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mementomap COMMAND [flags] ARGS")
	e.commands().WriteUsage(w)
	fmt.Fprintln(w, `"mementomap COMMAND -h" lists the flags of a command.`)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	env := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		env.usage(stderr)
		return cli.Usagef("no command")
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		env.usage(stderr)
		return nil
	}
	cs := env.commands()
	if c := cs.Find(args[0]); c != nil {
		return c.Run(args[1:])
	}
	return cs.Unknown(args[0])
}
