//go:build unix

package aggregator

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/mementomap"
)

// TestOpenMementoMapNotRegular: a MementoMap path that is a FIFO (no
// writer: opening it for reading the usual way would wait for ever), a
// directory or a character device is refused at once, before it is
// opened, with an error naming the path and wrapping
// mementomap.ErrNotRegular; so is such a path given as an observed map's
// Previous. A regular map beside them opens.
func TestOpenMementoMapNotRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "map.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	good := filepath.Join(dir, "good.ukvs")
	if err := os.WriteFile(good, []byte("!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\ncom,example)/ 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{"FIFO": fifo, "directory": dir}
	if fi, err := os.Stat("/dev/null"); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		paths["character device"] = "/dev/null"
	}
	// Each call runs with a deadline, so that one that blocks fails the
	// test instead of hanging it.
	within := func(name string, f func() error) error {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- f() }()
		select {
		case err := <-done:
			return err
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still blocked after 5s", name)
			return nil
		}
	}
	for kind, p := range paths {
		err := within(kind, func() error {
			l, c, err := OpenMementoMapAt(p, time.Now)
			if err == nil {
				c.Close()
				if l == nil {
					return errors.New("nil lookup and no error")
				}
			}
			return err
		})
		if !errors.Is(err, mementomap.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s %s: %v; want an error naming it, wrapping mementomap.ErrNotRegular", kind, p, err)
		}
		err = within(kind+" Previous", func() error { _, err := readObserved(p); return err })
		if !errors.Is(err, mementomap.ErrNotRegular) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s %s as Previous: %v; want an error naming it, wrapping mementomap.ErrNotRegular", kind, p, err)
		}
	}
	l, c, err := OpenMementoMap(good)
	if err != nil {
		t.Fatalf("regular map: %v", err)
	}
	defer c.Close()
	if f, err := l.Frequency("http://example.com/"); err != nil || f != 1 {
		t.Errorf("regular map: frequency %d, %v; want 1", f, err)
	}
}
