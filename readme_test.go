package mementokit_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// fence is a fenced block of README.md: its info string ("sh" for a block
// TestREADMECommands runs), the mark of an HTML comment on the line before
// it ("<!-- readme_test.go: MARK -->", "" for none), its lines and the
// README line it starts on.
type fence struct {
	info, mark string
	lines      []string
	line       int
}

// The marks a fenced block that is not ```sh carries, saying why the
// README test does not run it as it stands.
const (
	// markCheckout: TestREADMEUseFromCheckout follows it in a new module.
	markCheckout = "run by checkout_test.go"
	// markMeasure: each command is a ```sh command of the README (run or
	// left out by TestREADMECommands) under /usr/bin/time: measureOf.
	markMeasure = "measurement, not run: each command is one below, timed"
	// markSetup: installs system packages as root (what .ci/run does).
	markSetup = "setup as root, not run"
)

var readmeMark = regexp.MustCompile(`^<!-- readme_test\.go: (.*) -->$`)

// readmeFences returns the fenced blocks of README.md.
func readmeFences(t *testing.T) []fence {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var fs []fence
	var cur *fence
	prev := ""
	for n, line := range strings.Split(string(b), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &fence{info: strings.TrimSpace(line[3:]), line: n + 1}
			if m := readmeMark.FindStringSubmatch(prev); m != nil {
				cur.mark = m[1]
			}
		case cur != nil && strings.HasPrefix(line, "```"):
			fs = append(fs, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
		prev = line
	}
	if cur != nil {
		t.Fatalf("README.md: the fenced block of line %d has no end", cur.line)
	}
	return fs
}

// commandsOf returns the commands of lines, one per line (a line ending
// in a backslash continues on the next), without comments and blank lines.
func commandsOf(lines []string) []string {
	var cmds []string
	var cur strings.Builder
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if cur.Len() == 0 && (line == "" || strings.HasPrefix(line, "#")) {
			continue
		}
		if c, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(c + " ")
			continue
		}
		cur.WriteString(line)
		cmds = append(cmds, cur.String())
		cur.Reset()
	}
	return cmds
}

// readmeCommands returns the commands of the README's ```sh blocks
// without a mark.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	var cmds []string
	for _, f := range readmeFences(t) {
		if f.info == "sh" && f.mark == "" {
			cmds = append(cmds, commandsOf(f.lines)...)
		}
	}
	return cmds
}

// measureOf returns the command a measurement times: c without
// "/usr/bin/time -v", a "sh -c '...'" unwrapped, and "go build -o BIN
// ./examples/NAME && BIN" as "go run ./examples/NAME", spaces collapsed.
func measureOf(c string) string {
	c = strings.ReplaceAll(c, "/usr/bin/time -v ", "")
	if in, ok := strings.CutPrefix(c, "sh -c '"); ok {
		c = strings.TrimSuffix(in, "'")
	}
	if m := buildRun.FindStringSubmatch(c); m != nil && m[1] == m[3] {
		c = "go run " + m[2]
	}
	return strings.Join(strings.Fields(c), " ")
}

var buildRun = regexp.MustCompile(`^go build -o (\S+) (\./examples/[a-z]+) && (\S+)$`)

// TestREADMEBlocksAccounted: every fenced block of README.md is run by a
// test or says why not: a ```sh block is run by TestREADMECommands (which
// names what it leaves out), a block marked markCheckout is one that
// TestREADMEUseFromCheckout follows, a block marked markMeasure holds only
// commands that time a ```sh command, and markSetup installs packages. A
// block with no mark, an unknown one, or a measurement of a command the
// README does not run fails.
func TestREADMEBlocksAccounted(t *testing.T) {
	run := map[string]bool{}
	for _, c := range readmeCommands(t) {
		run[strings.Join(strings.Fields(c), " ")] = true
	}
	measured := 0
	for _, f := range readmeFences(t) {
		body := strings.Join(f.lines, "\n")
		switch {
		case f.info == "sh" && f.mark == "":
		case f.mark == markCheckout:
			if !slices.ContainsFunc(checkoutBlocks, func(s string) bool { return strings.Contains(body, s) }) {
				t.Errorf("README.md line %d: marked %q but holds none of %q", f.line, f.mark, checkoutBlocks)
			}
		case f.mark == markMeasure:
			for _, c := range commandsOf(f.lines) {
				measured++
				if !run[measureOf(c)] {
					t.Errorf("README.md line %d: the measurement %q times %q, no ```sh command of the README", f.line, c, measureOf(c))
				}
			}
		case f.mark == markSetup:
		default:
			t.Errorf("README.md line %d: a ```%s block marked %q: want ```sh (run by TestREADMECommands) or a mark of readme_test.go", f.line, f.info, f.mark)
		}
	}
	if measured == 0 {
		t.Error("README.md has no measurement block")
	}
}

// goRun matches "go run ./examples/NAME" or "go run ../../../examples/NAME".
var goRun = regexp.MustCompile(`go run (?:\./|(?:\.\./)+)examples/([a-z]+)`)

// TestREADMECommands runs every command of the README's ```sh blocks
// without a mark (the marked ones: TestREADMEBlocksAccounted) that works
// on the shipped data and checks that it exits 0 and prints
// something. The programs are built once (builtBinaries); "go run
// ./examples/NAME" runs the built NAME. Left out, and why:
//   - the test command itself (go vet ... && go test ...): it runs this test;
//   - the Beam block (cd beam ...): it reads /data/cdx, indexes the
//     repository does not ship, and the Beam module's tests cover it.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the example programs")
	}
	cmds := readmeCommands(t)
	var run []string
	names := map[string]bool{}
	for i := 0; i < len(cmds); i++ {
		c := cmds[i]
		switch {
		case strings.HasPrefix(c, "go vet ") || strings.HasPrefix(c, "go test "):
			continue
		case c == "cd beam":
			for i+1 < len(cmds) && strings.HasPrefix(cmds[i+1], "go run ./cmd/mementomap-beam") {
				i++
			}
			continue
		}
		for _, m := range goRun.FindAllStringSubmatch(c, -1) {
			names[m[1]] = true
		}
		run = append(run, c)
	}
	if len(run) < 5 {
		t.Fatalf("%d runnable commands in README.md, want at least 5: %q", len(run), run)
	}
	before := folderEntries(t)
	bin := filepath.Join(builtBinaries(t), "examples")
	for n := range names {
		if _, err := os.Stat(filepath.Join(bin, n)); err != nil {
			t.Errorf("README.md runs examples/%s, which is not built: %v", n, err)
		}
	}
	for _, c := range run {
		shell := goRun.ReplaceAllStringFunc(c, func(s string) string {
			return filepath.Join(bin, goRun.FindStringSubmatch(s)[1])
		})
		if strings.Contains(shell, "go run") {
			t.Errorf("%s: a go run the test does not build once", c)
			continue
		}
		t.Run(c, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", shell)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			if stdout.Len() == 0 {
				t.Errorf("printed nothing\n%s", stderr.String())
			}
		})
	}
	if after := folderEntries(t); !slices.Equal(before, after) {
		t.Errorf("the commands left files in the checkout: before %q, after %q", before, after)
	}
}

// folderEntries lists the entries of the folders the commands run in (the
// module root and internal/sampledata/real), to see that they write nothing
// there.
func folderEntries(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, dir := range []string{".", "internal/sampledata/real"} {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			names = append(names, filepath.Join(dir, e.Name()))
		}
	}
	return names
}
