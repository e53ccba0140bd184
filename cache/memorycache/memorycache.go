// Package memorycache is the in-memory store of package cache: bounded by a
// number of entries with LRU eviction, living as long as the process. It is
// the aggregator's default when no store is given; cache/boltcache keeps the
// cache in a file and cache/mysqlcache in MySQL or MariaDB, and all three pass
// the conformance suite of cache/cachetest.
package memorycache

import (
	"cmp"
	"container/heap"
	"container/list"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/internal/check"
)

// DefaultMaxEntries is the number of entries a [Cache] keeps when
// Options.MaxEntries is 0.
const DefaultMaxEntries = 100_000

// Options configures [New]; the zero value (or nil) gives the
// defaults.
type Options struct {
	// MaxEntries bounds the number of entries; past it the least recently
	// used entry (by Get, Put and RecordRequest) is evicted. 0 means
	// DefaultMaxEntries.
	MaxEntries int
	// MaxJobs bounds the jobs held: waiting, claimed and completed. Past
	// it the job completed longest ago is dropped (its URI-R, enqueued
	// again, gets a new job ID); when every job held is waiting or
	// claimed, Enqueue of a URI-R without a job fails with a *[cache.Error] (the
	// queue is full), so that a queue no worker drains cannot grow without
	// end either. 0 means the MaxEntries value.
	MaxJobs int
	// ShareMementos makes Get return the store's own Mementos slice instead
	// of a copy, which callers must then never modify (appending is safe:
	// the slice has no spare capacity). This departs from the [cache.Cache]
	// contract for speed: a Get of a small entry costs about 30 ns of CPU
	// shared and 250 ns copied, most of it the garbage collector's
	// (BenchmarkMemoryGet).
	ShareMementos bool
}

// Cache is the in-memory [cache.Cache]: entries in an LRU list bounded by
// Options.MaxEntries (hashicorp/golang-lru), jobs in a map and a heap.
// It is lost when the process ends and cannot be shared between processes.
//
// Memory use: the entries take about 200 bytes plus the lengths of their strings
// (URI-R, and per memento 120 bytes plus its URI-M); jobs take about 230
// bytes plus the URI-R each, at most MaxJobs of them (completed jobs are
// dropped oldest first past it, or by Cleanup after their age). Stale and
// Cleanup scan all entries: O(n log n) for n entries.
type Cache struct {
	mu      sync.Mutex
	closed  bool
	entries *simplelru.LRU[cache.URIRKey, *cache.Entry]
	jobs    map[int64]*memJob
	byKey   map[cache.URIRKey]*memJob
	queue   jobHeap    // waiting (open, unclaimed) jobs
	done    *list.List // completed jobs (*memJob), oldest completion first
	maxJobs int
	nextID  int64
	share   bool
}

type memJob struct {
	cache.Job
	completed time.Time
	index     int           // in queue, or -1
	doneAt    *list.Element // in done while completed, else nil
}

var (
	_ cache.Cache         = (*Cache)(nil)
	_ cache.RequestGetter = (*Cache)(nil)
)

// New returns an empty in-memory store. opts may be nil. It returns an
// error wrapping [cache.ErrInvalid] if opts.MaxEntries or opts.MaxJobs is negative.
func New(opts *Options) (*Cache, error) {
	n := DefaultMaxEntries
	if opts != nil && opts.MaxEntries != 0 {
		n = opts.MaxEntries
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: MaxEntries %d is negative", cache.ErrInvalid, n)
	}
	nj := n
	if opts != nil && opts.MaxJobs != 0 {
		nj = opts.MaxJobs
	}
	if nj < 0 {
		return nil, fmt.Errorf("%w: MaxJobs %d is negative", cache.ErrInvalid, nj)
	}
	l, err := simplelru.NewLRU[cache.URIRKey, *cache.Entry](n, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", cache.ErrInvalid, err)
	}
	m := &Cache{entries: l, jobs: map[int64]*memJob{}, byKey: map[cache.URIRKey]*memJob{}, done: list.New(), maxJobs: nj}
	m.share = opts != nil && opts.ShareMementos
	return m, nil
}

// lock takes the mutex and checks ctx and closure; on error the mutex is not held.
func (s *Cache) lock(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return &cache.Error{Store: "memory", Op: op, Err: err}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return check.Closed("memory", op)
	}
	return nil
}

// Get implements [cache.Cache.Get]. The returned mementos are a copy unless
// Options.ShareMementos is set.
func (s *Cache) Get(ctx context.Context, key cache.URIRKey) (cache.Entry, error) {
	if err := s.lock(ctx, "get"); err != nil {
		return cache.Entry{}, err
	}
	e, ok := s.entries.Get(key)
	if !ok {
		s.mu.Unlock()
		return cache.Entry{}, fmt.Errorf("cache: memory get %s: %w", key, cache.ErrNotFound)
	}
	out := *e // entries are read and changed only under s.mu; their Mementos never change
	s.mu.Unlock()
	if !s.share {
		out.Mementos = slices.Clone(out.Mementos)
	}
	return out, nil
}

// Put implements [cache.Cache.Put].
func (s *Cache) Put(ctx context.Context, uriR string, r cache.Result) error {
	u, key, r, err := check.Put(uriR, r)
	if err != nil {
		return err
	}
	if err := s.lock(ctx, "put"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	ms := r.Mementos[:len(r.Mementos):len(r.Mementos)] // no spare capacity: appends by sharers copy
	n := &cache.Entry{Info: cache.Info{Key: key, URIR: u, Status: r.Status, Updated: r.Updated}, Mementos: ms}
	if old, ok := s.entries.Peek(key); ok {
		n.Requested, n.Requests = old.Requested, old.Requests
	}
	s.entries.Add(key, n) // a new entry: sharers of the old one's Mementos keep theirs
	return nil
}

// RecordRequest implements [cache.Cache.RecordRequest].
func (s *Cache) RecordRequest(ctx context.Context, uriR string, at time.Time) error {
	u, key, at, err := check.Request(uriR, at)
	if err != nil {
		return err
	}
	if err := s.lock(ctx, "record request"); err != nil {
		return err
	}
	s.record(key, u, at)
	s.mu.Unlock()
	return nil
}

// RecordRequestGet implements [cache.RequestGetter]: RecordRequest and
// Get under one lock, the key computed once. The returned mementos are a
// copy unless Options.ShareMementos is set.
func (s *Cache) RecordRequestGet(ctx context.Context, uriR string, at time.Time) (cache.Entry, error) {
	u, key, at, err := check.Request(uriR, at)
	if err != nil {
		return cache.Entry{}, err
	}
	if err := s.lock(ctx, "record request"); err != nil {
		return cache.Entry{}, err
	}
	out := *s.record(key, u, at)
	s.mu.Unlock()
	if !s.share {
		out.Mementos = slices.Clone(out.Mementos)
	}
	return out, nil
}

// record counts a request at "at" for key (URI-R u without its scheme)
// in its entry, made pending if there is none, and returns the entry.
// The caller holds s.mu.
func (s *Cache) record(key cache.URIRKey, u string, at time.Time) *cache.Entry {
	if e, ok := s.entries.Get(key); ok {
		e.Requests++
		if at.After(e.Requested) {
			e.Requested = at
		}
		return e
	}
	n := &cache.Entry{Info: cache.Info{Key: key, URIR: u, Status: cache.StatusPending, Requested: at, Requests: 1}}
	s.entries.Add(key, n)
	return n
}

// Stale implements [cache.Cache.Stale].
func (s *Cache) Stale(ctx context.Context, before time.Time, limit int) ([]cache.Info, error) {
	before, err := check.Stale(before, limit)
	if err != nil {
		return nil, err
	}
	if err := s.lock(ctx, "stale"); err != nil {
		return nil, err
	}
	var out []cache.Info
	for _, k := range s.entries.Keys() {
		e, _ := s.entries.Peek(k)
		if e.Updated.Before(before) {
			out = append(out, e.Info)
		}
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b cache.Info) int {
		if c := a.Updated.Compare(b.Updated); c != 0 {
			return c
		}
		return slices.Compare(a.Key[:], b.Key[:])
	})
	return out[:min(limit, len(out))], nil
}

// Delete implements [cache.Cache.Delete].
func (s *Cache) Delete(ctx context.Context, key cache.URIRKey) error {
	if err := s.lock(ctx, "delete"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	if !s.entries.Remove(key) {
		return fmt.Errorf("cache: memory delete %s: %w", key, cache.ErrNotFound)
	}
	return nil
}

// Enqueue implements [cache.Cache.Enqueue].
func (s *Cache) Enqueue(ctx context.Context, uriR string, p cache.Priority, at time.Time) error {
	key, at, err := check.Enqueue(uriR, p, at)
	if err != nil {
		return err
	}
	if err := s.lock(ctx, "enqueue"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	j, ok := s.byKey[key]
	switch {
	case !ok:
		if len(s.jobs) >= s.maxJobs && !s.dropOldestDone() {
			return &cache.Error{Store: "memory", Op: "enqueue", Err: fmt.Errorf("queue full: %d jobs waiting or claimed (Options.MaxJobs)", len(s.jobs))}
		}
		s.nextID++
		j = &memJob{Job: cache.Job{ID: s.nextID, Key: key, URIR: uriR, Priority: p, Enqueued: at}, index: -1}
		s.jobs[j.ID], s.byKey[key] = j, j
		heap.Push(&s.queue, j)
	case !j.completed.IsZero():
		j.Job = cache.Job{ID: j.ID, Key: key, URIR: uriR, Priority: p, Enqueued: at}
		j.completed = time.Time{}
		s.done.Remove(j.doneAt)
		j.doneAt = nil
		heap.Push(&s.queue, j)
	case p < j.Priority:
		j.Priority = p
		if j.index >= 0 {
			heap.Fix(&s.queue, j.index)
		}
	}
	return nil
}

// Claim implements [cache.Cache.Claim].
func (s *Cache) Claim(ctx context.Context, worker string, at time.Time) (cache.Job, error) {
	at, err := check.Claim(worker, at)
	if err != nil {
		return cache.Job{}, err
	}
	if err := s.lock(ctx, "claim"); err != nil {
		return cache.Job{}, err
	}
	defer s.mu.Unlock()
	if s.queue.Len() == 0 {
		return cache.Job{}, fmt.Errorf("cache: memory claim: %w", cache.ErrNoJob)
	}
	j := heap.Pop(&s.queue).(*memJob)
	j.Worker, j.Claimed = worker, at
	return j.Job, nil
}

// Complete implements [cache.Cache.Complete].
func (s *Cache) Complete(ctx context.Context, job cache.Job, at time.Time) error {
	at, err := check.Time("completion time", at)
	if err != nil {
		return err
	}
	if err := s.lock(ctx, "complete"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	j, ok := s.jobs[job.ID]
	if !ok || j.Worker == "" || j.Worker != job.Worker {
		return fmt.Errorf("cache: memory complete job %d by %q: %w", job.ID, job.Worker, cache.ErrNotFound)
	}
	if j.completed.IsZero() {
		j.completed = at
		j.doneAt = s.done.PushBack(j)
		for len(s.jobs) > s.maxJobs && s.dropOldestDone() {
		}
	}
	return nil
}

// dropOldestDone deletes the job completed longest ago; false when no job
// is completed.
func (s *Cache) dropOldestDone() bool {
	e := s.done.Front()
	if e == nil {
		return false
	}
	s.deleteDone(e.Value.(*memJob))
	return true
}

// deleteDone deletes a completed job.
func (s *Cache) deleteDone(j *memJob) {
	s.done.Remove(j.doneAt)
	j.doneAt = nil
	delete(s.jobs, j.ID)
	delete(s.byKey, j.Key)
}

// Cleanup implements [cache.Cache.Cleanup].
func (s *Cache) Cleanup(ctx context.Context, p cache.CleanupPolicy) (cache.CleanupStats, error) {
	p, err := check.Policy(p)
	if err != nil {
		return cache.CleanupStats{}, err
	}
	if err := s.lock(ctx, "cleanup"); err != nil {
		return cache.CleanupStats{}, err
	}
	defer s.mu.Unlock()
	var st cache.CleanupStats
	claimCut, claimOn := check.Cutoff(p, p.ClaimTimeout)
	jobCut, jobOn := check.Cutoff(p, p.CompletedJobAge)
	for _, j := range s.jobs {
		switch {
		case claimOn && j.completed.IsZero() && j.Worker != "" && j.Claimed.Before(claimCut):
			j.Worker, j.Claimed = "", time.Time{}
			heap.Push(&s.queue, j)
			st.JobsReleased++
		case jobOn && !j.completed.IsZero() && j.completed.Before(jobCut):
			s.deleteDone(j)
			st.JobsDeleted++
		}
	}
	if cut, ok := check.Cutoff(p, p.UnrequestedAge); ok {
		var old []*cache.Entry
		for _, k := range s.entries.Keys() {
			if e, _ := s.entries.Peek(k); check.LastUsed(e.Info).Before(cut) {
				old = append(old, e)
			}
		}
		// Oldest first, so that a capped run removes the longest unused.
		slices.SortFunc(old, func(a, b *cache.Entry) int {
			return cmp.Or(check.LastUsed(a.Info).Compare(check.LastUsed(b.Info)), slices.Compare(a.Key[:], b.Key[:]))
		})
		for _, e := range old[:min(len(old), p.MaxEntries)] {
			s.entries.Remove(e.Key)
			st.EntriesDeleted++
		}
	}
	return st, nil
}

// Close implements [cache.Cache.Close]; it drops the contents.
func (s *Cache) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.entries.Purge()
	s.jobs, s.byKey, s.queue = nil, nil, nil
	s.done.Init()
	return nil
}

// Jobs returns the number of jobs held (waiting, claimed and completed;
// at most Options.MaxJobs).
func (s *Cache) Jobs() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.jobs)
}

// Len returns the number of entries held (at most MaxEntries).
func (s *Cache) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries.Len()
}

// jobHeap orders waiting jobs by (Priority, Enqueued, ID).
type jobHeap []*memJob

func (h jobHeap) Len() int { return len(h) }
func (h jobHeap) Less(a, b int) bool {
	x, y := h[a], h[b]
	return cmp.Or(cmp.Compare(x.Priority, y.Priority), x.Enqueued.Compare(y.Enqueued), cmp.Compare(x.ID, y.ID)) < 0
}
func (h jobHeap) Swap(a, b int) {
	h[a], h[b] = h[b], h[a]
	h[a].index, h[b].index = a, b
}
func (h *jobHeap) Push(x any) {
	j := x.(*memJob)
	j.index = len(*h)
	*h = append(*h, j)
}
func (h *jobHeap) Pop() any {
	old := *h
	j := old[len(old)-1]
	old[len(old)-1] = nil
	j.index = -1
	*h = old[:len(old)-1]
	return j
}

// Nonblocking reports true: every call takes the store's mutex for an
// in-memory operation only ([Nonblocking]).
func (m *Cache) Nonblocking() bool { return true }
