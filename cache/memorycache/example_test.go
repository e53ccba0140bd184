package memorycache_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
)

// A store of two entries evicts the least recently used one when a third
// URI-R arrives.
func ExampleNew() {
	ctx := context.Background()
	c, err := memorycache.New(&memorycache.Options{MaxEntries: 2})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, u := range []string{"http://a.example/", "http://b.example/", "http://c.example/"} {
		if err := c.Put(ctx, u, cache.Result{Status: cache.StatusNone, Updated: now}); err != nil {
			panic(err)
		}
	}
	for _, u := range []string{"a.example/", "b.example/", "c.example/"} {
		_, err := c.Get(ctx, cache.URIRKeyOf(u))
		fmt.Println(u, err == nil)
	}
	fmt.Println("entries:", c.Len())
	// Output:
	// a.example/ false
	// b.example/ true
	// c.example/ true
	// entries: 2
}
