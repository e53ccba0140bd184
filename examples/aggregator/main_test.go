package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the signal tests run main itself: when
// MEMENTOKIT_AGGREGATOR_MAIN is set, the test binary is the aggregator,
// with the arguments JSON-encoded in that variable.
func TestMain(m *testing.M) {
	if v := os.Getenv("MEMENTOKIT_AGGREGATOR_MAIN"); v != "" {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{"aggregator"}, args...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// command runs the test binary as the aggregator with args.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MEMENTOKIT_AGGREGATOR_MAIN="+string(b))
	return cmd
}

// TestSignals sends SIGTERM and SIGINT to a running aggregator process: it
// drains and exits with status 0.
func TestSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			f := newFederation(t)
			cmd := command(t, "-addr", "127.0.0.1:0", "-archives", f.list, "-cache", "bolt:"+f.dir+"/c.db", "-data-dir", f.dir, "-workers", "2")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			lines := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if u, ok := strings.CutPrefix(sc.Text(), "aggregator: listening on "); ok {
						lines <- u
					}
				}
				exited <- cmd.Wait()
			}()
			var url string
			select {
			case url = <-lines:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("no listening line; stderr:\n%s", stderr.String())
			}
			resp, err := http.Get(url + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("/healthz: %d", resp.StatusCode)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("exit after %v: %v; stderr:\n%s", sig, err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 20 s after %v", sig)
			}
			if n := len(stderr.records(t, "stopped")); n != 1 {
				t.Errorf("%d \"stopped\" records in the log, want 1:\n%s", n, stderr.String())
			}
		})
	}
}

// TestExitStatus checks main's exit statuses: 2 for a usage error, 1 for a
// start-up failure, 0 for -h.
func TestExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"help", []string{"-h"}, 0, "usage: aggregator"},
		{"bad flag", []string{"-workers", "many"}, 2, "invalid value"},
		{"flag after server", []string{"server", "-workers", "many"}, 2, "invalid value \"many\" for flag -workers"},
		{"bad value", []string{"-fan-out", "0"}, 2, "aggregator: fan-out must be positive"},
		{"missing archive list", []string{"-addr", "127.0.0.1:0", "-cache", "memory", "-archives", "/nonexistent/list.json"}, 1, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := command(t, tc.args...)
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(string(out), tc.msg) {
				t.Errorf("exit %d, want %d; output:\n%s", code, tc.code, out)
			}
		})
	}
}
