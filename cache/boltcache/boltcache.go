// Package boltcache is a [cache.Cache] kept in one file with go.etcd.io/bbolt:
// it survives restarts, needs no server, and is the default store for an
// aggregator on a single node. The file is locked while open (one process at
// a time; a second Open waits for Options.Timeout).
//
// # Layout
//
// Buckets, all keys byte-wise sorted (T is an 8-byte big-endian number of
// seconds since cache.MinTime plus one, 0 for "never"; K a 16-byte key; I an
// 8-byte big-endian job id):
//
//	entries  K → info record (status, request time and count, update time, URI-R)
//	mementos K → mementos record (absent when there are none)
//	updated  T(updated) K → ""      Stale, oldest first
//	used     T(last used) K → ""    Cleanup of unrequested entries
//	jobs     I → job record
//	jobkeys  K → I                  one job per key
//	queue    priority T(enqueued) I → ""  waiting jobs in claim order
//	claimed  T(claimed) I → ""      claims to release after a timeout
//	done     T(completed) I → ""    completed jobs to delete
//
// Records start with a format byte (see codec.go); a damaged record is
// reported as a [*cache.Error] naming the key and byte offset, never a panic;
// the entry then stays unreadable (Put and Delete refuse it too, rather than
// leave the indexes inconsistent): a cache file can always be deleted.
//
// # Damaged files
//
// bbolt maps the file and trusts the lengths and page ids written in its
// pages: one damaged page would make it read past a page or past the
// mapping, and the process would die (SIGSEGV, or a panic in bbolt).
// [Open] therefore checks an existing file before use, within
// Options.CheckTimeout: every page reachable from the meta page is read
// with ordinary file reads and every length and page id in it checked
// against the page and the file, then bbolt's own Tx.Check runs. A file
// that fails is refused with an error wrapping [ErrDamaged] that names
// the damage and says to delete the file (the cache is rebuilt by
// searching). Should a page be damaged after Open (the file written under
// the process), every call reads with debug.SetPanicOnFault set and turns
// a fault or panic into an error wrapping ErrDamaged.
//
// # Costs
//
// Get reads two records in a read transaction (readers do not wait for
// writers). Every write is one bbolt transaction, synced to disk before it
// returns unless Options.NoSync; bbolt runs one writer at a time. An entry's
// mementos are one value of about 5 bytes plus the URI-M, archive, rel and
// type of each memento, which Put rewrites whole; RecordRequest rewrites only
// the small info record. Memory is bbolt's mmap of the file plus the records
// of the call in progress.
package boltcache

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/internal/check"
)

// Options configures [Open]; nil means the defaults.
type Options struct {
	// Timeout is how long Open waits for another process to release the
	// file; 0 means 5 seconds.
	Timeout time.Duration
	// NoSync skips fsync after each write: faster, but a machine crash may
	// lose the last writes (never corrupt the file). For tests and caches
	// that can be rebuilt.
	NoSync bool
	// Logger receives a line when the file is opened; nil means none.
	Logger *slog.Logger
	// CheckTimeout bounds the consistency check of an existing file at
	// Open: every page is read and its lengths checked (verifyPages), then
	// bbolt's own Tx.Check runs. A file that does not pass is refused
	// (ErrDamaged); one whose check does not finish in time is refused
	// too, with an error that says so. 0 means DefaultCheckTimeout; a
	// negative value skips the check (the file is then trusted).
	CheckTimeout time.Duration
	// ReadOnly opens an existing cache file for reading only (a shared
	// lock, so that several readers may hold it; none while an aggregator
	// writes it): a missing file fails with [ErrNoFile] and an empty one
	// as no cache file, and nothing is created or written. Put, Enqueue
	// and the other writes then fail.
	ReadOnly bool
}

// ErrNoFile is wrapped by the error of [Open] with Options.ReadOnly set
// when the path names no file.
var ErrNoFile = errors.New("no such cache file")

// DefaultCheckTimeout is the consistency check's bound when
// Options.CheckTimeout is 0. The check reads the whole file: about 1 GB/s
// when the file is in the page cache (BenchmarkOpenCheck: 0.12 s for a file
// of 117 MB, 1.6 MB allocated), as fast as the disk reads otherwise.
const DefaultCheckTimeout = 2 * time.Minute

// Cache is the bbolt-backed store. It is safe for concurrent use.
type Cache struct {
	db     *bolt.DB
	closed atomic.Bool
}

var _ cache.Cache = (*Cache)(nil)

var (
	bEntries  = []byte("entries")
	bMementos = []byte("mementos")
	bUpdated  = []byte("updated")
	bUsed     = []byte("used")
	bJobs     = []byte("jobs")
	bJobKeys  = []byte("jobkeys")
	bQueue    = []byte("queue")
	bClaimed  = []byte("claimed")
	bDone     = []byte("done")
	bMeta     = []byte("meta")
	allBkts   = [][]byte{bEntries, bMementos, bUpdated, bUsed, bJobs, bJobKeys, bQueue, bClaimed, bDone, bMeta}
)

// layoutVersion is stored in meta/"layout"; Open refuses a file of another
// version rather than misread it.
const layoutVersion = 1

// Open opens the cache file at path, creating it (mode 0600) and its buckets
// if needed. It fails with a [*cache.Error] if path is not a regular file
// (a folder, a FIFO, a device), the file is locked by another
// process past Options.Timeout, is not a bbolt file, has another layout, is
// shorter than its meta page says (cut short by an interrupted copy or a full
// disk), or does not pass the consistency check (Options.CheckTimeout): a
// damaged file gives an error wrapping [ErrDamaged] that names the damage
// and says how to recover (delete the file: the cache is rebuilt by
// searching).
func Open(path string, opts *Options) (*Cache, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.CheckTimeout == 0 {
		o.CheckTimeout = DefaultCheckTimeout
	}
	start := time.Now()
	deadline := start.Add(o.CheckTimeout)
	fail := func(err error) (*Cache, error) {
		if errors.Is(err, errCheckTime) {
			err = fmt.Errorf("%s: %w within %v (Options.CheckTimeout): raise it, or set it negative to open the file unchecked", path, err, o.CheckTimeout)
		}
		return nil, &cache.Error{Store: "bolt", Op: "open", Err: err}
	}
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		// A FIFO would block the open itself, for ever and past signals;
		// a device or a folder is no cache file either.
		return fail(fmt.Errorf("%s: not a regular file (%v): give the path of a cache file, or of one to create", path, st.Mode().Type()))
	}
	if o.ReadOnly {
		st, err := os.Stat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fail(fmt.Errorf("%s: %w", path, ErrNoFile))
		case err != nil:
			return fail(err)
		case st.Size() == 0:
			return fail(fmt.Errorf("%s: empty file: not a bbolt cache file", path))
		}
	}
	checked, err := checkFile(path, o.CheckTimeout >= 0, deadline)
	if err != nil {
		return fail(err)
	}
	db, err := openBolt(path, &bolt.Options{Timeout: o.Timeout, NoSync: o.NoSync, ReadOnly: o.ReadOnly})
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return fail(fmt.Errorf("%s: %w: the file stayed locked by another process (another aggregator using this cache?) for %v (Options.Timeout)", path, err, o.Timeout))
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrVersionMismatch):
		return fail(fmt.Errorf("%s: %w: not a bbolt cache file; give the path of a cache file, or of one to create", path, err))
	case err != nil:
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if checked {
		if err := boltCheck(db, deadline); err != nil {
			if !errors.Is(err, errCheckTime) {
				err = damaged(path, err)
			}
			return fail(err)
		}
	}
	if o.ReadOnly {
		err = db.View(func(tx *bolt.Tx) error {
			for _, b := range allBkts {
				if tx.Bucket(b) == nil {
					return fmt.Errorf("no bucket %q: not a cache file", b)
				}
			}
			if v := tx.Bucket(bMeta).Get([]byte("layout")); len(v) != 1 || v[0] != layoutVersion {
				return fmt.Errorf("layout version %v, want %d", v, layoutVersion)
			}
			return nil
		})
	} else {
		err = db.Update(initBuckets)
	}
	if err != nil {
		db.Close()
		return fail(fmt.Errorf("%s: %w", path, err))
	}
	if o.Logger != nil {
		o.Logger.Info("cache file open", "path", path, "nosync", o.NoSync, "readonly", o.ReadOnly, "checked", checked, "elapsed", time.Since(start))
	}
	return &Cache{db: db}, nil
}

// initBuckets creates the buckets a cache file lacks and its layout
// version, or checks the version it has.
func initBuckets(tx *bolt.Tx) error {
	for _, b := range allBkts {
		if _, err := tx.CreateBucketIfNotExists(b); err != nil {
			return err
		}
	}
	meta := tx.Bucket(bMeta)
	v := meta.Get([]byte("layout"))
	switch {
	case v == nil:
		return meta.Put([]byte("layout"), []byte{layoutVersion})
	case len(v) != 1 || v[0] != layoutVersion:
		return fmt.Errorf("layout version %v, want %d", v, layoutVersion)
	}
	return nil
}

// boltCheck runs bbolt's Tx.Check in a read transaction until deadline.
// Past it, the check goes on in the background and the file is closed
// when it ends (the caller gets errCheckTime at once).
func boltCheck(db *bolt.DB, deadline time.Time) error {
	done := make(chan error, 1)
	go func() {
		done <- db.View(func(tx *bolt.Tx) error {
			var errs []error
			for err := range tx.Check() {
				if len(errs) < 5 {
					errs = append(errs, err)
				}
			}
			return errors.Join(errs...)
		})
	}()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case err := <-done:
		if err != nil {
			db.Close()
		}
		return err
	case <-t.C:
		go func() { <-done; db.Close() }()
		return errCheckTime
	}
}

// openBolt is bolt.Open, with a panic of bbolt on a damaged file turned
// into an error. (bbolt then leaves its descriptor of the file open, and
// locked, until the process ends.)
func openBolt(path string, o *bolt.Options) (db *bolt.DB, err error) {
	defer func() {
		if r := recover(); r != nil {
			db, err = nil, fmt.Errorf("damaged file: %v", r)
		}
	}()
	return bolt.Open(path, 0o600, o)
}

// checkFile looks at an existing file before bbolt maps it. It refuses
// one shorter than its newest valid meta page says it is (a copy cut
// short, a full disk: bbolt would crash the whole process with SIGBUS
// reading past its end) and, when check is set, one whose pages do not
// hold together (verifyPages, until deadline). A missing or empty file,
// or one without a valid meta page, is left to bolt.Open to create or
// refuse; checked reports whether the file was verified (and bbolt's own
// check is to follow).
func checkFile(path string, check bool, deadline time.Time) (checked bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, nil // missing (bolt.Open creates it) or unreadable (it reports)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return false, nil
	}
	m, ok := readMeta(f)
	if !ok {
		return false, nil
	}
	if need := m.pgid * uint64(m.pageSize); uint64(st.Size()) < need {
		return false, fmt.Errorf("%s: file truncated: %d bytes, its meta page says %d", path, st.Size(), need)
	}
	if !check {
		return false, nil
	}
	if err := verifyPages(f, st.Size(), m, deadline); err != nil {
		if errors.Is(err, errCheckTime) {
			return false, err
		}
		return false, damaged(path, err)
	}
	return true, nil
}

// boltMagic marks a bbolt meta page.
const boltMagic = 0xED0CDAED

// Path returns the file's path.
func (c *Cache) Path() string { return c.db.Path() }

// Close closes the file, waiting for running transactions. It is safe to
// call twice.
func (c *Cache) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	if err := c.db.Close(); err != nil {
		return &cache.Error{Store: "bolt", Op: "close", Err: err}
	}
	return nil
}

// guard is deferred by every call that reads the mapped file, with
// debug.SetPanicOnFault set: a page damaged after Open (the file written
// under the process) can make bbolt read past a page or the mapping, and
// the fault or panic this raises becomes the call's error, wrapping
// ErrDamaged, instead of the end of the process. bbolt has rolled the
// transaction back by then.
func (c *Cache) guard(op string, err *error) {
	if r := recover(); r != nil {
		*err = &cache.Error{Store: "bolt", Op: op, Err: damaged(c.db.Path(), fmt.Errorf("reading the file: %v", r))}
	}
}

// wrap turns an error from a transaction into the cache's kinds.
func (c *Cache) wrap(op string, err error) error {
	switch {
	case err == nil, check.Passed(err):
		return err
	case errors.Is(err, bolterrors.ErrDatabaseNotOpen):
		return check.Closed("bolt", op)
	}
	return &cache.Error{Store: "bolt", Op: op, Err: err}
}

// begin checks ctx and closure before a call touches the file.
func (c *Cache) begin(ctx context.Context, op string) error {
	return check.Begin(ctx, "bolt", op, c.closed.Load())
}

func be64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func timeKey(t time.Time, suffix []byte) []byte {
	return append(binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(suffix)), secs(t)), suffix...)
}

func queueKey(j *job) []byte {
	k := make([]byte, 0, 17)
	k = append(k, byte(j.Priority))
	k = binary.BigEndian.AppendUint64(k, secs(j.Enqueued))
	return binary.BigEndian.AppendUint64(k, uint64(j.ID))
}

// corrupt reports a damaged record. key comes from a page and its length
// is not trusted: at most 64 bytes of it are printed.
func corrupt(what string, key []byte, err error) error {
	if len(key) > 64 {
		return fmt.Errorf("%s %x... (%d bytes): %w", what, key[:64], len(key), err)
	}
	return fmt.Errorf("%s %x: %w", what, key, err)
}

// Get implements [cache.Cache.Get].
func (c *Cache) Get(ctx context.Context, key cache.URIRKey) (_ cache.Entry, rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("get", &rerr)
	if err := c.begin(ctx, "get"); err != nil {
		return cache.Entry{}, err
	}
	var e cache.Entry
	err := c.db.View(func(tx *bolt.Tx) error {
		old, err := readInfo(tx, key)
		if err != nil {
			return err
		}
		if old == nil {
			return fmt.Errorf("cache: bolt get %s: %w", key, cache.ErrNotFound)
		}
		e.Info = *old
		if v := tx.Bucket(bMementos).Get(key[:]); v != nil {
			if e.Mementos, err = decodeMementos(v); err != nil {
				return corrupt("mementos", key[:], err)
			}
		}
		return nil
	})
	return e, c.wrap("get", err)
}

// readInfo reads the Info of key; nil if there is no entry.
func readInfo(tx *bolt.Tx, key cache.URIRKey) (*cache.Info, error) {
	v := tx.Bucket(bEntries).Get(key[:])
	if v == nil {
		return nil, nil
	}
	i, err := decodeInfo(key, v)
	if err != nil {
		return nil, corrupt("entry", key[:], err)
	}
	return &i, nil
}

// writeInfo writes i and moves its index keys from old (nil for a new entry).
func writeInfo(tx *bolt.Tx, old, i *cache.Info) error {
	k := i.Key[:]
	if old != nil {
		if err := tx.Bucket(bUpdated).Delete(timeKey(old.Updated, k)); err != nil {
			return err
		}
		if err := tx.Bucket(bUsed).Delete(timeKey(check.LastUsed(*old), k)); err != nil {
			return err
		}
	}
	if err := tx.Bucket(bUpdated).Put(timeKey(i.Updated, k), nil); err != nil {
		return err
	}
	if err := tx.Bucket(bUsed).Put(timeKey(check.LastUsed(*i), k), nil); err != nil {
		return err
	}
	return tx.Bucket(bEntries).Put(k, encodeInfo(i))
}

// Put implements [cache.Cache.Put]: the entry's Info and its mementos are
// written in one transaction.
func (c *Cache) Put(ctx context.Context, uriR string, r cache.Result) (rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("put", &rerr)
	u, key, r, err := check.Put(uriR, r)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "put"); err != nil {
		return err
	}
	ms := encodeMementos(r.Mementos) // outside the write lock
	return c.wrap("put", c.db.Update(func(tx *bolt.Tx) error {
		old, err := readInfo(tx, key)
		if err != nil {
			return err
		}
		i := &cache.Info{Key: key, URIR: u, Status: r.Status, Updated: r.Updated}
		if old != nil {
			i.Requested, i.Requests = old.Requested, old.Requests
		}
		if err := writeInfo(tx, old, i); err != nil {
			return err
		}
		if len(r.Mementos) == 0 {
			return tx.Bucket(bMementos).Delete(key[:])
		}
		return tx.Bucket(bMementos).Put(key[:], ms)
	}))
}

// RecordRequest implements [cache.Cache.RecordRequest]. It rewrites only
// the entry's Info, not its mementos.
func (c *Cache) RecordRequest(ctx context.Context, uriR string, at time.Time) (rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("record request", &rerr)
	u, key, at, err := check.Request(uriR, at)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "record request"); err != nil {
		return err
	}
	return c.wrap("record request", c.db.Update(func(tx *bolt.Tx) error {
		old, err := readInfo(tx, key)
		if err != nil {
			return err
		}
		if old == nil {
			return writeInfo(tx, nil, &cache.Info{Key: key, URIR: u, Requested: at, Requests: 1})
		}
		i := *old
		i.Requests++
		if at.After(i.Requested) {
			i.Requested = at
		}
		return writeInfo(tx, old, &i)
	}))
}

// Stale implements [cache.Cache.Stale] with a scan of the updated index.
func (c *Cache) Stale(ctx context.Context, before time.Time, limit int) (_ []cache.Info, rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("stale", &rerr)
	before, err := check.Stale(before, limit)
	if err != nil {
		return nil, err
	}
	if err := c.begin(ctx, "stale"); err != nil {
		return nil, err
	}
	var out []cache.Info
	err = c.db.View(func(tx *bolt.Tx) error {
		keys, err := expired(tx.Bucket(bUpdated), before, limit)
		if err != nil {
			return err
		}
		for _, k := range keys {
			i, err := readInfo(tx, cache.URIRKey(k[8:]))
			if err != nil {
				return err
			}
			if i == nil {
				return corrupt("updated index key", k, errors.New("names a missing entry"))
			}
			out = append(out, *i)
		}
		return nil
	})
	if err != nil {
		return nil, c.wrap("stale", err)
	}
	return out, nil
}

func deleteEntry(tx *bolt.Tx, i *cache.Info) error {
	k := i.Key[:]
	if err := tx.Bucket(bUpdated).Delete(timeKey(i.Updated, k)); err != nil {
		return err
	}
	if err := tx.Bucket(bUsed).Delete(timeKey(check.LastUsed(*i), k)); err != nil {
		return err
	}
	if err := tx.Bucket(bMementos).Delete(k); err != nil {
		return err
	}
	return tx.Bucket(bEntries).Delete(k)
}

// Delete implements [cache.Cache.Delete].
func (c *Cache) Delete(ctx context.Context, key cache.URIRKey) (rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("delete", &rerr)
	if err := c.begin(ctx, "delete"); err != nil {
		return err
	}
	return c.wrap("delete", c.db.Update(func(tx *bolt.Tx) error {
		old, err := readInfo(tx, key)
		if err != nil {
			return err
		}
		if old == nil {
			return fmt.Errorf("cache: bolt delete %s: %w", key, cache.ErrNotFound)
		}
		return deleteEntry(tx, old)
	}))
}

func readJob(tx *bolt.Tx, id []byte) (*job, error) {
	v := tx.Bucket(bJobs).Get(id)
	if v == nil {
		return nil, nil
	}
	j, err := decodeJob(binary.BigEndian.Uint64(id), v)
	if err != nil {
		return nil, corrupt("job", id, err)
	}
	return &j, nil
}

func writeJob(tx *bolt.Tx, j *job) error {
	return tx.Bucket(bJobs).Put(be64(uint64(j.ID)), encodeJob(j))
}

// Enqueue implements [cache.Cache.Enqueue].
func (c *Cache) Enqueue(ctx context.Context, uriR string, p cache.Priority, at time.Time) (rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("enqueue", &rerr)
	key, at, err := check.Enqueue(uriR, p, at)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "enqueue"); err != nil {
		return err
	}
	return c.wrap("enqueue", c.db.Update(func(tx *bolt.Tx) error {
		queue := tx.Bucket(bQueue)
		var j *job
		if id := tx.Bucket(bJobKeys).Get(key[:]); id != nil {
			if j, err = readJob(tx, id); err != nil {
				return err
			}
			if j == nil {
				return corrupt("job key", key[:], errors.New("names a missing job"))
			}
		}
		switch {
		case j == nil:
			seq, err := tx.Bucket(bJobs).NextSequence()
			if err != nil {
				return err
			}
			j = &job{Job: cache.Job{ID: int64(seq), Key: key, URIR: uriR, Priority: p, Enqueued: at}}
			if err := tx.Bucket(bJobKeys).Put(key[:], be64(seq)); err != nil {
				return err
			}
		case !j.completed.IsZero():
			if err := tx.Bucket(bDone).Delete(timeKey(j.completed, be64(uint64(j.ID)))); err != nil {
				return err
			}
			*j = job{Job: cache.Job{ID: j.ID, Key: key, URIR: uriR, Priority: p, Enqueued: at}}
		case p < j.Priority:
			if j.Worker == "" {
				if err := queue.Delete(queueKey(j)); err != nil {
					return err
				}
			}
			j.Priority = p
			if j.Worker != "" {
				return writeJob(tx, j) // claimed: not in the queue
			}
		default:
			return nil
		}
		if err := queue.Put(queueKey(j), nil); err != nil {
			return err
		}
		return writeJob(tx, j)
	}))
}

// Claim implements [cache.Cache.Claim]. bbolt runs one write transaction at
// a time, so each job goes to one caller.
func (c *Cache) Claim(ctx context.Context, worker string, at time.Time) (_ cache.Job, rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("claim", &rerr)
	at, err := check.Claim(worker, at)
	if err != nil {
		return cache.Job{}, err
	}
	if err := c.begin(ctx, "claim"); err != nil {
		return cache.Job{}, err
	}
	var out cache.Job
	err = c.db.Update(func(tx *bolt.Tx) error {
		qk, _ := tx.Bucket(bQueue).Cursor().First()
		if qk == nil {
			return fmt.Errorf("cache: bolt claim: %w", cache.ErrNoJob)
		}
		if len(qk) != 17 {
			return corrupt("queue key", qk, errCorrupt)
		}
		id := bytes.Clone(qk[9:])
		if err := tx.Bucket(bQueue).Delete(qk); err != nil {
			return err
		}
		j, err := readJob(tx, id)
		if err != nil {
			return err
		}
		if j == nil {
			return corrupt("queue key", qk, errors.New("names a missing job"))
		}
		j.Worker, j.Claimed = worker, at
		if err := tx.Bucket(bClaimed).Put(timeKey(at, id), nil); err != nil {
			return err
		}
		out = j.Job
		return writeJob(tx, j)
	})
	return out, c.wrap("claim", err)
}

// Complete implements [cache.Cache.Complete].
func (c *Cache) Complete(ctx context.Context, jb cache.Job, at time.Time) (rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("complete", &rerr)
	at, err := check.Time("completion time", at)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "complete"); err != nil {
		return err
	}
	return c.wrap("complete", c.db.Update(func(tx *bolt.Tx) error {
		id := be64(uint64(jb.ID))
		j, err := readJob(tx, id)
		if err != nil {
			return err
		}
		if j == nil || j.Worker == "" || j.Worker != jb.Worker {
			return fmt.Errorf("cache: bolt complete job %d by %q: %w", jb.ID, jb.Worker, cache.ErrNotFound)
		}
		if !j.completed.IsZero() {
			return nil
		}
		if err := tx.Bucket(bClaimed).Delete(timeKey(j.Claimed, id)); err != nil {
			return err
		}
		j.completed = at
		if err := tx.Bucket(bDone).Put(timeKey(at, id), nil); err != nil {
			return err
		}
		return writeJob(tx, j)
	}))
}

// Cleanup implements [cache.Cache.Cleanup] in one write transaction.
func (c *Cache) Cleanup(ctx context.Context, p cache.CleanupPolicy) (_ cache.CleanupStats, rerr error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer c.guard("cleanup", &rerr)
	p, err := check.Policy(p)
	if err != nil {
		return cache.CleanupStats{}, err
	}
	if err := c.begin(ctx, "cleanup"); err != nil {
		return cache.CleanupStats{}, err
	}
	var st cache.CleanupStats
	err = c.db.Update(func(tx *bolt.Tx) error {
		st = cache.CleanupStats{}
		if cut, ok := check.Cutoff(p, p.ClaimTimeout); ok {
			err := expiredJobs(tx, bClaimed, cut, func(_ []byte, j *job) error {
				if j == nil || !j.completed.IsZero() {
					return nil
				}
				j.Worker, j.Claimed = "", time.Time{}
				if err := tx.Bucket(bQueue).Put(queueKey(j), nil); err != nil {
					return err
				}
				st.JobsReleased++
				return writeJob(tx, j)
			})
			if err != nil {
				return err
			}
		}
		if cut, ok := check.Cutoff(p, p.CompletedJobAge); ok {
			err := expiredJobs(tx, bDone, cut, func(id []byte, j *job) error {
				if j == nil {
					return nil
				}
				if err := tx.Bucket(bJobs).Delete(id); err != nil {
					return err
				}
				st.JobsDeleted++
				return tx.Bucket(bJobKeys).Delete(j.Key[:])
			})
			if err != nil {
				return err
			}
		}
		if cut, ok := check.Cutoff(p, p.UnrequestedAge); ok {
			keys, err := expired(tx.Bucket(bUsed), cut, p.MaxEntries)
			if err != nil {
				return err
			}
			for _, k := range keys {
				old, err := readInfo(tx, cache.URIRKey(k[8:]))
				if err != nil {
					return err
				}
				if old == nil {
					if err := tx.Bucket(bUsed).Delete(k); err != nil {
						return err
					}
					continue
				}
				if err := deleteEntry(tx, old); err != nil {
					return err
				}
				st.EntriesDeleted++
			}
		}
		return nil
	})
	if err != nil {
		return cache.CleanupStats{}, c.wrap("cleanup", err)
	}
	return st, nil
}

// expiredJobs deletes from the time index b of jobs (bClaimed, bDone)
// every key dated before cut, and calls fn with the job id and the job it
// names (nil when there is none) after each.
func expiredJobs(tx *bolt.Tx, b []byte, cut time.Time, fn func(id []byte, j *job) error) error {
	ids, err := expired(tx.Bucket(b), cut, -1)
	if err != nil {
		return err
	}
	for _, id := range ids {
		j, err := readJob(tx, id[8:])
		if err != nil {
			return err
		}
		if err := tx.Bucket(b).Delete(id); err != nil {
			return err
		}
		if err := fn(id[8:], j); err != nil {
			return err
		}
	}
	return nil
}

// expired returns copies of the keys of an index bucket (T | suffix) whose
// time is before cut, oldest first, at most max of them (max < 0: all).
func expired(b *bolt.Bucket, cut time.Time, max int) ([][]byte, error) {
	end := be64(secs(cut))
	var out [][]byte
	cur := b.Cursor()
	for k, _ := cur.First(); k != nil && len(out) != max && bytes.Compare(k[:min(8, len(k))], end) < 0; k, _ = cur.Next() {
		if len(k) != 16 && len(k) != 8+len(cache.URIRKey{}) {
			return nil, corrupt("index key", k, errCorrupt)
		}
		out = append(out, bytes.Clone(k))
	}
	return out, nil
}
