package cache_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/cachetest"
)

func TestMemoryConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		m, err := cache.NewMemory(nil)
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: m}
	})
}

func TestMemorySharedConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		m, err := cache.NewMemory(&cache.MemoryOptions{ShareMementos: true})
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: m}
	})
}

// The memory store's job history is bounded like its entries: every
// unique URI-R that was searched once leaves a completed job, and the
// heap must not grow with them until a Cleanup months later.
func TestMemoryJobHistoryIsBounded(t *testing.T) {
	const maxEntries, jobs = 100, 200_000
	m, err := cache.NewMemory(&cache.MemoryOptions{MaxEntries: maxEntries})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := t.Context()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var firstID int64
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for i := range jobs {
		u := fmt.Sprintf("http://unique.example/%d", i)
		if err := m.Enqueue(ctx, u, cache.PriorityLive, at); err != nil {
			t.Fatal(err)
		}
		j, err := m.Claim(ctx, "w", at)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			firstID = j.ID
		}
		if err := m.Complete(ctx, j, at); err != nil {
			t.Fatal(err)
		}
	}
	grown := int64(heap()) - int64(before)
	t.Logf("heap grew by %d bytes", grown)
	if grown > 4<<20 {
		t.Errorf("the heap grew by %d bytes for %d completed jobs (%d bytes each): the job history is not bounded", grown, jobs, grown/jobs)
	}
	// The oldest completed job was dropped: enqueuing its URI-R again
	// makes a new job.
	if err := m.Enqueue(ctx, "http://unique.example/0", cache.PriorityLive, at); err != nil {
		t.Fatal(err)
	}
	j, err := m.Claim(ctx, "w", at)
	if err != nil {
		t.Fatal(err)
	}
	if j.ID == firstID {
		t.Errorf("job %d of the first URI-R is still held after %d later jobs", j.ID, jobs)
	}
	runtime.KeepAlive(m)
}

// A queue that no worker drains is bounded too: past MaxJobs jobs waiting
// or claimed, Enqueue of a new URI-R is a store error; one completion
// makes room (the completed job goes first).
func TestMemoryQueueFull(t *testing.T) {
	m, err := cache.NewMemory(&cache.MemoryOptions{MaxJobs: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx := t.Context()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 {
		if err := m.Enqueue(ctx, fmt.Sprint("http://q.example/", i), cache.PriorityLive, at); err != nil {
			t.Fatal(err)
		}
	}
	var se *cache.Error
	if err := m.Enqueue(ctx, "http://q.example/3", cache.PriorityLive, at); !errors.As(err, &se) {
		t.Fatalf("Enqueue past MaxJobs: %v, want a *cache.Error", err)
	}
	if err := m.Enqueue(ctx, "http://q.example/1", cache.PriorityLive, at); err != nil {
		t.Errorf("Enqueue of a URI-R whose job is waiting: %v", err)
	}
	j, err := m.Claim(ctx, "w", at)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Complete(ctx, j, at); err != nil {
		t.Fatal(err)
	}
	if err := m.Enqueue(ctx, "http://q.example/3", cache.PriorityLive, at); err != nil {
		t.Errorf("Enqueue after a completion: %v", err)
	}
	if n := m.Jobs(); n != 3 {
		t.Errorf("%d jobs held, want 3", n)
	}
	if _, err := cache.NewMemory(&cache.MemoryOptions{MaxJobs: -1}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("MaxJobs -1: %v", err)
	}
}
