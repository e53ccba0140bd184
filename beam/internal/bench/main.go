// Command bench compares the CPU per index line of the Beam pipeline
// (package pipeline, on the prism runner in process) with the
// single-process build of package mementomap on the same input, and
// checks that the maps are byte-identical.
//
//	go run ./internal/bench -n 16000000 [-input FILE] [-workers 1,2] [-shard-size 256MiB[,64MiB...]] [-rounds 3] [-callgrind] [-cluster] [-dir D] [-cpuprofile P.pprof]
//
// Each build runs in a child process of its own (this program run again
// with -run), so that its CPU time (user + system, from getrusage of the
// child: every thread of it, the garbage collector's, the runner's and the
// kernel's work for its reads and writes included) and peak resident
// memory are its own. Both write their map as the commands do, through a
// temporary file synced and renamed into place (mementomap build's
// atomicfile; the pipeline's commit). The single-process build runs once
// per -workers value (mementomap.BuildOptions.Workers: 0 is the default
// of mementomap build, one worker per core), the pipeline once per
// -shard-size value (prism runs as many parts at once as there are
// cores). The builds run -rounds times, interleaved (each round every
// build once, each round starting one build later than the last), and the
// bench prints every run with the load average before it, then per build
// the best and the median of its runs (CPU seconds, nanoseconds of CPU
// per line, lines per CPU-second, peak RSS), and the ratios of each
// pipeline's CPU per line to each single-process build's, best to best
// and median to median.
//
// With -callgrind each build runs under valgrind --tool=callgrind instead
// (GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off, which valgrind needs), and
// the bench prints the instructions each executed in user space (Ir),
// which repeat from run to run whatever the machine's load, and their
// ratios; the kernel's work (reads, writes, syncs) is not counted there.
// Valgrind runs the program's threads one at a time and about 50 times
// slower: use an input of about 1 M lines.
//
// Everything the bench writes (the generated index, the maps, the builds'
// spills and the pipeline's temporary folders) is in a folder of its own
// made in -dir, removed at the end. Without -input the index is generated
// with cdxgen (-n lines, sorted CDXJ); with -cluster the generated lines
// are written as a ZipNum cluster in Common Crawl's layout (cluster.idx
// beside cdx-00000.gz ..., -lines-per-block lines per gzip block) and both
// builds read the cluster, so that the pipeline's peak memory can be set
// against --shard-size for clusters (a part is then that many bytes of
// compressed blocks).
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"

	"github.com/mementokit/mementokit/beam/pipeline"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/internal/bench/benchutil"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/internal/flagvalue"
	"github.com/mementokit/mementokit/mementomap"
)

var updatedAt = time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)

// build is one of the builds the bench compares.
type build struct {
	mode    string // "single" or "beam"
	workers int    // single: mementomap.BuildOptions.Workers
	shard   int64  // beam: bytes per part
	name    string
}

// run is one measured run of a build.
type run struct {
	wall, cpu time.Duration
	rss       int64
	ir        int64 // instructions under callgrind, else 0
	load      string
	out       string // the map written
}

func main() {
	n := flag.Int64("n", 16_000_000, "lines of the generated index")
	input := flag.String("input", "", "a sorted index to use instead of a generated one")
	dir := flag.String("dir", os.TempDir(), "folder in which the bench makes (and removes) a folder of its own for the index, the maps and the builds' temporary files")
	cluster := flag.Bool("cluster", false, "write the generated index as a ZipNum cluster (Common Crawl layout) and build from it")
	linesPerBlock := flag.Int("lines-per-block", 3000, "lines per gzip block of the -cluster index (Common Crawl's is 3000)")
	tmp := flag.String("tmp", "", "internal: the folder for a build's spills")
	shardList := flag.String("shard-size", "256MiB", "bytes per part of the pipeline (a number, or with KiB, MiB, GiB); a comma-separated list runs the pipeline once per size")
	workerList := flag.String("workers", "1,0", "workers of the single-process build (mementomap.BuildOptions.Workers; 0: one per core, the default of mementomap build); a comma-separated list runs it once per value")
	rounds := flag.Int("rounds", 3, "runs of each build, interleaved")
	callgrind := flag.Bool("callgrind", false, "run each build under valgrind --tool=callgrind and compare the instructions executed")
	runMode := flag.String("run", "", "internal: run one build (single or beam) and exit")
	out := flag.String("out", "", "internal: the map to write")
	cpuProfile := flag.String("cpuprofile", "", "write each build's CPU profile (go tool pprof) to this path with -single-wN-R.pprof or -beam-MMiB-R.pprof in place of a .pprof ending (R the round), or with -callgrind its callgrind file (callgrind_annotate) with .callgrind; \"\" writes none")
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
	var workers []int
	for _, f := range strings.Split(*workerList, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || w < 0 {
			log.Fatalf("-workers: %q is not a number of workers (0 or more)", f)
		}
		workers = append(workers, w)
	}
	if *runMode != "" {
		stop, err := benchutil.StartCPUProfile(*cpuProfile)
		if err != nil {
			log.Fatal(err)
		}
		if err := runOne(*runMode, *input, *out, *tmp, shards[0], workers[0]); err != nil {
			log.Fatal(err)
		}
		if err := stop(); err != nil {
			log.Fatal(err)
		}
		return
	}
	if *rounds < 1 {
		log.Fatal("-rounds: at least 1")
	}
	if *callgrind {
		if _, err := exec.LookPath("valgrind"); err != nil {
			log.Fatalf("-callgrind: %v", err)
		}
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

	var builds []build
	for _, w := range workers {
		name := fmt.Sprintf("single, %d worker(s)", w)
		if w == 0 {
			name = fmt.Sprintf("single, 0 (%d) workers", runtime.GOMAXPROCS(0))
		}
		builds = append(builds, build{mode: "single", workers: w, name: name})
	}
	for _, sh := range shards {
		builds = append(builds, build{mode: "beam", shard: sh,
			name: fmt.Sprintf("beam, %s parts (%d asked)", sizeName(sh), (size+sh-1)/sh)})
	}
	runs := make([][]run, len(builds))
	seq := 0
	firstOut := "" // the map of the first run
	for r := range *rounds {
		for k := range builds {
			i := (k + r) % len(builds) // each round starts one build later
			b := builds[i]
			seq++
			outPath := filepath.Join(own, fmt.Sprintf("bench-%d.map", seq))
			spill := filepath.Join(own, fmt.Sprintf("tmp-%d", seq))
			if err := os.Mkdir(spill, 0o755); err != nil {
				log.Fatal(err)
			}
			args := []string{"-run", b.mode, "-input", in, "-out", outPath, "-tmp", spill,
				"-shard-size", strconv.FormatInt(cmp.Or(b.shard, shards[0]), 10), "-workers", strconv.Itoa(b.workers)}
			profile := fmt.Sprintf("-single-w%d-%d", b.workers, r+1)
			if b.mode == "beam" {
				profile = fmt.Sprintf("-beam-%dMiB-%d", b.shard>>20, r+1)
			}
			profile = strings.TrimSuffix(*cpuProfile, ".pprof") + profile
			cg := filepath.Join(own, fmt.Sprintf("callgrind-%d.out", seq))
			switch {
			case *cpuProfile != "" && *callgrind:
				cg = profile + ".callgrind"
			case *cpuProfile != "":
				args = append(args, "-cpuprofile", profile+".pprof")
			}
			var cmd *exec.Cmd
			if *callgrind {
				cmd = exec.Command("valgrind", append([]string{"--tool=callgrind", "--callgrind-out-file=" + cg, os.Args[0]}, args...)...)
				cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off")
			} else {
				cmd = exec.Command(os.Args[0], args...)
			}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = os.Stdout, &stderr
			ru := run{load: loadAvg(), out: outPath}
			t0 := time.Now()
			if err := cmd.Run(); err != nil {
				os.Stderr.Write(stderr.Bytes())
				log.Fatalf("%s build: %v", b.name, err)
			}
			ru.wall = time.Since(t0)
			rus := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			ru.cpu = time.Duration(rus.Utime.Nano() + rus.Stime.Nano())
			ru.rss = rus.Maxrss << 10
			if *callgrind {
				if ru.ir, err = callgrindTotal(cg); err != nil {
					log.Fatalf("%s build: %v", b.name, err)
				}
			}
			if firstOut == "" {
				firstOut = ru.out // kept, for the comparison
			} else {
				if err := sameMap(firstOut, ru.out); err != nil {
					log.Fatalf("%s build, round %d: %v", b.name, r+1, err)
				}
				os.Remove(ru.out)
			}
			os.RemoveAll(spill)
			runs[i] = append(runs[i], ru)
			fmt.Printf("round %d  %-32s  load %-16s  wall %7.2fs  cpu %7.2fs  %6.0f ns CPU/line  peak RSS %4d MiB%s\n",
				r+1, b.name, ru.load, ru.wall.Seconds(), ru.cpu.Seconds(), float64(ru.cpu.Nanoseconds())/float64(lines), ru.rss>>20, irText(ru.ir, lines))
		}
	}
	fmt.Printf("load average after: %s\n", loadAvg())
	fmt.Printf("per build, of %d runs (best | median):\n", *rounds)
	best := make([]float64, len(builds))
	med := make([]float64, len(builds))
	for i, b := range builds {
		v := make([]float64, len(runs[i]))
		var rss int64
		for j, ru := range runs[i] {
			v[j] = ru.cpu.Seconds()
			if *callgrind {
				v[j] = float64(ru.ir)
			}
			rss = max(rss, ru.rss)
		}
		slices.Sort(v)
		best[i], med[i] = v[0], median(v)
		if *callgrind {
			fmt.Printf("%-32s  %8.0f | %8.0f instructions/line  peak RSS %4d MiB (under valgrind)\n", b.name, best[i]/float64(lines), med[i]/float64(lines), rss>>20)
			continue
		}
		fmt.Printf("%-32s  cpu %7.2fs | %7.2fs  %6.0f | %6.0f ns CPU/line  %6.3f | %6.3f M lines/CPU-s  peak RSS %4d MiB\n",
			b.name, best[i], med[i], best[i]*1e9/float64(lines), med[i]*1e9/float64(lines),
			float64(lines)/best[i]/1e6, float64(lines)/med[i]/1e6, rss>>20)
	}
	what := "CPU per line"
	if *callgrind {
		what = "instructions per line"
	}
	for i, b := range builds {
		if b.mode != "beam" {
			continue
		}
		for j, s := range builds {
			if s.mode != "single" {
				continue
			}
			fmt.Printf("%s / %s, %s: best %.3f, median %.3f\n", b.name, s.name, what, best[i]/best[j], med[i]/med[j])
		}
	}
	fi, err := os.Stat(firstOut)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("maps byte-identical (%d bytes, %d runs)\n", fi.Size(), seq)
}

// sizeName writes n bytes as MiB when it is a whole number of them.
func sizeName(n int64) string {
	if n > 0 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d B", n)
}

// median returns the median of sorted v.
func median(v []float64) float64 {
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

func irText(ir, lines int64) string {
	if ir == 0 {
		return ""
	}
	return fmt.Sprintf("  %d instructions (%.0f/line)", ir, float64(ir)/float64(lines))
}

// sameMap checks that the map at path is byte-identical to the one at
// first, reading both a block at a time: the bench's own memory stays
// small, since a child's peak RSS (getrusage) counts what its parent had
// resident when it forked.
func sameMap(first, path string) error {
	a, err := os.Open(first)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := os.Open(path)
	if err != nil {
		return err
	}
	defer b.Close()
	ba, bb := make([]byte, 1<<20), make([]byte, 1<<20)
	for off := int64(0); ; {
		na, erra := io.ReadFull(a, ba)
		nb, errb := io.ReadFull(b, bb)
		if na != nb || !bytes.Equal(ba[:na], bb[:nb]) {
			return fmt.Errorf("its map differs from the first run's in the MiB at byte %d", off)
		}
		off += int64(na)
		if erra != nil || errb != nil {
			if erra != io.EOF && erra != io.ErrUnexpectedEOF {
				return erra
			}
			if errb != io.EOF && errb != io.ErrUnexpectedEOF {
				return errb
			}
			return nil
		}
	}
}

// callgrindTotal reads the instruction count (the "summary:" line) of a
// callgrind output file.
func callgrindTotal(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, fmt.Errorf("callgrind: %w", err)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "summary: "); ok {
			return strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		}
	}
	return 0, fmt.Errorf("callgrind: %s has no summary line", path)
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
		// As mementomap build writes its map: synced, then renamed.
		f, err := atomicfile.Create(out, nil)
		if err != nil {
			return err
		}
		defer f.Close()
		o := spec.Options(tmp)
		o.Workers = workers
		if _, err := mementomap.Build(ctx, f, []cdxj.Searcher{ix}, o); err != nil {
			return err
		}
		return f.Commit()
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
