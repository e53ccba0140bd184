//go:build unix

package mementomap

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenFIFOSwapped: Open of a path that is a FIFO without a writer
// (opened the usual way it would wait for one) returns at once with
// ErrNotRegular naming the path, and so does every Open while the path is
// swapped back and forth between a map and a FIFO (a symbolic link renamed
// over it): Open checks the file it opened, so no swap between a check and
// the open makes it wait. Each Open that succeeds reads the map.
func TestOpenFIFOSwapped(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "map.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A reader stuck in open(2) goes on once a writer opens the FIFO, so
	// that the test process can end whatever happens.
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	good := filepath.Join(dir, "good.ukvs")
	if err := os.WriteFile(good, []byte("!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\ncom,example)/ 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// within runs f and fails the test if it has not returned in 5 s.
	within := func(f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			t.Fatal("Open still blocked after 5 s")
			return nil
		}
	}
	open := func(p string) error {
		m, err := Open(p)
		if err != nil {
			return err
		}
		defer m.Close()
		if r, err := m.Lookup("http://example.com/"); err != nil || r.Frequency.URIM.N != 1 {
			return errors.New("the map opened does not answer 1")
		}
		return nil
	}
	if err := within(func() error { return open(fifo) }); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "FIFO") {
		t.Fatalf("Open(FIFO) = %v, want ErrNotRegular naming the path and saying it is a FIFO", err)
	}

	path := filepath.Join(dir, "map.ukvs")
	stop := make(chan struct{})
	swapped := make(chan int)
	go func() {
		n := 0
		defer func() { swapped <- n }()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			target := good
			if i%2 == 1 {
				target = fifo
			}
			tmp := filepath.Join(dir, "link.tmp")
			os.Remove(tmp)
			if os.Symlink(target, tmp) == nil && os.Rename(tmp, path) == nil {
				n++
			}
		}
	}()
	var maps, refused int
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) || maps == 0 || refused == 0 {
		err := within(func() error { return open(path) })
		switch {
		case err == nil:
			maps++
		case errors.Is(err, ErrNotRegular):
			refused++
		case errors.Is(err, os.ErrNotExist):
			// before the first swap
		default:
			t.Fatalf("Open during swaps: %v", err)
		}
		if time.Now().After(deadline.Add(5 * time.Second)) {
			break
		}
	}
	close(stop)
	n := <-swapped
	t.Logf("%d swaps: %d maps opened, %d FIFOs refused", n, maps, refused)
	if maps == 0 || refused == 0 {
		t.Errorf("%d maps opened and %d FIFOs refused during %d swaps; want some of each", maps, refused, n)
	}
}
