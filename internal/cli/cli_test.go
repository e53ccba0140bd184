package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"
	"testing"
)

type usageErr struct{ error }

func (usageErr) Usage() bool { return true }

func TestStatus(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"help", flag.ErrHelp, 0, ""},
		{"wrapped help", fmt.Errorf("parse: %w", flag.ErrHelp), 0, ""},
		{"failure", errors.New("input.cdx: line 3: bad timestamp"), 1, "tool: input.cdx: line 3: bad timestamp\n"},
		{"usage", usageErr{errors.New("no input files")}, 2, "tool: no input files\n"},
		{"wrapped usage", fmt.Errorf("build: %w", usageErr{errors.New("-o missing")}), 2, "tool: build: -o missing\n"},
		{"prefix not repeated", errors.New("tool: map is closed"), 1, "tool: map is closed\n"},
		{"SIGTERM", fmt.Errorf("in.map: %w", &SignalError{Signal: syscall.SIGTERM}), 143, "tool: in.map: interrupted by SIGTERM\n"},
		{"SIGINT", &SignalError{Signal: os.Interrupt}, 130, "tool: interrupted by SIGINT\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if got := Status("tool", tc.err, &buf); got != tc.status {
				t.Errorf("Status = %d, want %d", got, tc.status)
			}
			if buf.String() != tc.stderr {
				t.Errorf("stderr = %q, want %q", buf.String(), tc.stderr)
			}
		})
	}
}

// TestParseFlagsStatus: a bad flag and a Usagef error exit 2, -h exits 0,
// other errors 1.
func TestParseFlagsStatus(t *testing.T) {
	parse := func(args ...string) error {
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("n", 0, "")
		return ParseFlags(fs, args)
	}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"unknown flag", parse("-nosuch"), 2},
		{"bad value", parse("-n", "abc"), 2},
		{"help", parse("-h"), 0},
		{"good", parse("-n", "3"), 0},
		{"Usagef", Usagef("no index file given"), 2},
		{"other", errors.New("disk full"), 1},
	} {
		if got := Status("x", tc.err, io.Discard); got != tc.want {
			t.Errorf("%s: status %d, want %d (%v)", tc.name, got, tc.want, tc.err)
		}
	}
}
