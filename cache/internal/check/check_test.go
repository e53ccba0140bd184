package check_test

import (
	"errors"
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
