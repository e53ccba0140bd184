// Command bench compares the CPU per index line of the Beam pipeline
// (package pipeline, on the prism runner in process) with the
// single-process build of package mementomap on the same input, and
// checks that the two maps are byte-identical.
//
//	go run ./internal/bench -n 16000000 [-shard-size 256MiB[,64MiB...]] [-input FILE] [-dir D]
//
// Each build runs in a child process of its own (this program run again
// with -run), so that its CPU time (user + system, from getrusage of the
// child) and peak resident memory are its own. Without -input the index
// is generated with cdxgen (-n lines, sorted CDXJ) in -dir and removed
// afterwards. The pipeline runs once per shard size given. It prints the
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
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
)

var updatedAt = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

func main() {
	n := flag.Int64("n", 16_000_000, "lines of the generated index")
	input := flag.String("input", "", "a sorted index to use instead of a generated one")
	dir := flag.String("dir", os.TempDir(), "folder for the generated index and the maps")
	shardList := flag.String("shard-size", "256MiB", "bytes per part of the pipeline (a number, or with KiB, MiB, GiB); a comma-separated list runs the pipeline once per size")
	workers := flag.Int("workers", 1, "workers of the single-process build (mementomap.BuildOptions.Workers)")
	run := flag.String("run", "", "internal: run one build (single or beam) and exit")
	out := flag.String("out", "", "internal: the map to write")
	flag.Parse()
	beam.Init()
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	var shards []int64
	for _, f := range strings.Split(*shardList, ",") {
		n, err := parseSize(f)
		if err != nil {
			log.Fatal(err)
		}
		shards = append(shards, n)
	}
	if *run != "" {
		if err := runOne(*run, *input, *out, shards[0], *workers); err != nil {
			log.Fatal(err)
		}
		return
	}
	fmt.Printf("load average before: %s\n", loadAvg())

	in := *input
	var lines int64
	if in == "" {
		in = filepath.Join(*dir, fmt.Sprintf("bench-%d.cdxj", *n))
		f, err := os.Create(in)
		if err != nil {
			log.Fatal(err)
		}
		bw := bufio.NewWriterSize(f, 1<<20)
		st, err := cdxgen.New(cdxgen.Config{Lines: *n, Seed: 1}).Write(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err == nil {
			err = f.Close()
		}
		if err != nil {
			log.Fatal(err)
		}
		defer os.Remove(in)
		lines = st.Lines
	} else {
		c, err := countLines(in)
		if err != nil {
			log.Fatal(err)
		}
		lines = c
	}
	fi, err := os.Stat(in)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("input: %s, %d lines, %d bytes\n", in, lines, fi.Size())

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
			name = fmt.Sprintf("beam, %d MiB parts (%d)", r.shard>>20, (fi.Size()+r.shard-1)/r.shard)
		}
		outPath := filepath.Join(*dir, fmt.Sprintf("bench-%d.map", i))
		cmd := exec.Command(os.Args[0], "-run", r.mode, "-input", in, "-out", outPath,
			"-shard-size", strconv.FormatInt(r.shard, 10), "-workers", strconv.Itoa(*workers))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		t0 := time.Now()
		if err := cmd.Run(); err != nil {
			log.Fatalf("%s build: %v", name, err)
		}
		wall := time.Since(t0)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		res = append(res, result{name, wall, cpu, ru.Maxrss << 10, outPath})
		defer os.Remove(outPath)
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

// parseSize reads "256MiB", "1GiB", "64KiB" or a number of bytes.
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSuffix(t, u.suf), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid size %q (a positive number of bytes, or with KiB, MiB, GiB)", s)
	}
	return n * mult, nil
}

func runOne(mode, in, out string, shard int64, workers int) error {
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
		o := spec.Options("")
		o.Workers = workers
		if _, err := mementomap.Build(ctx, f, []cdxj.Searcher{ix}, o); err != nil {
			return err
		}
		return f.Close()
	case "beam":
		p, err := pipeline.NewPlan(ctx, pipeline.Config{Inputs: []string{in}, MapOutput: out, ShardBytes: shard, Build: spec})
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
