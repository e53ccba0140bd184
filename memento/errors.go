package memento

import (
	"context"
	"errors"
	"fmt"
	"net"
)

// Client errors. A *Error wraps one of these (or a transport, context or
// parse error) as its Err; test with errors.Is.
var (
	// ErrNotFound: the archive answered that it holds nothing for the
	// request (HTTP 404 or 410; 406 from a TimeGate, RFC 7089 §4.5.3 read
	// as "no memento"). This is the only error that means "no mementos";
	// every other error is a failure that must not be cached as empty.
	ErrNotFound = errors.New("not found")
	// ErrStatus: the archive answered with a status the operation cannot
	// use (5xx, 400, 403, ...); Error.StatusCode holds it.
	ErrStatus = errors.New("unexpected HTTP status")
	// ErrNotTimeGate: the response is not a TimeGate answer (RFC 7089
	// §4.2, §4.1.2): a 200 without Memento-Datetime, a 3xx without
	// Location, or an unparsable Link header.
	ErrNotTimeGate = errors.New("response is not a TimeGate answer")
	// ErrNotMemento: a URI-M answered without a valid Memento-Datetime
	// (RFC 7089 §2.1.1).
	ErrNotMemento = errors.New("response is not a memento")
	// ErrNotTimeMap: a TimeMap URI answered with an HTML page.
	ErrNotTimeMap = errors.New("response is not a TimeMap")
	// ErrBodyTooLarge: a body exceeded Client.MaxBodyBytes.
	ErrBodyTooLarge = errors.New("response body too large")
	// ErrTooManyRedirects: more than Client.MaxRedirects redirects.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrRedirectLoop: a redirect led back to a URI already visited.
	ErrRedirectLoop = errors.New("redirect loop")
	// ErrTooManyPages: a paged TimeMap had more than Client.MaxPages pages.
	ErrTooManyPages = errors.New("too many TimeMap pages")
)

// Error is the error of a Client call, shaped like *url.Error: the
// operation ("timemap", "timegate", "memento"), the URI asked, the HTTP
// status when the archive answered (0 otherwise) and the cause.
//
// NotFound tells "the archive answered: nothing here" (cacheable as empty)
// from a failure (timeout, refused connection, 5xx, bad body), which must
// never be cached as "no mementos".
type Error struct {
	Op         string // "timemap", "timegate" or "memento"
	URI        string // the URI requested (a TimeMap page, TimeGate or URI-M)
	StatusCode int    // the archive's HTTP status; 0 when it did not answer
	Err        error  // the cause: ErrNotFound, ErrStatus, a network or parse error
}

// Error formats the error as "memento: op "uri": [HTTP status: ]cause".
func (e *Error) Error() string {
	if e.StatusCode != 0 {
		return fmt.Sprintf("memento: %s %q: HTTP %d: %v", e.Op, e.URI, e.StatusCode, e.Err)
	}
	return fmt.Sprintf("memento: %s %q: %v", e.Op, e.URI, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// NotFound reports whether the archive answered that it holds nothing
// (errors.Is(e, ErrNotFound)).
func (e *Error) NotFound() bool { return errors.Is(e.Err, ErrNotFound) }

// Timeout reports whether the call ran out of time (its context deadline,
// the Client's Timeout, or a network timeout).
func (e *Error) Timeout() bool {
	if errors.Is(e.Err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(e.Err, &ne) && ne.Timeout()
}

// IsNotFound reports whether err says the archive holds nothing for the
// request. It is false for nil and for every failure.
func IsNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
