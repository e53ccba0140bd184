//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mementokit/mementokit/internal/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "mementomap", run) }

// TestEndlessLine: an input line of text that never ends (a FIFO fed "x"
// for ever) is refused at the one line limit, fast and in bounded memory,
// naming the input and the line, and no output is left; an endless input
// of NUL bytes (/dev/zero) is refused at its first byte as not a map.
func TestEndlessLine(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good.ukvs")
	os.WriteFile(good, []byte("com,a)/ 1\n"), 0o644)
	out := filepath.Join(dir, "out.ukvs")
	endless := func(t *testing.T) string {
		p, w := fifoWriter(t, t.TempDir(), "endless")
		go func() {
			chunk := bytes.Repeat([]byte("x"), 64<<10)
			for {
				if _, err := w.Write(chunk); err != nil {
					return // closed at the test's end
				}
			}
		}()
		return p
	}
	const long = ": line 1: line too long"
	const zero = "/dev/zero: line 1: not a MementoMap (UKVS) file: byte 0 is 0x00"
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		want string
	}{
		{"merge first", func(t *testing.T) []string { return []string{"merge", "-q", "-o", out, endless(t), good} }, long},
		{"merge second", func(t *testing.T) []string { return []string{"merge", "-q", "-o", out, good, endless(t)} }, long},
		{"compact", func(t *testing.T) []string { return []string{"compact", "-q", endless(t), out} }, long},
		{"compact /dev/zero", func(t *testing.T) []string { return []string{"compact", "-q", "/dev/zero", out} }, zero},
		{"merge /dev/zero", func(t *testing.T) []string { return []string{"merge", "-q", "-o", out, good, "/dev/zero"} }, zero},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args(t)
			cmd := clitest.Command(t, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := clitest.ExitCode(err); code != 1 {
					t.Errorf("exit status %d, want 1", code)
				}
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatal("still reading /dev/zero after 30 s")
			}
			msg := stderr.String()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("stderr %q: want the file, the line and the cause (%q)", msg, tc.want)
			}
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 256<<10 && !raceEnabled {
				t.Errorf("peak memory %d KiB, want the line limit's bound (under 256 MiB)", ru.Maxrss)
			}
			if e := entries(t, dir); len(e) != 1 {
				t.Errorf("left in the output folder: %v", e)
			}
		})
	}
}

// fifoWriter makes a FIFO in dir and returns it with a function writing
// to it (the writer end is opened at once, so that the tool's open does
// not wait).
func fifoWriter(t *testing.T, dir, name string) (string, *os.File) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return p, w
}

// waitDrained waits until the reader of the FIFO whose writer end is w has
// read everything written to it.
func waitDrained(t *testing.T, w *os.File) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes still unread after 30 s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSignalStopsCompactAndMerge: SIGINT or SIGTERM stops compact and merge
// reading an input that stalls (a FIFO with lines, then nothing; a FIFO
// sending bytes but never a newline): status 128+N, no output, no
// temporary file.
func TestSignalStopsCompactAndMerge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cmd     string
		sig     syscall.Signal
		code    int
		newline bool
	}{
		{"compact SIGTERM stalled", "compact", syscall.SIGTERM, 143, true},
		{"compact SIGINT no newline", "compact", syscall.SIGINT, 130, false},
		{"merge SIGTERM stalled", "merge", syscall.SIGTERM, 143, true},
		{"merge SIGINT no newline", "merge", syscall.SIGINT, 130, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			outDir := filepath.Join(dir, "out")
			os.Mkdir(outDir, 0o755)
			fifo, w := fifoWriter(t, dir, "in.fifo")
			out := filepath.Join(outDir, "out.ukvs")
			good := filepath.Join(dir, "good.ukvs")
			os.WriteFile(good, []byte("com,a)/ 1\n"), 0o644)
			args := []string{"compact", "-q", fifo, out}
			if tc.cmd == "merge" {
				args = []string{"merge", "-q", "-o", out, good, fifo}
			}
			cmd := clitest.Command(t, args...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			if tc.newline {
				for i := range 5000 {
					fmt.Fprintf(w, "com,h%05d)/ 1\n", i)
				}
			} else {
				w.WriteString("com,a)/")
				w.Write(bytes.Repeat([]byte("y"), 4096))
			}
			waitDrained(t, w) // the tool runs and reads: its signal handling is in place
			if !tc.newline {
				go func() {
					for range 200 {
						if _, err := w.Write(bytes.Repeat([]byte("y"), 4096)); err != nil {
							return
						}
						time.Sleep(5 * time.Millisecond)
					}
				}()
			}
			time.Sleep(100 * time.Millisecond)
			sent := time.Now()
			cmd.Process.Signal(tc.sig)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("still running 10 s after the signal")
			}
			if d := time.Since(sent); d > 3*time.Second {
				t.Errorf("stopped %v after the signal", d)
			}
			if code := clitest.ExitCode(err); code != tc.code {
				t.Errorf("exit status %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "interrupted by SIG") {
				t.Errorf("stderr %q does not say it was interrupted", stderr.String())
			}
			if e := entries(t, outDir); len(e) != 0 {
				t.Errorf("left in the output folder: %v", e)
			}
		})
	}
}

// TestKilledLeavesNothing: compact killed with SIGKILL while writing leaves
// no temporary output and no spill file.
func TestKilledLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	outDir, tmpDir := filepath.Join(dir, "out"), filepath.Join(dir, "tmp")
	os.Mkdir(outDir, 0o755)
	os.Mkdir(tmpDir, 0o755)
	fifo, w := fifoWriter(t, dir, "in.fifo")
	cmd := clitest.Command(t, "compact", "-q", "-mem", "1MiB", "-tmpdir", tmpDir, "-hcf", "1e9", "-pcf", "1e9", fifo, filepath.Join(outDir, "out.ukvs"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// One host with deep paths: pending output that spills past 1 MiB.
	bw := io.Writer(w)
	for i := range 60000 {
		fmt.Fprintf(bw, "com,example)/a/%06d/%s 1\n", i, strings.Repeat("p", 40))
	}
	waitDrained(t, w)
	time.Sleep(100 * time.Millisecond)
	// The spill file is open, without a name, in tmpDir.
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	spills := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, fd.Name())); err == nil && strings.HasPrefix(l, tmpDir) {
			spills++
		}
	}
	if spills == 0 {
		t.Error("no spill file open before the kill: the test does not test it")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if e := entries(t, outDir); len(e) != 0 {
		t.Errorf("left in the output folder after SIGKILL: %v", e)
	}
	if e := entries(t, tmpDir); len(e) != 0 {
		t.Errorf("left in the spill folder after SIGKILL: %v", e)
	}
}
