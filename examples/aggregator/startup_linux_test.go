//go:build linux

package main

import (
	"bufio"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSignalDuringStartup sends SIGTERM while the aggregator loads its
// blacklist, from a FIFO that stalls after some hosts and from a large
// file: it stops at once (status 143), without finishing the load.
func TestSignalDuringStartup(t *testing.T) {
	for _, tc := range []struct {
		name string
		fifo bool
	}{{"stalled FIFO", true}, {"two million hosts", false}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bl := filepath.Join(dir, "blacklist.txt")
			var w *os.File
			if tc.fifo {
				if err := syscall.Mkfifo(bl, 0o600); err != nil {
					t.Skip("no FIFOs:", err)
				}
				var err error
				if w, err = os.OpenFile(bl, os.O_RDWR, 0); err != nil {
					t.Fatal(err)
				}
				defer w.Close()
				for i := range 1000 {
					fmt.Fprintf(w, "host%d.example.com\n", i)
				}
			} else {
				f, err := os.Create(bl)
				if err != nil {
					t.Fatal(err)
				}
				bw := bufio.NewWriterSize(f, 1<<20)
				for i := range 2_000_000 {
					fmt.Fprintf(bw, "host%07d.example%d.com\n", i, i%1000)
				}
				if err := bw.Flush(); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			cmd := command(t, "-addr", "127.0.0.1:0", "-cache", "memory", "-blacklist", bl, "-log-format", "text")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			// Wait until the blacklist is being read.
			deadline := time.Now().Add(30 * time.Second)
			for !reading(cmd.Process.Pid, bl, w) {
				if time.Now().After(deadline) {
					t.Fatalf("the blacklist is not being read after 30 s; stderr:\n%s", stderr.String())
				}
				time.Sleep(2 * time.Millisecond)
			}
			sent := time.Now()
			cmd.Process.Signal(syscall.SIGTERM)
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if code := exitCode(err); code != 143 {
					t.Errorf("exit status %d, want 143; stderr:\n%s", code, stderr.String())
				}
			case <-time.After(20 * time.Second):
				t.Fatalf("still running 20 s after SIGTERM; stderr:\n%s", stderr.String())
			}
			if d := time.Since(sent); d > 3*time.Second {
				t.Errorf("stopped %v after SIGTERM", d)
			}
			if s := stderr.String(); strings.Contains(s, "aggregator configured") || !strings.Contains(s, "interrupted by SIGTERM") || !strings.Contains(s, "blacklist") {
				t.Errorf("stderr:\n%s\nwant the load interrupted, not finished", s)
			}
		})
	}
}

// reading reports whether process pid has the file path open (for a FIFO
// whose writer end is w: has read what was written).
func reading(pid int, path string, w *os.File) bool {
	if w != nil {
		n, err := unix.IoctlGetInt(int(w.Fd()), unix.TIOCINQ)
		return err == nil && n == 0
	}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && l == path {
			return true
		}
	}
	return false
}

// exitCode is the exit status of a finished command's Wait error.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// TestSecondSignalRemovesTempDir: a server without a data folder (-cache
// none) keeps its MementoMaps in a temporary folder; a second SIGINT while
// the first drains a request (its archive on 127.0.0.1 holds the answer)
// stops it at once (status 130), and that folder is gone too, as after one
// signal.
func TestSecondSignalRemovesTempDir(t *testing.T) {
	tmp := t.TempDir()
	asked, release := make(chan struct{}, 1), make(chan struct{})
	arc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "held.example") {
			select {
			case asked <- struct{}{}:
			default:
			}
			<-release
		}
		http.NotFound(w, r)
	}))
	defer arc.Close()
	defer close(release)
	list := filepath.Join(tmp, "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc.local", "timemap": "`+arc.URL+`/timemap/link/"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := command(t, "-addr", "127.0.0.1:0", "-archives", list, "-cache", "none")
	cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(out)
	url := ""
	for url == "" && sc.Scan() {
		url, _ = strings.CutPrefix(sc.Text(), "aggregator: listening on ")
	}
	made, _ := filepath.Glob(filepath.Join(tmp, "mementokit-aggregator-*"))
	if url == "" || len(made) != 1 {
		t.Fatalf("listening on %q, temporary folders %q, want one; stderr:\n%s", url, made, stderr.String())
	}
	go func() {
		if resp, err := http.Get(url + "/timemap/link/http://held.example/"); err == nil {
			resp.Body.Close()
		}
	}()
	<-asked
	cmd.Process.Signal(syscall.SIGINT)
	for !strings.Contains(stderr.String(), "shutting down") {
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	for sc.Scan() {
	}
	if code := exitCode(cmd.Wait()); code != 130 {
		t.Errorf("exit status %d, want 130; stderr:\n%s", code, stderr.String())
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "mementokit-aggregator-*")); len(left) != 0 {
		t.Errorf("left behind: %q; stderr:\n%s", left, stderr.String())
	}
}
