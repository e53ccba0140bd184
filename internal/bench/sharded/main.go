// Command sharded (internal/bench/sharded) measures mementomap.Build on
// every core against one, and its CPU time per line against the peers that
// only read the same bytes (issue 12's figures):
//
//	go run ./internal/bench/sharded              # 16 M cdxgen lines (minutes)
//	go run ./internal/bench/sharded -n 1000000   # a quick run
//
// It writes a sorted SURT-keyed CDXJ index with internal/cdxgen and a gzip
// copy of it (klauspost/compress, one member), then runs each phase as a
// child process and reads its wall time and CPU time (user + system, from
// wait4, children included) — like for like, in the same run:
//
//   - build, plain input, GOMAXPROCS=1 (Workers 1) and GOMAXPROCS=2;
//     the two maps must be byte-identical (fixed updated_at);
//   - wc -l of the plain input;
//   - build, gzip input, GOMAXPROCS=1;
//   - sh -c 'gzip -dc FILE | wc -l'.
//
// It prints one line per phase (wall, CPU, ns of CPU per index line) and
// the ratios the issue sets targets for: wall 1 core / 2 cores (>= 1.8),
// build CPU / wc -l CPU (<= 5), gzip build CPU / gzip -dc | wc -l CPU
// (<= 1.3). The machine may be shared: CPU time is the steadier figure;
// wall times are only meaningful on an otherwise idle machine. With
// -cpuprofile DIR each build child writes a pprof CPU profile there.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/mementomap"
)

func main() {
	benchutil.Main(func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		if len(args) > 0 && args[0] == "child-build" {
			return childBuild(ctx, args[1:])
		}
		return run(ctx, args, stdout, stderr)
	})
}

// childBuild builds IN into OUT with the given workers: the measured
// phase, in a process of its own.
func childBuild(ctx context.Context, args []string) (err error) {
	if len(args) < 4 {
		return errors.New("child-build IN OUT WORKERS PROFILE")
	}
	in, out, prof := args[0], args[1], args[3]
	w, err := strconv.Atoi(args[2])
	if err != nil {
		return err
	}
	stopProfile, err := benchutil.StartCPUProfile(prof)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	ix, err := cdxj.Open(ctx, in, nil)
	if err != nil {
		return err
	}
	defer ix.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	fixed := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	st, err := mementomap.Build(ctx, f, []cdxj.Searcher{ix}, &mementomap.BuildOptions{Workers: w, Now: fixed, ArchiveID: "https://arquivo.pt/"})
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "records %d keys %d urirs %d runs %d\n", st.Records, st.Keys, st.URIRs, st.Runs)
	return f.Close()
}

type measure struct {
	name      string
	wall, cpu time.Duration
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := benchutil.NewFlagSet("mementomap build of one generated index on one core and on two, against wc -l and gzip -dc of the same lines.", stderr)
	n := fs.Int64("n", 16_000_000, "index lines to generate")
	dir := fs.String("dir", "", "folder for the index and maps (default: a temporary one, removed at the end)")
	profDir := fs.String("cpuprofile", "", "folder for a CPU profile of each build child")
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	work, done, err := benchutil.WorkDir(*dir, "bench-sharded-", false)
	if err != nil {
		return err
	}
	defer done()
	if *profDir != "" {
		if err := os.MkdirAll(*profDir, 0o755); err != nil {
			return err
		}
	}
	plain := filepath.Join(work, "index.cdxj")
	gz := plain + ".gz"
	if err := generate(plain, gz, *n); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	prof := func(name string) string {
		if *profDir == "" {
			return ""
		}
		return filepath.Join(*profDir, name+".pprof")
	}
	var ms []measure
	phase := func(name string, env []string, argv ...string) error {
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(), env...)
		var errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &errb
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v\n%s", name, err, errb.String())
		}
		wall := time.Since(start)
		cpu := benchutil.ProcessUsage(cmd.ProcessState).CPU
		ms = append(ms, measure{name, wall, cpu})
		fmt.Fprintf(stdout, "%-32s wall %8.2f s  cpu %8.2f s  %7.1f ns cpu/line  %s\n", name, wall.Seconds(), cpu.Seconds(), float64(cpu.Nanoseconds())/float64(*n), bytes.TrimSpace(errb.Bytes()))
		return nil
	}
	map1, map2, mapz := filepath.Join(work, "w1.ukvs"), filepath.Join(work, "w2.ukvs"), filepath.Join(work, "gz.ukvs")
	steps := []struct {
		name string
		env  []string
		argv []string
	}{
		{"build plain GOMAXPROCS=1", []string{"GOMAXPROCS=1"}, []string{self, "child-build", plain, map1, "1", prof("build-w1")}},
		{"build plain GOMAXPROCS=2", []string{"GOMAXPROCS=2"}, []string{self, "child-build", plain, map2, "2", prof("build-w2")}},
		{"wc -l plain", nil, []string{"wc", "-l", plain}},
		{"build gzip GOMAXPROCS=1", []string{"GOMAXPROCS=1"}, []string{self, "child-build", gz, mapz, "1", prof("build-gz")}},
		{"gzip -dc | wc -l", nil, []string{"sh", "-c", "gzip -dc '" + gz + "' | wc -l"}},
	}
	for _, s := range steps {
		if err := phase(s.name, s.env, s.argv...); err != nil {
			return err
		}
	}
	same := func(a, b string) (bool, error) {
		x, err := os.ReadFile(a)
		if err != nil {
			return false, err
		}
		y, err := os.ReadFile(b)
		return bytes.Equal(x, y), err
	}
	s12, err := same(map1, map2)
	if err != nil {
		return err
	}
	s1z, err := same(map1, mapz)
	if err != nil {
		return err
	}
	ratio := func(a, b time.Duration) float64 { return a.Seconds() / b.Seconds() }
	fmt.Fprintf(stdout, "\nlines %d\n", *n)
	fmt.Fprintf(stdout, "wall, 1 core / 2 cores:            %.2fx (target >= 1.8); maps identical: %v\n", ratio(ms[0].wall, ms[1].wall), s12)
	fmt.Fprintf(stdout, "cpu, 1 core / 2 cores:             %.2fx\n", ratio(ms[0].cpu, ms[1].cpu))
	fmt.Fprintf(stdout, "cpu, build plain / wc -l:          %.2fx (target <= 5)\n", ratio(ms[0].cpu, ms[2].cpu))
	fmt.Fprintf(stdout, "cpu, build gzip / gzip -dc | wc -l: %.2fx (target <= 1.3); map identical to plain: %v\n", ratio(ms[3].cpu, ms[4].cpu), s1z)
	if !s12 || !s1z {
		return errors.New("the maps differ")
	}
	return nil
}

// generate writes n cdxgen lines to plain and a gzip copy to gz, unless
// both are there already (a -dir kept from an earlier run).
func generate(plain, gz string, n int64) error {
	if st, err := os.Stat(gz); err == nil && st.Size() > 0 {
		if _, err := os.Stat(plain); err == nil {
			return nil
		}
	}
	f, err := os.Create(plain)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := os.Create(gz)
	if err != nil {
		return err
	}
	defer z.Close()
	zw, err := gzip.NewWriterLevel(z, gzip.BestSpeed)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(io.MultiWriter(f, zw), 1<<20)
	if _, err := cdxgen.New(cdxgen.Config{Lines: n, Seed: 1}).Write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	return f.Close()
}
