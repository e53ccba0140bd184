package cdxj_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/cdxservertest"
)

// TestServerNeverAnswers: a CDX server that accepts the connection and
// never answers (cdxservertest.Silent) fails the request at
// ServerOptions.Deadline, over all attempts (before, each of 5 attempts
// waited 60 s), with an error naming the URL, the deadline and the last
// attempt's cause.
func TestServerNeverAnswers(t *testing.T) {
	endpoint, accepted := cdxservertest.Silent(t)
	o := &cdxj.ServerOptions{Rate: -1, MinBackoff: time.Millisecond, MaxBackoff: 10 * time.Millisecond,
		Flavor: cdxj.FlavorPywb, Timeout: 100 * time.Millisecond, Deadline: 300 * time.Millisecond, Attempts: 10}
	s, err := cdxj.OpenServer(context.Background(), endpoint+"?url=*.example.com", o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, e := range s.Lines(cdxj.Query{Match: cdxj.MatchPrefix}) {
		if err = e; err != nil {
			break
		}
	}
	var se *cdxj.ServerError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v (%T), want a *ServerError", err, err)
	}
	for _, want := range []string{"cdxj: CDX server " + endpoint + "?", "no answer within 300ms, the deadline of one request and its retries (after: no data from the server within the timeout"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %q does not wrap context.DeadlineExceeded", err)
	}
	if se.Attempts < 1 || se.Attempts >= o.Attempts {
		t.Errorf("%d attempts, want fewer than the %d allowed: the deadline ends them", se.Attempts, o.Attempts)
	}
	if n := accepted(); n < 1 {
		t.Errorf("%d connections accepted", n)
	}
}
