// Package clitest runs a binary's main (internal/cli.Main) as a separate
// process in its package's tests, so that signals, exit statuses and what
// a killed process leaves behind can be tested: the test binary re-runs
// itself as the tool.
package clitest

import (
	"encoding/json"
	"os"
	"os/exec"
	"testing"

	"github.com/mementokit/mementokit/internal/cli"
)

// envArgs carries the tool's arguments, JSON-encoded, to the child.
const envArgs = "MEMENTOKIT_CLITEST_ARGS"

// Main is a TestMain body: in a child started by [Command] it runs
// cli.Main(name, run) with the child's arguments (and so exits with the
// tool's status); otherwise it runs the tests.
func Main(m *testing.M, name string, run cli.RunFunc) {
	if v, ok := os.LookupEnv(envArgs); ok {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{name}, args...)
		cli.Main(name, run)
	}
	os.Exit(m.Run())
}

// Command returns a command that runs the test binary as the tool with
// args (the package's TestMain must call [Main]).
func Command(tb testing.TB, args ...string) *exec.Cmd {
	tb.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envArgs+"="+string(b))
	return cmd
}

// ExitCode returns the exit status of a finished command's Wait or Run
// error: 0 for nil, the status for an *exec.ExitError, -1 otherwise.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return -1
}
