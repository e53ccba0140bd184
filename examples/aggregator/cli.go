package main

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
	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/internal/flagvalue"
)

// cliFormat is the -format of the command-line mode; migrateDryRun is
// -migrate-dry-run.
var (
	cliFormat     = "link"
	migrateDryRun bool
)

// printMigrationPlan writes the steps mysqlcache.Open would run on the
// MySQL database spec names, one a line ("up to date" when none).
func printMigrationPlan(ctx context.Context, spec string, stdout io.Writer) error {
	dsn := strings.TrimPrefix(spec, "mysql:")
	if !strings.Contains(dsn, "/") || spec == "memory" || spec == "none" || strings.HasPrefix(spec, "bolt") {
		return cli.Usagef("-migrate-dry-run: -cache must be a MySQL DSN")
	}
	plan, err := mysqlcache.MigrationPlan(ctx, dsn)
	if err != nil {
		return err
	}
	if len(plan) == 0 {
		plan = []string{"up to date"}
	}
	_, err = io.WriteString(stdout, strings.Join(plan, "\n")+"\n")
	return err
}

// exitAllFailed is the command-line mode's exit status when every archive
// asked failed (none answered, found or none, and no MementoMap ruled one
// out): the search says nothing about the URI-R, unlike "not found" (1).
const exitAllFailed = 3

// errNotFound is the command-line mode's "no memento": exit status 1.
type notFound struct{ msg string }

func (e notFound) Error() string { return e.msg }

// cliRecorder is the command-line mode's ResponseWriter: it takes the
// aggregator's answer (aggregator.AnswerLogger) and keeps its headline,
// and whether some archive failed, timed out or was dormant.
type cliRecorder struct {
	*httptest.ResponseRecorder
	headline string
	failures bool
}

// LogAnswer keeps the headline of ans; the Handler then writes no
// "request" record of its own.
func (c *cliRecorder) LogAnswer(_ *http.Request, ans *aggregator.Answer) bool {
	c.headline, c.failures = aggregator.Headline(ans), ans.Failures != ""
	return true
}

// runCLI is the command-line mode, MemGator's shapes: args is URI-R
// [DATETIME]; it searches once (the archives' MementoMaps loaded first)
// and writes to stdout the TimeMap, or with a datetime the memento
// description (/memento/{format}/{datetime}/{URI-R}), as the HTTP API
// would answer it. DATETIME follows the one rule of a datetime on a
// command line (flagvalue.DatetimeRule: timestamp digits or an RFC 3339
// instant, nothing around them), read to the second. No server runs behind that answer: without -base-url
// its links to this API (self, timemap, timegate; in JSON and CDXJ the
// keys and lines naming them) are left out (server.Config.NoAPILinks),
// with -base-url they name that server, as the HTTP API's answers do.
// When some archive failed, timed out or was dormant,
// the answer's headline (aggregator.Headline: the mementos found and what
// each archive did, as counts and Archive-Failures) is written to stderr
// as one line, the exit status staying 0. Errors: a bad URI-R or
// datetime, or more arguments, and a failure to start (server.New) are
// exit status 2 (a datetime's error names the value, why it is refused
// and the rule); no memento (some archive answered none, or its
// MementoMap ruled it out) is exit 1 with the headline on stderr, and
// every archive asked failed (the HTTP API's 502 or 504) exit 3
// (exitAllFailed), the headline on stderr.
func runCLI(ctx context.Context, c server.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) > 2 {
		return cli.Usagef("want URI-R [DATETIME], got %d arguments", len(args))
	}
	if err := checkCLIURIR(args[0]); err != nil {
		return cli.AsUsage(err)
	}
	target := "/timemap/" + cliFormat + "/" + args[0]
	if len(args) == 2 {
		// The one rule of a datetime on a command line
		// (flagvalue.DatetimeRule), read to the second as the HTTP API's
		// {datetime} is.
		t, err := flagvalue.ParseTime(args[1])
		if err != nil {
			return cli.AsUsage(err)
		}
		target = "/memento/" + cliFormat + "/" + t.Format("20060102150405") + "/" + args[0]
	}
	log, err := c.NewLogger(stderr)
	if err != nil {
		return cli.AsUsage(err)
	}
	c.Logger = log
	c.NoAPILinks = c.BaseURL == ""
	s, err := server.New(ctx, &c)
	if err != nil {
		return cli.AsUsage(err)
	}
	if d := s.TempDir(); d != "" {
		// A second signal stops at once, Close not run: the folder goes then too.
		defer cli.OnHardStop(func() { os.RemoveAll(d) })()
	}
	defer s.Close()
	ag := s.Aggregator()
	if err := ag.LoadMaps(ctx); err != nil {
		log.Warn("some MementoMaps were not loaded; those archives are always asked", "err", err)
	}
	// The Handler reads the raw target (RequestURI) as a server gives it;
	// the URL is built, not parsed, so no URI-R can make it fail.
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	if err != nil {
		return err
	}
	req.URL = &url.URL{Path: target}
	req.RequestURI = target
	rec := &cliRecorder{ResponseRecorder: httptest.NewRecorder()}
	ag.Handler().ServeHTTP(rec, req)
	body := rec.Body.String()
	switch {
	case rec.Code == http.StatusOK:
		if _, err := io.WriteString(stdout, body); err != nil {
			return err
		}
		if rec.failures {
			_, err = fmt.Fprintf(stderr, "aggregator: %s\n", rec.headline)
		}
		return err
	case rec.Code == http.StatusBadRequest:
		return cli.AsUsage(errors.New(strings.TrimSpace(body)))
	case ctx.Err() != nil:
		return context.Cause(ctx)
	case rec.Code == http.StatusBadGateway || rec.Code == http.StatusGatewayTimeout:
		// aggregator.Result.AllFailed: every archive asked failed (or
		// timed out, or was dormant), none answered, none was skipped by
		// its MementoMap: no answer, not "not found".
		return &cli.ExitError{Code: exitAllFailed, Err: errors.New(strings.TrimSpace(body))}
	}
	return notFound{strings.TrimSpace(body)}
}

// checkCLIURIR refuses a command-line URI-R that is empty, starts or ends
// with a space, or holds a control character (bytes 0x00-0x1F, 0x7F);
// those are typing slips, never part of a URI. Spaces inside the URI-R
// are kept: NormalizeURIR percent-encodes them, as for a request path.
func checkCLIURIR(s string) error {
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
