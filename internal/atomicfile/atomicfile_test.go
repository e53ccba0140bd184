package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func names(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// modes runs f with unnamed files (where the system has them) and with
// named ones.
func modes(t *testing.T, f func(t *testing.T)) {
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named=%v", named), func(t *testing.T) {
			forceNamed = named
			defer func() { forceNamed = false }()
			f(t)
		})
	}
}

func TestCommit(t *testing.T) {
	modes(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.map")
		f, err := Create(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(f, "com,example)/ 1\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("target exists before Commit: %v", err)
		}
		if err := f.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Errorf("Close after Commit: %v", err)
		}
		if err := f.Commit(); err == nil {
			t.Error("second Commit succeeded")
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != "com,example)/ 1\n" {
			t.Errorf("target = %q, %v", b, err)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
			t.Errorf("mode %v, want 0644", st.Mode().Perm())
		}
		if diff := cmp.Diff([]string{"out.map"}, names(t, dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
	})
}

// TestCommitNoSync: Options.NoSync commits the file whole, with its mode,
// without syncing it; the default syncs it once.
func TestCommitNoSync(t *testing.T) {
	modes(t, func(t *testing.T) {
		syncs := 0
		old := syncFile
		syncFile = func(f *os.File) error { syncs++; return old(f) }
		defer func() { syncFile = old }()
		dir := t.TempDir()
		for _, c := range []struct {
			o     *Options
			syncs int
		}{{nil, 1}, {&Options{NoSync: true}, 0}, {&Options{NoSync: true, Perm: 0o600}, 0}} {
			syncs = 0
			path := filepath.Join(dir, "part-0.map")
			f, err := Create(path, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.WriteString(f, "com,example)/ 2/1\n"); err != nil {
				t.Fatal(err)
			}
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
			if syncs != c.syncs {
				t.Errorf("%+v: %d syncs, want %d", c.o, syncs, c.syncs)
			}
			b, err := os.ReadFile(path)
			if err != nil || string(b) != "com,example)/ 2/1\n" {
				t.Errorf("%+v: target = %q, %v", c.o, b, err)
			}
			want := fs.FileMode(0o644)
			if c.o != nil && c.o.Perm != 0 {
				want = c.o.Perm
			}
			if st, _ := os.Stat(path); st.Mode().Perm() != want {
				t.Errorf("%+v: mode %v, want %v", c.o, st.Mode().Perm(), want)
			}
			if diff := cmp.Diff([]string{"part-0.map"}, names(t, dir)); diff != "" {
				t.Errorf("%+v: folder (-want +got):\n%s", c.o, diff)
			}
			os.Remove(path)
		}
	})
}

func TestAbandon(t *testing.T) {
	modes(t, func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.map")
		os.WriteFile(path, []byte("old\n"), 0o600)
		f, err := Create(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(f, "partial")
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != "old\n" {
			t.Errorf("target changed: %q", b)
		}
		if diff := cmp.Diff([]string{"out.map"}, names(t, dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
		// A failed write leaves the target as it was and names it.
		err = Write(path, func(w io.Writer) error {
			io.WriteString(w, "half")
			return errors.New("disk on fire")
		})
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "disk on fire") {
			t.Errorf("WriteFile error = %v", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "old\n" {
			t.Errorf("target changed: %q", b)
		}
		// The replaced file's mode is kept.
		if err := Write(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
			t.Fatal(err)
		}
		if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want the replaced file's 0600", st.Mode().Perm())
		}
		if diff := cmp.Diff([]string{"out.map"}, names(t, dir)); diff != "" {
			t.Errorf("folder (-want +got):\n%s", diff)
		}
	})
}

func TestCreateErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "missing", "out.map")
	if _, err := Create(path, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Create in a missing folder: %v", err)
	}
	if _, err := Create(dir+"/", nil); err == nil {
		t.Error("Create of a folder name succeeded")
	}
	// What is not a regular file is refused before anything is written:
	// a rename would replace it with one.
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "null-link")
	if err := os.Symlink(os.DevNull, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{os.DevNull, fifo, link, dir} {
		if _, err := Create(p, nil); err == nil || !strings.Contains(err.Error(), p+": not a regular file") {
			t.Errorf("Create(%s): %v, want not a regular file", p, err)
		}
	}
	if st, err := os.Stat(fifo); err != nil || st.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("the pipe after Create: %v, %v", st, err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode().Type() != os.ModeSymlink {
		t.Errorf("the link after Create: %v, %v", st, err)
	}
}

// deadPID returns the PID of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	return cmd.Process.Pid
}

func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * StaleAge)
	dead := deadPID(t)
	files := map[string]time.Time{
		fmt.Sprintf(".out.map.tmp-%d-123", dead):      {},  // stale: its process is gone
		".out.map.tmp-1-456":                          {},  // PID 1 runs: kept
		".out.map.tmp-1-789":                          old, // too old: stale
		fmt.Sprintf(".out.map.tmp-%d-1", os.Getpid()): {},  // ours: kept
		".out.map.tmp12345":                           {},  // an earlier version's, young: kept
		".out.map.tmp-67890":                          old, // an earlier version's, old: stale
		fmt.Sprintf(".other.map.tmp-%d-123", dead):    {},  // another target's: kept
		"out.map": {},
		fmt.Sprintf("x.out.map.tmp-%d-123", dead): {}, // not our naming: kept
		fmt.Sprintf(".out.map.tmp-%d-12x", dead):  {}, // not our naming, young: kept
	}
	for name, mt := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if !mt.IsZero() {
			os.Chtimes(p, mt, mt)
		}
	}
	os.Mkdir(filepath.Join(dir, fmt.Sprintf(".out.map.tmp-%d-5", dead)), 0o755) // a folder: never removed
	got := CleanStale(dir, "out.map")
	slices.Sort(got)
	want := []string{fmt.Sprintf(".out.map.tmp-%d-123", dead), ".out.map.tmp-1-789", ".out.map.tmp-67890"}
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(dir, w)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there", w)
		}
	}
	if n := len(names(t, dir)); n != len(files)+1-len(want) {
		t.Errorf("%d entries left, want %d", n, len(files)+1-len(want))
	}
}

func TestScratch(t *testing.T) {
	dir := t.TempDir()
	f, err := Scratch(dir, "run-*")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := names(t, dir); len(n) != 0 {
		t.Errorf("scratch file has a name: %v", n)
	}
	io.WriteString(f, "line\n")
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(f); err != nil || string(b) != "line\n" {
		t.Errorf("read back %q, %v", b, err)
	}
}

// TestKilled kills, with SIGKILL, a process that is writing an output and
// a scratch file: nothing is left in the folder, or what is left (the
// named fallback) is removed by the next Create.
func TestKilled(t *testing.T) {
	if dir := os.Getenv("ATOMICFILE_CHILD_DIR"); dir != "" {
		forceNamed = os.Getenv("ATOMICFILE_CHILD_NAMED") == "1"
		f, err := Create(filepath.Join(dir, "out.map"), nil)
		if err != nil {
			os.Exit(3)
		}
		s, err := Scratch(dir, "run-*")
		if err != nil {
			os.Exit(4)
		}
		io.WriteString(f, strings.Repeat("x", 1<<20))
		io.WriteString(s, strings.Repeat("y", 1<<20))
		os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	for _, named := range []bool{false, true} {
		t.Run(fmt.Sprintf("named=%v", named), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilled$")
			cmd.Env = append(os.Environ(), "ATOMICFILE_CHILD_DIR="+dir, "ATOMICFILE_CHILD_NAMED="+map[bool]string{true: "1", false: "0"}[named])
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("child never got ready")
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			os.Remove(filepath.Join(dir, "ready"))
			left := names(t, dir)
			if !named && len(left) != 0 {
				t.Errorf("left after SIGKILL: %v", left)
			}
			if named && len(left) != 1 {
				t.Errorf("left after SIGKILL: %v, want the named output only", left)
			}
			// The next run cleans up what the killed one left.
			f, err := Create(filepath.Join(dir, "out.map"), nil)
			if err != nil {
				t.Fatal(err)
			}
			f.Close()
			if left := names(t, dir); len(left) != 0 {
				t.Errorf("left after the next Create: %v", left)
			}
		})
	}
}

// TestReadFrom: a file copied into a File through a bufio.Writer's
// ReadFrom (as a MementoMap build joins its parts' lines) lands whole, after
// what was written before it, and with a LimitedReader only its first
// bytes; the target holds it all once committed.
func TestReadFrom(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	body := strings.Repeat("com,example)/ 3/1\n", 100000)
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	target := filepath.Join(dir, "map.ukvs")
	f, err := Create(target, &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var _ io.ReaderFrom = f
	bw := bufio.NewWriterSize(f, 1<<10)
	bw.WriteString("!meta {}\n")
	if n, err := bw.ReadFrom(in); err != nil || n != int64(len(body)) {
		t.Fatalf("ReadFrom: %d, %v; want %d", n, err, len(body))
	}
	if _, err := in.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if n, err := bw.ReadFrom(io.LimitReader(in, 18)); err != nil || n != 18 {
		t.Fatalf("ReadFrom of 18 bytes: %d, %v", n, err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	if want := "!meta {}\n" + body + body[:18]; string(got) != want {
		t.Errorf("the target holds %d bytes, want %d", len(got), len(want))
	}
}
