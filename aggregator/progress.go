package aggregator

import (
	"context"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
)

// progress records how far the HTTP requests of one archive's answer got,
// from net/http's client trace (httptrace), whichever Upstream sends them
// through the context it is given: whether a request was written to the
// archive (sent), and whether the archive began answering (a first
// response byte). It is what tells a down archive from a slow answer and
// a failure before the URI-R reached the archive from one after
// (Class, the dormancy rule).
type progress struct {
	sent, answered atomic.Bool
	trace          httptrace.ClientTrace // in the same allocation as the flags
}

// withProgress returns ctx with a client trace that records into p; a
// trace already in ctx is still called.
func withProgress(ctx context.Context) (context.Context, *progress) {
	p := &progress{}
	return p.attach(ctx), p
}

// attach returns ctx with a client trace that records into p (once per
// p); a trace already in ctx is still called. The flags may be read by
// another goroutine meanwhile (a search that stopped waiting).
func (p *progress) attach(ctx context.Context) context.Context {
	p.trace.WroteRequest = func(i httptrace.WroteRequestInfo) {
		if i.Err == nil {
			p.sent.Store(true)
		}
	}
	p.trace.GotFirstResponseByte = func() { p.answered.Store(true) }
	return httptrace.WithClientTrace(ctx, &p.trace)
}

// reached reports whether a failure of reason came after the request
// reached the archive: a request was written, a response began, or the
// reason is an HTTP status (an Upstream that does not use net/http with
// its context can say so only through the status).
func (p *progress) reached(reason string) bool {
	return p.sent.Load() || p.answered.Load() || strings.HasPrefix(reason, "status-")
}

// slow turns a timeout after the archive began answering into
// ReasonSlowAnswer (ClassPerURI): the archive is up, this URI-R's answer
// is too big or too slow. Other reasons are returned as they are.
func (p *progress) slow(reason string) string {
	if reason == ReasonTimeout && p.answered.Load() {
		return ReasonSlowAnswer
	}
	return reason
}

// mark applies slow to the Reason of an *UpstreamError err.
func (p *progress) mark(err error) error {
	if p.answered.Load() {
		return slowAnswer(err)
	}
	return err
}
