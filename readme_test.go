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

// readmeCommands returns the commands of the README's ```sh blocks, one per
// line (a line ending in a backslash continues on the next), without
// comments and blank lines.
func readmeCommands(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	in := false
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			in = true
			continue
		case strings.HasPrefix(line, "```"):
			in = false
			continue
		case !in:
			continue
		}
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

// goRun matches "go run ./examples/NAME" or "go run ../../../examples/NAME".
var goRun = regexp.MustCompile(`go run (?:\./|(?:\.\./)+)examples/([a-z]+)`)

// TestREADMECommands runs every command of the README's ```sh blocks that
// works on the shipped data and checks that it exits 0 and prints
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
