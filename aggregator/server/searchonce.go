package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
)

// The causes of SearchOnce's errors, matched with errors.Is; the error's
// message is the reason itself (the headline or the refusal), not these.
var (
	// ErrBadArgument: a URI-R or datetime refused, too many arguments, an
	// unknown answer format, or a request the aggregator answers 400.
	ErrBadArgument = errors.New("bad command-line argument")
	// ErrNoMemento: no memento found (some archive answered none, or its
	// MementoMap ruled it out): the HTTP API's 404.
	ErrNoMemento = errors.New("no memento found")
	// ErrAllFailed: every archive asked failed, timed out or was dormant,
	// none answered and none was skipped by its MementoMap
	// (aggregator.Result.AllFailed, the HTTP API's 502 or 504): the
	// search says nothing about the URI-R.
	ErrAllFailed = errors.New("every archive asked failed")
	// ErrSomeFailed: with Config.Strict, some archive failed, timed out
	// or was dormant: the answer written (mementos found) or the "none"
	// found is partial.
	ErrSomeFailed = errors.New("some archive asked failed")
)

// ExitAllFailed is the exit status of a command line whose SearchOnce
// ends in ErrAllFailed, or with Config.Strict in ErrSomeFailed (MemGator's
// CLI has none of its own: 1 is "not found", 2 a usage error).
const ExitAllFailed = 3

// SearchOnce is the command-line mode, MemGator's shapes
// ("memgator [flags] URI-R [DATETIME]"): args is URI-R [DATETIME]. It
// assembles the deployment c describes (New; nil c means DefaultConfig,
// c itself is not modified), loads the archives' MementoMaps, searches
// once and writes to stdout the TimeMap, or with a datetime the memento
// description (/memento/{format}/{datetime}/{URI-R}), as the HTTP API
// would answer it, in format "link" (also ""), "json" or "cdxj", in any
// case. It closes the server before it returns.
//
// DATETIME follows the one rule of a datetime on a command line
// (flagvalue.DatetimeRule: timestamp digits or an RFC 3339 instant,
// nothing around them), read to the second. A URI-R that is empty,
// starts or ends with white space or holds a control character (bytes
// 0x00-0x1F, 0x7F) is refused; spaces inside it are kept and
// percent-encoded, as for a request path.
//
// No server runs behind the answer: unless c.BaseURL names one, its
// links to this API (self, timemap, timegate; in JSON and CDXJ the keys
// and lines naming them) are left out (Config.NoAPILinks); with BaseURL
// they name that server. The log goes to c.Logger, or when that is nil
// to stderr as c.NewLogger makes it (a bad LogFormat or LogLevel is
// refused). A bolt cache chosen in the data folder (c.Cache "bolt" or
// "", no path) is named on stderr first, "aggregator: cache bolt:PATH
// ...". When no memento was found stderr gets one line per archive
// asked or skipped by its MementoMap, in the search's order: "aggregator: ID
// answered none", "aggregator: ID not asked: its MementoMap rules the
// URI-R out", and the lines below. stderr gets one line per archive that failed, timed out or
// was dormant, "aggregator: ID failed (REASON): OP [URL: ]CAUSE" (ERROR's
// request and cause, the URL once, when it is an
// *aggregator.UpstreamError; else ERROR) or "aggregator: ID
// dormant: not asked", and per archive whose answer had memento links
// the search left out (no http(s) URI-M, no readable datetime, a
// datetime outside 1000-9999; aggregator.Outcome.Dropped), "aggregator:
// ID: N memento links left out ..."; then, when some archive failed and a
// memento was found, the answer's headline (aggregator.Headline: the
// mementos found and what each archive did, as counts and
// Archive-Failures) as "aggregator: HEADLINE". Such a partial answer is
// written to stdout and, unless c.Strict, the error is nil (exit status
// 0); with c.Strict it wraps ErrSomeFailed, exit status ExitAllFailed,
// its message the headline.
//
// Errors, each marked as the module's command lines read them
// (internal/cli: usage is exit status 2, an ExitError its Code, anything
// else 1): a bad argument wraps ErrBadArgument and a failure to start
// (New's error, ErrConfig among them) is returned as it is, both usage
// errors; no memento is an error wrapping ErrNoMemento whose message is
// the headline (with c.Strict and some archive failed, ErrSomeFailed,
// exit status ExitAllFailed); every archive failed wraps ErrAllFailed,
// exit status ExitAllFailed, the message the headline too. A context
// ended during the search gives its cause.
func SearchOnce(ctx context.Context, c *Config, format string, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || len(args) > 2 {
		return badArgument(fmt.Errorf("want URI-R [DATETIME], got %d arguments", len(args)))
	}
	switch format = strings.ToLower(format); format {
	case "":
		format = "link"
	case "link", "json", "cdxj":
	default:
		return badArgument(fmt.Errorf("format: want link, json or cdxj, got %q", format))
	}
	if err := checkURIRArgument(args[0]); err != nil {
		return badArgument(err)
	}
	target := "/timemap/" + format + "/" + args[0]
	if len(args) == 2 {
		// The one rule of a datetime on a command line
		// (flagvalue.DatetimeRule), read to the second as the HTTP API's
		// {datetime} is.
		t, err := flagvalue.ParseTime(args[1])
		if err != nil {
			return badArgument(err)
		}
		target = "/memento/" + format + "/" + t.Format("20060102150405") + "/" + args[0]
	}
	cfg := DefaultConfig()
	if c != nil {
		cfg = *c
	}
	if cfg.Logger == nil {
		log, err := cfg.NewLogger(stderr)
		if err != nil {
			return cli.AsUsage(err)
		}
		cfg.Logger = log
	}
	cfg.NoAPILinks = cfg.BaseURL == ""
	s, err := New(ctx, &cfg)
	if err != nil {
		return cli.AsUsage(err)
	}
	if d := s.TempDir(); d != "" {
		// A second signal stops at once, Close not run: the folder goes then too.
		defer cli.OnHardStop(func() { os.RemoveAll(d) })()
	}
	defer s.Close()
	if s.boltPath != "" {
		// The command line's log is at warn: the store it writes to,
		// which no flag named, is said here.
		if _, err := fmt.Fprintf(stderr, "aggregator: cache bolt:%s (the data folder's; -cache bolt:PATH or -data-dir to choose another)\n", s.boltPath); err != nil {
			return err
		}
	}
	ag := s.Aggregator()
	if err := ag.LoadMaps(ctx); err != nil {
		cfg.Logger.Warn("some MementoMaps were not loaded; those archives are always asked", "err", err)
	}
	// The Handler reads the raw target (RequestURI) as a server gives it;
	// the URL is built, not parsed, so no URI-R can make it fail.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	if err != nil {
		return err
	}
	req.URL = &url.URL{Path: target}
	req.RequestURI = target
	rec := &answerRecorder{ResponseRecorder: httptest.NewRecorder()}
	ag.Handler().ServeHTTP(rec, req)
	body := strings.TrimSpace(rec.Body.String())
	if rec.Code != http.StatusBadRequest {
		lines := rec.archives
		if rec.Code != http.StatusOK {
			lines = rec.misses // no memento: what each archive said
		}
		for _, l := range lines {
			if _, err := fmt.Fprintf(stderr, "aggregator: %s\n", l); err != nil {
				return err
			}
		}
	}
	switch {
	case rec.Code == http.StatusOK:
		if _, err := io.WriteString(stdout, rec.Body.String()); err != nil {
			return err
		}
		if !rec.failures {
			return nil
		}
		if cfg.Strict {
			return &cli.ExitError{Code: ExitAllFailed, Err: &causeError{ErrSomeFailed, rec.headline}}
		}
		_, err := fmt.Fprintf(stderr, "aggregator: %s\n", rec.headline)
		return err
	case rec.Code == http.StatusBadRequest:
		return badArgument(errors.New(body))
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case rec.Code == http.StatusBadGateway || rec.Code == http.StatusGatewayTimeout:
		return &cli.ExitError{Code: ExitAllFailed, Err: &causeError{ErrAllFailed, body}}
	case cfg.Strict && rec.failures:
		return &cli.ExitError{Code: ExitAllFailed, Err: &causeError{ErrSomeFailed, body}}
	}
	return &causeError{ErrNoMemento, body}
}

// archiveLines are the stderr lines of SearchOnce about res's archives:
// each that failed, timed out or was dormant, and each whose answer had
// memento links left out; with miss (no memento found) also each that
// answered none ("ID answered none") or was not asked because its
// MementoMap rules the URI-R out.
func archiveLines(res *aggregator.Result, miss bool) []string {
	if res == nil {
		return nil
	}
	var out []string
	for _, o := range res.Outcomes {
		switch o.Status {
		case aggregator.StatusNone:
			if miss {
				out = append(out, o.Archive+" answered none")
			}
		case aggregator.StatusSkippedByMap:
			if miss {
				out = append(out, o.Archive+" not asked: its MementoMap rules the URI-R out")
			}
		case aggregator.StatusFailed:
			l := o.Archive + " failed (" + o.Reason + ")"
			if o.Err != nil {
				// The archive and the reason are said above: of an
				// *aggregator.UpstreamError, the request and the cause.
				msg := o.Err.Error()
				var ue *aggregator.UpstreamError
				if errors.As(o.Err, &ue) && ue.Err != nil {
					msg = ue.Err.Error()
					if !strings.Contains(msg, ue.URL) { // a *url.Error names it
						msg = ue.URL + ": " + msg
					}
					msg = ue.Op + " " + msg
				}
				l += ": " + aggregator.ShortTarget(msg)
			}
			if o.Mementos > 0 {
				l += fmt.Sprintf("; the %d mementos read before are kept", o.Mementos)
			}
			out = append(out, l)
		case aggregator.StatusDormant:
			out = append(out, o.Archive+" dormant: not asked")
		}
		if o.Dropped > 0 {
			out = append(out, fmt.Sprintf("%s: %d memento links left out (no http(s) URI-M, no readable datetime, or a datetime outside 1000-9999)", o.Archive, o.Dropped))
		}
	}
	return out
}

// causeError is an error whose message is msg and which errors.Is matches
// to cause.
type causeError struct {
	cause error
	msg   string
}

func (e *causeError) Error() string        { return e.msg }
func (e *causeError) Is(target error) bool { return target == e.cause }

// badArgument marks err as a usage error caused by ErrBadArgument, its
// message unchanged.
func badArgument(err error) error {
	return cli.AsUsage(&causeError{ErrBadArgument, err.Error()})
}

// answerRecorder is SearchOnce's ResponseWriter: it takes the
// aggregator's answer (aggregator.AnswerLogger) and keeps its headline,
// and whether some archive failed, timed out or was dormant.
type answerRecorder struct {
	*httptest.ResponseRecorder
	headline string
	failures bool
	archives []string // archiveLines of the answer's search
	misses   []string // the same with the archives that answered none
}

// LogAnswer keeps the headline of ans and the lines about its archives;
// the Handler then writes no "request" record of its own.
func (c *answerRecorder) LogAnswer(_ *http.Request, ans *aggregator.Answer) bool {
	c.headline, c.failures = aggregator.Headline(ans), ans.Failures != ""
	c.archives, c.misses = archiveLines(ans.Result, false), archiveLines(ans.Result, true)
	return true
}

// checkURIRArgument refuses a command-line URI-R that is empty, starts or
// ends with a space, or holds a control character (bytes 0x00-0x1F,
// 0x7F); those are typing slips, never part of a URI. Spaces inside the
// URI-R are kept: NormalizeURIR percent-encodes them, as for a request
// path.
func checkURIRArgument(s string) error {
	if s == "" {
		return errors.New("empty URI-R")
	}
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("bad URI-R %q: leading or trailing white space", s)
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return fmt.Errorf("bad URI-R %q: control character 0x%02X at byte %d", s, s[i], i)
		}
	}
	return nil
}
