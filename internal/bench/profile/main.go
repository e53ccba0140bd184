// Command profile (internal/bench/profile) measures mementomap.Profile
// against mementomap.Build on the same generated index, and fits the
// compaction cutoffs at archive scale:
//
//	go run ./internal/bench/profile            # 16 M CDXJ lines
//	go run ./internal/bench/profile -n 200000  # a quick run
//
// It writes a sorted SURT-keyed CDXJ index with internal/cdxgen (the
// Arquivo.pt shape), then runs each phase in a child process with
// GOMAXPROCS=1, so that its CPU time (user + system, from the child's
// rusage, garbage collector included) and peak resident memory are its own:
// build (the baseline map), profile (every table and figure, Figure 9's
// compaction run included) and profile -no-compaction. It prints CPU per
// line, the ratio to build's, and peak memory, then the cutoffs fitted to
// the profile next to the paper's.
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
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
)

func main() { benchutil.Main(run) }

type config struct{ *benchutil.Flags }

// result is what a phase child reports (JSON on its stdout); the parent
// adds the child's rusage.
type result struct {
	benchutil.Measured
	Lines   int64
	Profile *mementomap.ArchiveProfile `json:",omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := benchutil.NewFlagSet("mementomap.Profile against mementomap.Build on one generated index, and the compaction cutoffs fitted at archive scale.", stderr)
	c := config{benchutil.AddFlags(fs, 16_000_000)}
	return c.Run(fs, args, "profile-bench-", stdout, stderr, func() error { return runPhase(ctx, c, stdout) },
		func(w *bufio.Writer, logf func(string, ...any)) error {
			idx := filepath.Join(c.Dir, "index.cdxj")
			if _, err := os.Stat(idx); err != nil {
				logf("generating %d CDXJ lines (seed %d) in %s", c.N, c.Seed, c.Dir)
				if _, err := benchutil.WriteFile(idx, func(w io.Writer) (cdxgen.Stats, error) {
					return cdxgen.New(cdxgen.Config{Lines: c.N, Seed: c.Seed}).Write(w)
				}); err != nil {
					return err
				}
			}
			fi, err := os.Stat(idx)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "# Profile benchmark\n\nindex: %d CDXJ lines (%.1f MB) from cdxgen seed %d\n", c.N, float64(fi.Size())/1e6, c.Seed)
			fmt.Fprintf(w, "Go %s, %s/%s, %d CPUs on the machine; each phase runs with GOMAXPROCS=1 in its own process\n\n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
			fmt.Fprintf(w, "| phase | lines | wall | CPU | CPU per line | ÷ build | peak RSS |\n|---|---|---|---|---|---|---|\n")
			var build time.Duration
			var prof *mementomap.ArchiveProfile
			for _, ph := range []string{"build", "profile", "profile-no-compaction"} {
				logf("phase %s", ph)
				r, err := child(ctx, c, ph)
				if err != nil {
					return fmt.Errorf("phase %s: %w", ph, err)
				}
				per := time.Duration(int64(r.CPU) / max(r.Lines, 1))
				ratio := "1"
				if ph == "build" {
					build = per
				} else if build > 0 {
					ratio = fmt.Sprintf("%.2f", float64(per)/float64(build))
				}
				if r.Profile != nil && prof == nil {
					prof = r.Profile
				}
				fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %.0f MiB |\n", ph, r.Lines, r.Wall.Round(time.Millisecond),
					r.CPU.Round(time.Millisecond), per, ratio, float64(r.MaxRSS)/(1<<20))
				w.Flush()
			}
			if prof != nil {
				ix := prof.Index
				fmt.Fprintf(w, "\nprofile: %d URI-Rs, %d HxPx keys, %d hosts, %d domains; mementos per URI-R mean %.2f, median %g, max %d, Gini %.3f, Pareto %.3f\n",
					ix.URIRs, ix.HxPxKeys, ix.Hosts, ix.Domains, prof.Mementos.Mean, prof.Mementos.Median, prof.Mementos.Max, prof.Mementos.Gini, prof.Mementos.ParetoShare)
				if f := prof.Fit; f != nil {
					fmt.Fprintf(w, "\n| fit | a | k | k std. error | R² (log) | depths (parents) |\n|---|---|---|---|---|---|\n")
					for _, r := range []struct {
						name string
						f    mementomap.PowerLawFit
					}{{"host, log space", f.Host}, {"host, linear space", f.HostLinear}, {"path, log space", f.Path}, {"path, linear space", f.PathLinear}} {
						pts := ""
						for _, q := range r.f.Points {
							pts += fmt.Sprintf(" %d:%.2f(%d)", q.Depth, q.MeanChildren, q.Parents)
						}
						fmt.Fprintf(w, "| %s | %.3f | %.3f | %.3f | %.3f |%s |\n", r.name, r.f.A, r.f.K, r.f.KStdErr, r.f.R2, pts)
					}
					fmt.Fprintf(w, "| paper (reference tool) | host 16.329, path 24.546 | host 0.714, path 1.429 | | | |\n")
				} else {
					fmt.Fprintf(w, "\nno fit: %s\n", prof.FitError)
				}
			}
			return nil
		})
}

func child(ctx context.Context, c config, phase string) (result, error) {
	var r result
	err := benchutil.RunPhase(ctx, &r, phase, c.Dir)
	return r, err
}

func runPhase(ctx context.Context, c config, stdout io.Writer) (err error) {
	stop, err := benchutil.StartCPUProfile(c.CPUProfile)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stop()) }()
	f, err := cdxj.Open(ctx, filepath.Join(c.Dir, "index.cdxj"), nil)
	if err != nil {
		return err
	}
	defer f.Close()
	in := []cdxj.Searcher{f}
	var r result
	t0 := time.Now()
	switch c.Phase {
	case "build":
		st, err := benchutil.WriteFile(filepath.Join(c.Dir, "base.ukvs"), func(w io.Writer) (mementomap.BuildStats, error) {
			return mementomap.Build(ctx, w, in, &mementomap.BuildOptions{ArchiveID: "https://arquivo.pt/"})
		})
		if err != nil {
			return err
		}
		r.Lines = st.Records
	case "profile", "profile-no-compaction":
		p, err := mementomap.Profile(ctx, in, &mementomap.ProfileOptions{NoCompaction: c.Phase == "profile-no-compaction"})
		if err != nil {
			return err
		}
		r.Lines = p.Index.Lines
		if c.Phase == "profile" {
			r.Profile = p
		}
	default:
		return fmt.Errorf("unknown phase %q", c.Phase)
	}
	r.Wall = time.Since(t0)
	return json.NewEncoder(stdout).Encode(r)
}
