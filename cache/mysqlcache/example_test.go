package mysqlcache_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

// A refresh worker sharing the cache with other nodes. (Not run by go test:
// it needs a server; the tests run the same calls against one.)
func ExampleOpen() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mysqlcache.Open(ctx, "cache:secret@tcp(db.internal:3306)/timetravel", nil)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	for {
		job, err := c.Claim(ctx, "worker-1", time.Now())
		if errors.Is(err, cache.ErrNoJob) {
			return
		}
		if err != nil {
			log.Fatal(err)
		}
		// Search the archives for job.URIR here, then store what was found.
		res := cache.Result{Status: cache.StatusNone, Updated: time.Now()}
		if err := c.Put(ctx, job.URIR, res); err != nil {
			log.Fatal(err)
		}
		if err := c.Complete(ctx, job, time.Now()); err != nil {
			log.Fatal(err)
		}
		fmt.Println("refreshed", job.URIR)
	}
}
