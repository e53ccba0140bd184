package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxflag"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

// buildFlags adds the flags that choose and sort the captures, shared by
// build, eval, logs and profile; with writesMap (build) also the flags of
// the written map's headers (-archive-id, -name, -updated-at), which the
// others, writing no map, do not take.
func buildFlags(fs *flag.FlagSet, writesMap bool) func() (mementomap.BuildOptions, error) {
	var id, name, updatedAt = new(string), new(string), new(string)
	if writesMap {
		id = fs.String("archive-id", "", "archive identifier, the \"uri\" of the MementoMap's !id header (a URI, or a short name such as ia)")
		name = fs.String("name", "", "map name for the !meta header")
	}
	status := fs.String("status", "", "keep only these HTTP status classes, e.g. 2 or 2,3 (the paper's baseline: 2)")
	mime := fs.String("mime", "", "keep only these media types, e.g. text/html or image/* (the paper's baseline: text/html)")
	noRevisits := fs.Bool("no-revisits", false, "leave out revisit records")
	noRobots := fs.Bool("no-robots", false, "leave out /robots.txt and /sitemap.xml")
	rekey := fs.Bool("rekey", false, "canonicalize every original URL instead of using the index keys")
	skipBad := fs.Bool("skip-bad", false, "skip bad index lines (unparseable, or a URL that does not canonicalize), counting them in the map's !meta, instead of refusing to build")
	mem := flagvalue.Bytes(mementomap.DefaultSortMemory)
	fs.Var(&mem, "mem", "sort memory before spilling runs to -tmpdir (96MiB, 1GiB, or bytes)")
	tmp := fs.String("tmpdir", "", "folder for sort runs (default: the system's)")
	if writesMap {
		updatedAt = fs.String("updated-at", "", "the map's !meta updated_at, "+flagvalue.DatetimeRule+" (default: now), so that builds of the same inputs give the same bytes")
	}
	return func() (mementomap.BuildOptions, error) {
		classes, err := intList(*status)
		if err != nil {
			return mementomap.BuildOptions{}, err
		}
		var now func() time.Time
		if *updatedAt != "" {
			at, err := flagvalue.ParseTime(*updatedAt)
			if err != nil {
				return mementomap.BuildOptions{}, cli.Usagef("-updated-at: %w", err)
			}
			now = func() time.Time { return at }
		}
		o := mementomap.BuildOptions{
			ArchiveID: *id, Name: *name, StatusClasses: classes, MIMETypes: strList(*mime),
			ExcludeRevisits: *noRevisits, ExcludeRobots: *noRobots, Rekey: *rekey,
			SkipBad: *skipBad, MemoryLimit: int64(mem), TempDir: *tmp, Now: now,
		}
		return o, nil
	}
}

// openIndexes opens the indexes at paths with cdxj.Open (files, ZipNum
// clusters by their .idx or folder, "-" for stdin), the progress bar
// counting the bytes read.
func (e *env) openIndexes(paths []string, what string) ([]cdxj.Searcher, func(), error) {
	bar := e.bar(totalSize(paths), what)
	if err := cdxflag.Check(e.server, paths); err != nil {
		return nil, nil, err
	}
	if e.server != nil {
		e.server.Logger = e.log
	}
	opt := &cdxj.OpenOptions{Stdin: e.stdin, Server: e.server}
	if bar != nil {
		opt.Progress = func(n int64) { bar.Add64(n) }
	}
	var ins []cdxj.Searcher
	var closers []io.Closer
	closeAll := func() {
		for _, c := range closers {
			c.Close()
		}
		if bar != nil {
			bar.Finish()
		}
	}
	for _, p := range paths {
		ix, err := cdxj.Open(e.ctx, p, opt)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, ix)
		ins = append(ins, ix)
	}
	return ins, closeAll, nil
}

func (e *env) build(args []string) error {
	fs, parse := e.indexFlags("build", "INDEX...")
	out := fs.String("o", "-", "output map file ('-' for standard output)")
	opts := buildFlags(fs, true)
	datetime := fs.Int("datetime", 0, "write a map with a datetime key column: one line \"KEY DATETIME M/R\" per key and capture datetime, DATETIME the first N digits of the captures' timestamps (4 a year, 6 a month, 8 a day, 10, 12, 14 a second), for lookup -at and \"URI DATETIME\" inputs; 0, the default, one line per key")
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("build: no index given (run with -h for usage)")
	}
	o, err := opts()
	if err != nil {
		return err
	}
	o.Datetime = *datetime
	if err := o.CheckDatetime(); err != nil {
		return cli.Usagef("build: -datetime: %w", err)
	}
	if err := checkOutput("build", *out, fs.Args()...); err != nil {
		return err
	}
	o.Logger = e.log
	ins, closeAll, err := e.openIndexes(fs.Args(), "build")
	if err != nil {
		return err
	}
	defer closeAll()
	start := time.Now()
	var st mementomap.BuildStats
	err = e.writeOutput(*out, func(w io.Writer) error {
		var err error
		st, err = mementomap.Build(e.ctx, w, ins, &o)
		return err
	})
	if err != nil {
		return err
	}
	e.log.Info("build done", "records", st.Records, "used", st.Used, "filtered", st.Filtered,
		"non_http", st.NonHTTP, "bad", st.Bad, "keys", st.Keys, "urirs", st.URIRs, "runs", st.Runs,
		"seconds", time.Since(start).Seconds())
	if st.Bad > 0 {
		e.log.Warn("bad index lines skipped (-skip-bad); the map's !meta says how many", "skipped_lines", st.Bad, "examples", st.BadExamples)
	}
	if st.Blank > 0 {
		e.log.Info("blank index lines passed over (empty: no record); the map's !meta says how many", "blank_lines", st.Blank)
	}
	if st.Mismatched > 0 {
		e.log.Warn("index keys differ from the canonical SURTs of their URLs: the map holds the canonical ones (!meta rekeyed_lines)",
			"checked", st.Checked, "mismatched", st.Mismatched,
			"rate", fmt.Sprintf("%.2f%%", 100*st.MismatchRate()), "examples", st.MismatchExamples)
	}
	return nil
}

func (e *env) compact(args []string) error {
	fs, parse := e.flags("compact", "IN OUT")
	d := mementomap.DefaultCompactOptions()
	hcf := fs.Float64("hcf", d.HostFactor, "host compaction factor W_h (inf never rolls up, 0 rolls up every node with a child)")
	pcf := fs.Float64("pcf", d.PathFactor, "path compaction factor W_p")
	ha := fs.Float64("ha", mementomap.DefaultHostAlpha, "host power-law a")
	hk := fs.Float64("hk", mementomap.DefaultHostK, "host power-law k")
	pa := fs.Float64("pa", mementomap.DefaultPathAlpha, "path power-law a")
	pk := fs.Float64("pk", mementomap.DefaultPathK, "path power-law k")
	hdepth := fs.Int("hdepth", mementomap.DefaultHostDepth, "host levels tracked")
	pdepth := fs.Int("pdepth", mementomap.DefaultPathDepth, "path levels tracked")
	ref := fs.Bool("reference", false, "behave as the reference tool (oduwsdl/MementoMap 0.1.0b2): its key normalization, plain counts, no public-suffix guard")
	mem := flagvalue.Bytes(mementomap.DefaultCompactMemory)
	fs.Var(&mem, "mem", "pending output kept in memory before spilling to disk (64MiB, 1GiB, or bytes)")
	tmp := fs.String("tmpdir", "", "folder for the spill file (default: the system's)")
	fit := fs.String("fit", "", "take the power laws' a and k fitted to this profile (JSON of mementomap profile) instead of Arquivo.pt's; a poor fit is refused (see -fit-fallback)")
	fitFallback := fs.Bool("fit-fallback", false, fmt.Sprintf("with -fit: for a layer that cannot be fitted (too few depths) or whose fit is poor (k ≤ 0, or R² below %g: depths too scattered around the power law for its k to mean much), take Arquivo.pt's a and k instead of refusing, with a warning", mementomap.MinFitR2))
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return cli.Usagef("compact: want IN and OUT (run with -h for usage)")
	}
	o := mementomap.CompactOptions{HostFactor: *hcf, PathFactor: *pcf, HostAlpha: *ha, HostK: *hk,
		PathAlpha: *pa, PathK: *pk, HostDepth: *hdepth, PathDepth: *pdepth, Reference: *ref,
		MemoryLimit: int64(mem), TempDir: *tmp, Logger: e.log}
	if err := o.Check(); err != nil {
		return cli.Usagef("compact: %w", unprefixed{err}) // values of -hcf, -pcf, -ha, -hk, -pa, -pk, -hdepth, -pdepth
	}
	if *fit != "" {
		for _, n := range []string{"ha", "hk", "pa", "pk"} {
			if explicit(fs, n) {
				return fmt.Errorf("compact: -fit and -%s both set a and k: give one", n)
			}
		}
		var err error
		if o, err = e.withFit(o, *fit, *fitFallback); err != nil {
			return fmt.Errorf("compact: -fit %w", err)
		}
	} else if *fitFallback {
		return cli.Usagef("compact: -fit-fallback without -fit")
	}
	in, out := fs.Arg(0), fs.Arg(1)
	if in != "-" && in == out {
		return errors.New("compact: IN and OUT are the same file")
	}
	if err := checkOutput("compact", out, in); err != nil {
		return err
	}
	bar := e.bar(totalSize([]string{in}), "compact")
	rc, err := e.openInput(in, bar)
	if err != nil {
		return err
	}
	defer rc.Close()
	start := time.Now()
	var st mementomap.CompactStats
	err = e.writeOutput(out, func(w io.Writer) error {
		var err error
		st, err = mementomap.Compact(w, rc, &o)
		return checkUnchanged(err, rc)
	})
	if bar != nil {
		bar.Finish()
	}
	if err != nil {
		return err
	}
	e.log.Info("compact done", "hcf", *hcf, "pcf", *pcf, "in_lines", st.InLines, "out_lines", st.OutLines,
		"rollups", st.Rollups, "seconds", time.Since(start).Seconds())
	return nil
}

func (e *env) lookup(args []string) error {
	fs, parse := e.flags("lookup", "MAP [URI|SURT...]")
	at := fs.String("at", "", "look the URIs up at this datetime ("+flagvalue.SpanRule+"; an argument's or a standard input line's own DATETIME is read the same way), in a map with a datetime key column (any other map checks it and answers as without it); without -at an input may carry its own (\"URI DATETIME\"), with it none may: an argument that does is a usage error (exit 2), a stdin line that does is not looked up (printed as -, exit 1)")
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cli.Usagef("lookup: no map given (run with -h for usage)")
	}
	// Datetimes of the command line (-at, an argument's, a standard input
	// line's: spanLines) are read by flagvalue.ParseSpan and handed on as
	// timestamp digits.
	if *at != "" {
		d, err := flagvalue.ParseSpan(*at)
		if err != nil {
			return cli.Usagef("lookup: -at: %w", err)
		}
		*at = d
	}
	// One argument is one lookup: "URI" or "URI DATETIME", the DATETIME read
	// by the rule of -at (no trailing blank, CR or LF). An argument after
	// MAP that begins with "-" is a flag given too late, not a URI.
	var lines strings.Builder
	for _, a := range fs.Args()[1:] {
		switch {
		case strings.HasPrefix(a, "-"):
			return cli.Usagef("lookup: %q after MAP: flags come before MAP (mementomap lookup [-at DATETIME] MAP [URI|SURT...])", a)
		case strings.TrimSpace(a) == "":
			return cli.Usagef("lookup: argument %q is empty: one argument is one URI or SURT", a)
		case strings.ContainsAny(a, "\r\n"):
			return cli.Usagef("lookup: argument %q holds a line break: one argument is one URI or SURT (give several as several arguments or on standard input)", a)
		}
		a = strings.TrimLeft(a, " \t")
		if i := strings.IndexAny(a, " \t"); i >= 0 {
			if dt := strings.TrimLeft(a[i+1:], " \t"); dt != "" {
				if *at != "" {
					return cli.Usagef("lookup: argument %q carries the datetime %q and -at gives %q: give one", a, dt, *at)
				}
				d, err := flagvalue.ParseSpan(dt)
				if err != nil {
					return cli.Usagef("lookup: argument %q: %w", a, err)
				}
				a = a[:i] + " " + d
			} else {
				a = a[:i]
			}
		}
		lines.WriteString(a)
		lines.WriteByte('\n')
	}
	m, err := mementomap.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer m.Close()
	// The whole map first, by the rule of check (mementomap.Map.Check): a
	// lookup in a map out of order could miss a held key, and a map that
	// check refuses is not answered from.
	if _, err := m.Check(); err != nil {
		return err
	}
	spans := newSpanLines(cli.Reader(e.ctx, e.stdin))
	var in io.Reader = spans
	// A map without a datetime key column checks a datetime (of -at or of
	// an input) and answers as if none were given.
	if fs.NArg() > 1 {
		in = strings.NewReader(lines.String())
	}
	st, err := m.LookupAllAt(e.stdout, in, *at)
	if err != nil {
		return err
	}
	e.log.Debug("lookup done", "lookups", st.Lookups, "present", st.Present, "absent", st.Absent, "errors", st.Errors)
	if st.Errors > 0 {
		// Printed as "-" like a miss: say that they were not looked up.
		return fmt.Errorf("lookup: %d of %d inputs could not be looked up (printed as -, not misses); the first: %w", st.Errors, st.Lookups, spans.firstError(st.FirstError))
	}
	return nil
}

func (e *env) eval(args []string) error {
	fs, parse := e.flags("eval", "-lookups FILE MAP INDEX...")
	lookups := fs.String("lookups", "", "file of lookup URIs or SURTs, one per line, any field after the first ignored (required; mementomap logs -lookups writes one)")
	nowFlag := fs.String("now", "", "the time of the lookups, "+flagvalue.DatetimeRule+" (default: the present): an observed map's negatives older than its max age then say nothing, and the archive is asked, as the aggregator does")
	opts := buildFlags(fs, false)
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 || *lookups == "" {
		return cli.Usagef("eval: want -lookups FILE, a MAP and at least one INDEX (run with -h for usage)")
	}
	o, err := opts()
	if err != nil {
		return err
	}
	now := time.Now()
	if *nowFlag != "" {
		if now, err = flagvalue.ParseTime(*nowFlag); err != nil {
			return cli.Usagef("eval: -now: %w", err)
		}
	}
	lb, err := os.ReadFile(*lookups)
	if err != nil {
		return err
	}
	var ls []string
	var lineOf []int // the lookups file's line of ls[i]
	for n, l := range strings.Split(string(lb), "\n") {
		// "URI DATETIME" lines (mementomap logs -datetimes) are looked up by URI.
		if f := strings.Fields(l); len(f) > 0 && f[0][0] != '#' {
			ls = append(ls, f[0])
			lineOf = append(lineOf, n+1)
		}
	}
	m, err := mementomap.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer m.Close()
	ins, closeAll, err := e.openIndexes(fs.Args()[1:], "index")
	if err != nil {
		return err
	}
	truth, err := mementomap.LoadTruth(e.ctx, ins, ls, &o)
	closeAll()
	if err != nil {
		return err
	}
	bad := 0 // lookups with no SURT: left out of the scores
	for i, k := range truth.Keys {
		if k == "" {
			if bad++; bad <= 5 {
				fmt.Fprintf(e.stderr, "eval: %s:%d: %q is no URL or SURT: not evaluated\n", *lookups, lineOf[i], ls[i])
			}
		}
	}
	ev, err := mementomap.EvaluateAt(m, truth, now)
	if err != nil {
		return err
	}
	if m.TimeKey() == mementomap.TimeKeyObserved {
		// Expired negatives are counted as present: the archive is asked.
		fmt.Fprintf(e.stdout, "observed at\t%s\nmax age\t%s\nexpired negatives\t%d\n", now.UTC().Format(time.RFC3339), m.ObservedMaxAge(), ev.Expired)
	}
	fmt.Fprintf(e.stdout, "map lines\t%d\nindex URI-Rs\t%d\nrelative cost\t%.4f\nlookups\t%d\nheld\t%d\naccuracy\t%.4f\nprecision\t%.4f\nrecall\t%.4f\n",
		ev.Lines, truth.URIRs, ev.RelativeCost, ev.Lookups, ev.TruePositive+ev.FalseNegative, ev.Accuracy, ev.Precision, ev.Recall)
	fmt.Fprintf(e.stdout, "bad lookups\t%d\n", bad)
	return ev.Check()
}

func (e *env) merge(args []string) error {
	fs, parse := e.flags("merge", "MAP1 MAP2 [MAP...]")
	out := fs.String("o", "-", "output map file ('-' for standard output)")
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return cli.Usagef("merge: want two maps or more (run with -h for usage)")
	}
	if err := checkOutput("merge", *out, fs.Args()...); err != nil {
		return err
	}
	var ins []io.Reader
	for _, p := range fs.Args() {
		rc, err := e.openInput(p, nil)
		if err != nil {
			return err
		}
		defer rc.Close()
		ins = append(ins, rc)
	}
	var st mementomap.MergeStats
	err := e.writeOutput(*out, func(w io.Writer) error {
		var err error
		st, err = mementomap.Merge(w, ins...)
		return checkUnchanged(err, ins...)
	})
	if err != nil {
		return err
	}
	e.log.Info("merge done", "maps", len(ins), "lines", st.Lines, "in_several", st.Both, "exclusions_dropped", st.Exclusions)
	return nil
}

func (e *env) check(args []string) error {
	fs, parse := e.flags("check", "MAP")
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.Usagef("check: want one map (run with -h for usage)")
	}
	if p := fs.Arg(0); p != "-" {
		// What lookups would refuse (lone CR line ends) is named as such.
		m, err := mementomap.Open(p)
		if err != nil {
			return err
		}
		m.Close()
	}
	rc, err := e.openInput(fs.Arg(0), nil)
	if err != nil {
		return err
	}
	defer rc.Close()
	n, err := mementomap.CheckMap(fs.Arg(0), rc)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: ok, %d data lines, sorted\n", fs.Arg(0), n)
	return nil
}

func (e *env) stats(args []string) error {
	fs, parse := e.flags("stats", "MAP")
	if err := parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cli.Usagef("stats: want one map (run with -h for usage)")
	}
	m, err := mementomap.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	defer m.Close()
	st, err := m.Stats()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "file\t%s\nbytes\t%d\nheaders\t%d\ndata lines\t%d\n", fs.Arg(0), m.Size(), len(m.Headers()), st.Lines)
	if st.TimeKey != "" {
		fmt.Fprintf(e.stdout, "time key\t%s\nkeys\t%d\n", st.TimeKey, st.Keys)
	}
	fmt.Fprintf(e.stdout, "hosts\t%d\nhost wildcards\t%d\npath wildcards\t%d\nexclusions\t%d\nunder a wildcard\t%d\ntotal\t%s\n",
		st.Hosts, st.HostWildcards, st.PathWildcards, st.Exclusions, st.Covered, st.Total)
	for d, n := range st.PathDepths {
		if n > 0 {
			fmt.Fprintf(e.stdout, "path depth %d\t%d\n", d, n)
		}
	}
	fmt.Fprintf(e.stdout, "bad lines skipped\t%d\n", st.Bad)
	for _, b := range st.BadLines {
		e.log.Warn("bad line skipped", "line", b)
	}
	return nil
}

// unprefixed is err read without its leading "mementomap: " (the
// package's prefix), for an error placed after "mementomap: COMMAND: ",
// which names the program already.
type unprefixed struct{ error }

func (u unprefixed) Error() string { return strings.TrimPrefix(u.error.Error(), "mementomap: ") }
func (u unprefixed) Unwrap() error { return u.error }
