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
	"flag"
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

type config struct {
	n     int64
	seed  uint64
	dir   string
	keep  bool
	phase string
}

// result is what a phase child reports (JSON on its stdout); the parent
// adds the child's rusage.
type result struct {
	Lines   int64
	Wall    time.Duration
	CPU     time.Duration
	MaxRSS  int64
	Profile *mementomap.ArchiveProfile `json:",omitempty"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	fs.Int64Var(&c.n, "n", 16_000_000, "CDXJ lines of the generated index")
	fs.Uint64Var(&c.seed, "seed", 1, "generator seed")
	fs.StringVar(&c.dir, "dir", "", "work folder (default: a new temporary folder, removed at the end)")
	fs.BoolVar(&c.keep, "keep", false, "keep the work folder")
	fs.StringVar(&c.phase, "phase", "", "internal: run one measured phase in this process")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.phase != "" {
		return runPhase(ctx, c, stdout)
	}
	if c.n <= 0 {
		return errors.New("-n must be positive")
	}
	work, done, err := benchutil.WorkDir(c.dir, "profile-bench-", c.keep)
	if err != nil {
		return err
	}
	defer done()
	c.dir = work
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	logf := benchutil.Logf(stderr)
	idx := filepath.Join(c.dir, "index.cdxj")
	if _, err := os.Stat(idx); err != nil {
		logf("generating %d CDXJ lines (seed %d) in %s", c.n, c.seed, c.dir)
		f, err := os.Create(idx)
		if err != nil {
			return err
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		_, err = cdxgen.New(cdxgen.Config{Lines: c.n, Seed: c.seed}).Write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	fi, err := os.Stat(idx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "# Profile benchmark\n\nindex: %d CDXJ lines (%.1f MB) from cdxgen seed %d\n", c.n, float64(fi.Size())/1e6, c.seed)
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
}

func child(ctx context.Context, c config, phase string) (result, error) {
	var r result
	u, err := benchutil.RunChild(ctx, &r, "-phase", phase, "-dir", c.dir)
	if err != nil {
		return result{}, err
	}
	r.MaxRSS = u.MaxRSS
	r.CPU = u.CPU
	return r, nil
}

func runPhase(ctx context.Context, c config, stdout io.Writer) error {
	f, err := cdxj.Open(ctx, filepath.Join(c.dir, "index.cdxj"), nil)
	if err != nil {
		return err
	}
	defer f.Close()
	in := []cdxj.Searcher{f}
	var r result
	t0 := time.Now()
	switch c.phase {
	case "build":
		st, err := benchutil.WriteFile(filepath.Join(c.dir, "base.ukvs"), func(w io.Writer) (mementomap.BuildStats, error) {
			return mementomap.Build(ctx, w, in, &mementomap.BuildOptions{ArchiveID: "https://arquivo.pt/"})
		})
		if err != nil {
			return err
		}
		r.Lines = st.Records
	case "profile", "profile-no-compaction":
		p, err := mementomap.Profile(ctx, in, &mementomap.ProfileOptions{NoCompaction: c.phase == "profile-no-compaction"})
		if err != nil {
			return err
		}
		r.Lines = p.Index.Lines
		if c.phase == "profile" {
			r.Profile = p
		}
	default:
		return fmt.Errorf("unknown phase %q", c.phase)
	}
	r.Wall = time.Since(t0)
	return json.NewEncoder(stdout).Encode(r)
}
