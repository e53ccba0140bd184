package check_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/internal/check"
)

func TestResultErrorsNameTheMemento(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := cache.StoredMemento{URIM: "u", Datetime: t0, Archive: "ia"}
	bad := ok
	bad.Rel = "\xff"
	cases := []struct {
		name string
		r    cache.Result
		want string
	}{
		{"third_memento_rel", cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{ok, ok, bad}}, "memento 2 rel"},
		{"zero_updated", cache.Result{Status: cache.StatusNone}, "updated 0001-01-01T00:00:00Z outside"},
		{"found_empty", cache.Result{Status: cache.StatusFound, Updated: t0}, "status found with no mementos"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := check.Result(c.r)
			if !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Result err = %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

// TestBegin: a store's call on an ended context is a *cache.Error of the
// store and the operation, on a closed store an error wrapping
// cache.ErrClosed naming both; Passed tells the kinds a store passes on.
func TestBegin(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if err := check.Begin(ctx, "bolt", "put", false); err != nil {
		t.Fatalf("Begin on a live context, open store: %v", err)
	}
	err := check.Begin(ctx, "bolt", "put", true)
	if !errors.Is(err, cache.ErrClosed) || err.Error() != "cache: bolt put: cache: store closed" {
		t.Errorf("Begin on a closed store: %v", err)
	}
	cancel()
	err = check.Begin(ctx, "mysql", "stale", true)
	var se *cache.Error
	if !errors.As(err, &se) || se.Store != "mysql" || se.Op != "stale" || !errors.Is(err, context.Canceled) {
		t.Errorf("Begin on an ended context: %v", err)
	}
	for _, tt := range []struct {
		err  error
		pass bool
	}{
		{cache.ErrNotFound, true}, {cache.ErrNoJob, true}, {check.Closed("bolt", "get"), false},
		{fmt.Errorf("x: %w", cache.ErrInvalid), true}, {se, true}, {errors.New("disk"), false},
	} {
		if got := check.Passed(tt.err); got != tt.pass {
			t.Errorf("Passed(%v) = %v, want %v", tt.err, got, tt.pass)
		}
	}
}

// TestCallChecks: Put, Request and Stale refuse what their parts refuse,
// naming the argument, and return the URI-R without its scheme, its key
// and times in UTC at second precision.
func TestCallChecks(t *testing.T) {
	at := time.Date(2020, 1, 1, 12, 0, 0, 5e8, time.FixedZone("x", 3600))
	u, key, got, err := check.Request("https://example.com/", at)
	if err != nil || u != "example.com/" || key != cache.URIRKeyOf("example.com/") || !got.Equal(at.Truncate(time.Second)) || got.Location() != time.UTC {
		t.Errorf("Request = %q, %v, %v, %v", u, key, got, err)
	}
	if _, _, _, err := check.Request("http://", at); !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), "URI-R is empty") {
		t.Errorf("Request of an empty URI-R: %v", err)
	}
	if _, _, _, err := check.Request("http://a/", time.Time{}); !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), "request time") {
		t.Errorf("Request at the zero time: %v", err)
	}
	if _, _, _, err := check.Put("http://a/", cache.Result{Status: cache.StatusFound, Updated: at}); !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), "no mementos") {
		t.Errorf("Put of found without mementos: %v", err)
	}
	if _, err := check.Stale(at, 0); !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), "limit 0") {
		t.Errorf("Stale limit 0: %v", err)
	}
	if _, err := check.Stale(time.Time{}, 1); !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), "before") {
		t.Errorf("Stale before the zero time: %v", err)
	}
}
