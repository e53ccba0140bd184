//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mementokit/mementokit/internal/cli/clitest"
)

func TestMain(m *testing.M) { clitest.Main(m, "cdxj", run) }

// TestSortKilledLeavesNothing kills, with SIGKILL, cdxj -sort -o while it
// holds sorted runs and a part-written output: nothing is left, neither in
// -tmpdir nor beside the output.
func TestSortKilledLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	outDir, tmpDir := filepath.Join(dir, "out"), filepath.Join(dir, "tmp")
	os.Mkdir(outDir, 0o755)
	os.Mkdir(tmpDir, 0o755)
	fifo := filepath.Join(dir, "in.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := clitest.Command(t, "-sort", "-mem", "4096", "-tmpdir", tmpDir, "-o", filepath.Join(outDir, "out.cdxj"), fifo)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	for i := range 20000 {
		fmt.Fprintf(w, "com,example)/%06d 20200101000000 {\"url\": \"http://example.com/%06d\"}\n", 20000-i, 20000-i)
	}
	// Once the tool has read everything, its runs are spilled and the
	// input stalls.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes unread after 30 s", n)
		}
	}
	time.Sleep(100 * time.Millisecond)
	// The runs are open, without names, in tmpDir.
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", cmd.Process.Pid))
	runs := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", cmd.Process.Pid, fd.Name())); err == nil && strings.HasPrefix(l, tmpDir) {
			runs++
		}
	}
	if runs < 2 {
		t.Errorf("%d runs open before the kill: the test does not test them", runs)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for _, d := range []string{outDir, tmpDir} {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			t.Errorf("left in %s after SIGKILL: %s", d, e.Name())
		}
	}
}
