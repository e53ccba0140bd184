package mysqlcache_test

import (
	"context"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/cachetest"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

func open(t testing.TB, dsn string) (*mysqlcache.Cache, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return mysqlcache.Open(ctx, dsn, nil)
}

func TestConformance(t *testing.T) {
	serverDSN(t) // skip (or fail) once, not in every subtest
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		dsn := testDB(t)
		c, err := open(t, dsn)
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: c, Shared: true, Reopen: func() (cache.Cache, error) { return open(t, dsn) }}
	})
}
