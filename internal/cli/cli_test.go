package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
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
