// Command mementomap (internal/bench/mementomap) measures the mementomap
// package at archive scale and reproduces the MementoMap paper's Table 9
// and Figure 10 (Alam et al., JCDL 2019) on synthetic data:
//
//	go run ./internal/bench/mementomap            # 20 M CDXJ lines (several minutes)
//	go run ./internal/bench/mementomap -n 200000  # a quick run
//
// It generates a sorted SURT-keyed CDXJ index with internal/cdxgen (the
// Arquivo.pt shape), then, each phase in a child process pinned to one
// core (GOMAXPROCS=1) so that its peak resident memory and CPU time are its
// own: builds the baseline map, compacts it at W_h = W_p = 1, looks up SURTs
// (half held) and URLs in the mmapped baseline map, and times Open. Then it
// chains compactions over every weight pair in {4, 2, 1, 0.5, 0.25, 0}
// (each map made from the map of the next larger pair), evaluates relative
// cost and accuracy of each against lookups with a stated share of held
// URIs (the paper's 1.64 % by default), and writes the table to standard
// output and the plot (relative cost against accuracy, one line per W_h)
// as an SVG file. Any false negative stops the run: recall must be 1.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/mementomap"
)

func main() { benchutil.Main(run) }

type config struct {
	*benchutil.Flags
	lookups     int
	held        float64
	evalLookups int
	evalHeld    float64
	out         string
	warm        int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := benchutil.NewFlagSet("MementoMap build, compaction and lookup on one generated index, and the paper's Table 9 and Figure 10.", stderr)
	c := config{Flags: benchutil.AddFlags(fs, 20_000_000)}
	fs.IntVar(&c.lookups, "lookups", 1_000_000, "SURT lookups for the throughput measure")
	fs.Float64Var(&c.held, "held", 0.5, "share of held URIs among the throughput lookups")
	fs.IntVar(&c.evalLookups, "eval-lookups", 200_000, "lookup URIs for the Table 9 evaluation")
	fs.Float64Var(&c.evalHeld, "eval-held", 0.0164, "share of held URIs among the evaluation lookups (the paper's logs: 1.64%)")
	fs.StringVar(&c.out, "o", "", "folder for the outputs (figure10.svg) (default: a new temporary folder, printed)")
	fs.IntVar(&c.warm, "warm", 100_000, "with -phase lookup-*: lookups run before the measure, to warm the page cache and the lazily built index (the whole query list once gives a long-running server's steady state)")
	return c.Run(fs, args, "mementomap-bench-", stdout, stderr, func() error { return runPhase(ctx, c, stdout) },
		func(w *bufio.Writer, logf func(string, ...any)) error {
			if c.lookups <= 0 || c.evalLookups <= 0 {
				return cli.Usagef("-lookups and -eval-lookups must be positive")
			}
			if c.out == "" {
				d, err := os.MkdirTemp("", "mementomap-bench-out-")
				if err != nil {
					return err
				}
				c.out = d
			} else if err := os.MkdirAll(c.out, 0o755); err != nil {
				return err
			}
			fmt.Fprintf(stderr, "outputs go to %s\n", c.out)

			// 1. Data.
			logf("generating %d CDXJ lines (seed %d) in %s", c.N, c.Seed, c.Dir)
			cfg := cdxgen.Config{Lines: c.N, Seed: c.Seed}
			t0 := time.Now()
			gst, err := benchutil.WriteFile(filepath.Join(c.Dir, "index.cdxj"), func(f io.Writer) (cdxgen.Stats, error) { return cdxgen.New(cfg).Write(f) })
			if err != nil {
				return err
			}
			genTime := time.Since(t0)
			if _, err := benchutil.WriteFile(filepath.Join(c.Dir, "lookups.surt"), func(f io.Writer) (cdxgen.LookupStats, error) {
				return cdxgen.WriteLookups(f, cfg, cdxgen.LookupConfig{N: c.lookups, Held: c.held, SURT: true})
			}); err != nil {
				return err
			}
			if _, err := benchutil.WriteFile(filepath.Join(c.Dir, "eval.urls"), func(f io.Writer) (cdxgen.LookupStats, error) {
				return cdxgen.WriteLookups(f, cfg, cdxgen.LookupConfig{N: c.evalLookups, Held: c.evalHeld})
			}); err != nil {
				return err
			}
			fi, _ := os.Stat(filepath.Join(c.Dir, "index.cdxj"))
			fmt.Fprintf(w, "# MementoMap benchmark\n\nindex: %d CDXJ lines (%.1f MB), %d URI-Rs, %d hosts, generated in %s\n",
				gst.Lines, float64(fi.Size())/1e6, gst.URIRs, gst.Hosts, genTime.Round(time.Millisecond))
			fmt.Fprintf(w, "Go %s, %s/%s, %d CPUs on the machine; each phase runs with GOMAXPROCS=1\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())

			// 2. Measured phases.
			fmt.Fprintf(w, "| phase | items | wall | CPU | items/s (wall) | items/s (CPU) | peak RSS |\n|---|---|---|---|---|---|---|\n")
			for _, ph := range []string{"build", "compact", "lookup-surt", "lookup-url", "lookup-compact", "open"} {
				logf("phase %s", ph)
				r, err := child(ctx, c, ph)
				if err != nil {
					return fmt.Errorf("phase %s: %w", ph, err)
				}
				fmt.Fprintf(w, "| %s | %d %s | %s | %s | %s | %s | %.0f MiB |\n", ph, r.Items, r.Unit,
					r.Wall.Round(time.Microsecond), r.CPU.Round(time.Microsecond), benchutil.Rate(r.Items, r.Wall), benchutil.Rate(r.Items, r.CPU), float64(r.MaxRSS)/(1<<20))
				if r.Note != "" {
					fmt.Fprintf(w, "|   | %s | | | | | |\n", r.Note)
				}
				w.Flush()
			}

			// 3. Table 9 and Figure 10.
			logf("Table 9: chained compaction over 36 weight pairs")
			rows, err := table9(ctx, c, logf)
			if err != nil {
				return err
			}
			writeTable9(w, rows)
			svg := filepath.Join(c.out, "figure10.svg")
			if err := plotFigure10(rows, svg); err != nil {
				return err
			}
			fmt.Fprintf(w, "\nFigure 10 written to %s\n", svg)
			return nil
		})
}

// result is what a phase child reports (JSON on its stdout); the parent
// adds the child's rusage.
type result struct {
	benchutil.Measured
	Items int64
	Unit  string
	Note  string
}

func child(ctx context.Context, c config, phase string) (result, error) {
	var r result
	err := benchutil.RunPhase(ctx, &r, phase, c.Dir)
	return r, err
}

// threadCPU returns the CPU time of the calling OS thread.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func readLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(b)), nil
}

func runPhase(ctx context.Context, c config, stdout io.Writer) (err error) {
	stop, err := benchutil.StartCPUProfile(c.CPUProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stop()) }()
	var r result
	p := func(name string) string { return filepath.Join(c.Dir, name) }
	switch c.Phase {
	case "build":
		f, err := cdxj.Open(ctx, p("index.cdxj"), nil)
		if err != nil {
			return err
		}
		defer f.Close()
		t0 := time.Now()
		st, err := benchutil.WriteFile(p("base.ukvs"), func(w io.Writer) (mementomap.BuildStats, error) {
			return mementomap.Build(ctx, w, []cdxj.Searcher{f}, &mementomap.BuildOptions{ArchiveID: "https://arquivo.pt/", Name: "bench"})
		})
		if err != nil {
			return err
		}
		r = result{Items: st.Records, Unit: "CDXJ lines", Measured: benchutil.Measured{Wall: time.Since(t0)},
			Note: fmt.Sprintf("%d HxPx keys, %d URI-Rs, %d sort runs, %d of %d keys checked differ", st.Keys, st.URIRs, st.Runs, st.Mismatched, st.Checked)}
	case "compact":
		f, err := os.Open(p("base.ukvs"))
		if err != nil {
			return err
		}
		defer f.Close()
		t0 := time.Now()
		st, err := benchutil.WriteFile(p("c11.ukvs"), func(w io.Writer) (mementomap.CompactStats, error) {
			return mementomap.Compact(w, f, mementomap.DefaultCompactOptions())
		})
		if err != nil {
			return err
		}
		r = result{Items: st.InLines, Unit: "map lines", Measured: benchutil.Measured{Wall: time.Since(t0)},
			Note: fmt.Sprintf("W=(1,1): %d lines out, %d roll-ups", st.OutLines, st.Rollups)}
	case "lookup-surt", "lookup-url", "lookup-compact":
		file, mapFile := "lookups.surt", "base.ukvs"
		switch c.Phase {
		case "lookup-url":
			file = "eval.urls"
		case "lookup-compact":
			mapFile = "c11.ukvs" // the compact phase's map
		}
		qs, err := readLines(p(file))
		if err != nil {
			return err
		}
		m, err := mementomap.Open(p(mapFile))
		if err != nil {
			return err
		}
		defer m.Close()
		n, _ := m.DataLines()
		// Warm the page cache as a long-running server's would be.
		for i := 0; i < c.warm && len(qs) > 0; i++ {
			m.LookupSURT(qs[i%len(qs)])
		}
		runtime.LockOSThread()
		present := 0
		t0, c0 := time.Now(), threadCPU()
		for _, q := range qs {
			var res mementomap.Match
			if c.Phase == "lookup-url" {
				res, err = m.Lookup(q)
			} else {
				res, err = m.LookupSURT(q)
			}
			if err == nil && res.Present() {
				present++
			}
		}
		r = result{Items: int64(len(qs)), Unit: "lookups", Measured: benchutil.Measured{Wall: time.Since(t0), CPU: threadCPU() - c0},
			Note: fmt.Sprintf("%s: map of %d lines, %d found present", mapFile, n, present)}
	case "open":
		const runs = 2000
		t0, c0 := time.Now(), threadCPU()
		for range runs {
			m, err := mementomap.Open(p("base.ukvs"))
			if err != nil {
				return err
			}
			m.Close()
		}
		wall := time.Since(t0)
		r = result{Items: runs, Unit: "Open+Close", Measured: benchutil.Measured{Wall: wall, CPU: threadCPU() - c0},
			Note: fmt.Sprintf("%s per Open+Close", (wall / runs).Round(time.Microsecond))}
	default:
		return fmt.Errorf("unknown phase %q", c.Phase)
	}
	return json.NewEncoder(stdout).Encode(r)
}
