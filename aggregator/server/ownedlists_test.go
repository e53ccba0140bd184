package server

import (
	"context"
	"testing"
	"time"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/memento"
)

// TestMeteredUpstreamOwnedLists: the timing wrapper of the archives'
// Upstream says its lists are the caller's exactly when the wrapped one
// does (an HTTPUpstream's are; another Upstream's, which may be its own
// data, are not), so that the aggregator reuses only lists no one else
// holds.
func TestMeteredUpstreamOwnedLists(t *testing.T) {
	for _, tc := range []struct {
		name string
		next aggregator.Upstream
		want bool
	}{
		{"HTTPUpstream", &aggregator.HTTPUpstream{}, true},
		{"other", heldUpstream{}, false},
	} {
		var up aggregator.Upstream = meteredUpstream{next: tc.next}
		o, ok := up.(aggregator.CallerOwnedLists)
		if got := ok && o.ListsOwnedByCaller(); got != tc.want {
			t.Errorf("%s: lists owned by the caller %v, want %v", tc.name, got, tc.want)
		}
	}
}

// heldUpstream answers from a list of its own.
type heldUpstream struct{ ms []memento.Memento }

func (h heldUpstream) TimeMap(context.Context, *aggregator.Archive, string) ([]memento.Memento, int, error) {
	return h.ms, 1, nil
}

func (h heldUpstream) TimeGate(context.Context, *aggregator.Archive, string, time.Time) ([]memento.Memento, int, error) {
	return h.ms, 1, nil
}
