//go:build unix

package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/cli/clitest"
)

// run is the tool the tests start as a process: "read FILE" reads FILE
// ("-": stdin) under cli.Reader to its end; "stubborn" ignores its
// context.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	switch args[0] {
	case "read":
		var r io.Reader = stdin
		if args[1] != "-" {
			f, err := os.Open(args[1])
			if err != nil {
				return err
			}
			defer f.Close()
			r = f
		}
		fmt.Fprintln(stdout, "reading")
		n, err := io.Copy(io.Discard, cli.Reader(ctx, r))
		if err != nil {
			return fmt.Errorf("%s: after %d bytes: %w", args[1], n, err)
		}
		return nil
	case "stubborn":
		fmt.Fprintln(stdout, "reading")
		time.Sleep(time.Minute)
		return nil
	}
	return errors.New("unknown")
}

func TestMain(m *testing.M) { clitest.Main(m, "tool", run) }

type proc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

// start runs the tool and waits until it says it is reading.
func start(t *testing.T, stdin io.Reader, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: clitest.Command(t, args...)}
	p.cmd.Stdin = stdin
	p.cmd.Stderr = &p.stderr
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill() })
	line := make([]byte, len("reading\n"))
	if _, err := io.ReadFull(out, line); err != nil {
		t.Fatalf("tool did not start: %v", err)
	}
	return p
}

// wait returns the exit status, failing the test past 10 s.
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case err := <-done:
		return clitest.ExitCode(err)
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		t.Fatal("tool still running 10 s after the signal")
		return 0
	}
}

// TestSignalDuringBlockedRead: a read that never returns (a FIFO, a pipe
// that sends nothing) does not hold off SIGINT or SIGTERM: the tool stops
// at once with status 128+N and says why and where.
func TestSignalDuringBlockedRead(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	// A writer that never writes: the tool's reads block.
	w, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	for _, tc := range []struct {
		name  string
		stdin io.Reader
		file  string
		sig   syscall.Signal
		code  int
	}{
		{"FIFO SIGTERM", nil, fifo, syscall.SIGTERM, 143},
		{"FIFO SIGINT", nil, fifo, syscall.SIGINT, 130},
		{"stdin pipe SIGTERM", pr, "-", syscall.SIGTERM, 143},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t, tc.stdin, "read", tc.file)
			time.Sleep(50 * time.Millisecond) // into the blocked read
			sent := time.Now()
			p.cmd.Process.Signal(tc.sig)
			if got := p.wait(t); got != tc.code {
				t.Errorf("exit status %d, want %d; stderr: %s", got, tc.code, p.stderr.String())
			}
			if d := time.Since(sent); d > 5*time.Second {
				t.Errorf("stopped %v after the signal", d)
			}
			msg := p.stderr.String()
			if !strings.HasPrefix(msg, "tool: ") || !strings.Contains(msg, "interrupted by SIG") || !strings.Contains(msg, tc.file) {
				t.Errorf("stderr %q: want the tool, the signal and the file named", msg)
			}
		})
	}
}

// TestSecondSignal: a run that does not heed its context is ended by a
// second signal.
func TestSecondSignal(t *testing.T) {
	p := start(t, nil, "stubborn")
	p.cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(100 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if got := p.wait(t); got != 143 {
		t.Errorf("exit status %d, want 143; stderr: %s", got, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "again, stopping at once") {
		t.Errorf("stderr %q", p.stderr.String())
	}
}

func TestReaderRegularFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "in")
	os.WriteFile(path, []byte("abc"), 0o644)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancelCause(context.Background())
	r := cli.Reader(ctx, f)
	if n, ok := r.(interface{ Name() string }); !ok || n.Name() != path {
		t.Errorf("the reader does not keep the file's name")
	}
	b := make([]byte, 1)
	if n, err := r.Read(b); n != 1 || err != nil {
		t.Fatalf("Read = %d, %v", n, err)
	}
	cause := &cli.SignalError{Signal: syscall.SIGTERM}
	cancel(cause)
	if _, err := r.Read(b); err != cause || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %v, want the cause, a context.Canceled", err)
	}
}

func TestReaderPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	go func() {
		pw.Write([]byte(strings.Repeat("x", 1<<20)))
		pw.Close()
	}()
	b, err := io.ReadAll(cli.Reader(context.Background(), pr))
	if err != nil || len(b) != 1<<20 {
		t.Errorf("read %d bytes, %v", len(b), err)
	}
}

// TestOpenFIFOWithoutWriter: waiting for a FIFO's writer ends with the
// context.
func TestOpenFIFOWithoutWriter(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs:", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel(&cli.SignalError{Signal: syscall.SIGINT})
	}()
	_, err := cli.Open(ctx, fifo)
	var se *cli.SignalError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), fifo) {
		t.Fatalf("Open = %v, want the signal and the path", err)
	}
	// The abandoned open is closed once a writer comes.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	f, err := cli.Open(context.Background(), filepath.Join(t.TempDir(), "missing"))
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file = %v, %v", f, err)
	}
}
