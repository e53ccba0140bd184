// Package mysqlcache is a [cache.Cache] in MySQL or MariaDB, shared by many
// aggregator front ends and refresh workers, with the schema of the Time
// Travel aggregator (LANL): linkmaster (one row per URI-R), links (one row
// per memento), jobs (the refresh queue) and archive_register (archive ids).
//
// # Schema
//
// [Open] creates or migrates the tables from the SQL files embedded in the
// package (schema/*.sql), under a named lock so that nodes starting together
// migrate once; applied versions are recorded in mementokit_schema. Tables
// are InnoDB, utf8mb4, with URL columns stored byte-exact (BLOB) and found
// by their MD5 hash keys, which are the lower-case hex of [cache.URIRKey]
// (MySQL's md5() of the URI-R without scheme, as the original). Requires
// MariaDB 10.6 or MySQL 8.0 (SKIP LOCKED, generated columns).
//
// # Statements
//
// Every statement is parameterized (placeholders only; the hot ones are
// prepared once per connection). Get is one statement (a UNION ALL of the
// linkmaster row and the links rows): one round trip that reads one
// consistent snapshot, so a concurrent Put is seen whole or not at all. Put
// is one transaction: the linkmaster row is written first (locking it, so
// that Puts of one URI-R queue up), the old links are deleted, and the new
// ones inserted with multi-row INSERTs of up to 1,000 rows or 4 MiB each.
// Claim is a transaction that selects the first waiting job with SELECT ...
// FOR UPDATE SKIP LOCKED and marks it claimed: concurrent workers, in this
// process or any other, skip each other's rows, so each job is claimed once.
// Transactions that hit a deadlock or a lock wait timeout are retried
// (three attempts).
//
// Memory: a call holds at most one entry (its mementos) plus, for Put, the
// arguments of the whole entry's batches (about 100 bytes per memento plus
// its strings); Stale holds limit Infos; Cleanup holds 1,000 keys at a time.
//
// # Faults
//
// A database that is down, restarting or unreachable makes calls fail with a
// [*cache.Error] (wrapping the driver's error, or ctx.Err() when the
// context ends first); the connection pool reconnects by itself when the
// server is back, without reopening the store. A call never outlives its
// context by more than the driver's reaction to a closed connection. A Put
// that returned nil is committed (durable as the server's InnoDB settings
// make it).
//
// # Configuration
//
// The DSN is go-sql-driver/mysql's, e.g. "user:pass@tcp(127.0.0.1:3306)/cache".
// Open forces the settings the store relies on (parseTime, UTC, found rows)
// and sets a dial timeout of 5 s unless the DSN has one. The package reads no
// environment variable; the project's tests take the DSN from
// MEMENTOKIT_MYSQL_DSN.
package mysqlcache

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/internal/check"
)

// Options configures [Open]; nil means the defaults.
type Options struct {
	// MaxOpenConns bounds the connection pool; 0 means 16.
	MaxOpenConns int
	// ConnMaxLifetime closes connections older than this; 0 means 5 minutes.
	ConnMaxLifetime time.Duration
	// MigrateLockWait is how long Open waits for another node's migration;
	// 0 means 60 seconds.
	MigrateLockWait time.Duration
	// Logger receives a line on open and on retried transactions; nil means
	// none.
	Logger *slog.Logger

	// MigrateTimeout bounds the schema migration once its lock is held
	// (the copy of a Time Travel aggregator database included); 0 means
	// no limit. Open's ctx bounds it too.
	MigrateTimeout time.Duration
	// MigrateBatchRows is how many rows of links (and linkmaster) the
	// migration of a Time Travel aggregator database copies per batch,
	// each batch committed with its progress; 0 means 50000.
	MigrateBatchRows int

	lanlStopAfter   string // tests: end the LANL migration after this step
	lanlStopBatches int    // tests: end a batched LANL copy after this many batches
}

// Cache is the MySQL-backed store. It is safe for concurrent use, and many
// Caches (in many processes) may share one database.
type Cache struct {
	db  *sql.DB
	log *slog.Logger
	// badKeysLogged: Stale has logged the counts of linkmaster rows whose
	// id is no hash key or whose url is empty (sqlBadKeys).
	badKeysLogged atomic.Bool
	closed        atomic.Bool

	get, stale, request, enqueue, claimSel, claimUpd, complete *sql.Stmt
	insertBatch                                                *sql.Stmt // batchRows rows of links

	mu       sync.Mutex
	archives map[string]int64 // archive id → archive_register.id, never changes once made

	opts         Options
	addr, dbName string
}

var _ cache.Cache = (*Cache)(nil)

const (
	batchRows  = 1000
	batchBytes = 4 << 20
	attempts   = 3
)

// Open connects to the database named in dsn, creates or migrates the
// schema, and prepares the statements. A database made by the Time Travel
// aggregator's own schema (conf/agg_tables.sql of
// lanl/TimeStitch-Memento-Aggregator) is migrated in place keeping every
// row, resuming a migration cut off earlier (lanl.go; MigrationPlan shows
// the steps without running them). Such a database is made by running
// that file with the mysql client as LANL ships it (mysql -u root <
// agg_tables.sql: the client reads its "delimiter |" lines; the file
// names the database "aggregator"); Open reads the tables, never the
// file. The migration logs at info level (Options.Logger) the tables with
// their row counts and the steps before it starts, each step done (with
// the rows a copy wrote), and its end. It fails with a [*cache.Error] if the
// server cannot be reached within ctx or the DSN's timeout (5 s by
// default; it bounds both the dial and the server's handshake), the
// server has no such database or refuses the user, the DSN names no
// database, or the schema cannot be brought up to date. The DSN itself is
// never included in errors or logs (it may hold a password).
func Open(ctx context.Context, dsn string, opts *Options) (*Cache, error) {
	c, err := connect(ctx, dsn, opts)
	if err != nil {
		return nil, err
	}
	if err := c.init(ctx, c.opts); err != nil {
		c.db.Close()
		return nil, &cache.Error{Store: "mysql", Op: "open", Err: err}
	}
	if c.log != nil {
		c.log.Info("mysql cache open", "addr", c.addr, "database", c.dbName)
	}
	return c, nil
}

// connect opens the pool and checks that the server answers (Open's
// first half: nothing is created or changed).
func connect(ctx context.Context, dsn string, opts *Options) (*Cache, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxOpenConns == 0 {
		o.MaxOpenConns = 16
	}
	if o.ConnMaxLifetime == 0 {
		o.ConnMaxLifetime = 5 * time.Minute
	}
	if o.MigrateLockWait == 0 {
		o.MigrateLockWait = 60 * time.Second
	}
	fail := func(err error) (*Cache, error) { return nil, &cache.Error{Store: "mysql", Op: "open", Err: err} }
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return fail(errors.New("invalid DSN (not shown: it may hold a password)"))
	}
	if cfg.DBName == "" {
		return fail(errors.New("the DSN names no database"))
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.ClientFoundRows = true
	cfg.Logger = driverLog{o.Logger} // the driver's default writes to stderr
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return fail(err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(o.MaxOpenConns)
	db.SetMaxIdleConns(o.MaxOpenConns)
	db.SetConnMaxLifetime(o.ConnMaxLifetime)
	c := &Cache{db: db, log: o.Logger, archives: map[string]int64{}, opts: o, addr: cfg.Addr, dbName: cfg.DBName}
	if err := c.ping(ctx, cfg.DBName, cfg.Timeout); err != nil {
		db.Close()
		return fail(err)
	}
	return c, nil
}

// ping checks that the server answers within connectTimeout and names the
// cause when it refuses.
func (c *Cache) ping(ctx context.Context, dbName string, connectTimeout time.Duration) error {
	// The DSN's timeout bounds only the TCP dial: a server that accepts and
	// never speaks (a DSN naming some other service's port) would hold the
	// handshake forever under a context without deadline.
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	err := c.db.PingContext(pctx)
	expired := pctx.Err() != nil // read before cancel, which sets it
	cancel()
	if err != nil {
		var me *mysql.MySQLError
		switch {
		case errors.As(err, &me) && me.Number == 1049:
			return fmt.Errorf("the server has no database %s (create it: CREATE DATABASE %s CHARACTER SET utf8mb4): %w", dbName, dbName, err)
		case errors.As(err, &me) && (me.Number == 1045 || me.Number == 1044):
			return fmt.Errorf("access denied (check the DSN's user and password, and the user's grants): %w", err)
		case errors.As(err, &me):
			return fmt.Errorf("the server refused the connection: %w", err)
		case ctx.Err() == nil && expired:
			return fmt.Errorf("no MySQL handshake from the server within %v: %w", connectTimeout, err)
		}
		return err
	}
	return nil
}

func (c *Cache) init(ctx context.Context, o Options) error {
	if err := migrate(ctx, c.db, o, c.log); err != nil {
		return fmt.Errorf("schema: %w", err)
	}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&c.get, sqlGet}, {&c.stale, sqlStale}, {&c.request, sqlRequest}, {&c.enqueue, sqlEnqueue},
		{&c.claimSel, sqlClaimSelect}, {&c.claimUpd, sqlClaimUpdate}, {&c.complete, sqlComplete},
		{&c.insertBatch, insertLinks(batchRows)},
	} {
		s, err := c.db.PrepareContext(ctx, p.sql)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", firstLine(p.sql), err)
		}
		*p.stmt = s
	}
	return nil
}

// driverLog passes the driver's messages (broken connections, mostly) to the
// store's logger at debug level, or drops them.
type driverLog struct{ l *slog.Logger }

func (d driverLog) Print(v ...any) {
	if d.l != nil {
		d.l.Debug("mysql driver", "msg", fmt.Sprint(v...))
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// DB returns the connection pool, for health checks and metrics
// (db.Stats()). Closing it closes the store.
func (c *Cache) DB() *sql.DB { return c.db }

// Close closes the statements and the connection pool. It is safe to call
// twice.
func (c *Cache) Close() error {
	if c.closed.Swap(true) {
		return nil
	}
	for _, s := range []*sql.Stmt{c.get, c.stale, c.request, c.enqueue, c.claimSel, c.claimUpd, c.complete, c.insertBatch} {
		if s != nil {
			s.Close()
		}
	}
	if err := c.db.Close(); err != nil {
		return &cache.Error{Store: "mysql", Op: "close", Err: err}
	}
	return nil
}

func (c *Cache) begin(ctx context.Context, op string) error {
	return check.Begin(ctx, "mysql", op, c.closed.Load())
}

// wrap turns an error into the cache's kinds; a context that ended is
// reported as the cause rather than the driver's view of it.
func (c *Cache) wrap(ctx context.Context, op string, err error) error {
	switch {
	case err == nil, check.Passed(err):
		return err
	case errors.Is(err, sql.ErrConnDone) && c.closed.Load(), strings.Contains(err.Error(), "sql: database is closed"):
		return check.Closed("mysql", op)
	case ctx.Err() != nil && !errors.Is(err, ctx.Err()):
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return &cache.Error{Store: "mysql", Op: op, Err: err}
}

// retryable reports a transaction that lost a lock race: a deadlock (1213)
// or a lock wait timeout (1205). Running it again is safe.
func retryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// inTx runs fn in a READ COMMITTED transaction (no gap locks between Puts of
// neighbouring keys), retrying lock races.
func (c *Cache) inTx(ctx context.Context, op string, fn func(tx *sql.Tx) error) error {
	var err error
	for try := 1; try <= attempts; try++ {
		err = c.tryTx(ctx, fn)
		if err == nil || !retryable(err) || ctx.Err() != nil {
			break
		}
		if c.log != nil {
			c.log.Warn("mysql cache transaction retried", "op", op, "attempt", try, "err", err)
		}
		time.Sleep(time.Duration(try) * 10 * time.Millisecond)
	}
	return c.wrap(ctx, op, err)
}

func (c *Cache) tryTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := c.db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Status codes in linkmaster.status; found is NULL, as in the original.
var statusCode = map[cache.Status]string{cache.StatusNone: "N", cache.StatusFailed: "F", cache.StatusBlocked: "B"}

func statusOf(code sql.NullString, updated sql.NullTime) (cache.Status, error) {
	if !updated.Valid {
		return cache.StatusPending, nil
	}
	if !code.Valid {
		return cache.StatusFound, nil
	}
	for s, c := range statusCode {
		if c == code.String {
			return s, nil
		}
	}
	return 0, fmt.Errorf("unknown linkmaster.status %q", code.String)
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

const sqlGet = `SELECT 0, url, reqtime, numreq, updtime, status, NULL, NULL, NULL
FROM linkmaster WHERE id = ?
UNION ALL
SELECT 1, l.href, l.mdate, l.part, NULL, NULL, a.hostname, l.rel, l.type
FROM links l LEFT JOIN archive_register a ON a.id = l.archive_id WHERE l.id = ?`

// Get implements [cache.Cache.Get] in one statement and one round trip.
func (c *Cache) Get(ctx context.Context, key cache.URIRKey) (cache.Entry, error) {
	if err := c.begin(ctx, "get"); err != nil {
		return cache.Entry{}, err
	}
	e, err := c.readEntry(ctx, key)
	return e, c.wrap(ctx, "get", err)
}

func (c *Cache) readEntry(ctx context.Context, key cache.URIRKey) (cache.Entry, error) {
	k := key.String()
	rows, err := c.get.QueryContext(ctx, k, k)
	if err != nil {
		return cache.Entry{}, err
	}
	defer rows.Close()
	var (
		e        = cache.Entry{Info: cache.Info{Key: key}}
		found    bool
		kind     int
		uri      []byte
		t1, t2   sql.NullTime
		n        sql.NullInt64
		status   sql.NullString
		archive  []byte
		rel, typ sql.NullString
	)
	for rows.Next() {
		if err := rows.Scan(&kind, &uri, &t1, &n, &t2, &status, &archive, &rel, &typ); err != nil {
			return cache.Entry{}, err
		}
		if kind == 0 {
			found = true
			e.URIR, e.Requests = string(uri), n.Int64
			e.Requested, e.Updated = utc(t1), utc(t2)
			if e.Status, err = statusOf(status, t2); err != nil {
				return cache.Entry{}, fmt.Errorf("entry %s: %w", k, err)
			}
			continue
		}
		if archive == nil {
			return cache.Entry{}, fmt.Errorf("entry %s: a memento's archive_id is not in archive_register", k)
		}
		e.Mementos = append(e.Mementos, cache.StoredMemento{URIM: string(uri), Datetime: utc(t1),
			Archive: string(archive), Rel: rel.String, Type: typ.String})
	}
	if err := rows.Err(); err != nil {
		return cache.Entry{}, err
	}
	if !found {
		return cache.Entry{}, fmt.Errorf("cache: mysql get %s: %w", k, cache.ErrNotFound)
	}
	slices.SortFunc(e.Mementos, cache.StoredMemento.Compare)
	return e, nil
}

func utc(t sql.NullTime) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// archiveIDs returns the archive_register ids of the archives named in ms,
// adding rows for new ones (committed at once, outside the caller's
// transaction, so that Puts do not serialize on the register).
func (c *Cache) archiveIDs(ctx context.Context, ms []cache.StoredMemento) (map[string]int64, error) {
	ids := map[string]int64{}
	var missing []string
	c.mu.Lock()
	for _, m := range ms {
		if _, done := ids[m.Archive]; done {
			continue
		}
		if id, ok := c.archives[m.Archive]; ok {
			ids[m.Archive] = id
		} else if !slices.Contains(missing, m.Archive) {
			missing = append(missing, m.Archive)
		}
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return ids, nil
	}
	args := make([]any, len(missing))
	for i, a := range missing {
		args[i] = []byte(a)
	}
	marks := strings.TrimSuffix(strings.Repeat("(?),", len(missing)), ",")
	if _, err := c.db.ExecContext(ctx, "INSERT INTO archive_register (hostname) VALUES "+marks+
		" ON DUPLICATE KEY UPDATE id = id", args...); err != nil {
		return nil, fmt.Errorf("register archives: %w", err)
	}
	in := strings.TrimSuffix(strings.Repeat("?,", len(missing)), ",")
	rows, err := c.db.QueryContext(ctx, "SELECT id, hostname FROM archive_register WHERE hostname IN ("+in+")", args...)
	if err != nil {
		return nil, fmt.Errorf("read archive ids: %w", err)
	}
	defer rows.Close()
	c.mu.Lock()
	defer c.mu.Unlock()
	for rows.Next() {
		var id int64
		var name []byte
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("read archive ids: %w", err)
		}
		c.archives[string(name)] = id
		ids[string(name)] = id
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read archive ids: %w", err)
	}
	for _, a := range missing {
		if _, ok := ids[a]; !ok {
			return nil, fmt.Errorf("archive %q missing from archive_register after insert", a)
		}
	}
	return ids, nil
}

const linkCols = 7

// insertLinks is a multi-row INSERT of n links.
func insertLinks(n int) string {
	return "INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?),", n), ",")
}

// Put implements [cache.Cache.Put] in one transaction (see the package doc).
func (c *Cache) Put(ctx context.Context, uriR string, r cache.Result) error {
	u, key, r, err := check.Put(uriR, r)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "put"); err != nil {
		return err
	}
	ids, err := c.archiveIDs(ctx, r.Mementos)
	if err != nil {
		return c.wrap(ctx, "put", err)
	}
	k := key.String()
	// Rows in batches; part numbers count mementos sharing (mdate, archive).
	var batches [][]any
	var cur []any
	size, part := 0, 0
	for i, m := range r.Mementos {
		if i > 0 && r.Mementos[i-1].Datetime.Equal(m.Datetime) && r.Mementos[i-1].Archive == m.Archive {
			part++
		} else {
			part = 0
		}
		cur = append(cur, k, m.Datetime, ids[m.Archive], []byte(m.URIM), nullString(m.Type), nullString(m.Rel), part)
		size += len(m.URIM) + len(m.Rel) + len(m.Type) + 64
		if len(cur) == batchRows*linkCols || size >= batchBytes {
			batches, cur, size = append(batches, cur), nil, 0
		}
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return c.inTx(ctx, "put", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO linkmaster (url, id, updtime, status, numreq) VALUES (?, ?, ?, ?, 0)
ON DUPLICATE KEY UPDATE url = VALUES(url), updtime = VALUES(updtime), status = VALUES(status)`,
			[]byte(u), k, r.Updated, nullString(statusCode[r.Status]))
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM links WHERE id = ?", k); err != nil {
			return err
		}
		for _, b := range batches {
			var err error
			if len(b) == batchRows*linkCols {
				_, err = tx.StmtContext(ctx, c.insertBatch).ExecContext(ctx, b...)
			} else {
				_, err = tx.ExecContext(ctx, insertLinks(len(b)/linkCols), b...)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

const sqlRequest = `INSERT INTO linkmaster (url, id, reqtime, numreq) VALUES (?, ?, ?, 1)
ON DUPLICATE KEY UPDATE numreq = numreq + 1, reqtime = GREATEST(COALESCE(reqtime, VALUES(reqtime)), VALUES(reqtime))`

// RecordRequest implements [cache.Cache.RecordRequest] in one statement.
func (c *Cache) RecordRequest(ctx context.Context, uriR string, at time.Time) error {
	u, key, at, err := check.Request(uriR, at)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "record request"); err != nil {
		return err
	}
	_, err = c.request.ExecContext(ctx, []byte(u), key.String(), at)
	return c.wrap(ctx, "record request", err)
}

// sqlStale leaves out rows whose id is no hash key (32 lower-case hex
// digits: a row written by another program, such as one migrated from the
// Time Travel aggregator) and rows whose url is empty (a Time Travel row
// whose URI-R was NULL: there is nothing to search for until a search of
// the URI-R, found by its hash key, stores it), so that they neither stop
// the scan nor take the place of entries within limit; sqlBadKeys counts
// both (Stale logs the counts once).
const (
	sqlStale = `SELECT id, url, reqtime, numreq, updtime, status FROM linkmaster
WHERE (updtime IS NULL OR updtime < ?) AND id REGEXP '^[0-9a-f]{32}$' AND url <> '' ORDER BY updtime, id LIMIT ?`
	sqlBadKeys = `SELECT COALESCE(SUM(id NOT REGEXP '^[0-9a-f]{32}$'), 0), COALESCE(MIN(CASE WHEN id NOT REGEXP '^[0-9a-f]{32}$' THEN id END), ''),
  COALESCE(SUM(url = ''), 0), COALESCE(MIN(CASE WHEN url = '' THEN id END), '') FROM linkmaster`
)

// Stale implements [cache.Cache.Stale] on the (updtime, id) index.
func (c *Cache) Stale(ctx context.Context, before time.Time, limit int) ([]cache.Info, error) {
	before, err := check.Stale(before, limit)
	if err != nil {
		return nil, err
	}
	if err := c.begin(ctx, "stale"); err != nil {
		return nil, err
	}
	if c.badKeysLogged.CompareAndSwap(false, true) && c.log != nil {
		var n, noURIR int64
		var first, firstNoURIR string
		if err := c.db.QueryRowContext(ctx, sqlBadKeys).Scan(&n, &first, &noURIR, &firstNoURIR); err != nil {
			c.badKeysLogged.Store(false) // counted on the next scan
		} else {
			if n > 0 {
				c.log.Warn("mysql cache: linkmaster rows whose id is no hash key (32 lower-case hex digits) are skipped by stale scans", "rows", n, "first_id", first)
			}
			if noURIR > 0 {
				c.log.Warn("mysql cache: linkmaster rows with no URI-R (url empty: migrated from a Time Travel row whose url was NULL) are skipped by stale scans until a search of their URI-R stores it", "rows", noURIR, "first_id", firstNoURIR)
			}
		}
	}
	out, err := c.readStale(ctx, before, limit)
	return out, c.wrap(ctx, "stale", err)
}

func (c *Cache) readStale(ctx context.Context, before time.Time, limit int) ([]cache.Info, error) {
	rows, err := c.stale.QueryContext(ctx, before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cache.Info
	for rows.Next() {
		var (
			id         string
			url        []byte
			req, upd   sql.NullTime
			n          int64
			status     sql.NullString
			info       cache.Info
			errs, errp error
		)
		if err := rows.Scan(&id, &url, &req, &n, &upd, &status); err != nil {
			return nil, err
		}
		info.Key, errs = cache.ParseURIRKey(id)
		info.Status, errp = statusOf(status, upd)
		if err := errors.Join(errs, errp); err != nil {
			return nil, fmt.Errorf("entry %q: %w", id, err)
		}
		info.URIR, info.Requested, info.Requests, info.Updated = string(url), utc(req), n, utc(upd)
		out = append(out, info)
	}
	return out, rows.Err()
}

// Delete implements [cache.Cache.Delete] in one transaction.
func (c *Cache) Delete(ctx context.Context, key cache.URIRKey) error {
	if err := c.begin(ctx, "delete"); err != nil {
		return err
	}
	k := key.String()
	return c.inTx(ctx, "delete", func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, "DELETE FROM linkmaster WHERE id = ?", k)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return cmpErr(err, fmt.Errorf("cache: mysql delete %s: %w", k, cache.ErrNotFound))
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM links WHERE id = ?", k)
		return err
	})
}

func cmpErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// sqlEnqueue adds a job, reopens a completed one, or raises a waiting one's
// priority. MySQL evaluates the assignments left to right, each seeing the
// ones before: compltime, which the others test, is assigned last.
const sqlEnqueue = `INSERT INTO jobs (url, hashkey, reqtime, priority) VALUES (?, ?, ?, ?)
ON DUPLICATE KEY UPDATE
  priority   = IF(compltime IS NOT NULL, VALUES(priority), LEAST(priority, VALUES(priority))),
  url        = IF(compltime IS NOT NULL, VALUES(url), url),
  reqtime    = IF(compltime IS NOT NULL, VALUES(reqtime), reqtime),
  process_id = IF(compltime IS NOT NULL, NULL, process_id),
  claimtime  = IF(compltime IS NOT NULL, NULL, claimtime),
  compltime  = NULL`

// Enqueue implements [cache.Cache.Enqueue] in one statement.
func (c *Cache) Enqueue(ctx context.Context, uriR string, p cache.Priority, at time.Time) error {
	key, at, err := check.Enqueue(uriR, p, at)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "enqueue"); err != nil {
		return err
	}
	_, err = c.enqueue.ExecContext(ctx, []byte(uriR), key.String(), at, string(rune('0'+p)))
	return c.wrap(ctx, "enqueue", err)
}

const (
	sqlClaimSelect = `SELECT id, url, hashkey, priority, reqtime FROM jobs
WHERE compltime IS NULL AND claimtime IS NULL
ORDER BY priority, reqtime, id LIMIT 1 FOR UPDATE SKIP LOCKED`
	sqlClaimUpdate = `UPDATE jobs SET process_id = ?, claimtime = ? WHERE id = ?`
)

// Claim implements [cache.Cache.Claim] with SELECT ... FOR UPDATE SKIP
// LOCKED in a transaction.
func (c *Cache) Claim(ctx context.Context, worker string, at time.Time) (cache.Job, error) {
	at, err := check.Claim(worker, at)
	if err != nil {
		return cache.Job{}, err
	}
	if err := c.begin(ctx, "claim"); err != nil {
		return cache.Job{}, err
	}
	var j cache.Job
	err = c.inTx(ctx, "claim", func(tx *sql.Tx) error {
		var (
			url      []byte
			hash     string
			priority string
			enq      time.Time
		)
		err := tx.StmtContext(ctx, c.claimSel).QueryRowContext(ctx).Scan(&j.ID, &url, &hash, &priority, &enq)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("cache: mysql claim: %w", cache.ErrNoJob)
		}
		if err != nil {
			return err
		}
		if j.Key, err = cache.ParseURIRKey(hash); err != nil {
			return fmt.Errorf("job %d: %w", j.ID, err)
		}
		if len(priority) != 1 || priority[0] < '1' || priority[0] > '9' {
			return fmt.Errorf("job %d: bad priority %q", j.ID, priority)
		}
		j.URIR, j.Priority, j.Enqueued = string(url), cache.Priority(priority[0]-'0'), enq.UTC()
		j.Worker, j.Claimed = worker, at
		_, err = tx.StmtContext(ctx, c.claimUpd).ExecContext(ctx, worker, at, j.ID)
		return err
	})
	if err != nil {
		return cache.Job{}, err
	}
	return j, nil
}

const sqlComplete = `UPDATE jobs SET compltime = COALESCE(compltime, ?) WHERE id = ? AND process_id = ?`

// Complete implements [cache.Cache.Complete] in one statement.
func (c *Cache) Complete(ctx context.Context, job cache.Job, at time.Time) error {
	at, err := check.Time("completion time", at)
	if err != nil {
		return err
	}
	if err := c.begin(ctx, "complete"); err != nil {
		return err
	}
	var n int64
	res, err := c.complete.ExecContext(ctx, at, job.ID, job.Worker)
	if err == nil {
		n, err = res.RowsAffected() // rows matched: the DSN has clientFoundRows
	}
	if err == nil && n == 0 {
		err = fmt.Errorf("cache: mysql complete job %d by %q: %w", job.ID, job.Worker, cache.ErrNotFound)
	}
	return c.wrap(ctx, "complete", err)
}

// cleanupBatch is the number of rows one Cleanup statement deletes, so that
// no transaction holds many locks for long.
const cleanupBatch = 1000

// Cleanup implements [cache.Cache.Cleanup] as a series of short
// transactions of at most 1,000 rows each. Entries are re-checked under a
// row lock before deletion, so an entry requested meanwhile is kept.
//
// In a database migrated from the Time Travel aggregator's tables (lanl.go),
// the ages of entries and completed jobs count from the later of their own
// time and the migration's (the swap step's time in
// mementokit_lanl_migration): the migration keeps every row, and the first
// Cleanup after it deletes none of them for being unrequested or old, until
// the operator has had one full UnrequestedAge (CompletedJobAge) after the
// switch. Rows written since are judged by their own times.
func (c *Cache) Cleanup(ctx context.Context, p cache.CleanupPolicy) (cache.CleanupStats, error) {
	p, err := check.Policy(p)
	if err != nil {
		return cache.CleanupStats{}, err
	}
	if err := c.begin(ctx, "cleanup"); err != nil {
		return cache.CleanupStats{}, err
	}
	var st cache.CleanupStats
	err = c.cleanup(ctx, p, &st)
	return st, c.wrap(ctx, "cleanup", err)
}

// migratedAt returns when the LANL migration put its tables in place (the
// time of the swap step in mementokit_lanl_migration, UTC, to the second),
// or the zero time for a database that was never migrated.
func (c *Cache) migratedAt(ctx context.Context) (time.Time, error) {
	var t sql.NullTime
	err := c.db.QueryRowContext(ctx, "SELECT done FROM mementokit_lanl_migration WHERE step = 'swap'").Scan(&t)
	var me *mysql.MySQLError
	switch {
	case errors.Is(err, sql.ErrNoRows), errors.As(err, &me) && me.Number == 1146: // ER_NO_SUCH_TABLE
		return time.Time{}, nil
	case err != nil:
		return time.Time{}, fmt.Errorf("reading the LANL migration's time: %w", err)
	}
	return utc(t), nil
}

// afterMigration is the cutoff cut of a Cleanup age applied to times that
// count from max(own time, migrated): ok is false where no row can be older
// (the migration itself is not older than cut), and cut is unchanged
// otherwise (every row with a time before cut then has max(time, migrated)
// before cut too).
func afterMigration(cut, migrated time.Time, ok bool) (time.Time, bool) {
	if ok && !migrated.IsZero() && !migrated.Before(cut) {
		return time.Time{}, false
	}
	return cut, ok
}

func (c *Cache) cleanup(ctx context.Context, p cache.CleanupPolicy, st *cache.CleanupStats) error {
	migrated, err := c.migratedAt(ctx)
	if err != nil {
		return err
	}
	if cut, ok := check.Cutoff(p, p.ClaimTimeout); ok {
		res, err := c.db.ExecContext(ctx, `UPDATE jobs SET process_id = NULL, claimtime = NULL
WHERE compltime IS NULL AND claimtime < ?`, cut)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		st.JobsReleased = int(n)
	}
	jobCut, jobOK := check.Cutoff(p, p.CompletedJobAge)
	if cut, ok := afterMigration(jobCut, migrated, jobOK); ok {
		for {
			res, err := c.db.ExecContext(ctx, "DELETE FROM jobs WHERE compltime < ? ORDER BY compltime LIMIT ?", cut, cleanupBatch)
			if err != nil {
				return err
			}
			n, err := res.RowsAffected()
			if err != nil {
				return err
			}
			st.JobsDeleted += int(n)
			if n < cleanupBatch {
				break
			}
		}
	}
	cut, ok := check.Cutoff(p, p.UnrequestedAge)
	cut, ok = afterMigration(cut, migrated, ok)
	for ok && st.EntriesDeleted < p.MaxEntries {
		n := min(cleanupBatch, p.MaxEntries-st.EntriesDeleted)
		var deleted int
		err := c.inTx(ctx, "cleanup", func(tx *sql.Tx) error {
			rows, err := tx.QueryContext(ctx, `SELECT id FROM linkmaster WHERE lastused < ?
ORDER BY lastused, id LIMIT ? FOR UPDATE SKIP LOCKED`, cut, n)
			if err != nil {
				return err
			}
			var ids []any
			for rows.Next() {
				var id string
				if err := rows.Scan(&id); err != nil {
					rows.Close()
					return err
				}
				ids = append(ids, id)
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
			deleted = len(ids)
			if deleted == 0 {
				return nil
			}
			in := strings.TrimSuffix(strings.Repeat("?,", len(ids)), ",")
			if _, err := tx.ExecContext(ctx, "DELETE FROM links WHERE id IN ("+in+")", ids...); err != nil {
				return err
			}
			_, err = tx.ExecContext(ctx, "DELETE FROM linkmaster WHERE id IN ("+in+")", ids...)
			return err
		})
		if err != nil {
			return err
		}
		st.EntriesDeleted += deleted
		if deleted < n {
			break
		}
	}
	return nil
}
