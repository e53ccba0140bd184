package boltcache_test

import (
	"path/filepath"
	"testing"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/cache/cachetest"
)

func TestConformance(t *testing.T) {
	cachetest.Run(t, func(t *testing.T) cachetest.Store {
		path := filepath.Join(t.TempDir(), "cache.db")
		open := func() (cache.Cache, error) { return boltcache.Open(path, &boltcache.Options{NoSync: true}) }
		c, err := open()
		if err != nil {
			t.Fatal(err)
		}
		return cachetest.Store{Cache: c, Reopen: open}
	})
}
