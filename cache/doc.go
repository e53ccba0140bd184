// Package cache is the store behind a Memento aggregator: for each original
// resource (URI-R) the mementos that archives hold of it, when it was last
// requested and searched, and the queue of searches still to run.
//
// # The model
//
// The Time Travel aggregator (LANL) keeps this in MySQL, and so this package
// speaks in its terms. An entry is keyed by the URI-R with its scheme removed
// ([StripScheme]: http and https are one resource to users), identified by
// the MD5 of that string ([URIRKeyOf], the linkmaster.id column). It holds the
// mementos found per archive ([StoredMemento]: URI-M, Memento-Datetime, archive
// id, rel and type where known), when it was last requested and how often,
// when it was last updated, and a [Status]: pending, found, none found,
// failed or blocked.
//
// An aggregator reads an entry ([Cache.Get]) and notes the request
// ([Cache.RecordRequest]); on a miss or a stale entry it searches the
// archives and stores what it found ([Cache.Put]), replacing the entry's
// mementos as a whole. Entries updated long ago are listed by [Cache.Stale]
// to be refreshed.
//
// # The job queue
//
// Thorough searches run in the background. [Cache.Enqueue] adds a URI-R to
// the queue with a [Priority]: [PriorityLive] for a user's request,
// [PriorityRefresh] for a stale entry; there is at most one job per key.
// Workers take jobs with [Cache.Claim], which hands each job to exactly one
// worker (across processes, for stores that processes share), and mark them
// done with [Cache.Complete]. [Cache.Cleanup] returns the jobs of dead
// workers to the queue and deletes old completed jobs and long-unrequested
// entries ([DefaultCleanupPolicy] has the Time Travel ages).
//
// # Stores
//
// Package cache/memorycache keeps the cache in memory, bounded by a number of
// entries with LRU eviction, as long as the process lives. Package
// cache/boltcache keeps the cache in one file (go.etcd.io/bbolt) that
// survives restarts: the default for a single node. Package cache/mysqlcache keeps it in MySQL or
// MariaDB with the Time Travel schema, shared by many front-end nodes and
// workers. Package cache/cachetest is the conformance suite that all of them
// pass, so that they behave the same for every input; they share one set of
// argument checks, so that each accepts and refuses the same arguments.
//
// # Times, sizes and errors
//
// Stores keep times in UTC at second precision (the precision of
// Memento-Datetime, RFC 7089 section 2.1.1, and of a MySQL DATETIME) within
// [MinTime, MaxTime]; the caller passes the clock ("at") explicitly, so that
// tests and replays control time. URIs are kept byte-exact up to [MaxURILen]
// bytes; archive ids, rel and type values are UTF-8 up to [MaxFieldLen]
// bytes.
//
// Absent things are reported with [ErrNotFound] and [ErrNoJob], bad
// arguments with [ErrInvalid] (naming the field, and the memento's index),
// and failures of the store itself as an [*Error], so that a caller can tell
// "not cached" from "the database is down" and answer without the cache.
package cache
