// Package cachetest is the conformance suite for implementations of
// [cache.Cache]. Every store in this module runs it, and so should any other:
//
//	func TestConformance(t *testing.T) {
//		cachetest.Run(t, func(t *testing.T) cachetest.Store {
//			c, err := mystore.Open(...)
//			if err != nil { t.Fatal(err) }
//			return cachetest.Store{Cache: c}
//		})
//	}
//
// The suite checks the contract written on [cache.Cache]: round trips that
// are byte-exact for awkward URIs (quotes, backslashes, 4-byte UTF-8, 8 KiB,
// bytes that are not UTF-8), times in UTC at second precision, atomic
// replacement of an entry's mementos, request counting, stale listing, the
// job queue (order, de-duplication, reopening, exactly-once claiming under
// concurrency and, for shared stores, across two handles), cleanup, the
// error kinds, and persistence for stores that have it.
package cachetest

import (
	"testing"

	"github.com/mementokit/mementokit/cache"
)

// Store is one fresh, empty store for one subtest of the suite.
type Store struct {
	// Cache is the store under test. The suite closes it (Close may then
	// be called again by the opener's own cleanup: it must be harmless).
	Cache cache.Cache
	// Reopen, if not nil, opens the same store again: after Cache was
	// closed (persistence: what was written is still there), and also
	// while it is open if Shared is set.
	Reopen func() (cache.Cache, error)
	// Shared says that Reopen may be called while Cache is open and gives
	// an independent handle on the same data (another connection pool, as
	// another process would have).
	Shared bool
}

// Opener returns a new, empty store; it is called once per subtest and
// should register its own cleanup (removing files, dropping the database)
// with t.Cleanup.
type Opener func(t *testing.T) Store

// Run runs the whole suite against the stores that open returns, one store
// per subtest, the subtests one after another.
func Run(t *testing.T, open Opener) {
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t)
			t.Cleanup(func() { s.Cache.Close() })
			tc.fn(t, s)
		})
	}
}

var tests = []struct {
	name string
	fn   func(t *testing.T, s Store)
}{
	{"GetMissing", testGetMissing},
	{"RoundTrip", testRoundTrip},
	{"ManyMementos", testManyMementos},
	{"SchemeAgnostic", testSchemeAgnostic},
	{"PutReplaces", testPutReplaces},
	{"Invalid", testInvalid},
	{"RecordRequest", testRecordRequest},
	{"RecordRequestGet", testRecordRequestGet},
	{"Stale", testStale},
	{"Delete", testDelete},
	{"QueueOrder", testQueueOrder},
	{"QueueDedup", testQueueDedup},
	{"Complete", testComplete},
	{"Cleanup", testCleanup},
	{"CleanupCap", testCleanupCap},
	{"ConcurrentRequests", testConcurrentRequests},
	{"AtomicPut", testAtomicPut},
	{"ConcurrentClaim", testConcurrentClaim},
	{"SharedClaim", testSharedClaim},
	{"Persistence", testPersistence},
	{"Canceled", testCanceled},
	{"Closed", testClosed},
}
