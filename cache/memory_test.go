package cache_test

import (
	"testing"

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
