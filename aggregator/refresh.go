package aggregator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mementokit/mementokit/cache"
)

// ErrNoCache is returned by the refresh methods of an aggregator built
// without Options.Cache.
var ErrNoCache = errors.New("aggregator: no cache configured")

// Refresh runs a thorough search of urir with the Batch service and stores
// the result (internal/spec/TIMETRAVEL.md §1: the refresher): found → cached as found,
// nothing and no failure → cached as "none", nothing with failures → the
// entry is left as it was. It returns the search result. urir comes from
// the job queue, which a shared store lets others write: it is normalized
// and checked as Search does; a blacklisted host asks no archive, is
// stored as cache.StatusBlocked (so that ScanStale leaves it) and gives an
// error wrapping ErrBlocked; a URI-R NormalizeURIR refuses gives one
// wrapping ErrBadURIR.
func (ag *Aggregator) Refresh(ctx context.Context, urir string) (*Result, error) {
	c := ag.opts.Cache
	if c == nil {
		return nil, ErrNoCache
	}
	u, err := ag.checkURIR(urir)
	if errors.Is(err, ErrBlocked) {
		if n, nerr := NormalizeURIR(urir); nerr == nil {
			_, perr := bgCache(ag, ctx, "put", func(ctx context.Context) (struct{}, error) {
				return struct{}{}, c.Put(ctx, n, cache.Result{Status: cache.StatusBlocked, Updated: time.Now().UTC().Truncate(time.Second)})
			})
			err = errors.Join(err, perr)
		}
	}
	if err != nil {
		return nil, err
	}
	var holds bodyHolds
	defer holds.release() // the result is stored: its body bytes go back
	res, err := ag.searchShared(ctx, Batch, u, time.Time{}, &holds)
	if err != nil {
		return nil, err
	}
	if res.MemoryBusy() {
		// An answer of this moment's load, not of the archives: nothing stored.
		return res, fmt.Errorf("aggregator: refresh of %s: %w", u, errMemoryBusy)
	}
	if _, err := bgCache(ag, ctx, "put", func(ctx context.Context) (struct{}, error) { return struct{}{}, ag.store(ctx, u, res, nil, false) }); err != nil {
		return res, fmt.Errorf("aggregator: storing refresh of %s: %w", u, err)
	}
	return res, nil
}

// WorkerOptions configure RunWorkers; a nil *WorkerOptions takes every default.
type WorkerOptions struct {
	// Workers is the number of goroutines claiming jobs (default 4).
	Workers int
	// Name identifies this process in claimed jobs (jobs.process_id); each
	// goroutine appends "/N". Default "aggregator".
	Name string
	// Idle is the wait after the queue was found empty (default 5 s, the
	// Time Travel producer's period).
	Idle time.Duration
}

// RunWorkers drains the cache's job queue until ctx ends or the aggregator
// closes: each worker claims the next job (live, priority 1, before stale
// refreshes, priority 2: the cache's Claim order), runs Refresh, and
// completes the job. Several processes sharing one store (MySQL) never run
// the same job twice: Claim gives each job to one worker. A failed refresh
// is completed too (the entry stays as it was and is queued again when
// next requested or scanned). It returns when every worker has stopped.
// opts may be nil (the defaults of [WorkerOptions]).
func (ag *Aggregator) RunWorkers(ctx context.Context, opts *WorkerOptions) error {
	var o WorkerOptions
	if opts != nil {
		o = *opts
	}
	c := ag.opts.Cache
	if c == nil {
		return ErrNoCache
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Name == "" {
		o.Name = "aggregator"
	}
	if o.Idle <= 0 {
		o.Idle = 5 * time.Second
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ag.base, cancel)
	defer stop()
	var wg sync.WaitGroup
	for i := range o.Workers {
		name := fmt.Sprintf("%s/%d", o.Name, i)
		wg.Go(func() {
			for ctx.Err() == nil {
				did, err := ag.RunOneJob(ctx, name)
				if err != nil && ctx.Err() == nil {
					ag.log.Warn("refresh worker", "worker", name, "err", err)
				}
				if !did {
					t := time.NewTimer(o.Idle)
					select {
					case <-ctx.Done():
						t.Stop()
					case <-t.C:
					}
				}
			}
		})
	}
	wg.Wait()
	return nil
}

// RunOneJob claims one job as worker, refreshes its URI-R and completes
// it. It reports whether a job was found. Without Options.Cache it returns
// ErrNoCache. No job waiting (cache.ErrNoJob) is false and nil; another
// failure of the claim (the store's error, context.DeadlineExceeded at
// BackgroundCacheTimeout, or an error when too many cache calls wait on
// the store) is false and that error. Once a job is claimed the result is
// true with [Aggregator.Refresh]'s error (wrapping ErrBlocked or
// ErrBadURIR, among others) joined (errors.Join) with that of completing
// the job.
func (ag *Aggregator) RunOneJob(ctx context.Context, worker string) (bool, error) {
	c := ag.opts.Cache
	if c == nil {
		return false, ErrNoCache
	}
	job, err := bgCache(ag, ctx, "claim", func(ctx context.Context) (cache.Job, error) { return c.Claim(ctx, worker, time.Now()) })
	if errors.Is(err, cache.ErrNoJob) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	_, rerr := ag.Refresh(ctx, job.URIR)
	_, err = bgCache(ag, context.WithoutCancel(ctx), "complete", func(ctx context.Context) (struct{}, error) {
		return struct{}{}, c.Complete(ctx, job, time.Now())
	})
	if err != nil {
		return true, errors.Join(rerr, err)
	}
	return true, rerr
}

// ScanStale enqueues, at cache.PriorityRefresh, up to limit entries whose
// last update is older than olderThan (the Time Travel populateJobs), and
// returns how many it queued. Without Options.Cache it returns ErrNoCache;
// otherwise it stops at the first failed cache call (listing the stale
// entries, or enqueueing one: the store's error, context.DeadlineExceeded
// at BackgroundCacheTimeout, or an error when too many cache calls wait on
// the store), returning the count queued before it.
func (ag *Aggregator) ScanStale(ctx context.Context, olderThan time.Duration, limit int) (int, error) {
	c := ag.opts.Cache
	if c == nil {
		return 0, ErrNoCache
	}
	now := time.Now()
	infos, err := bgCache(ag, ctx, "stale", func(ctx context.Context) ([]cache.Info, error) { return c.Stale(ctx, now.Add(-olderThan), limit) })
	if err != nil {
		return 0, err
	}
	n := 0
	for _, in := range infos {
		if in.Status == cache.StatusBlocked {
			continue
		}
		urir := in.URIR
		if urir == cache.StripScheme(urir) {
			urir = "http://" + urir // entries are keyed without scheme
		}
		_, err := bgCache(ag, ctx, "enqueue", func(ctx context.Context) (struct{}, error) {
			return struct{}{}, c.Enqueue(ctx, urir, cache.PriorityRefresh, now)
		})
		if err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// RunScanner calls ScanStale every period until ctx ends or the aggregator
// closes (the Time Travel refresher re-queues entries older than two weeks).
// It returns ErrNoCache at once without Options.Cache, else nil when ctx
// ends or the aggregator closes; a failed scan is logged as a warning
// ("stale scanner") and the next period scans again.
func (ag *Aggregator) RunScanner(ctx context.Context, period, olderThan time.Duration, limit int) error {
	if ag.opts.Cache == nil {
		return ErrNoCache
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-ag.base.Done():
			return nil
		case <-t.C:
			if _, err := ag.ScanStale(ctx, olderThan, limit); err != nil && ctx.Err() == nil {
				ag.log.Warn("stale scanner", "err", err)
			}
		}
	}
}
