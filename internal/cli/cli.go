// Package cli holds what every binary under examples/ and internal/bench/
// shares: running its run function under a context that SIGINT and SIGTERM
// cancel, turning the error it returns into a message and an exit status,
// and reading inputs so that a read never holds off a signal. Keeping
// this in one place lets each main be one line.
//
// # Signals
//
// The first SIGINT or SIGTERM cancels the run's context with a
// [*SignalError] as its cause; a run that then stops with an error exits
// with status 128+N (130 for SIGINT, 143 for SIGTERM), the shells'
// convention, after "NAME: interrupted by SIGTERM" on standard error. A
// run that finishes cleanly (a server that drained its requests) exits
// as it says. A second signal ends the process at once with that status.
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
	"sync"
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

// ParseFlags parses args with fs under the convention every binary of the
// module follows (Go's, as the go command keeps it):
//   - -h or -help writes fs's usage (fs.Usage, else Go's default "Usage of
//     NAME:" and the flag list) to fs.Output() — standard error unless the
//     caller set another — and returns flag.ErrHelp, which [Status] turns
//     into exit status 0;
//   - a bad flag or value writes nothing and returns a [Usage] error of one
//     line that names it and ends in "(run with -h for usage)", which
//     [Status] prints and turns into exit status 2.
//
// fs should be made with flag.ContinueOnError; its output and usage are
// the same after the call as before.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(out, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	return usageError{fmt.Errorf("%w (run with -h for usage)", err)}
}

// Usagef is a [Usage] error made as fmt.Errorf makes one: a missing or
// unexpected argument, a value out of range. Its message is printed by
// [Status] as it is, and the exit status is 2.
func Usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// AsUsage marks err as a [Usage] error (exit status 2 under [Status]),
// for an error found by other code that a program counts as one in its
// command line or configuration (a flag's file that cannot be read, an
// address that cannot be listened on). AsUsage(nil) is nil.
func AsUsage(err error) error {
	if err == nil {
		return nil
	}
	return usageError{err}
}

// usageError marks an error as one in the command line.
type usageError struct{ error }

func (usageError) Usage() bool     { return true }
func (u usageError) Unwrap() error { return u.error }

// ExitError is an error with an exit status of its own, for a program's
// outcomes beside 1 (any error) and 2 (usage), such as the aggregator's 3
// (every archive asked failed). [Status] returns Code for an error whose
// chain holds one.
type ExitError struct {
	Code int
	Err  error
}

// Error is Err's message.
func (e *ExitError) Error() string { return e.Err.Error() }

// Unwrap returns Err.
func (e *ExitError) Unwrap() error { return e.Err }

// SignalError is the cause of the cancellation of the context [Main]
// gives a run: the signal received. It matches context.Canceled under
// errors.Is, so code that checks for a canceled context sees it as one.
type SignalError struct {
	Signal os.Signal
}

// Error says which signal interrupted the run ("interrupted by SIGTERM").
func (e *SignalError) Error() string { return "interrupted by " + signalName(e.Signal) }

// Is reports whether target is context.Canceled.
func (e *SignalError) Is(target error) bool { return target == context.Canceled }

// ExitCode is 128 plus the signal's number, the shells' status for a
// process ended by that signal (130 for SIGINT, 143 for SIGTERM).
func (e *SignalError) ExitCode() int {
	if s, ok := e.Signal.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

func signalName(s os.Signal) string {
	switch s {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return s.String()
}

// hardStop holds the functions OnHardStop registered, by key.
var hardStop struct {
	sync.Mutex
	next int
	fns  map[int]func()
}

// OnHardStop registers f to run when Main stops at once on a second
// SIGINT or SIGTERM (the first cancels the context; deferred cleanups do
// not run after the second): removing a temporary folder, say. It returns
// the function that unregisters f, to call when f's cleanup has been done
// the ordinary way.
func OnHardStop(f func()) (unregister func()) {
	hardStop.Lock()
	defer hardStop.Unlock()
	if hardStop.fns == nil {
		hardStop.fns = map[int]func(){}
	}
	k := hardStop.next
	hardStop.next++
	hardStop.fns[k] = f
	return func() {
		hardStop.Lock()
		defer hardStop.Unlock()
		delete(hardStop.fns, k)
	}
}

// runHardStop runs the functions OnHardStop registered and unregisters them.
func runHardStop() {
	hardStop.Lock()
	defer hardStop.Unlock()
	for k, f := range hardStop.fns {
		f()
		delete(hardStop.fns, k)
	}
}

// Main runs run with os.Args[1:] and the standard streams, under a context
// canceled by SIGINT or SIGTERM (see the package documentation), then
// exits with [Status]. name prefixes error messages ("surt: ...").
func Main(name string, run RunFunc) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(context.Background())
	go func() {
		s := <-sigs
		cancel(&SignalError{Signal: s})
		s = <-sigs
		e := &SignalError{Signal: s}
		fmt.Fprintf(os.Stderr, "%s: %v again, stopping at once\n", name, e)
		runHardStop()
		os.Exit(e.ExitCode())
	}()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil && ctx.Err() != nil {
		// Whatever the run made of the cancellation, the signal is why.
		var se *SignalError
		if cause := context.Cause(ctx); errors.As(cause, &se) && !errors.As(err, new(*SignalError)) {
			err = fmt.Errorf("%w: %w", se, err)
		}
	}
	signal.Stop(sigs)
	os.Exit(Status(name, err, os.Stderr))
}

// Status writes err to stderr as "name: message" (without repeating the
// prefix when the message starts with it already) and returns the exit
// status: 0 for nil and for flag.ErrHelp (usage was printed on -h),
// 128+N for an error whose chain holds a [*SignalError] (the run was
// interrupted by signal N), Code for one whose chain holds an
// [*ExitError], 2 for an error whose chain holds a [Usage]
// error that reports true, 1 for any other error.
func Status(name string, err error, stderr io.Writer) int {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return 0
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, name+": ") {
		msg = name + ": " + msg
	}
	fmt.Fprintln(stderr, msg)
	var se *SignalError
	if errors.As(err, &se) {
		return se.ExitCode()
	}
	var xe *ExitError
	if errors.As(err, &xe) {
		return xe.Code
	}
	var u Usage
	if errors.As(err, &u) && u.Usage() {
		return 2
	}
	return 1
}
