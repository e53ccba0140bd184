package boltcache_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
)

// The cache survives closing and reopening the file.
func ExampleOpen() {
	dir, err := os.MkdirTemp("", "boltcache-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "cache.db")
	ctx := context.Background()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

	c, err := boltcache.Open(path, nil)
	if err != nil {
		panic(err)
	}
	err = c.Put(ctx, "https://example.org/", cache.Result{Status: cache.StatusFound, Updated: now,
		Mementos: []cache.StoredMemento{{URIM: "https://web.archive.org/web/19990101000000/http://example.org/",
			Datetime: time.Date(1999, 1, 1, 0, 0, 0, 0, time.UTC), Archive: "ia", Rel: "first memento"}}})
	if err != nil {
		panic(err)
	}
	c.Close()

	c, err = boltcache.Open(path, nil)
	if err != nil {
		panic(err)
	}
	defer c.Close()
	e, err := c.Get(ctx, cache.URIRKeyOf("http://example.org/"))
	if err != nil {
		panic(err)
	}
	fmt.Println(e.URIR, e.Status, e.Updated.Format(time.RFC3339), len(e.Mementos), e.Mementos[0].Rel)
	// Output: example.org/ found 2026-11-29T12:00:00Z 1 first memento
}
