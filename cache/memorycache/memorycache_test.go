package memorycache_test

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/cachetest"
	"github.com/mementokit/mementokit/cache/memorycache"
)

func TestMemoryConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		m, err := memorycache.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: m}
	})
}

func TestMemorySharedConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		m, err := memorycache.New(&memorycache.Options{ShareMementos: true})
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
	m, err := memorycache.New(&memorycache.Options{MaxEntries: maxEntries})
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
	m, err := memorycache.New(&memorycache.Options{MaxJobs: 3})
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
	if _, err := memorycache.New(&memorycache.Options{MaxJobs: -1}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("MaxJobs -1: %v", err)
	}
}

func TestMemoryEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := t.Context()
	m, err := memorycache.New(&memorycache.Options{MaxEntries: 2})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	none := cache.Result{Status: cache.StatusNone, Updated: t0}
	for _, u := range []string{"e.org/a", "e.org/b"} {
		if err := m.Put(ctx, u, none); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Get(ctx, cache.URIRKeyOf("e.org/a")); err != nil { // a is now the most recent
		t.Fatal(err)
	}
	if err := m.RecordRequest(ctx, "e.org/c", t0); err != nil { // evicts b
		t.Fatal(err)
	}
	var got []string
	for _, u := range []string{"e.org/a", "e.org/b", "e.org/c"} {
		if _, err := m.Get(ctx, cache.URIRKeyOf(u)); err == nil {
			got = append(got, u)
		} else if !errors.Is(err, cache.ErrNotFound) {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"e.org/a", "e.org/c"}, got); diff != "" {
		t.Errorf("entries kept (-want +got):\n%s", diff)
	}
	if m.Len() != 2 {
		t.Errorf("Len = %d, want 2", m.Len())
	}
	if _, err := memorycache.New(&memorycache.Options{MaxEntries: -1}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("New(-1) err = %v, want ErrInvalid", err)
	}
}

func TestGetReturnsACopy(t *testing.T) {
	ctx := t.Context()
	m, _ := memorycache.New(nil)
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	r := cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{{URIM: "u", Datetime: t0, Archive: "ia"}}}
	if err := m.Put(ctx, "e.org/", r); err != nil {
		t.Fatal(err)
	}
	e, _ := m.Get(ctx, cache.URIRKeyOf("e.org/"))
	e.Mementos[0].URIM = "changed"
	if e2, _ := m.Get(ctx, cache.URIRKeyOf("e.org/")); e2.Mementos[0].URIM != "u" {
		t.Errorf("modifying a Get result changed the store: %q", e2.Mementos[0].URIM)
	}
	r.Mementos[0].URIM = "changed too"
	if e2, _ := m.Get(ctx, cache.URIRKeyOf("e.org/")); e2.Mementos[0].URIM != "u" {
		t.Errorf("modifying a Put argument changed the store: %q", e2.Mementos[0].URIM)
	}
}

func TestSharedMementosAppendCopies(t *testing.T) {
	ctx := t.Context()
	m, _ := memorycache.New(&memorycache.Options{ShareMementos: true})
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	one := cache.StoredMemento{URIM: "u", Datetime: t0, Archive: "ia"}
	r := cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{one, one, one}} // duplicates: capacity left after compaction
	if err := m.Put(ctx, "e.org/", r); err != nil {
		t.Fatal(err)
	}
	a, _ := m.Get(ctx, cache.URIRKeyOf("e.org/"))
	b, _ := m.Get(ctx, cache.URIRKeyOf("e.org/"))
	_ = append(a.Mementos, cache.StoredMemento{URIM: "appended by a"})
	b.Mementos = append(b.Mementos, cache.StoredMemento{URIM: "appended by b"})
	if len(a.Mementos) != 1 || len(b.Mementos) != 2 || b.Mementos[1].URIM != "appended by b" {
		t.Errorf("appends to shared slices interfere: a %v, b %v", a.Mementos, b.Mementos)
	}
	if e, _ := m.Get(ctx, cache.URIRKeyOf("e.org/")); len(e.Mementos) != 1 {
		t.Errorf("store has %d mementos after appends, want 1", len(e.Mementos))
	}
}
