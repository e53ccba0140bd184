package cache_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
)

// An aggregator's cache read: a miss, a search, then a hit.
func Example() {
	ctx := context.Background()
	c, err := memorycache.New(&memorycache.Options{MaxEntries: 1000})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	key := cache.URIRKeyOf("https://example.org/")
	if _, err := c.Get(ctx, key); errors.Is(err, cache.ErrNotFound) {
		fmt.Println("miss:", key)
	}
	// The search found two mementos; the http URL is the same resource.
	err = c.Put(ctx, "http://example.org/", cache.Result{
		Status:  cache.StatusFound,
		Updated: now,
		Mementos: []cache.StoredMemento{
			{URIM: "https://web.archive.org/web/20200101000000/http://example.org/", Datetime: time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), Archive: "ia"},
			{URIM: "https://arquivo.pt/wayback/19961013145650/http://example.org/", Datetime: time.Date(1996, 10, 13, 14, 56, 50, 0, time.UTC), Archive: "pt"},
		},
	})
	if err != nil {
		panic(err)
	}
	_ = c.RecordRequest(ctx, "https://example.org/", now)
	e, _ := c.Get(ctx, key)
	fmt.Println(e.URIR, e.Status, e.Requests)
	for _, m := range e.Mementos {
		fmt.Println(m.Datetime.Format(time.RFC3339), m.Archive)
	}
	// Output:
	// miss: 95646b5d76f5871edd829eecdcc0bd56
	// example.org/ found 1
	// 1996-10-13T14:56:50Z pt
	// 2020-01-01T00:00:00Z ia
}

// A worker drains the job queue: live requests before stale refreshes.
func ExampleCache_Claim() {
	ctx := context.Background()
	c, _ := memorycache.New(nil)
	defer c.Close()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	_ = c.Enqueue(ctx, "http://stale.example/", cache.PriorityRefresh, now)
	_ = c.Enqueue(ctx, "http://asked.example/", cache.PriorityLive, now.Add(time.Minute))
	for {
		job, err := c.Claim(ctx, "worker-1", now.Add(2*time.Minute))
		if errors.Is(err, cache.ErrNoJob) {
			break
		}
		fmt.Println("search", job.URIR, "priority", job.Priority)
		_ = c.Complete(ctx, job, now.Add(3*time.Minute))
	}
	// Output:
	// search http://asked.example/ priority 1
	// search http://stale.example/ priority 2
}
