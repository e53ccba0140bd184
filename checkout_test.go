package mementokit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkoutBlocks name the README's blocks that TestREADMEUseFromCheckout
// follows, by a string each holds: the workspace, the replace line.
var checkoutBlocks = []string{"go work init", "replace github.com/mementokit/mementokit"}

// readmeBlock returns the first fenced block of README.md that contains
// want, with "/path/to/mementokit" replaced by root.
func readmeBlock(t *testing.T, want, root string) string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(string(b), "```")
	for i := 1; i < len(parts); i += 2 {
		if strings.Contains(parts[i], want) {
			body := parts[i][strings.IndexByte(parts[i], '\n')+1:]
			return strings.ReplaceAll(body, "/path/to/mementokit", root)
		}
	}
	t.Fatalf("README.md has no fenced block containing %q", want)
	return ""
}

// TestREADMEUseFromCheckout follows the README's two ways of using the
// module from a checkout (a workspace, a replace line) in a new module that
// imports package surt, and checks that the program builds and runs. It
// works offline: the module's requirements come from the module cache the
// root module's own build filled.
func TestREADMEUseFromCheckout(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program in a new module")
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	const prog = `package main

import (
	"fmt"

	"github.com/mementokit/mementokit/surt"
)

func main() {
	k, err := surt.Canonicalize("http://www.Example.com/a?b=1")
	if err != nil {
		panic(err)
	}
	fmt.Println(k)
}
`
	const wantOut = "com,example)/a?b=1\n"
	run := func(t *testing.T, dir string, env []string, args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
		}
		return string(out)
	}
	// GOPROXY=off keeps the test off the network. The new module starts with
	// the checkout's go.sum, as "go mod tidy" would fill it.
	offline := []string{"GOPROXY=off"}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("go work", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "go.mod"), "module example.com/user\n\ngo 1.26\n")
		writeFile(t, filepath.Join(dir, "main.go"), prog)
		for _, line := range strings.Split(strings.TrimSpace(readmeBlock(t, checkoutBlocks[0], root)), "\n") {
			run(t, dir, offline, "bash", "-c", line)
		}
		if got := run(t, dir, offline, "go", "run", "."); got != wantOut {
			t.Errorf("go run printed %q, want %q", got, wantOut)
		}
	})
	t.Run("replace", func(t *testing.T) {
		dir := t.TempDir()
		gomod := "module example.com/user\n\ngo 1.26\n\n" + readmeBlock(t, checkoutBlocks[1], root)
		writeFile(t, filepath.Join(dir, "go.mod"), gomod)
		writeFile(t, filepath.Join(dir, "main.go"), prog)
		writeFile(t, filepath.Join(dir, "go.sum"), string(sum))
		env := append(offline, "GOWORK=off", "GOFLAGS=-mod=mod")
		if got := run(t, dir, env, "go", "run", "."); got != wantOut {
			t.Errorf("go run printed %q, want %q", got, wantOut)
		}
	})
}

func writeFile(t *testing.T, name, data string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
