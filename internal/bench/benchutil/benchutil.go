// Package benchutil holds what the bench programs under internal/bench share:
// the main wrapper, measured phases run as child processes on one core with
// their CPU time and peak resident memory from wait4, CPU profiles, buffered
// output files and the throughput figures they print.
package benchutil

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/atomicfile"
	"github.com/mementokit/mementokit/internal/cli"
)

// Main runs run with the program's arguments, standard output and standard
// error under internal/cli's Main: SIGINT and SIGTERM cancel its context,
// -h exits 0 (the usage on standard error), a command-line mistake exits
// 2 with one line naming it, any other error exits 1 as "bench: ERR".
func Main(run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	cli.Main("bench", func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		return run(ctx, args, stdout, stderr)
	})
}

// NewFlagSet returns the flag set of a bench program: its errors are
// returned (flag.ContinueOnError, for cli.ParseFlags), and -h writes
// "usage: bench [flags]", about and the flag list to stderr.
func NewFlagSet(about string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: bench [flags]\n%s\n", about)
		fs.PrintDefaults()
	}
	return fs
}

// Flags are the flags of the bench programs that generate a cdxgen index
// into a work folder and measure phases of it in child processes.
type Flags struct {
	N          int64  // -n: CDXJ lines of the generated index
	Seed       uint64 // -seed: cdxgen's seed
	Dir        string // -dir: the work folder ("": a new temporary one)
	Keep       bool   // -keep: keep a temporary work folder
	Phase      string // -phase: run one measured phase in this process (the child's side)
	CPUProfile string // -cpuprofile: with -phase, a CPU profile of the phase to this file
}

// AddFlags registers the [Flags] on fs, with n lines by default.
func AddFlags(fs *flag.FlagSet, n int64) *Flags {
	f := &Flags{}
	fs.Int64Var(&f.N, "n", n, "CDXJ lines of the generated index")
	fs.Uint64Var(&f.Seed, "seed", 1, "generator seed")
	fs.StringVar(&f.Dir, "dir", "", "work folder (default: a new temporary folder, removed at the end unless -keep); an index.cdxj already there is reused (it is written whole or not at all)")
	fs.BoolVar(&f.Keep, "keep", false, "keep the work folder")
	fs.StringVar(&f.Phase, "phase", "", "internal: run one measured phase in this process")
	fs.StringVar(&f.CPUProfile, "cpuprofile", "", "with -phase: write a CPU profile of the phase to this file")
	return f
}

// Parse parses args with fs (cli.ParseFlags) and checks that -n is
// positive and that -cpuprofile comes with -phase (a cli.Usage error if
// not).
func (f *Flags) Parse(fs *flag.FlagSet, args []string) error {
	if err := cli.ParseFlags(fs, args); err != nil {
		return err
	}
	if f.N <= 0 {
		return cli.Usagef("-n must be positive, not %d", f.N)
	}
	if f.CPUProfile != "" && f.Phase == "" {
		// The parent runs many phases, each in a child: one file would
		// hold none of them.
		return cli.Usagef("-cpuprofile profiles one measured phase: give it with -phase NAME -dir DIR")
	}
	return nil
}

// Work makes the work folder ([WorkDir] of -dir and -keep, a temporary one
// named after prefix when -dir is empty), sets f.Dir to it, and returns the
// function that removes a temporary one.
// Its error is WorkDir's, and f.Dir is then unchanged.
func (f *Flags) Work(prefix string) (done func(), err error) {
	dir, done, err := WorkDir(f.Dir, prefix, f.Keep)
	if err != nil {
		return nil, err
	}
	f.Dir = dir
	return done, nil
}

// Run is the course of a bench program that generates data into a work
// folder and measures phases of it in child processes: it parses args
// ([Flags.Parse]); with -phase it runs phase, the child's side, in this
// process; otherwise it makes the work folder ([Flags.Work], a temporary
// one named after prefix, removed after) and runs parent with standard
// output buffered (flushed after parent returns) and a progress log on
// stderr ([Logf]). It returns the first error of the parse, the side run
// and the flush.
func (f *Flags) Run(fs *flag.FlagSet, args []string, prefix string, stdout, stderr io.Writer,
	phase func() error, parent func(w *bufio.Writer, logf func(format string, a ...any)) error) error {
	if err := f.Parse(fs, args); err != nil {
		return err
	}
	if f.Phase != "" {
		return phase()
	}
	done, err := f.Work(prefix)
	if err != nil {
		return err
	}
	defer done()
	w := bufio.NewWriter(stdout)
	err = parent(w, Logf(stderr))
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Measured is what the parent adds to a phase's report: its wall time
// (measured by the child), and its CPU time and peak resident memory
// (from the child's rusage, see [RunChild]).
type Measured struct {
	Wall   time.Duration
	CPU    time.Duration // user plus system; a child that measured its own (one thread's) keeps it
	MaxRSS int64         // bytes
}

// Measures is implemented by a phase's report that embeds [Measured].
type Measures interface{ Measure() *Measured }

// Measure returns m, for [Measures].
func (m *Measured) Measure() *Measured { return m }

// RunPhase runs this program again as the child of one measured phase,
// "-phase PHASE -dir DIR" and then extra ([RunChild]: GOMAXPROCS=1, the
// child's JSON report decoded into r), and fills in r's peak RSS and,
// when the child left it zero, its CPU time.
// Its errors are RunChild's: os.Executable's, the child's failure to
// start or to exit 0 (an *exec.ExitError, also when ctx ends and the child
// is killed), or an error quoting the child's output (up to 200 bytes)
// when it is not r's JSON.
func RunPhase(ctx context.Context, r Measures, phase, dir string, extra ...string) error {
	u, err := RunChild(ctx, r, append([]string{"-phase", phase, "-dir", dir}, extra...)...)
	if err != nil {
		return err
	}
	m := r.Measure()
	m.MaxRSS = u.MaxRSS
	if m.CPU == 0 {
		m.CPU = u.CPU
	}
	return nil
}

// TestMain is the TestMain body of a bench program's tests. A bench runs
// each measured phase by running itself with -phase ([RunPhase]); under go
// test "itself" is the test binary, which then plays the child: when its
// arguments hold -phase, TestMain runs run with them and exits (1 on an
// error, printed); otherwise it runs the tests.
func TestMain(m *testing.M, run func(ctx context.Context, args []string, stdout, stderr io.Writer) error) {
	if slices.Contains(os.Args[1:], "-phase") {
		if err := run(context.Background(), os.Args[1:], os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Usage is what the kernel measured of a finished child process.
type Usage struct {
	CPU    time.Duration // user plus system CPU time
	MaxRSS int64         // peak resident set, in bytes
}

// RunChild runs this program again with args and GOMAXPROCS=1 (one measured
// phase on one core), its standard error passed through, decodes the JSON
// it writes on standard output into out, and returns its Usage (wait4's
// rusage; ru_maxrss is in KiB on Linux).
func RunChild(ctx context.Context, out any, args ...string) (Usage, error) {
	exe, err := os.Executable()
	if err != nil {
		return Usage{}, err
	}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return Usage{}, err
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		return Usage{}, fmt.Errorf("child output %.200q: %w", stdout.String(), err)
	}
	return ProcessUsage(cmd.ProcessState), nil
}

// ProcessUsage returns the Usage of a finished child process, from wait4's
// rusage (ru_maxrss is in KiB on Linux); the zero Usage where the
// platform gives none.
func ProcessUsage(ps *os.ProcessState) Usage {
	var u Usage
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		u.MaxRSS = ru.Maxrss * 1024
		u.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return u
}

// SelfCPU returns this process's user plus system CPU time so far
// (getrusage RUSAGE_SELF), or 0 when the kernel does not tell.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// StartCPUProfile starts a CPU profile written to path and returns the
// function that stops it and writes the file; path "" profiles nothing
// (stop then does nothing and returns nil). The profile goes to a
// temporary file beside path (atomicfile.Create) that stop renames onto
// path, so that path holds a whole profile or what it held before, never
// a part of one. Its errors are atomicfile.Create's (naming path) and
// pprof.StartCPUProfile's (a profile already running), nothing left
// behind then; stop's is atomicfile's Commit error, naming path.
func StartCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := atomicfile.Create(path, nil)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		defer f.Close()
		return f.Commit()
	}, nil
}

// WriteProfile writes the runtime/pprof profile of that name ("allocs",
// "mutex", "heap", …) to path, in the gzipped protobuf form go tool pprof
// reads, through a temporary file renamed onto path (atomicfile.Create):
// on an error path is as it was.
// An unknown name is an error quoting it; otherwise the errors are
// atomicfile.Create's or Commit's (naming path) or the profile's write
// error.
func WriteProfile(name, path string) error {
	p := pprof.Lookup(name)
	if p == nil {
		return fmt.Errorf("no %q profile", name)
	}
	f, err := atomicfile.Create(path, nil)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := p.WriteTo(f, 0); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFile calls fn with a 1 MiB buffered writer on a temporary file
// renamed onto path once fn, the flush and the close succeed
// (atomicfile.Create, without a sync: the files of a bench run are read
// back by the same run). An error, or a run killed while fn writes, leaves
// path as it was, so a bench that reuses a file of its -dir when it is
// there never reuses a half-written one. It returns fn's value and the
// first error of the create, fn, the flush and the commit.
func WriteFile[T any](path string, fn func(io.Writer) (T, error)) (T, error) {
	f, err := atomicfile.Create(path, &atomicfile.Options{NoSync: true})
	if err != nil {
		var zero T
		return zero, err
	}
	defer f.Close()
	bw := bufio.NewWriterSize(f, 1<<20)
	v, err := fn(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Commit()
	}
	return v, err
}

// Rate formats n items in d as items per second: "1.25 M", "12.5 k",
// "3.0", or "-" when d is not positive.
func Rate(n int64, d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	v := float64(n) / d.Seconds()
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1f k", v/1e3)
	}
	return fmt.Sprintf("%.1f", v)
}

// WorkDir returns the work folder of a run: dir, created if need be, or
// when dir is "" a new temporary folder named after prefix. done removes a
// temporary folder unless keep; it leaves a given dir alone.
// Its errors are os.MkdirAll's for dir, or os.MkdirTemp's, each an
// *fs.PathError naming the folder.
func WorkDir(dir, prefix string, keep bool) (path string, done func(), err error) {
	if dir != "" {
		return dir, func() {}, os.MkdirAll(dir, 0o755)
	}
	d, err := os.MkdirTemp("", prefix)
	if err != nil {
		return "", nil, err
	}
	if keep {
		return d, func() {}, nil
	}
	return d, func() { os.RemoveAll(d) }, nil
}

// Logf returns a printf to w of progress lines, each led by the time of day
// (15:04:05).
func Logf(w io.Writer) func(format string, a ...any) {
	return func(format string, a ...any) {
		fmt.Fprintf(w, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
}
