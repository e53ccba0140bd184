// Command bench compares the CPU per index line of the Beam pipeline
// (package pipeline, on the prism runner in process) with the
// single-process build of package mementomap on the same input, and
// checks that the two maps are byte-identical.
//
//	go run ./internal/bench -n 16000000 [-shard-size 256MiB[,64MiB...]] [-input FILE] [-cluster] [-dir D] [-cpuprofile P.pprof]
//
// Each build runs in a child process of its own (this program run again
// with -run), so that its CPU time (user + system, from getrusage of the
// child) and peak resident memory are its own. Everything the bench
// writes (the generated index, the maps, the builds' spills and the
// pipeline's temporary folders) is in a folder of its own made in -dir,
// removed at the end. Without -input the index is generated with cdxgen
// (-n lines, sorted CDXJ); with -cluster the generated lines are written
// as a ZipNum cluster in Common Crawl's layout (cluster.idx beside
// cdx-00000.gz ..., -lines-per-block lines per gzip block) and both builds
// read the cluster, so that the pipeline's peak memory can be set against
// --shard-size for clusters (a part is then that many bytes of compressed
// blocks). The pipeline runs once per shard size given. It prints the
// load average before and after, and per build: wall time, CPU seconds,
// lines per CPU-second, CPU nanoseconds per line and peak RSS; then the
// ratio of each pipeline run's CPU per line to the single-process
// build's.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/mementokit/mementokit/beam/pipeline"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

var updatedAt = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func main() {
	n := flag.Int64("n", 16_000_000, "lines of the generated index")
	input := flag.String("input", "", "a sorted index to use instead of a generated one")
	dir := flag.String("dir", os.TempDir(), "folder in which the bench makes (and removes) a folder of its own for the index, the maps and the builds' temporary files")
	cluster := flag.Bool("cluster", false, "write the generated index as a ZipNum cluster (Common Crawl layout) and build from it")
	linesPerBlock := flag.Int("lines-per-block", 3000, "lines per gzip block of the -cluster index (Common Crawl's is 3000)")
	tmp := flag.String("tmp", "", "internal: the folder for a build's spills")
	shardList := flag.String("shard-size", "256MiB", "bytes per part of the pipeline (a number, or with KiB, MiB, GiB); a comma-separated list runs the pipeline once per size")
	workers := flag.Int("workers", 1, "workers of the single-process build (mementomap.BuildOptions.Workers)")
	run := flag.String("run", "", "internal: run one build (single or beam) and exit")
	out := flag.String("out", "", "internal: the map to write")
	cpuProfile := flag.String("cpuprofile", "", "write each build's CPU profile (go tool pprof) to this path with -single.pprof or -beam-N.pprof in place of a .pprof ending (N the run's place); \"\" writes none")
	flag.Parse()
	beam.Init()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	var shards []int64
	for _, f := range strings.Split(*shardList, ",") {
		n, err := flagvalue.ParseBytes(f)
		if err != nil {
			log.Fatal(err)
		}
		shards = append(shards, n)
	}
	if *run != "" {
		stop, err := benchutil.StartCPUProfile(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := runOne(*run, *input, *out, *tmp, shards[0], *workers); err != nil {
			log.Fatal(err)
		}
		if err := stop(); err != nil {
			log.Fatal(err)
		}
		return
	}
	fmt.Printf("load average before: %s\n", loadAvg())

	own, err := os.MkdirTemp(*dir, "beam-bench-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(own)
	in := *input
	var lines int64
	switch {
	case in == "" && *cluster:
		in = filepath.Join(own, "indexes")
		if lines, err = writeCluster(in, *n, *linesPerBlock); err != nil {
			log.Fatal(err)
		}
	case in == "":
		in = filepath.Join(own, fmt.Sprintf("bench-%d.cdxj", *n))
		if lines, err = writeFile(in, *n); err != nil {
			log.Fatal(err)
		}
	default:
		if lines, err = countLines(in); err != nil {
			log.Fatal(err)
		}
	}
	size, err := storedSize(in)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("input: %s, %d lines, %d bytes as stored\n", in, lines, size)

	type result struct {
		name      string
		wall, cpu time.Duration
		rss       int64
		out       string
	}
	var res []result
	runs := []struct {
		mode  string
		shard int64
	}{{"single", shards[0]}}
	for _, sh := range shards {
		runs = append(runs, struct {
			mode  string
			shard int64
		}{"beam", sh})
	}
	for i, r := range runs {
		name := r.mode
		if r.mode == "beam" {
			name = fmt.Sprintf("beam, %d MiB parts (%d asked)", r.shard>>20, (size+r.shard-1)/r.shard)
		}
		outPath := filepath.Join(own, fmt.Sprintf("bench-%d.map", i))
		spill := filepath.Join(own, fmt.Sprintf("tmp-%d", i))
		if err := os.Mkdir(spill, 0o755); err != nil {
			log.Fatal(err)
		}
		args := []string{"-run", r.mode, "-input", in, "-out", outPath, "-tmp", spill,
			"-shard-size", strconv.FormatInt(r.shard, 10), "-workers", strconv.Itoa(*workers)}
		if *cpuProfile != "" {
			suffix := "-single.pprof"
			if r.mode == "beam" {
				suffix = fmt.Sprintf("-beam-%d.pprof", i)
			}
			args = append(args, "-cpuprofile", strings.TrimSuffix(*cpuProfile, ".pprof")+suffix)
		}
		cmd := exec.Command(os.Args[0], args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			log.Fatalf("%s build: %v", name, err)
		}
		wall := time.Since(t0)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		res = append(res, result{name, wall, cpu, ru.Maxrss << 10, outPath})
	}
	fmt.Printf("load average after: %s\n", loadAvg())
	for _, r := range res {
		fmt.Printf("%-26s  wall %7.2fs  cpu %7.2fs  %6.3f M lines/CPU-s  %6.0f ns CPU/line  peak RSS %4d MiB\n",
			r.name, r.wall.Seconds(), r.cpu.Seconds(), float64(lines)/r.cpu.Seconds()/1e6,
			float64(r.cpu.Nanoseconds())/float64(lines), r.rss>>20)
	}
	a, err := os.ReadFile(res[0].out)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res[1:] {
		fmt.Printf("%s: CPU per line / single-process CPU per line: %.3f\n", r.name, r.cpu.Seconds()/res[0].cpu.Seconds())
		b, err := os.ReadFile(r.out)
		if err != nil {
			log.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			log.Fatalf("%s: the maps differ (%d and %d bytes)", r.name, len(a), len(b))
		}
	}
	fmt.Printf("maps byte-identical (%d bytes)\n", len(a))
}

// loadAvg returns the 1, 5 and 15 minute load averages (Linux), or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// writeFile writes n sorted cdxgen lines to path and returns the lines
// written.
func writeFile(path string, n int64) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	st, err := cdxgen.New(cdxgen.Config{Lines: n, Seed: 1}).Write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st.Lines, err
}

// writeCluster writes n sorted cdxgen lines as a ZipNum cluster in dir in
// Common Crawl's layout: cdx-00000.gz ... (about 300 blocks per part) and
// cluster.idx. It returns the lines written.
func writeCluster(dir string, n int64, perBlock int) (int64, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return 0, err
	}
	w, err := cdxj.CreateCluster(dir, "cdx", &cdxj.ClusterOptions{LinesPerBlock: perBlock, BlocksPerPart: 300})
	if err != nil {
		return 0, err
	}
	defer w.Close()
	pr, pw := io.Pipe()
	var st cdxgen.Stats
	go func() {
		var err error
		st, err = cdxgen.New(cdxgen.Config{Lines: n, Seed: 1}).Write(pw)
		pw.CloseWithError(err)
	}()
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var lines int64
	for sc.Scan() {
		if err := w.WriteLine(sc.Bytes()); err != nil {
			pr.CloseWithError(err)
			return lines, err
		}
		lines++
	}
	if err := sc.Err(); err != nil {
		return lines, err
	}
	if lines != st.Lines {
		return lines, fmt.Errorf("cluster: %d lines read of the %d generated", lines, st.Lines)
	}
	if err := w.Commit(); err != nil {
		return lines, err
	}
	return lines, os.Rename(filepath.Join(dir, "cdx.idx"), filepath.Join(dir, "cluster.idx"))
}

// storedSize returns an index's bytes as stored (pipeline.StoredSize): a
// file's size, the sum of a cluster's block lengths.
func storedSize(in string) (int64, error) {
	ix, err := cdxj.Open(context.Background(), in, nil)
	if err != nil {
		return 0, err
	}
	defer ix.Close()
	switch ix.(type) {
	case *cdxj.File, *cdxj.Cluster:
		return pipeline.StoredSize(ix)
	}
	return 0, fmt.Errorf("%s: neither a file nor a cluster", in)
}

func runOne(mode, in, out, tmp string, shard int64, workers int) error {
	ctx := context.Background()
	spec := pipeline.BuildSpec{Name: "bench", UpdatedAt: updatedAt}
	switch mode {
	case "single":
		ix, err := cdxj.Open(ctx, in, nil)
		if err != nil {
			return err
		}
		defer ix.Close()
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		o := spec.Options(tmp)
		o.Workers = workers
		if _, err := mementomap.Build(ctx, f, []cdxj.Searcher{ix}, o); err != nil {
			return err
		}
		return f.Close()
	case "beam":
		p, err := pipeline.NewPlan(ctx, &pipeline.Config{Inputs: []string{in}, MapOutput: out, ShardBytes: shard, Build: spec, TempDir: tmp})
		if err != nil {
			return err
		}
		_, err = pipeline.Run(ctx, "prism", p)
		return err
	}
	return fmt.Errorf("unknown build %q", mode)
}

func countLines(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var n int64
	buf := make([]byte, 1<<20)
	for {
		k, err := f.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err != nil {
			return n, nil
		}
	}
}
