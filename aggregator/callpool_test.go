package aggregator

import (
	"bytes"
	"context"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
)

// goroutineID is the number runtime.Stack prints for the calling
// goroutine ("goroutine 42 [running]:").
func goroutineID() int {
	var buf [64]byte
	b := bytes.TrimPrefix(buf[:runtime.Stack(buf[:], false)], []byte("goroutine "))
	n, _ := strconv.Atoi(string(b[:bytes.IndexByte(b, ' ')]))
	return n
}

// idUpstream answers every TimeMap with one memento and records the
// goroutine each call ran on.
type idUpstream struct {
	mu  sync.Mutex
	ids []int
}

func (u *idUpstream) TimeMap(ctx context.Context, a *Archive, urir string) ([]memento.Memento, int, error) {
	u.mu.Lock()
	u.ids = append(u.ids, goroutineID())
	u.mu.Unlock()
	return []memento.Memento{{URIM: "http://a.example/web/2001/" + urir, Datetime: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)}}, 1, nil
}

func (u *idUpstream) TimeGate(ctx context.Context, a *Archive, urir string, at time.Time) ([]memento.Memento, int, error) {
	return u.TimeMap(ctx, a, urir)
}

// TestSearchCallsReuseGoroutines: the archive calls of searches one after
// another run on kept goroutines (callPool), not on a new goroutine each
// (ten searches, a short pause after each so that the goroutine of the
// last call is waiting again: at most five goroutines, where a goroutine
// per call makes ten), and the pool's goroutines end with Close.
func TestSearchCallsReuseGoroutines(t *testing.T) {
	up := &idUpstream{}
	before := runtime.NumGoroutine()
	ag, err := New(&Options{Archives: []Archive{{ID: "a", TimeMap: "http://a.example/tm/"}}, Upstream: up, BaseURL: "http://localhost:1208"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		u := "http://r" + strconv.Itoa(i) + ".example/"
		res, err := ag.Search(t.Context(), TimeMapDynamic, u, time.Time{})
		if err != nil || len(res.Mementos) != 1 {
			t.Fatalf("Search(%s) = %v, %v", u, res, err)
		}
		time.Sleep(2 * time.Millisecond)
	}
	distinct := map[int]bool{}
	for _, id := range up.ids {
		distinct[id] = true
	}
	if len(up.ids) != 10 || len(distinct) > 5 {
		t.Errorf("10 calls ran on %d goroutines (%v), want at most 5", len(distinct), up.ids)
	}
	if err := ag.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second) // well under callIdle: Close ends them
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after Close, %d before New", n, before)
	}
}
