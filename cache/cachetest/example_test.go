package cachetest_test

import (
	"path/filepath"
	"testing"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/cache/cachetest"
)

// A store that keeps its data in a file runs the suite with a fresh file
// per subtest, and a Reopen that opens the same file again, for the
// persistence checks. The function below is what a TestConformance in the
// store's own _test.go file holds; Run needs the *testing.T of a test, so
// this example is compiled, not run (cachetest's own tests run the suite
// against every store of the module).
func ExampleRun() {
	conformance := func(t *testing.T) {
		cachetest.Run(t, func(t *testing.T) cachetest.Store {
			path := filepath.Join(t.TempDir(), "cache.db")
			c, err := boltcache.Open(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			return cachetest.Store{Cache: c, Reopen: func() (cache.Cache, error) { return boltcache.Open(path, nil) }}
		})
	}
	_ = conformance
}
