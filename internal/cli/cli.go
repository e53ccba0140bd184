// Package cli holds what every binary under examples/ and internal/bench/
// shares: running its run function under a context that SIGINT and SIGTERM
// cancel, and turning the error it returns into a message and an exit
// status. Keeping this in one place lets each main be one line.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// RunFunc is the shape of every binary's run function: args without the
// program name, and the three standard streams, so that tests call it
// directly. It returns nil on success.
type RunFunc func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Usage is implemented by errors that mean the command line was wrong
// (an unknown flag, a missing argument); Status gives them exit status 2.
type Usage interface {
	error
	Usage() bool
}

// Main runs run with os.Args[1:] and the standard streams, under a context
// canceled by SIGINT or SIGTERM, then exits with [Status]. name prefixes
// error messages ("surt: ...").
func Main(name string, run RunFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(Status(name, err, os.Stderr))
}

// Status writes err to stderr as "name: message" (without repeating the
// prefix when the message starts with it already) and returns the exit
// status: 0 for nil and for flag.ErrHelp (usage was printed on -h), 2 for
// an error whose chain holds a [Usage] error that reports true, 1 for any
// other error.
func Status(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name+": ") {
		msg = name + ": " + msg
	}
	fmt.Fprintln(stderr, msg)
	var u Usage
	if errors.As(err, &u) && u.Usage() {
		return 2
	}
	return 1
}
