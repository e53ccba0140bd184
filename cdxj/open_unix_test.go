//go:build unix

package cdxj

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
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
