//go:build linux

package mysqlcache_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/internal/check"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/mysqltest"
)

// TestKillAndRestart kills the database with SIGKILL twice, then freezes it
// with SIGSTOP, while a writer and a reader are busy: calls fail with
// *cache.Error within their deadline (no panic, no hang), the same store
// works again once the server is back, and every Put that returned nil is
// there afterwards.
func TestKillAndRestart(t *testing.T) {
	srv := mysqltest.NewServer(t)
	dsn := srv.Database("mkcache_")
	ctx := context.Background()
	octx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	c, err := mysqlcache.Open(octx, dsn, &mysqlcache.Options{MaxOpenConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	const callTimeout = 2 * time.Second
	// A hang shows as a call that never returns (the SIGSTOP phase would
	// block forever without a deadline); the slack is generous so that a
	// loaded 2-core machine running -race does not make it fail.
	const slack = 10 * time.Second
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	result := func(i int) cache.Result {
		var ms []cache.StoredMemento
		for j := range 1 + i%7 {
			ms = append(ms, cache.StoredMemento{URIM: fmt.Sprintf("https://a.example/%d/%d", j, i),
				Datetime: t0.Add(time.Duration(j) * time.Hour), Archive: fmt.Sprint("arch", j%3), Rel: "memento"})
		}
		return cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: ms}
	}

	var (
		mu        sync.Mutex
		succeeded []int
		failures  int
		phase     int // 0 before the first kill, then 1, 2, ...: successes per phase
		perPhase  = map[int]int{}
	)
	call := func(name string, f func(ctx context.Context) error) error {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		start := time.Now()
		err := f(ctx)
		if d := time.Since(start); d > callTimeout+slack {
			t.Errorf("%s took %v, past its %v deadline", name, d, callTimeout)
		}
		var se *cache.Error
		if err != nil && !errors.As(err, &se) {
			t.Errorf("%s failed with %T %v, want a *cache.Error", name, err, err)
		}
		return err
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // writer
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			err := call("Put", func(ctx context.Context) error {
				return c.Put(ctx, fmt.Sprintf("http://fault.example/%d", i), result(i))
			})
			mu.Lock()
			if err == nil {
				succeeded = append(succeeded, i)
				perPhase[phase]++
			} else {
				failures++
			}
			mu.Unlock()
			if err != nil {
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
	wg.Go(func() { // reader and queue user
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			call("Get", func(ctx context.Context) error {
				_, err := c.Get(ctx, cache.URIRKeyOf(fmt.Sprintf("fault.example/%d", i/3)))
				if errors.Is(err, cache.ErrNotFound) {
					return nil
				}
				return err
			})
			call("Enqueue", func(ctx context.Context) error {
				return c.Enqueue(ctx, fmt.Sprintf("http://fault.example/%d", i), cache.PriorityLive, t0)
			})
			call("Claim", func(ctx context.Context) error {
				_, err := c.Claim(ctx, "w", t0)
				if errors.Is(err, cache.ErrNoJob) {
					return nil
				}
				return err
			})
			time.Sleep(5 * time.Millisecond)
		}
	})
	waitFor := func(n int) {
		deadline := time.Now().Add(15 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			got := perPhase[phase]
			mu.Unlock()
			if got >= n {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Errorf("phase %d: fewer than %d successful Puts in 15 s: the store did not recover", phase, n)
	}
	for round := range 2 {
		waitFor(20)
		srv.Kill()
		mu.Lock()
		phase++
		mu.Unlock()
		// A Put committed just before the kill may report success just
		// after it; from then on, while the server is down, none may.
		time.Sleep(200 * time.Millisecond)
		mu.Lock()
		before := perPhase[phase]
		mu.Unlock()
		time.Sleep(500 * time.Millisecond)
		mu.Lock()
		downOK := perPhase[phase] - before
		mu.Unlock()
		if downOK != 0 {
			t.Errorf("round %d: %d Puts succeeded with the server down", round, downOK)
		}
		srv.Start()
	}
	// A server that hangs (SIGSTOP) rather than dies: calls must end at
	// their deadline, and work again after SIGCONT.
	waitFor(20)
	srv.Stop()
	mu.Lock()
	phase++
	mu.Unlock()
	time.Sleep(callTimeout + time.Second)
	srv.Cont()
	waitFor(20)
	close(stop)
	wg.Wait()

	mu.Lock()
	defer mu.Unlock()
	if failures == 0 {
		t.Error("no Put failed while the server was down: the kill did not happen")
	}
	t.Logf("%d Puts succeeded, %d failed across 2 kills and a freeze", len(succeeded), failures)
	for _, i := range succeeded {
		vctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		e, err := c.Get(vctx, cache.URIRKeyOf(fmt.Sprintf("fault.example/%d", i)))
		cancel()
		if err != nil {
			t.Errorf("Put %d returned success but Get fails: %v", i, err)
			continue
		}
		want, _ := check.Result(result(i))
		if diff := cmp.Diff(want.Mementos, e.Mementos); diff != "" {
			t.Errorf("Put %d: mementos after the restarts (-want +got):\n%s", i, diff)
		}
	}
}
