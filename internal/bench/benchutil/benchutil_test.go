package benchutil

import (
	"bufio"
	"compress/gzip"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/cli"
)

func TestRate(t *testing.T) {
	for _, c := range []struct {
		n    int64
		d    time.Duration
		want string
	}{
		{2_500_000, time.Second, "2.50 M"},
		{12_500, time.Second, "12.5 k"},
		{3, time.Second, "3.0"},
		{5, 0, "-"},
	} {
		if got := Rate(c.n, c.d); got != c.want {
			t.Errorf("Rate(%d, %v) = %q, want %q", c.n, c.d, got, c.want)
		}
	}
}

func TestWriteFileAndProfile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	n, err := WriteFile(p, func(w io.Writer) (int, error) { return io.WriteString(w, "abc\n") })
	if err != nil || n != 4 {
		t.Fatalf("WriteFile = %d, %v", n, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "abc\n" {
		t.Errorf("file holds %q", b)
	}
	if _, err := WriteFile(filepath.Join(dir, "no", "such", "dir"), func(io.Writer) (int, error) { return 0, nil }); err == nil {
		t.Error("WriteFile into a missing folder succeeded")
	}
	// A write that fails half-way leaves the path as it was (absent, or
	// its old content) and no other file in the folder: a bench reusing
	// what it finds in -dir never finds a half-written file.
	for _, old := range []string{"", "old\n"} {
		q := filepath.Join(dir, "half.cdxj")
		os.Remove(q)
		if old != "" {
			os.WriteFile(q, []byte(old), 0o644)
		}
		_, err := WriteFile(q, func(w io.Writer) (int, error) {
			n, _ := io.WriteString(w, strings.Repeat("x", 3<<20))
			return n, errors.New("interrupted")
		})
		if err == nil || err.Error() != "interrupted" {
			t.Errorf("WriteFile with fn failing: %v", err)
		}
		b, rerr := os.ReadFile(q)
		if old == "" && !errors.Is(rerr, os.ErrNotExist) || old != "" && string(b) != old {
			t.Errorf("after a failed WriteFile the path holds %d bytes (%v), want %q", len(b), rerr, old)
		}
		want := 1 // out.txt
		if old != "" {
			want = 2
		}
		if ents, _ := os.ReadDir(dir); len(ents) != want {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Errorf("folder holds %v after a failed WriteFile", names)
		}
	}
}

// TestProfilesAtomic: StartCPUProfile and WriteProfile write through a
// temporary file renamed onto the path: while the CPU profile runs the
// path holds what it held before, after stop a whole gzipped profile;
// nothing else is left in the folder. A path that cannot be written (a
// folder, a missing folder) is an error naming it, the path unchanged, and
// "" profiles nothing.
func TestProfilesAtomic(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "cpu.pprof")
	if err := os.WriteFile(prof, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	stop, err := StartCPUProfile(prof)
	if err != nil {
		t.Fatal(err)
	}
	for i, end := 0, time.Now().Add(50*time.Millisecond); time.Now().Before(end); i++ {
		_ = strings.Repeat("x", i%64)
	}
	if b, _ := os.ReadFile(prof); string(b) != "old" {
		t.Errorf("while profiling the path holds %d bytes, want the old content", len(b))
	}
	if err := stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	wholeGzip := func(p string) {
		t.Helper()
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err == nil {
			var n int64
			n, err = io.Copy(io.Discard, z)
			if err == nil && n == 0 {
				err = errors.New("empty profile")
			}
		}
		if err != nil {
			t.Errorf("%s is not a whole gzipped profile: %v", p, err)
		}
	}
	wholeGzip(prof)
	heap := filepath.Join(dir, "heap.pprof")
	if err := os.WriteFile(heap, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteProfile("heap", heap); err != nil {
		t.Fatal(err)
	}
	wholeGzip(heap)
	if err := WriteProfile("no-such-profile", heap); err == nil {
		t.Error("WriteProfile of an unknown profile succeeded")
	}
	wholeGzip(heap)
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{sub, filepath.Join(dir, "no", "such", "x.pprof")} {
		if err := WriteProfile("heap", p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("WriteProfile to %s: %v, want an error naming it", p, err)
		}
		if stop, err := StartCPUProfile(p); err == nil || !strings.Contains(err.Error(), p) {
			if err == nil {
				stop()
			}
			t.Errorf("StartCPUProfile to %s: %v, want an error naming it", p, err)
		}
	}
	if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
		t.Errorf("the folder given as a profile path was changed: %v", err)
	}
	stop, err = StartCPUProfile("")
	if err != nil || stop() != nil {
		t.Errorf(`StartCPUProfile(""): %v`, err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "cpu.pprof heap.pprof sub" {
		t.Errorf("folder holds %s, want cpu.pprof heap.pprof sub", got)
	}
}

func TestWorkDir(t *testing.T) {
	given := filepath.Join(t.TempDir(), "a", "b")
	d, done, err := WorkDir(given, "x-", false)
	if err != nil || d != given {
		t.Fatalf("WorkDir(%s) = %s, %v", given, d, err)
	}
	done()
	if _, err := os.Stat(given); err != nil {
		t.Errorf("a given folder was removed or not made: %v", err)
	}
	tmp, done, err := WorkDir("", "benchutil-test-", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(tmp); err != nil {
		t.Fatal(err)
	}
	done()
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("temporary folder %s still there after done: %v", tmp, err)
	}
}

func TestWriteProfileAndUsage(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "allocs.pprof")
	if err := WriteProfile("allocs", p); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
		t.Errorf("no allocation profile written: %v", err)
	}
	if err := WriteProfile("no-such-profile", filepath.Join(dir, "x.pprof")); err == nil {
		t.Error("WriteProfile of an unknown profile succeeded")
	}
	if SelfCPU() <= 0 {
		t.Error("SelfCPU of a running test process is not positive")
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	if u := ProcessUsage(cmd.ProcessState); u.MaxRSS <= 0 {
		t.Errorf("ProcessUsage of a finished sh = %+v, want a peak RSS", u)
	}
}

// TestFlags: the shared flags parse, -n must be positive (a usage error,
// exit status 2), and Work makes a given -dir the work folder.
func TestFlags(t *testing.T) {
	var stderr strings.Builder
	fs := NewFlagSet("what the bench measures", &stderr)
	f := AddFlags(fs, 1000)
	dir := filepath.Join(t.TempDir(), "w")
	if err := f.Parse(fs, []string{"-seed", "7", "-dir", dir, "-keep"}); err != nil || f.N != 1000 || f.Seed != 7 || !f.Keep {
		t.Fatalf("Parse = %v, %+v", err, f)
	}
	done, err := f.Work("x-")
	if err != nil || f.Dir != dir {
		t.Fatalf("Work = %v, dir %s", err, f.Dir)
	}
	done()
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("a given -dir is gone: %v", err)
	}
	fs = NewFlagSet("what the bench measures", &stderr)
	f = AddFlags(fs, 1000)
	if err := f.Parse(fs, []string{"-n", "0"}); cli.Status("bench", err, io.Discard) != 2 {
		t.Errorf("-n 0: %v, want a usage error", err)
	}
	if err := f.Parse(fs, []string{"-n", "10", "-cpuprofile", "x.pprof"}); cli.Status("bench", err, io.Discard) != 2 || !strings.Contains(err.Error(), "-phase") {
		t.Errorf("-cpuprofile without -phase: %v, want a usage error naming -phase", err)
	}
	fs = NewFlagSet("what the bench measures", &stderr)
	f = AddFlags(fs, 1000)
	if err := f.Parse(fs, []string{"-phase", "build", "-cpuprofile", "x.pprof"}); err != nil {
		t.Errorf("-cpuprofile with -phase: %v", err)
	}
	if err := f.Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || !strings.HasPrefix(stderr.String(), "usage: bench [flags]\nwhat the bench measures\n") {
		t.Errorf("-h: %v, usage %q", err, stderr.String())
	}
}

// TestFlagsRun: with -phase only the phase runs, in no work folder; without
// it the parent runs in a new temporary work folder, removed after, its
// buffered output flushed, and a parent's error is returned.
func TestFlagsRun(t *testing.T) {
	newFlags := func() (*flag.FlagSet, *Flags) {
		fs := flag.NewFlagSet("bench", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		return fs, AddFlags(fs, 10)
	}
	fs, f := newFlags()
	phased, parented := false, false
	err := f.Run(fs, []string{"-phase", "build", "-dir", t.TempDir()}, "x-", io.Discard, io.Discard,
		func() error { phased = true; return nil },
		func(*bufio.Writer, func(string, ...any)) error { parented = true; return nil })
	if err != nil || !phased || parented {
		t.Errorf("-phase: err %v, phase ran %v, parent ran %v; want the phase only", err, phased, parented)
	}

	t.Setenv("TMPDIR", t.TempDir())
	fs, f = newFlags()
	var out, log strings.Builder
	var dir string
	err = f.Run(fs, []string{"-n", "5"}, "x-bench-", &out, &log,
		func() error { t.Error("phase ran without -phase"); return nil },
		func(w *bufio.Writer, logf func(string, ...any)) error {
			dir = f.Dir
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() || !strings.HasPrefix(filepath.Base(dir), "x-bench-") {
				t.Errorf("work folder %q: %v", dir, err)
			}
			w.WriteString("# report\n")
			logf("phase %s", "build")
			return nil
		})
	if err != nil || out.String() != "# report\n" || !strings.HasSuffix(log.String(), " phase build\n") {
		t.Errorf("parent: err %v, stdout %q, log %q", err, out.String(), log.String())
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary work folder %s left behind (%v)", dir, err)
	}
	fs, f = newFlags()
	want := errors.New("phase failed")
	if err := f.Run(fs, nil, "x-", io.Discard, io.Discard, func() error { return nil },
		func(*bufio.Writer, func(string, ...any)) error { return want }); err != want {
		t.Errorf("parent error: %v, want %v", err, want)
	}
	fs, f = newFlags()
	if err := f.Run(fs, []string{"-n", "0"}, "x-", io.Discard, io.Discard, func() error { return nil },
		func(*bufio.Writer, func(string, ...any)) error { t.Error("parent ran after a usage error"); return nil }); cli.Status("bench", err, io.Discard) != 2 {
		t.Errorf("-n 0: %v, want a usage error", err)
	}
}
