package aggregator

import (
	"errors"
	"strconv"
	"strings"

	"github.com/mementokit/mementokit/memento"
)

// Class is what one archive's answer means for a search: the one rule by
// which the TimeMap and the TimeGate paths judge an answer, and by which
// the aggregator decides what may be cached and what counts toward an
// archive's dormancy.
//
//	class       outcome         cached as "none"   counts toward dormancy
//	answered    StatusFound     -                  no (ends a run of failures)
//	none        StatusNone      yes                no (ends a run of failures)
//	down        StatusFailed    never              yes
//	per-URI-R   StatusFailed    never              no
//	malformed   StatusFailed    never              no
//
// Only "down" says that the archive may be unwell (unreachable, silent,
// 5xx): a failure of the other classes belongs to the URI-R or to the
// answer, and a user who asks for URI-Rs with huge TimeMaps, or that an
// archive answers with a broken page, must not put the archive to sleep
// for everyone else. A timeout after the archive began answering (a first
// response byte of any of the answer's requests, seen through net/http's
// client trace whichever Upstream sends them) is ReasonSlowAnswer,
// per-URI-R, for HTTPUpstream and ClientUpstream alike.
//
// The dormancy rule: Options.Tolerance down failures in a row (no answered
// or none answer in between) put the archive to sleep, counted so that the
// choice of URI-R cannot do it:
//
//   - a failure before the request reached the archive (no connection:
//     refused, DNS, unreachable, TLS, a connect that timed out; nothing
//     was written) counts every time: it says nothing about any URI-R;
//   - a failure after the request reached it (5xx, 408, 429, a reset, no
//     response before the timeout) counts once per URI-R in the run: a
//     run reaches Tolerance only across Tolerance different URI-Rs, so
//     that one URI-R the archive answers with 500 (or a gateway's 504
//     for a TimeMap too big to build in time), asked for again and again,
//     cannot put the archive to sleep, while an archive that fails for
//     every URI-R still goes to sleep as soon as Tolerance users ask.
type Class int

// The answer classes.
const (
	// ClassAnswered: at least one usable memento.
	ClassAnswered Class = iota + 1
	// ClassNone: the archive said it holds nothing (404 or 410).
	ClassNone
	// ClassDown: no answer, or an answer that says the archive is unwell:
	// a network error, reset, a timeout before any response, 5xx, 408 or
	// 429.
	ClassDown
	// ClassPerURI: an answer over a cap for this URI-R (body size, pages,
	// time once the archive had begun answering: ReasonTooLarge,
	// ReasonTooManyPages, ReasonSlowAnswer, ReasonBudgetCut) or a 4xx other than 404, 408,
	// 410 and 429 (robots exclusion, a refused URI). Mementos read before
	// a cap was reached are kept, and the result is not complete.
	ClassPerURI
	// ClassMalformed: a 200 (or other status) that is not a usable answer:
	// empty, unparseable, an HTML page, a TimeGate answer without a
	// memento, no URI-M that is an http(s) URL, a redirect loop, a status
	// that means nothing here, a host the aggregator may not contact.
	ClassMalformed
)

var classNames = map[Class]string{ClassAnswered: "answered", ClassNone: "none", ClassDown: "down",
	ClassPerURI: "per-uri-r", ClassMalformed: "malformed"}

// String is the class's name: answered, none, down, per-uri-r, malformed.
func (c Class) String() string {
	if n, ok := classNames[c]; ok {
		return n
	}
	return "class(" + strconv.Itoa(int(c)) + ")"
}

// Dormancy reports whether a failure of class c counts toward the
// archive's run of consecutive failures (Options.Tolerance), by the
// dormancy rule above.
func (c Class) Dormancy() bool { return c == ClassDown }

// ClassOf classifies a failure reason (an Outcome.Reason, UpstreamError
// Reason): ClassDown for the network, timeout and 5xx reasons (and for a
// reason it does not know, which a custom Upstream may give),
// ClassPerURI for the caps and a URI-R's own 4xx, ClassMalformed for
// the rest.
func ClassOf(reason string) Class {
	switch reason {
	case ReasonTimeout, ReasonReset, ReasonNetwork, ReasonCanceled:
		return ClassDown
	case ReasonTooLarge, ReasonTooManyPages, ReasonSlowAnswer, ReasonBudgetCut, ReasonMemoryBusy, ReasonOverMemoryBudget:
		return ClassPerURI
	case ReasonWrongType, ReasonBadBody, ReasonUnexpectedReply, ReasonRedirectLoop,
		ReasonEmptyAnswer, ReasonBadURIM, ReasonHostNotAllowed:
		return ClassMalformed
	}
	if code, ok := strings.CutPrefix(reason, "status-"); ok {
		n, err := strconv.Atoi(code)
		switch {
		case err != nil:
			return ClassMalformed
		case n >= 500, n == 408, n == 429:
			return ClassDown
		case n >= 400:
			return ClassPerURI
		default:
			return ClassMalformed
		}
	}
	return ClassDown
}

// judge judges one archive's answer: ms and err as an Upstream returns
// them, ms already cleaned (cleanMementos). It returns the class and, for
// a failure, the reason.
func judge(ms []memento.Memento, err error, ctxReason func() string) (Class, string) {
	switch {
	case err == nil && len(ms) > 0:
		return ClassAnswered, ""
	case err == nil:
		return ClassMalformed, ReasonEmptyAnswer
	case errors.Is(err, ErrNotFound):
		return ClassNone, ""
	}
	reason := ReasonNetwork
	switch {
	case reasonOf(err) != "":
		reason = reasonOf(err)
	default:
		if r := ctxReason(); r != "" {
			reason = r
		}
	}
	return ClassOf(reason), reason
}
