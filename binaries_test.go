package mementokit_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// binaries holds every program of examples/ and internal/bench/, built
// once per test run (go run would turn every exit status into 1).
var binaries struct {
	once sync.Once
	dir  string
	err  error
	out  []byte
}

// binaryDirs are the folders whose programs the tests build: one output
// folder each, as examples/ and internal/bench/ share program names
// (aggregator, mementomap).
var binaryDirs = []string{"examples", "internal/bench"}

// builtBinaries builds the programs once and returns the folder that
// holds them, as DIR/examples/NAME and DIR/internal/bench/NAME.
func builtBinaries(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds every program")
	}
	binaries.once.Do(func() {
		binaries.dir, binaries.err = os.MkdirTemp("", "mementokit-binaries-")
		for _, d := range binaryDirs {
			if binaries.err != nil {
				return
			}
			out := filepath.Join(binaries.dir, d) + string(filepath.Separator)
			if binaries.err = os.MkdirAll(out, 0o755); binaries.err != nil {
				return
			}
			binaries.out, binaries.err = exec.Command("go", "build", "-o", out, "./"+d+"/...").CombinedOutput()
		}
	})
	if binaries.err != nil {
		t.Fatalf("go build: %v\n%s", binaries.err, binaries.out)
	}
	return binaries.dir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binaries.dir != "" {
		os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}

// programs lists the built programs as "examples/NAME" and
// "internal/bench/NAME".
func programs(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	for _, d := range binaryDirs {
		ents, err := os.ReadDir(filepath.Join(dir, d))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			names = append(names, d+"/"+e.Name())
		}
	}
	return names
}

// runBinary runs a built program with args in a fresh folder and returns
// its exit status and outputs.
func runBinary(t *testing.T, path string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(path, args...)
	cmd.Dir = t.TempDir()
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s: %v", path, err)
	}
	return code, o.String(), e.String()
}

// commandLine matches a command of a usage's command list
// (internal/cli.Commands.WriteUsage): two spaces, then the name.
var commandLine = regexp.MustCompile(`^  ([a-z][a-z0-9-]*)(?: |$)`)

// usageCommands returns the commands a usage text lists under "commands:".
func usageCommands(usage string) []string {
	_, list, ok := strings.Cut(usage, "\ncommands:\n")
	if !ok {
		return nil
	}
	var names []string
	for _, line := range strings.Split(list, "\n") {
		if m := commandLine.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
		} else if !strings.HasPrefix(line, "      ") {
			break
		}
	}
	return names
}

// TestBinariesCommandLine checks the one command-line convention of every
// program in examples/ and internal/bench/ (internal/cli.ParseFlags), on
// the built programs, for the program and each command its usage lists:
// -h writes a usage starting "usage: " to standard error, nothing to
// standard output, and exits 0; an unknown flag writes one line to
// standard error that names it and says to run with -h, and exits 2; in a
// program with commands, so does a word that names none.
func TestBinariesCommandLine(t *testing.T) {
	dir := builtBinaries(t)
	progs := programs(t, dir)
	if len(progs) < 12 {
		t.Fatalf("%d programs built, want the 8 examples and 5 benches: %q", len(progs), progs)
	}
	for _, p := range progs {
		t.Run(p, func(t *testing.T) {
			bin := filepath.Join(dir, p)
			code, out, errs := runBinary(t, bin, "-h")
			if code != 0 || out != "" || !strings.HasPrefix(errs, "usage: ") {
				t.Fatalf("-h: exit %d, stdout %q, stderr %.200q; want 0, nothing, a usage on stderr", code, out, errs)
			}
			calls := [][]string{nil}
			cmds := usageCommands(errs)
			for _, c := range cmds {
				calls = append(calls, []string{c})
			}
			// A word that names no command is one line naming it, exit 2
			// (the aggregator's first word may be a URI-R, MemGator's CLI).
			if len(cmds) > 0 && p != "examples/aggregator" {
				code, out, errs := runBinary(t, bin, "nosuchcmd")
				if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, `unknown command "nosuchcmd"`) {
					t.Errorf("nosuchcmd: exit %d, stdout %q, stderr %q; want 2 and one line naming the unknown command", code, out, errs)
				}
			}
			for _, c := range calls {
				if c != nil {
					code, out, errs := runBinary(t, bin, append(c, "-h")...)
					if code != 0 || out != "" || !strings.HasPrefix(errs, "usage: ") {
						t.Errorf("%s -h: exit %d, stdout %q, stderr %.200q; want 0, nothing, a usage on stderr", c[0], code, out, errs)
					}
				}
				code, out, errs := runBinary(t, bin, append(c, "-no-such-flag")...)
				if code != 2 || out != "" || strings.Count(errs, "\n") != 1 ||
					!strings.Contains(errs, "-no-such-flag") || !strings.Contains(errs, "run with -h") {
					t.Errorf("%q -no-such-flag: exit %d, stdout %q, stderr %q; want 2 and one line naming the flag and -h", c, code, out, errs)
				}
			}
		})
	}
}

// TestREADMEListsCommands checks that the README names every command of
// every program in examples/ that has several: the commands come from the
// program's own usage (its command table), and each must stand in
// backquotes ("`NAME") or after the name of the program ("PROGRAM NAME") in the README's entry for
// the program (its "- `go run ./examples/PROGRAM" item).
func TestREADMEListsCommands(t *testing.T) {
	dir := builtBinaries(t)
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	n := 0
	for _, p := range programs(t, dir) {
		name, ok := strings.CutPrefix(p, "examples/")
		if !ok {
			continue
		}
		_, _, usage := runBinary(t, filepath.Join(dir, p), "-h")
		cmds := usageCommands(usage)
		if len(cmds) == 0 {
			continue
		}
		n++
		entry := readmeEntry(readme, name)
		if entry == "" {
			t.Errorf("README.md has no item \"- `go run ./examples/%s\" for a program with the commands %q", name, cmds)
			continue
		}
		for _, c := range cmds {
			if !strings.Contains(entry, "`"+c) && !strings.Contains(entry, name+" "+c) {
				t.Errorf("README.md's item on %s does not name its command %q", name, c)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d programs with commands, want mementomap, summarize and aggregator", n)
	}
}

// readmeEntry returns the README's list items that start with
// "- `go run ./examples/NAME" or "- `cd ... go run ../../../examples/NAME",
// each up to the next item or blank line, joined.
func readmeEntry(readme, name string) string {
	var b strings.Builder
	in := false
	item := regexp.MustCompile("^- `(?:cd [^`]*&& )?go run (?:\\./|(?:\\.\\./)+)examples/" + name + "[ `]")
	for _, line := range strings.Split(readme, "\n") {
		switch {
		case strings.HasPrefix(line, "- "):
			in = item.MatchString(line)
		case strings.TrimSpace(line) == "":
			in = false
		}
		if in {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// TestFlagsOneWording: a flag that means the same in several programs is
// worded the same in each -h: -archive-id (the "uri" of a MementoMap's !id
// header; aggregator observed's -archive-id picks archives of its list and
// is not this one), and the sort's temporary folder is -tmpdir, never -tmp.
func TestFlagsOneWording(t *testing.T) {
	dir := builtBinaries(t)
	wordings := map[string][]string{} // -archive-id's help line → where
	sortMem := map[string][]string{}  // -mem's help, from "sort" on, default included → where
	for _, p := range programs(t, dir) {
		bin := filepath.Join(dir, p)
		_, _, top := runBinary(t, bin, "-h")
		calls := [][]string{nil}
		for _, c := range usageCommands(top) {
			calls = append(calls, []string{c})
		}
		for _, c := range calls {
			if p == "examples/aggregator" && len(c) == 1 && c[0] == "observed" {
				continue
			}
			_, _, usage := runBinary(t, bin, append(c, "-h")...)
			where := strings.Join(append([]string{p}, c...), " ")
			if strings.Contains(usage, "\n  -tmp ") {
				t.Errorf("%s -h lists -tmp, want -tmpdir", where)
			}
			// -mem as sort memory: one wording and one default.
			if _, rest, ok := strings.Cut(usage, "\n  -mem "); ok {
				_, help, _ := strings.Cut(rest, "\t")
				help, _, _ = strings.Cut(help, "\n")
				if i := strings.Index(help, "sort memory"); i >= 0 {
					sortMem[help[i:]] = append(sortMem[help[i:]], where)
				} else if strings.Contains(help, "sort") {
					sortMem[help] = append(sortMem[help], where)
				}
			}
			if _, rest, ok := strings.Cut(usage, "\n  -archive-id "); ok {
				_, help, _ := strings.Cut(rest, "\t")
				help, _, _ = strings.Cut(help, "\n")
				help, _, _ = strings.Cut(help, " (default ")
				wordings[help] = append(wordings[help], where)
			}
		}
	}
	if len(sortMem) != 1 {
		t.Errorf("-mem as sort memory is worded or defaulted %d ways, want 1: %q", len(sortMem), sortMem)
	}
	if len(wordings) != 1 {
		t.Errorf("-archive-id is worded %d ways, want 1: %q", len(wordings), wordings)
	}
	for _, where := range wordings {
		if len(where) < 2 { // archive, mementomap build
			t.Errorf("-archive-id found only in %q", where)
		}
	}
}
