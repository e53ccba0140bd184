//go:build unix

package cdxj

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFileNamedPipe: OpenFile refuses a named pipe with an error
// naming it, where Open reads it as a Stream.
func TestOpenFileNamedPipe(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes:", err)
	}
	// A writer held open, so that opening the pipe to read never waits.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if f, err := OpenFile(fifo, nil); err == nil || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "not a regular file") {
		if f != nil {
			f.Close()
		}
		t.Errorf("OpenFile(named pipe) = %v, want an error naming it", err)
	}
	ix, err := Open(context.Background(), fifo, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ix.(*Stream); !ok {
		t.Errorf("Open(named pipe) = %T, want a *Stream", ix)
	}
	ix.Close()
}

// TestClusterRefusesNonRegularFiles: a secondary index, .loc file or part
// that is a named pipe, and a part that is a device, are refused with an
// error naming the path, without waiting. Before the fix, opening a pipe
// with no writer blocked forever: a .loc naming a pipe as a part's
// location hung the read (and a tool past SIGTERM, which only cancels
// its context), and /dev/null as a part read as a block cut short.
func TestClusterRefusesNonRegularFiles(t *testing.T) {
	newCluster := func(t *testing.T) string {
		dir := t.TempDir()
		cw, err := CreateCluster(dir, "c", &ClusterOptions{LinesPerBlock: 2, WriteLoc: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range []string{"com,example)/a 2014 {}", "com,example)/b 2014 {}", "com,example)/c 2014 {}"} {
			if err := cw.WriteLine([]byte(l)); err != nil {
				t.Fatal(err)
			}
		}
		if err := cw.Commit(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	mkfifo := func(t *testing.T, path string) {
		if err := syscall.Mkfifo(path, 0o600); err != nil {
			t.Skip("no named pipes:", err)
		}
		// Whatever the outcome, a writer opened at the end lets a reader
		// stuck in open(2) go on, so that the test process can end.
		t.Cleanup(func() {
			if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		})
	}
	// within runs f and fails the test if it has not returned in 10 s.
	within := func(t *testing.T, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatal("still waiting after 10 s")
			return nil
		}
	}
	readAll := func(path string) error {
		ix, err := Open(context.Background(), path, nil)
		if err != nil {
			return err
		}
		defer ix.Close()
		for _, err := range ix.(*Cluster).Lines(Query{}) {
			if err != nil {
				return err
			}
		}
		return nil
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, dir string) string // returns the path the error names
	}{
		{"part is a named pipe", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "pipe.gz")
			mkfifo(t, p)
			if err := os.WriteFile(filepath.Join(dir, "c.loc"), []byte("c-00000.gz\t"+p+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"part is a device", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, "c.loc"), []byte("c-00000.gz\t"+os.DevNull+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return os.DevNull
		}},
		{"loc is a named pipe", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "c.loc")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, p)
			return p
		}},
		{"idx is a named pipe", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "c.idx")
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			mkfifo(t, p)
			return p
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := newCluster(t)
			named := tc.damage(t, dir)
			err := within(t, func() error { return readAll(filepath.Join(dir, "c.idx")) })
			if !errors.Is(err, ErrZipNum) || !strings.Contains(err.Error(), named) || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("got %v, want an ErrZipNum naming %s as not a regular file", err, named)
			}
		})
	}
}
