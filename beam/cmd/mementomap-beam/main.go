// Command mementomap-beam builds a MementoMap (and optionally its
// compaction and a cdx-summarize summary) of whole web archive indexes as
// an Apache Beam pipeline: locally on Beam's prism runner by default, or
// on Flink, Spark or Dataflow with --runner and those runners' usual
// flags (--endpoint, --environment_type, --project, --region,
// --temp_location, ...). See package
// github.com/mementokit/mementokit/beam/pipeline for the pipeline's
// shape and the rule that inputs be sorted.
//
//	mementomap-beam --input 'cdx/*.cdxj' --input cluster/ --output archive.map \
//	    [--compact archive-compact.map] [--summary archive.summary] [--shard-size 256MiB] \
//	    [--updated-at 2026-12-01T00:00:00Z]
//
// The binary is also the Beam worker a cluster runner starts (beam.Init).
// Exit status: 0 done; 1 the pipeline failed: one line on standard error
// names the input file and part, or the output, at fault, and none of the
// outputs is written (a file already at an output path is left as it
// was); 2 usage: a missing or bad flag, an unknown --runner or --async,
// refused before anything is read or written. --dry_run prints the plan
// (its parts) and writes nothing. The runner's own progress and its report of a failed
// bundle are logged with -v.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/x/beamx" // the runners, the file systems

	"github.com/mementokit/mementokit/beam/pipeline"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/count"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
	"github.com/mementokit/mementokit/summary"
)

// listFlag is a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// intList is a comma-separated list of integers.
type intList []int

func (l *intList) String() string {
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}
func (l *intList) Set(s string) error {
	*l = nil
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		*l = append(*l, v)
	}
	return nil
}

// minShardBytes is the smallest --shard-size: 4 KiB.
const minShardBytes = 4 << 10

// oneLine is the first line of an error's message, with a note of the
// lines left out.
func oneLine(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return fmt.Sprintf("%s [%d more lines of the runner's report; -v logs them]", strings.TrimSpace(msg[:i]), strings.Count(msg[i:], "\n"))
	}
	return msg
}

// fail prints err on standard error as one line and exits with code.
// (The log package's output goes to slog, filtered without -v.)
func fail(code int, err error) {
	fmt.Fprintf(os.Stderr, "mementomap-beam: %s\n", oneLine(err))
	os.Exit(code)
}

// scopeInputs returns inputs with the part of the archive to read from a
// CDX server (--url-prefix or --domain) set as url= and matchType= of
// each CDX server URL among them. Its error names the flag: both given, a
// URL that cannot be canonicalized, no CDX server input, or one whose URL
// names its own url=.
func scopeInputs(inputs []string, prefix, domain string) ([]string, error) {
	name, r := "--url-prefix", cdxj.Request{URL: prefix, Match: cdxj.MatchPrefix}
	if domain != "" {
		name, r = "--domain", cdxj.Request{URL: strings.TrimPrefix(domain, "*."), Match: cdxj.MatchDomain}
	}
	if prefix != "" && domain != "" {
		return nil, errors.New("--url-prefix and --domain: give one of them")
	}
	if _, err := r.Query(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	out := make([]string, len(inputs))
	n := 0
	for i, in := range inputs {
		out[i] = in
		l := strings.ToLower(in)
		if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
			continue
		}
		u, err := url.Parse(in)
		if err != nil {
			return nil, fmt.Errorf("--input %s: %w", in, err)
		}
		q := u.Query()
		if q.Get("url") != "" {
			return nil, fmt.Errorf("%s: the input %s names its own url=", name, in)
		}
		q.Set("url", r.URL)
		q.Set("matchType", r.Match.String())
		u.RawQuery = q.Encode()
		out[i], n = u.String(), n+1
	}
	if n == 0 {
		return nil, fmt.Errorf("%s chooses what to read from a CDX server, and no input is one (an http:// or https:// URL)", name)
	}
	return out, nil
}

// usage prints msg and "(run with -h for usage)", as the other tools do,
// on standard error, and exits with status 2.
func usage(msg string) {
	fmt.Fprintf(os.Stderr, "mementomap-beam: %s (run with -h for usage)\n", msg)
	os.Exit(2)
}

// parseFlags parses the command line. A bad flag prints one line naming
// it and exits with status 2 (the flag package would print every flag,
// Beam's too: some 170 lines); -h prints the flags on standard output and
// exits with status 0.
func parseFlags() {
	fs := flag.CommandLine
	fs.Init(os.Args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	err := fs.Parse(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(os.Stdout)
		fs.Usage()
		os.Exit(0)
	}
	if err != nil {
		usage(err.Error())
	}
}

// stopOnSignal returns a context that the first SIGINT or SIGTERM
// cancels, with a *cli.SignalError naming the signal as its cause; a
// second signal ends the process at once with status 128+N.
func stopOnSignal() context.Context {
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-ch
		cancel(&cli.SignalError{Signal: s})
		s = <-ch
		os.Exit((&cli.SignalError{Signal: s}).ExitCode())
	}()
	return ctx
}

// interrupted exits with status 128+N when ctx was canceled by a signal,
// after one line saying what was interrupted: the stage and the outputs,
// none of which was written.
func interrupted(ctx context.Context, stage string, outputs []string) {
	var se *cli.SignalError
	if !errors.As(context.Cause(ctx), &se) {
		return
	}
	fmt.Fprintf(os.Stderr, "mementomap-beam: %s while %s; no output was written (%s)\n", se, stage, strings.Join(outputs, ", "))
	os.Exit(se.ExitCode())
}

// knownRunners are the names of the runners beamx links in (beam.Run
// exits the process on any other name).
var knownRunners = map[string]bool{
	"prism": true, "PrismRunner": true, "flink": true, "FlinkRunner": true, "spark": true, "SparkRunner": true,
	"dataflow": true, "DataflowRunner": true, "universal": true, "portable": true, "PortableRunner": true,
	"direct": true, "DirectRunner": true, "dot": true,
}

// fewerPartsWhy says why the plan has fewer parts than --shard-size asks
// for, for the kinds of part it has: a plain file is cut only where the
// SURT host changes, a ZipNum cluster too (and its block index is
// coarse), a gzip file or a CDX server is never cut.
func fewerPartsWhy(p *pipeline.Plan) string {
	var bytes, blocks, whole bool
	for _, pt := range p.Parts {
		switch pt.Kind {
		case cdxj.PartBytes:
			bytes = true
		case cdxj.PartBlocks:
			blocks = true
		default:
			whole = true
		}
	}
	var why []string
	if bytes {
		why = append(why, "a plain file is cut only where the SURT host changes, so a host whose lines span more than a part keeps them in one")
	}
	if blocks {
		why = append(why, "a ZipNum cluster is cut only where the SURT host changes, at block edges or inside blocks")
	}
	if whole {
		why = append(why, "a gzip file, a stream or a CDX server input is one part")
	}
	return strings.Join(why, "; ")
}

// bundleFailed begins the SDK's report of a failed bundle, followed by
// the bundle's instruction id.
const bundleFailed = "process bundle failed for instruction "

// dropRunnerRepeats is a slog.Handler that passes on the records of
// Handler but those that repeat the report of a failed bundle: prism logs
// it several times as it stops the stage and the job ("[SDK] process
// bundle failed for instruction inst002 ...", "Bundle Failed.", "job
// failed", the job's state), and the runner's error that -v logs at the
// end ("the runner's report") holds it again. A record whose message or
// attribute values hold bundleFailed and an instruction id is passed on
// for the first such record of that id only.
type dropRunnerRepeats struct {
	slog.Handler
	seen *seenBundles
}

// seenBundles are the instruction ids of the failed bundles logged.
type seenBundles struct {
	sync.Mutex
	ids map[string]bool
}

func newDropRunnerRepeats(h slog.Handler) dropRunnerRepeats {
	return dropRunnerRepeats{h, &seenBundles{ids: map[string]bool{}}}
}

// failedBundle returns the instruction id of the first bundle failure
// that text reports, or "".
func failedBundle(text string) string {
	_, rest, ok := strings.Cut(text, bundleFailed)
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, " \n\t:"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

func (d dropRunnerRepeats) Handle(ctx context.Context, r slog.Record) error {
	id := failedBundle(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		if id == "" {
			id = failedBundle(a.Value.String())
		}
		return id == ""
	})
	if id != "" {
		d.seen.Lock()
		dup := d.seen.ids[id]
		d.seen.ids[id] = true
		d.seen.Unlock()
		if dup {
			return nil
		}
	}
	return d.Handler.Handle(ctx, r)
}

func (d dropRunnerRepeats) WithAttrs(as []slog.Attr) slog.Handler {
	return dropRunnerRepeats{d.Handler.WithAttrs(as), d.seen}
}

func (d dropRunnerRepeats) WithGroup(name string) slog.Handler {
	return dropRunnerRepeats{d.Handler.WithGroup(name), d.seen}
}

func main() {
	var inputs listFlag
	var status intList
	flag.Var(&inputs, "input", "an index: a CDX/CDXJ file, a glob of them, a ZipNum cluster's .idx or folder (Common Crawl's cluster.idx layout), a CDX server URL; repeat for more (each sorted, in key order one after the other)")
	prefix := flag.String("url-prefix", "", "for a CDX server input (http:// or https:// URL): read the captures of the URLs that start with this one (its url= and matchType=prefix); the outputs are built from that answer; file and cluster inputs are read whole")
	domain := flag.String("domain", "", "for a CDX server input: read the captures of this host and its subdomains (its url= and matchType=domain); the outputs are built from that answer; file and cluster inputs are read whole")
	output := flag.String("output", "", "the MementoMap to write (required)")
	compact := flag.String("compact", "", "also write the compacted map here")
	sumOut := flag.String("summary", "", "also write a cdx-summarize summary here")
	shard := flag.String("shard-size", flagvalue.FormatBytes(pipeline.DefaultShardBytes), "input (as stored) per part, the unit of work (256MiB, 1GiB, or bytes)")
	pieces := flag.Int("compact-pieces", 0, "pieces the map is cut into for compaction (0: one per part)")
	tempDir := flag.String("temp-dir", "", "folder in which the run makes (and then removes) a folder of its own for the shards, on the outputs' file system and seen by every worker (default: a new folder beside --output)")
	id := flag.String("archive-id", "", "archive identifier, the \"uri\" of the MementoMap's !id header (a URI, or a short name such as ia); --id is Beam's worker flag")
	name := flag.String("name", "", "name for the map's !meta header")
	updatedAt := flag.String("updated-at", "", "the map's !meta updated_at, "+flagvalue.DatetimeRule+" (default: now), so that runs over the same inputs give the same bytes")
	flag.Var(&status, "status", "keep only these HTTP status classes, e.g. 2,3")
	mimes := flag.String("mime", "", "keep only these media types, comma-separated (text/* for a whole type)")
	noRevisits := flag.Bool("no-revisits", false, "leave out revisit records")
	noRobots := flag.Bool("no-robots", false, "leave out /robots.txt and /sitemap.xml at host roots")
	rekey := flag.Bool("rekey", false, "canonicalize every URL instead of using the index keys (inputs must then be sorted by those keys)")
	skipBad := flag.Bool("skip-bad", false, "count and record bad index lines in the outputs instead of failing")
	mem := flagvalue.Bytes(mementomap.DefaultSortMemory)
	flag.Var(&mem, "mem", "sort memory before spilling runs to --temp-dir, per part (96MiB, 1GiB, or bytes)")
	hcf := flag.Float64("hcf", 1, "host compaction factor W_h")
	pcf := flag.Float64("pcf", 1, "path compaction factor W_p")
	sumHost := flag.Bool("summary-host", false, "summary keyed by host instead of registrable domain")
	sumMonthly := flag.Bool("summary-monthly", false, "summary by month instead of year")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s --input INDEX... --output MAP [flags] (and Beam's flags: --runner prism|flink|spark|dataflow, default prism, in this process; --endpoint, ...)\n", os.Args[0])
		flag.PrintDefaults()
	}
	verbose := flag.Bool("v", false, "log the plan and the runner's progress and reports (prism's logs)")
	parseFlags()
	beam.Init()
	if !*verbose {
		// The runner's logs (prism's report of a failed bundle is many
		// lines, at Error) would bury the one line that says what failed.
		slog.SetDefault(slog.New(slog.DiscardHandler))
	} else {
		slog.SetDefault(slog.New(newDropRunnerRepeats(slog.Default().Handler())))
	}

	switch {
	case len(inputs) == 0:
		usage("--input is required (an index, a glob, a cluster or a CDX server URL)")
	case *output == "":
		usage("--output is required (the MementoMap to write)")
	case flag.NArg() > 0:
		usage(fmt.Sprintf("unexpected argument %q (inputs are given with --input)", flag.Arg(0)))
	}
	runner := *runners.Runner
	if runner == "" {
		runner = "prism"
	}
	if !knownRunners[runner] {
		fail(2, fmt.Errorf("--runner %s: no such runner (prism, flink, spark, dataflow, universal, direct)", runner))
	}
	if *jobopts.Async {
		fail(2, errors.New("--async: not supported; the command waits for the job, which puts the outputs in place and reports their counts"))
	}
	dryRun := false
	if f := flag.Lookup("dry_run"); f != nil {
		dryRun = f.Value.String() == "true"
	}
	for _, o := range []struct{ flag, path string }{{"--output", *output}, {"--compact", *compact}, {"--summary", *sumOut}} {
		if o.path == "-" {
			fail(2, fmt.Errorf("%s -: the outputs are files put in place when the run ends, not standard output; name a file", o.flag))
		}
	}
	shardBytes, err := flagvalue.ParseBytes(*shard)
	if err != nil {
		fail(2, fmt.Errorf("--shard-size: %w", err))
	}
	if shardBytes < minShardBytes {
		// Planning looks for a cut near every multiple of the size.
		fail(2, fmt.Errorf("--shard-size %s: below the smallest part, 4KiB", *shard))
	}
	var at time.Time
	if *updatedAt != "" {
		if at, err = flagvalue.ParseTime(*updatedAt); err != nil {
			fail(2, fmt.Errorf("--updated-at: %w", err))
		}
	}
	if math.IsNaN(*hcf) || *hcf < 0 {
		fail(2, fmt.Errorf("--hcf %v: a factor of 0 or more (inf never rolls up)", *hcf))
	}
	if math.IsNaN(*pcf) || *pcf < 0 {
		fail(2, fmt.Errorf("--pcf %v: a factor of 0 or more (inf never rolls up)", *pcf))
	}
	if *pieces < 0 {
		fail(2, fmt.Errorf("--compact-pieces %d: 0 (one per part) or more", *pieces))
	}
	for _, sc := range status {
		if sc < 1 || sc > 5 {
			fail(2, fmt.Errorf("--status %d: an HTTP status class, 1 to 5", sc))
		}
	}
	if *prefix != "" || *domain != "" {
		if inputs, err = scopeInputs(inputs, *prefix, *domain); err != nil {
			fail(2, err)
		}
	}
	c := pipeline.Config{
		Inputs: inputs, MapOutput: *output, CompactOutput: *compact, SummaryOutput: *sumOut,
		ShardBytes: shardBytes, CompactPieces: *pieces, TempDir: *tempDir,
		Build: pipeline.BuildSpec{ArchiveID: *id, Name: *name, StatusClasses: status,
			ExcludeRevisits: *noRevisits, ExcludeRobots: *noRobots, Rekey: *rekey, SkipBad: *skipBad, MemoryLimit: int64(mem), UpdatedAt: at},
		Compact: pipeline.CompactSpec{HostFactor: *hcf, PathFactor: *pcf},
		Summary: pipeline.SummarySpec{Monthly: *sumMonthly, SkipBad: *skipBad},
	}
	if *mimes != "" {
		c.Build.MIMETypes = strings.Split(*mimes, ",")
	}
	if *sumHost {
		c.Summary.Keys = summary.KeyHost
	}

	if err := c.Validate(); err != nil {
		fail(2, err)
	}

	ctx := stopOnSignal()
	var outputs []string
	for _, o := range []string{*output, *compact, *sumOut} {
		if o != "" {
			outputs = append(outputs, o)
		}
	}
	var plan *pipeline.Plan
	if dryRun {
		// A look at the plan: no lock (another run may hold the output
		// folders), no temporary folder, nothing written.
		plan, err = pipeline.Preview(ctx, &c)
	} else {
		plan, err = pipeline.NewPlan(ctx, &c)
	}
	if err != nil {
		interrupted(ctx, "planning the parts of the inputs", outputs)
		fail(1, err)
	}
	for _, d := range plan.RemovedStale {
		fmt.Fprintf(os.Stderr, "mementomap-beam: removed %s, the temporary folder of an earlier run that was killed (no run holds its lock)\n", d)
	}
	line := fmt.Sprintf("mementomap-beam: %s of %s (%d bytes) on %s", count.Of(len(plan.Parts), "part", "parts"),
		count.Of(len(plan.Files), "input", "inputs"), plan.Bytes, runner)
	if 2*len(plan.Parts) <= plan.Asked {
		// Fewer parts mean less parallelism, not a different result.
		fmt.Fprintf(os.Stderr, "mementomap-beam: note: %s, not the %d that --shard-size %s asks for (%s); the outputs are the same, the work is less parallel\n",
			count.Of(len(plan.Parts), "part", "parts"), plan.Asked, *shard, fewerPartsWhy(plan))
	}
	if dryRun {
		fmt.Println(line + " (--dry_run: nothing run, nothing written)")
		for _, pt := range plan.Parts {
			fmt.Printf("  part %d of %d: %s\n", pt.Seq, pt.Of, pt)
		}
		return
	}
	slog.Info(line)
	rep, err := pipeline.Run(ctx, runner, plan)
	if err != nil {
		interrupted(ctx, fmt.Sprintf("running the pipeline (%s on %s)", count.Of(len(plan.Parts), "part", "parts"), runner), outputs)
		var f *pipeline.Failure
		if errors.As(err, &f) && *verbose {
			slog.Info("mementomap-beam: the runner's report", "err", f.Runner)
		}
		fail(1, err)
	}
	for _, o := range rep.Outputs {
		switch {
		case o.Build != nil:
			b := o.Build
			fmt.Printf("%s: %d records, %d used, %d filtered, %d non-HTTP, %d bad lines skipped, %d keys, %d URI-Rs\n",
				o.Path, b.Records, b.Used, b.Filtered, b.NonHTTP, b.Bad, b.Keys, b.URIRs)
			for _, e := range b.BadExamples {
				fmt.Printf("  skipped: %s\n", e)
			}
			if b.Blank > 0 {
				fmt.Printf("  blank lines passed over (empty: no record; the map's !meta blank_lines): %d\n", b.Blank)
			}
		case o.Compact != nil:
			fmt.Printf("%s: %d lines from %d, %d roll-ups\n", o.Path, o.Compact.OutLines, o.Compact.InLines, o.Compact.Rollups)
		case o.Summary != nil:
			s := o.Summary
			fmt.Printf("%s: %d keys, %d captures counted, %d not 2xx, %d bad timestamps, %d bad lines skipped\n",
				o.Path, s.Keys, s.Counted, s.NotOK, s.BadTimestamp, s.BadLines)
		}
	}
}
