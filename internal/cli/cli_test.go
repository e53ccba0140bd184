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
		{"own status", fmt.Errorf("search: %w", &ExitError{Code: 3, Err: errors.New("every archive failed")}), 3, "tool: search: every archive failed\n"},
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

// TestParseFlagsOutput: -h writes the usage to the flag set's output
// (Go's default one when the set has none), a bad flag writes nothing and
// returns one line naming it with the -h hint; the set's output and usage
// are restored.
func TestParseFlagsOutput(t *testing.T) {
	newSet := func(out io.Writer, usage bool) *flag.FlagSet {
		fs := flag.NewFlagSet("tool", flag.ContinueOnError)
		fs.SetOutput(out)
		fs.Int("n", 0, "how many")
		if usage {
			fs.Usage = func() { fmt.Fprintln(fs.Output(), "usage: tool [-n N]") }
		}
		return fs
	}
	var buf bytes.Buffer
	fs := newSet(&buf, true)
	if err := ParseFlags(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || buf.String() != "usage: tool [-n N]\n" {
		t.Errorf("-h: %v, output %q", err, buf.String())
	}
	buf.Reset()
	err := ParseFlags(fs, []string{"-bogus"})
	if buf.Len() != 0 {
		t.Errorf("a bad flag wrote %q", buf.String())
	}
	if err == nil || err.Error() != "flag provided but not defined: -bogus (run with -h for usage)" {
		t.Errorf("bad flag: %v", err)
	}
	if fs.Output() != &buf {
		t.Error("output not restored")
	}
	buf.Reset()
	if err := ParseFlags(newSet(&buf, false), []string{"-help"}); !errors.Is(err, flag.ErrHelp) ||
		!bytes.HasPrefix(buf.Bytes(), []byte("Usage of tool:\n")) || !bytes.Contains(buf.Bytes(), []byte("how many")) {
		t.Errorf("-help with no Usage: %v, output %q", err, buf.String())
	}
	if err := ParseFlags(newSet(&buf, true), []string{"-n", "x"}); err == nil || !bytes.Contains([]byte(err.Error()), []byte(`invalid value "x" for flag -n`)) {
		t.Errorf("bad value: %v", err)
	}
}

func TestCommands(t *testing.T) {
	var ran []string
	cs := Commands{
		{Name: "build", Args: "[-o OUT] INDEX...", Summary: "a map\nfrom indexes", Run: func(a []string) error { ran = append(ran, "build"); return nil }},
		{Name: "check", Args: "MAP", Summary: "validate", Run: func(a []string) error { ran = append(ran, "check"); return nil }},
	}
	if c := cs.Find("check"); c == nil || c.Run(nil) != nil || len(ran) != 1 || ran[0] != "check" {
		t.Errorf("Find(check) = %v, ran %q", c, ran)
	}
	if cs.Find("nosuch") != nil {
		t.Error("Find of an unknown name found one")
	}
	if got := cs.Names(); len(got) != 2 || got[0] != "build" || got[1] != "check" {
		t.Errorf("Names = %q", got)
	}
	var buf bytes.Buffer
	cs.WriteUsage(&buf)
	want := "commands:\n  build [-o OUT] INDEX...\n      a map\n      from indexes\n  check MAP\n      validate\n"
	if buf.String() != want {
		t.Errorf("WriteUsage:\n%s\nwant:\n%s", buf.String(), want)
	}
}

func TestAsUsage(t *testing.T) {
	if AsUsage(nil) != nil {
		t.Error("AsUsage(nil) is not nil")
	}
	base := errors.New("listen tcp: address already in use")
	err := AsUsage(base)
	if !errors.Is(err, base) || Status("tool", err, io.Discard) != 2 {
		t.Errorf("AsUsage: %v, status %d", err, Status("tool", err, io.Discard))
	}
}

// TestUnknownCommandWord: IsWord takes command-shaped words only, and
// Unknown is a usage error of one line naming the word and the commands.
func TestUnknownCommandWord(t *testing.T) {
	for s, want := range map[string]bool{
		"combine": true, "child-build": true, "x2": true,
		"": false, "a.cdxj": false, "./combine": false, "-h": false, "Combine": false,
		"http://example.org/cdx": false, "2combine": false, "com,example)/": false,
	} {
		if got := IsWord(s); got != want {
			t.Errorf("IsWord(%q) = %v, want %v", s, got, want)
		}
	}
	cs := Commands{{Name: "build"}, {Name: "check"}}
	err := cs.Unknown("biuld")
	var buf bytes.Buffer
	if got := Status("tool", err, &buf); got != 2 {
		t.Errorf("Status = %d, want 2", got)
	}
	if want := "tool: unknown command \"biuld\" (commands: build, check; run with -h for usage)\n"; buf.String() != want {
		t.Errorf("stderr %q, want %q", buf.String(), want)
	}
}
