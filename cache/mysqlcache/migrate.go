package mysqlcache

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// schemaFS holds the migrations: schema/NNNN_name.sql, applied in order of
// NNNN. A file's statements are separated by lines holding only ";".
//
//go:embed schema/*.sql
var schemaFS embed.FS

type migration struct {
	version int
	name    string
	stmts   []string
}

// migrations parses the embedded files. Their names and contents are fixed
// at build time; an error here is a bug in the package, found by its tests.
func migrations() ([]migration, error) {
	files, err := fs.Glob(schemaFS, "schema/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, f := range files {
		base := path.Base(f)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("schema file %s: name must be NNNN_name.sql", base)
		}
		b, err := schemaFS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		m := migration{version: v, name: base}
		for _, s := range strings.Split(string(b), "\n;\n") {
			if strings.TrimSpace(stripComments(s)) != "" {
				m.stmts = append(m.stmts, s)
			}
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("schema files %s and %s share version %d", out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
	}
	return b.String()
}

// migrate brings the database's schema to the latest version, on one
// connection holding a named lock so that nodes starting together migrate
// once. Applied versions are recorded in mementokit_schema.
// Options.MigrateTimeout, when set, bounds it from the lock on.
func migrate(ctx context.Context, db *sql.DB, o Options, log *slog.Logger) error {
	lockWait := o.MigrateLockWait
	ms, err := migrations()
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var got sql.NullInt64
	lock := "mementokit.cache.migrate"
	if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(CONCAT(?, DATABASE()), ?)", lock, int(lockWait.Seconds())).Scan(&got); err != nil {
		return fmt.Errorf("lock for migration: %w%s", err, lockHolder(ctx, db, lock))
	}
	if got.Int64 != 1 {
		return fmt.Errorf("lock for migration: not granted within %v%s", lockWait, lockHolder(ctx, db, lock))
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT RELEASE_LOCK(CONCAT(?, DATABASE()))", lock)
	if o.MigrateTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.MigrateTimeout)
		defer cancel()
	}
	// Tables of the Time Travel aggregator's own schema are migrated
	// first (lanl.go), keeping their rows.
	if err := migrateLANL(ctx, conn, lanlRun{log: log, batchRows: o.MigrateBatchRows, stopAfter: o.lanlStopAfter, stopBatches: o.lanlStopBatches}); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS mementokit_schema (
  version INT NOT NULL PRIMARY KEY,
  name    VARCHAR(255) NOT NULL,
  applied DATETIME NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`)
	if err != nil {
		return fmt.Errorf("create mementokit_schema: %w", err)
	}
	var current int
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM mementokit_schema").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if last := ms[len(ms)-1].version; current > last {
		return fmt.Errorf("database schema version %d is newer than this program's %d", current, last)
	}
	for _, m := range ms {
		if m.version <= current {
			continue
		}
		for i, s := range m.stmts {
			if _, err := conn.ExecContext(ctx, s); err != nil {
				return fmt.Errorf("%s statement %d: %w", m.name, i+1, err)
			}
		}
		_, err := conn.ExecContext(ctx, "INSERT INTO mementokit_schema (version, name, applied) VALUES (?, ?, ?)",
			m.version, m.name, time.Now().UTC().Truncate(time.Second))
		if err != nil {
			return fmt.Errorf("record %s: %w", m.name, err)
		}
	}
	return checkColumns(ctx, conn)
}

// lockHolder names the connection holding the migration lock, asked on a
// connection of its own (ctx may have ended while waiting for the lock):
// ": another connection (id N, running for S s: STATEMENT) holds the
// migration lock ...". It is "" when the lock is free or nothing can be
// asked.
func lockHolder(ctx context.Context, db *sql.DB, lock string) string {
	qctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var id sql.NullInt64
	if err := db.QueryRowContext(qctx, "SELECT IS_USED_LOCK(CONCAT(?, DATABASE()))", lock).Scan(&id); err != nil || !id.Valid {
		return ""
	}
	what := fmt.Sprintf("id %d", id.Int64)
	var secs sql.NullInt64
	var command, info sql.NullString
	if err := db.QueryRowContext(qctx, "SELECT COMMAND, TIME, INFO FROM information_schema.PROCESSLIST WHERE ID = ?", id.Int64).Scan(&command, &secs, &info); err == nil {
		stmt := strings.Join(strings.Fields(info.String), " ")
		if len(stmt) > 80 {
			stmt = stmt[:80] + "..."
		}
		if stmt == "" {
			stmt = command.String
		}
		what += fmt.Sprintf(", %s for %d s: %s", strings.ToLower(command.String), secs.Int64, stmt)
	}
	return fmt.Sprintf(": another connection (%s) holds the migration lock: another node migrating, or the statement of a migration whose client was stopped still running on the server (it ends by itself, or: KILL %d)", what, id.Int64)
}

// checkColumns catches a database whose tables predate this schema (an
// original Time Travel database: CREATE TABLE IF NOT EXISTS left them as
// they were), which would otherwise fail later on the first query.
func checkColumns(ctx context.Context, conn *sql.Conn) error {
	want := map[string][]string{
		"linkmaster":       {"url", "id", "reqtime", "numreq", "updtime", "status", "lastused"},
		"links":            {"id", "mdate", "archive_id", "href", "type", "rel", "part"},
		"jobs":             {"id", "url", "reqtime", "process_id", "claimtime", "compltime", "priority", "hashkey"},
		"archive_register": {"id", "hostname"},
	}
	rows, err := conn.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME IN ('linkmaster', 'links', 'jobs', 'archive_register')`)
	if err != nil {
		return fmt.Errorf("check columns: %w", err)
	}
	defer rows.Close()
	have := map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return fmt.Errorf("check columns: %w", err)
		}
		have[strings.ToLower(t)+"."+strings.ToLower(c)] = true
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("check columns: %w", err)
	}
	for _, t := range []string{"linkmaster", "links", "jobs", "archive_register"} {
		for _, c := range want[t] {
			if !have[t+"."+c] {
				return fmt.Errorf("table %s has no column %s: tables of neither this schema nor the Time Travel aggregator's (conf/agg_tables.sql, migrated automatically); migrate them to schema/0001_init.sql", t, c)
			}
		}
	}
	return nil
}
