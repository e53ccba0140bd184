package aggregator

import (
	"context"
	"errors"
	"io"
	"strconv"
	"syscall"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// ClientUpstream is an Upstream over the memento package's Client: its
// FetchTimeMap (all pages) and TimeGate (HEAD, then GET) with their RFC 7089
// checks, and its *memento.Error classification, mapped onto outcome
// reasons. It is the alternative to HTTPUpstream (the default, which asks
// TimeGates with GET as the Time Travel service does and streams TimeMaps
// without sorting them first); both pass the same fault tests.
type ClientUpstream struct {
	// Client asks the archives; nil uses a zero memento.Client.
	Client *memento.Client
	// Allow is checked for every request and redirect hop, as
	// HTTPUpstream.Allow (nil: the hosts of the archive being asked).
	Allow *AllowList
}

// client is a copy of u.Client whose HTTP transport checks every request
// against the allow list.
func (u *ClientUpstream) client(a *Archive) *memento.Client {
	var c memento.Client
	if u.Client != nil {
		c = *u.Client
	}
	allow := u.Allow
	if allow == nil {
		allow = ownAllowList(a)
	}
	c.HTTP = guarded(c.HTTP, allow)
	return &c
}

// TimeMap implements Upstream with memento.Client.FetchTimeMap. When the
// answer was cut by a cap for this URI-R (ClassPerURI: more than MaxPages
// pages, a body over MaxBodyBytes, a timeout after the archive began
// answering) or by a body whose link format cannot be read on
// (ReasonBadBody), the mementos read before the cut come with the error,
// and the search keeps them and names the archive in Archive-Failures, as
// with HTTPUpstream; after any other error none are returned. Memento
// links the client's lenient read left out for want of a readable
// datetime (memento.TimeMap.Invalid) are returned as mementos with the
// zero Datetime, which the search leaves out and counts
// (Outcome.Dropped), as it does HTTPUpstream's. A TimeMap without
// mementos is an empty answer (no mementos, no error).
func (u *ClientUpstream) TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	if a.TimeMap == "" {
		return nil, 0, &UpstreamError{Archive: a.ID, Op: "timemap", Reason: ReasonUnexpectedReply, Err: errors.New("archive has no TimeMap endpoint")}
	}
	uri := a.TimeMap + urir
	ctx, prog := withProgress(ctx)
	tm, err := u.client(a).FetchTimeMap(ctx, uri)
	requests := 1
	if tm != nil {
		requests = max(1, len(tm.Pages)+1)
	}
	if err != nil {
		err = prog.mark(clientError(ctx, a, "timemap", uri, err))
		if r := reasonOf(err); tm == nil || ClassOf(r) != ClassPerURI && r != ReasonBadBody {
			return nil, requests, err
		}
	}
	out := make([]memento.Memento, len(tm.Mementos), len(tm.Mementos)+tm.Invalid)
	for i, m := range tm.Mementos {
		out[i] = memento.Memento{URIM: m.URIM, Datetime: m.Datetime}
	}
	for range tm.Invalid {
		out = append(out, memento.Memento{}) // left out and counted by the search
	}
	return out, requests, err
}

// TimeGate implements Upstream with memento.Client.TimeGate: the selected
// memento plus every memento link of the answer's Link header; when the
// answer gives no datetime for the selected URI-M, its Memento-Datetime is
// read (memento.Client.Memento).
func (u *ClientUpstream) TimeGate(ctx context.Context, a *Archive, urir string, at time.Time) ([]memento.Memento, int, error) {
	if a.TimeGate == "" {
		return nil, 0, &UpstreamError{Archive: a.ID, Op: "timegate", Reason: ReasonUnexpectedReply, Err: errors.New("archive has no TimeGate endpoint")}
	}
	uri := a.TimeGate + urir
	c := u.client(a)
	ctx, prog := withProgress(ctx)
	res, err := c.TimeGate(ctx, uri, at)
	if err != nil {
		return nil, 1, prog.mark(clientError(ctx, a, "timegate", uri, err))
	}
	var out []memento.Memento
	for _, l := range res.Links {
		if !l.IsMemento() {
			continue
		}
		dt, ok := l.Param("datetime")
		if !ok {
			continue
		}
		if t, err := memento.ParseHTTPDateLenient(dt); err == nil {
			out = append(out, memento.Memento{URIM: l.Target, Datetime: t.UTC()})
		}
	}
	requests := 1
	switch {
	case !res.Datetime.IsZero():
		out = append(out, memento.Memento{URIM: res.URIM, Datetime: res.Datetime.UTC()})
	case len(out) == 0:
		requests++
		info, err := c.Memento(ctx, res.URIM)
		if err != nil {
			return nil, requests, slowAnswer(clientError(ctx, a, "timegate", res.URIM, err)) // the TimeGate answered
		}
		out = append(out, memento.Memento{URIM: info.URIM, Datetime: info.Datetime.UTC()})
	}
	return out, requests, nil
}

// clientError maps a memento client error onto ErrNotFound or an
// *UpstreamError with an outcome reason.
func clientError(ctx context.Context, a *Archive, op, uri string, err error) error {
	if memento.IsNotFound(err) {
		return errors.Join(ErrNotFound, err)
	}
	reason := ReasonNetwork
	var me *memento.Error
	switch {
	case errors.Is(err, memento.ErrBodyTooLarge), isHeaderTooLarge(err):
		reason = ReasonTooLarge
	case errors.Is(err, memento.ErrTooManyPages):
		reason = ReasonTooManyPages
	case errors.Is(err, ErrHostNotAllowed):
		reason = ReasonHostNotAllowed
	case errors.Is(err, memento.ErrTooManyRedirects), errors.Is(err, memento.ErrRedirectLoop):
		reason = ReasonRedirectLoop
	case errors.Is(err, memento.ErrNotTimeMap):
		reason = ReasonWrongType
	case errors.Is(err, memento.ErrNotTimeGate), errors.Is(err, memento.ErrNotMemento):
		reason = ReasonUnexpectedReply
	case errors.As(err, &me) && me.StatusCode != 0 && errors.Is(err, memento.ErrStatus):
		reason = "status-" + strconv.Itoa(me.StatusCode)
	case ctx.Err() != nil:
		reason = ctxReason(ctx)
	case errors.As(err, &me) && me.Timeout():
		reason = ReasonTimeout
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		reason = ReasonReset
	default:
		var pe *memento.ParseError
		if errors.As(err, &pe) {
			reason = ReasonBadBody
		}
	}
	return &UpstreamError{Archive: a.ID, Op: op, URL: uri, Reason: reason, Err: err}
}

// reasonOf is the Reason of an *UpstreamError, or "".
func reasonOf(err error) string {
	switch e := err.(type) { // the common errors, without errors.As's allocation
	case *UpstreamError:
		return e.Reason
	case *notFoundError:
		return ""
	}
	var ue *UpstreamError
	if errors.As(err, &ue) {
		return ue.Reason
	}
	return ""
}
