package mysqlcache

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

// The migration of a database made by the Time Travel aggregator's own
// schema (conf/agg_tables.sql of github.com/lanl/TimeStitch-Memento-Aggregator:
// MyISAM tables linkmaster, links partitioned by the first character of
// its id, jobs and archive_register, without the columns this package
// needs) to schema/0001_init.sql, keeping every row:
//
//  1. the new tables are created beside the old ones (linkmaster_mk, ...);
//  2. each old table is copied into its new one by INSERT IGNORE ...
//     SELECT (idempotent); linkmaster and links in batches of
//     Options.MigrateBatchRows rows by ranges of id, each batch committed
//     in one transaction with the last id it copied
//     (mementokit_lanl_progress), so that a copy cut off resumes after
//     the last batch committed;
//     what the old rows hold that the new schema cannot take as it is
//     (lanlSurvey counts each kind; the plan and the log report the
//     counts, with the first id of each kind, before the copy, and the
//     log's last record after it):
//       - a zero date (0000-00-00, zeroDate) is no datetime: a links row
//         with one is not copied (no memento without a datetime; kept in
//         links_lanl), a zero linkmaster reqtime or updtime becomes NULL
//         (updtime NULL: pending, searched again), a zero jobs reqtime
//         becomes the job's compltime or, without one, the migration's
//         time, and a zero jobs compltime NULL (the job is open and runs
//         again: when it completed is unknown);
//       - a links row whose href is NULL or empty has no URI-M and is no
//         memento: it is not copied (kept in links_lanl);
//       - a linkmaster row whose url is NULL or empty (its URI-R unknown)
//         is copied with url '': its id is the URI-R's hash key, so a
//         request for the URI-R finds it and its mementos, and the next
//         search stored for it writes the URI-R; stale scans skip it
//         (there is nothing to search for);
//       - a jobs row whose url is NULL or empty is no job (nothing to
//         search): it is not copied (kept in jobs_lanl);
//       - a links row whose archive_id is NULL is a link without an
//         archive (the shipped schema cannot hold one: archive_id is part
//         of its PRIMARY KEY, so NOT NULL; a table whose key was changed
//         to a UNIQUE key can): it is not copied (no archive to serve it
//         under; kept in links_lanl) and registers no archive;
//       - a links row whose archive_id names no archive_register row
//         keeps that id, registered as the archive "lanl-archive-<id>"
//         (one per id, so that the rows of two such archives stay apart;
//         counted per id), and is served as the rows of an archive the
//         registry does not list are (package aggregator keeps them);
//       - a linkmaster row whose id is no MD5 (32 hex digits) is copied
//         as it is, and stale scans skip it;
//     linkmaster gets status 'N' where it was searched and holds no link
//     copied, links get parts 0, 1, ... per (id, mdate, archive), jobs get
//     their hash key, a claim time for those a worker held, and the
//     refresh priority; of several jobs for one URI-R (the old table had
//     no unique key) the open, then the oldest, one is kept as the job and
//     the others are kept in jobs_lanl_duplicates;
//  3. the row counts are compared (links: the rows copied, those with a
//     datetime, a URI-M and an archive; jobs: those with a URI-R): a
//     copy that lost a row stops the migration before anything is
//     replaced, with an error naming the table and the first key that
//     differs, and the copy of that table is undone (its new table
//     emptied, its step and batch progress unrecorded), so that opening
//     the database again copies it again and, the cause gone (rows
//     written to the old tables during the copy), finishes;
//  4. one RENAME TABLE (atomic) puts the new tables in place and keeps
//     the old ones as linkmaster_lanl, links_lanl, jobs_lanl and
//     archive_register_lanl, for the operator to check and drop.
//
// Nothing is lost on the switch to this store: Cleanup counts the ages of
// the migrated rows (linkmaster's last request, jobs' completion) from the
// later of their own time and the migration's (the swap step's time), so
// the rows of a cache Time Travel last used months ago stay for one full
// retention period after the migration (the operator's time to check),
// and are then judged as any.
//
// MySQL commits DDL implicitly, so the whole is not one transaction; each
// step done is recorded in mementokit_lanl_migration, and a migration cut
// off (a crash, a killed process, a lost connection) resumes at the first
// step not recorded when the database is opened again.

// zeroDate is the SQL condition "col is a zero or partly zero date"
// (0000-00-00 00:00:00, 2005-00-00, 0000-05-01): MySQL stores them when
// NO_ZERO_DATE is off, as the Time Travel aggregator's MyISAM tables
// allowed, and they are no datetime (the driver would read them as
// 0001-01-01, the zero time.Time that means "absent"). A links row with
// one is not copied (counted, logged, kept in links_lanl); a linkmaster
// reqtime or updtime with one is copied as NULL, a jobs reqtime as the
// job's compltime or the migration's time, a jobs compltime as NULL
// (each counted, logged).
func zeroDate(col string) string {
	return "(YEAR(" + col + ") = 0 OR MONTH(" + col + ") = 0 OR DAYOFMONTH(" + col + ") = 0)"
}

// hasURI is the SQL condition "col holds a URI": neither NULL nor empty.
// A links row without one has no URI-M (not copied), a jobs row none to
// search (not copied), a linkmaster row an unknown URI-R (copied with url
// "", skipped by stale scans).
func hasURI(col string) string { return "(" + col + " IS NOT NULL AND " + col + " <> '')" }

// linkCopied is the SQL condition on the links row l that the migration
// copies it: it has a datetime, a URI-M and an archive (archive_id not
// NULL).
func linkCopied(l string) string {
	return "NOT " + zeroDate(l+".mdate") + " AND " + hasURI(l+".href") + " AND " + l + ".archive_id IS NOT NULL"
}

// dateOrNull is col, or NULL where it holds a zero date.
func dateOrNull(col string) string { return "CASE WHEN NOT " + zeroDate(col) + " THEN " + col + " END" }

// lanlArchivePrefix, followed by the old archive_id, is the archive id
// (archive_register.hostname) of links whose archive_id names no
// archive_register row, and of a registered archive with no hostname.
const lanlArchivePrefix = "lanl-archive-"

// lanlUnknownArchive is the archive id that an earlier version of this
// migration gave every link of an unregistered archive; the check step
// does not count it as a copied archive_register row.
const lanlUnknownArchive = "lanl-unknown-archive"

// sqlUnregistered selects the links rows whose archive_id names no
// archive_register row (alias l); a NULL archive_id names no archive and
// is not one of them (see linkCopied).
const sqlUnregistered = "FROM links l LEFT JOIN archive_register a ON a.id = l.archive_id WHERE a.id IS NULL AND l.archive_id IS NOT NULL"

// lanlTables are the tables of the LANL schema, in copy order.
var lanlTables = []string{"archive_register", "linkmaster", "links", "jobs"}

// lanlStep is one step of the migration: its name (recorded when done),
// what it does, and its statements.
type lanlStep struct {
	name, what string
	stmts      []string
	run        func(ctx context.Context, conn *sql.Conn) error // instead of stmts
	batch      *lanlBatch                                      // instead of stmts
}

// lanlBatch is a copy run in batches by ranges of the old table's id
// (links: every row of one id in one batch, so that the parts of an (id,
// mdate, archive) are numbered together). stmt has one %s, the range
// condition on key.
type lanlBatch struct {
	table, key, stmt string
}

func lanlSteps() ([]lanlStep, error) {
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	var create []string
	for _, s := range ms[0].stmts {
		for _, t := range lanlTables {
			s = strings.Replace(s, "CREATE TABLE IF NOT EXISTS "+t+" (", "CREATE TABLE IF NOT EXISTS "+t+"_mk (", 1)
		}
		create = append(create, s)
	}
	return []lanlStep{
		{name: "create", what: "create linkmaster_mk, links_mk, jobs_mk, archive_register_mk with schema/0001_init.sql", stmts: create},
		{name: "copy-archive_register", what: "copy archive_register (hostname kept as the archive id; an archive_id of links that names no archive registered, with its id, as " + lanlArchivePrefix + "<id>)", stmts: []string{
			`INSERT IGNORE INTO archive_register_mk (id, hostname, timegate, timemap)
SELECT id, COALESCE(NULLIF(hostname, ''), CONCAT('` + lanlArchivePrefix + `', id)), timegate, timemap FROM archive_register`,
			`INSERT IGNORE INTO archive_register_mk (id, hostname)
SELECT DISTINCT l.archive_id, CONCAT('` + lanlArchivePrefix + `', l.archive_id) ` + sqlUnregistered,
		}},
		{name: "copy-linkmaster", what: "copy linkmaster (status N where searched and no link is copied)", batch: &lanlBatch{table: "linkmaster", key: "m.id", stmt: `INSERT IGNORE INTO linkmaster_mk (url, id, reqtime, numreq, updtime, status)
SELECT COALESCE(m.url, ''), LOWER(m.id), ` + dateOrNull("m.reqtime") + `, COALESCE(m.numreq, 0), ` + dateOrNull("m.updtime") + `,
  CASE WHEN m.updtime IS NOT NULL AND NOT ` + zeroDate("m.updtime") + ` AND NOT EXISTS (SELECT 1 FROM links l WHERE l.id = m.id AND ` + linkCopied("l") + `) THEN 'N' END
FROM linkmaster m WHERE %s`}},
		{name: "copy-links", what: "copy links (those with a datetime, a URI-M and an archive; part renumbered 0, 1, ... per id, mdate and archive)", batch: &lanlBatch{table: "links", key: "l.id", stmt: `INSERT IGNORE INTO links_mk (id, mdate, archive_id, href, type, rel, part)
SELECT LOWER(l.id), l.mdate, l.archive_id, l.href, l.type, l.rel,
  ROW_NUMBER() OVER (PARTITION BY l.id, l.mdate, l.archive_id ORDER BY l.part, l.href) - 1
FROM links l WHERE ` + linkCopied("l") + ` AND %s`}},
		{name: "copy-jobs", what: "copy jobs (those with a URI-R; hash key, claim time of claimed jobs, refresh priority; one job per URI-R, the others to jobs_lanl_duplicates)", stmts: []string{
			`INSERT IGNORE INTO jobs_mk (id, url, reqtime, process_id, claimtime, compltime, priority, hashkey)
SELECT j.id, j.url, COALESCE(` + dateOrNull("j.reqtime") + `, ` + dateOrNull("j.compltime") + `, UTC_TIMESTAMP()), CAST(j.process_id AS CHAR),
  CASE WHEN j.process_id IS NOT NULL AND (` + dateOrNull("j.compltime") + `) IS NULL THEN COALESCE(` + dateOrNull("j.reqtime") + `, UTC_TIMESTAMP()) END,
  ` + dateOrNull("j.compltime") + `, '2', MD5(REGEXP_REPLACE(j.url, '^([A-Za-z][A-Za-z0-9+.-]*:)?//', ''))
FROM jobs j WHERE ` + hasURI("j.url") + ` ORDER BY (` + dateOrNull("j.compltime") + `) IS NOT NULL, j.id`,
			`CREATE TABLE IF NOT EXISTS jobs_lanl_duplicates LIKE jobs`,
			`INSERT IGNORE INTO jobs_lanl_duplicates SELECT j.* FROM jobs j WHERE ` + hasURI("j.url") + ` AND j.id NOT IN (SELECT id FROM jobs_mk)`,
		}},
		{name: "check", what: "compare row counts: every old row is in a new table (links: every row with a datetime, a URI-M and an archive; jobs: every row with a URI-R)", run: lanlCheckCounts},
		{name: "swap", what: "RENAME TABLE: the new tables in place, the old ones kept as *_lanl", stmts: []string{
			`RENAME TABLE linkmaster TO linkmaster_lanl, linkmaster_mk TO linkmaster, links TO links_lanl, links_mk TO links,
  jobs TO jobs_lanl, jobs_mk TO jobs, archive_register TO archive_register_lanl, archive_register_mk TO archive_register`,
		}},
	}, nil
}

// lanlCheck is what the check step compares for one table: the old and
// new row counts, the first old key missing from the new table, and what
// undoes the table's copy.
type lanlCheck struct {
	table, step, old, new, firstMissing string
	undo                                []string
}

var lanlChecks = []lanlCheck{
	{table: "archive_register", step: "copy-archive_register",
		old: "SELECT (SELECT COUNT(*) FROM archive_register) + (SELECT COUNT(DISTINCT l.archive_id) " + sqlUnregistered + ")",
		new: "SELECT COUNT(*) FROM archive_register_mk WHERE hostname <> '" + lanlUnknownArchive + "'",
		firstMissing: `SELECT k FROM (
SELECT o.id, CONCAT('id ', o.id, ' (hostname ', COALESCE(o.hostname, 'NULL'), ')') AS k FROM archive_register o LEFT JOIN archive_register_mk n ON n.id = o.id WHERE n.id IS NULL
UNION ALL
SELECT DISTINCT l.archive_id, CONCAT('id ', l.archive_id, ' (of links, not registered: ` + lanlArchivePrefix + `', l.archive_id, '; is that hostname taken?)') FROM links l LEFT JOIN archive_register a ON a.id = l.archive_id LEFT JOIN archive_register_mk n ON n.id = l.archive_id WHERE a.id IS NULL AND n.id IS NULL AND l.archive_id IS NOT NULL
) m ORDER BY id LIMIT 1`,
		undo: []string{"TRUNCATE TABLE archive_register_mk"}},
	{table: "linkmaster", step: "copy-linkmaster",
		old:          "SELECT COUNT(*) FROM linkmaster",
		new:          "SELECT COUNT(*) FROM linkmaster_mk",
		firstMissing: "SELECT CONCAT('id ', o.id, ' (url ', COALESCE(o.url, 'NULL'), ')') FROM linkmaster o LEFT JOIN linkmaster_mk n ON n.id = LOWER(o.id) WHERE n.id IS NULL ORDER BY o.id LIMIT 1",
		undo:         []string{"TRUNCATE TABLE linkmaster_mk"}},
	{table: "links", step: "copy-links",
		old: "SELECT COUNT(*) FROM links l WHERE " + linkCopied("l"),
		new: "SELECT COUNT(*) FROM links_mk",
		firstMissing: `SELECT CONCAT('id ', o.id, ' (', o.c, ' rows with a datetime, a URI-M and an archive, ', COALESCE(n.c, 0), ' copied)')
FROM (SELECT LOWER(l.id) AS id, COUNT(*) AS c FROM links l WHERE ` + linkCopied("l") + ` GROUP BY LOWER(l.id)) o
LEFT JOIN (SELECT id, COUNT(*) AS c FROM links_mk GROUP BY id) n ON n.id = o.id
WHERE n.c IS NULL OR n.c <> o.c ORDER BY o.id LIMIT 1`,
		undo: []string{"TRUNCATE TABLE links_mk"}},
	{table: "jobs", step: "copy-jobs",
		old:          "SELECT COUNT(*) FROM jobs WHERE " + hasURI("url"),
		new:          "SELECT (SELECT COUNT(*) FROM jobs_mk) + (SELECT COUNT(*) FROM jobs_lanl_duplicates)",
		firstMissing: "SELECT CONCAT('id ', o.id, ' (url ', o.url, ')') FROM jobs o WHERE " + hasURI("o.url") + " AND o.id NOT IN (SELECT id FROM jobs_mk) AND o.id NOT IN (SELECT id FROM jobs_lanl_duplicates) ORDER BY o.id LIMIT 1",
		undo:         []string{"TRUNCATE TABLE jobs_mk", "TRUNCATE TABLE jobs_lanl_duplicates"}},
}

// lanlCheckCounts fails when a new table holds fewer or more rows than
// its old one (archive_register: with one row per archive_id of links
// not registered; links: the old rows with a datetime, a URI-M and an archive; jobs:
// the old rows with a URI-R, against jobs_mk with jobs_lanl_duplicates),
// naming the first old key the copy lacks, and
// undoes that table's copy (lanlChecks' undo; its step and batch progress
// unrecorded) so that the next run copies it again.
func lanlCheckCounts(ctx context.Context, conn *sql.Conn) error {
	count := func(q string) (int64, error) {
		var n int64
		err := conn.QueryRowContext(ctx, q).Scan(&n)
		return n, err
	}
	for _, c := range lanlChecks {
		o, err := count(c.old)
		if err != nil {
			return fmt.Errorf("count %s: %w", c.table, err)
		}
		n, err := count(c.new)
		if err != nil {
			return fmt.Errorf("count new %s: %w", c.table, err)
		}
		if n == o {
			continue
		}
		key := "none found (the new table holds rows the old one lacks: rows deleted from " + c.table + " during the copy?)"
		var k sql.NullString
		if err := conn.QueryRowContext(ctx, c.firstMissing).Scan(&k); err == nil && k.Valid {
			key = k.String
		} else if err != nil && !errors.Is(err, sql.ErrNoRows) {
			key = "not found: " + err.Error()
		}
		undo := append(slices.Clone(c.undo),
			"DELETE FROM mementokit_lanl_migration WHERE step = '"+c.step+"'",
			"DELETE FROM mementokit_lanl_progress WHERE step = '"+c.step+"'")
		var undone error
		for _, u := range undo {
			if _, err := conn.ExecContext(ctx, u); err != nil {
				var me *mysql.MySQLError
				if errors.As(err, &me) && me.Number == 1146 { // no progress table: no batches recorded
					continue
				}
				undone = fmt.Errorf("%s: %w", u, err)
				break
			}
		}
		msg := fmt.Sprintf("table %s: %d rows, %d copied; first differing key: %s: nothing replaced, the old tables are untouched", c.table, o, n, key)
		if undone != nil {
			return fmt.Errorf("%s; undoing the copy of %s failed (%w): empty %s_mk and delete step %s from mementokit_lanl_migration and mementokit_lanl_progress by hand", msg, c.table, undone, c.table, c.step)
		}
		return fmt.Errorf("%s; the copy of %s is undone and runs again when the database is opened again", msg, c.table)
	}
	return nil
}

// lanlKind counts the old rows of one kind that the migration does not
// copy as they are (see the top of this file), with the first one's id
// (the smallest; "" when none).
type lanlKind struct {
	rows  int64
	first string
}

// lanlArchiveRows is an archive_id of links that names no archive_register
// row, with the number of links rows that hold it.
type lanlArchiveRows struct{ id, rows int64 }

// lanlSurvey is what the old tables hold that the migration does not copy
// as it is, counted before the copy (lanlSurveyOf) and reported in the
// plan (MigrationPlan), in warnings before the copy and in the log's last
// record after it.
type lanlSurvey struct {
	linksZeroMdate lanlKind // links rows whose mdate is a zero date: not copied
	linksNoURIM    lanlKind // links rows with a datetime and no href (NULL or ''): not copied
	linksNoArchive lanlKind // links rows with a datetime and a href and a NULL archive_id: not copied
	masterZero     lanlKind // linkmaster rows with a zero reqtime or updtime: copied as NULL
	masterNoURIR   lanlKind // linkmaster rows with no url (NULL or ''): copied with url ''
	masterBadKeys  lanlKind // linkmaster rows whose id is no MD5: copied as they are
	jobsNoURIR     lanlKind // jobs rows with no url (NULL or ''): not copied
	jobsZeroReq    lanlKind // jobs rows with a URI-R and a zero reqtime: compltime or the migration's time
	jobsZeroCompl  lanlKind // jobs rows with a URI-R and a zero compltime: copied as open (NULL)
	unregistered   []lanlArchiveRows
}

// lanlSurveyOf reads the survey of the old tables: one scan of each of
// links, linkmaster and jobs, and one grouped join of links with
// archive_register.
func lanlSurveyOf(ctx context.Context, conn *sql.Conn) (lanlSurvey, error) {
	var s lanlSurvey
	type kind struct {
		cond string // SQL condition on the table's row
		k    *lanlKind
	}
	kinds := func(table string, ks ...kind) error {
		var sel []string
		var dest []any
		for _, kd := range ks {
			c, k := kd.cond, kd.k
			sel = append(sel, "COALESCE(SUM(COALESCE("+c+", FALSE)), 0)", "COALESCE(MIN(CASE WHEN "+c+" THEN id END), '')")
			dest = append(dest, &k.rows, &k.first)
		}
		q := "SELECT " + strings.Join(sel, ", ") + " FROM " + table
		if err := conn.QueryRowContext(ctx, q).Scan(dest...); err != nil {
			return fmt.Errorf("survey %s: %w", table, err)
		}
		return nil
	}
	zeroMdate, noURIM := zeroDate("mdate"), "NOT "+zeroDate("mdate")+" AND NOT "+hasURI("href")
	noArchive := "NOT " + zeroDate("mdate") + " AND " + hasURI("href") + " AND archive_id IS NULL"
	if err := kinds("links", kind{zeroMdate, &s.linksZeroMdate}, kind{noURIM, &s.linksNoURIM}, kind{noArchive, &s.linksNoArchive}); err != nil {
		return s, err
	}
	zeroTimes, noURIR, badKey := zeroDate("reqtime")+" OR "+zeroDate("updtime"), "NOT "+hasURI("url"), "LOWER(id) NOT REGEXP '^[0-9a-f]{32}$'"
	if err := kinds("linkmaster", kind{zeroTimes, &s.masterZero}, kind{noURIR, &s.masterNoURIR}, kind{badKey, &s.masterBadKeys}); err != nil {
		return s, err
	}
	zeroReq, zeroCompl := hasURI("url")+" AND "+zeroDate("reqtime"), hasURI("url")+" AND "+zeroDate("compltime")
	if err := kinds("jobs", kind{noURIR, &s.jobsNoURIR}, kind{zeroReq, &s.jobsZeroReq}, kind{zeroCompl, &s.jobsZeroCompl}); err != nil {
		return s, err
	}
	rows, err := conn.QueryContext(ctx, "SELECT l.archive_id, COUNT(*) "+sqlUnregistered+" GROUP BY l.archive_id ORDER BY l.archive_id")
	if err != nil {
		return s, fmt.Errorf("survey links of unregistered archives: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var a lanlArchiveRows
		if err := rows.Scan(&a.id, &a.rows); err != nil {
			return s, err
		}
		s.unregistered = append(s.unregistered, a)
	}
	return s, rows.Err()
}

// unregisteredText lists the unregistered archive ids with their links
// rows ("9 (1 row), 12 (4 rows)"), the first 20, then how many more.
func (s lanlSurvey) unregisteredText() string {
	var parts []string
	var more, moreRows int64
	for i, a := range s.unregistered {
		if i >= 20 {
			more, moreRows = more+1, moreRows+a.rows
			continue
		}
		parts = append(parts, fmt.Sprintf("%d (%s)", a.id, rowsText(a.rows)))
	}
	if more > 0 {
		parts = append(parts, fmt.Sprintf("and %d more ids (%s)", more, rowsText(moreRows)))
	}
	return strings.Join(parts, ", ")
}

func rowsText(n int64) string {
	if n == 1 {
		return "1 row"
	}
	return fmt.Sprintf("%d rows", n)
}

// attrs are the survey's counts as log attributes (the first ids where
// a count is not 0).
func (s lanlSurvey) attrs() []any {
	var unreg int64
	for _, a := range s.unregistered {
		unreg += a.rows
	}
	out := []any{}
	for _, k := range []struct {
		name, first string
		k           lanlKind
	}{
		{"links_zero_mdate", "first_links_id", s.linksZeroMdate},
		{"links_no_urim", "first_links_no_urim_id", s.linksNoURIM},
		{"links_no_archive", "first_links_no_archive_id", s.linksNoArchive},
		{"linkmaster_zero_times", "", s.masterZero},
		{"linkmaster_no_urir", "first_linkmaster_no_urir_id", s.masterNoURIR},
		{"jobs_no_urir", "first_jobs_no_urir_id", s.jobsNoURIR},
		{"jobs_zero_reqtime", "first_jobs_zero_reqtime_id", s.jobsZeroReq},
		{"jobs_zero_compltime", "first_jobs_zero_compltime_id", s.jobsZeroCompl},
	} {
		out = append(out, slog.Int64(k.name, k.k.rows))
		if k.first != "" && k.k.rows > 0 {
			out = append(out, slog.String(k.first, k.k.first))
		}
	}
	out = append(out, slog.Int("unregistered_archive_ids", len(s.unregistered)), slog.Int64("unregistered_archive_links", unreg))
	if len(s.unregistered) > 0 {
		out = append(out, slog.String("unregistered_archives", s.unregisteredText()))
	}
	return out
}

// warn logs a warning for each kind of row the survey found.
func (s lanlSurvey) warn(log *slog.Logger) {
	if s.linksZeroMdate.rows+s.masterZero.rows+s.jobsZeroReq.rows+s.jobsZeroCompl.rows > 0 {
		log.Warn("mysql cache: LANL rows with zero dates (0000-00-00): links rows with one are not copied (kept in links_lanl), linkmaster reqtime and updtime with one are copied as NULL, a jobs reqtime with one as the job's compltime or the migration's time, a jobs compltime with one as NULL (the job is open and runs again)",
			slog.Int64("links_zero_mdate", s.linksZeroMdate.rows), slog.String("first_links_id", s.linksZeroMdate.first),
			slog.Int64("linkmaster_zero_times", s.masterZero.rows), slog.String("first_linkmaster_id", s.masterZero.first),
			slog.Int64("jobs_zero_reqtime", s.jobsZeroReq.rows), slog.Int64("jobs_zero_compltime", s.jobsZeroCompl.rows),
			slog.String("first_jobs_id", cmp.Or(s.jobsZeroReq.first, s.jobsZeroCompl.first)))
	}
	if s.linksNoURIM.rows+s.masterNoURIR.rows+s.jobsNoURIR.rows > 0 {
		log.Warn("mysql cache: LANL rows with no URI (NULL or empty): links rows with no URI-M (href) are no memento and are not copied (kept in links_lanl), jobs with no URI-R (url) are not copied (kept in jobs_lanl), linkmaster rows with no URI-R (url) are copied with url '' (found by their hash key, skipped by stale scans until a search stores their URI-R)",
			slog.Int64("links_no_urim", s.linksNoURIM.rows), slog.String("first_links_id", s.linksNoURIM.first),
			slog.Int64("linkmaster_no_urir", s.masterNoURIR.rows), slog.String("first_linkmaster_id", s.masterNoURIR.first),
			slog.Int64("jobs_no_urir", s.jobsNoURIR.rows), slog.String("first_jobs_id", s.jobsNoURIR.first))
	}
	if k := s.linksNoArchive; k.rows > 0 {
		log.Warn("mysql cache: LANL links with no archive (archive_id NULL): not copied (kept in links_lanl), no archive registered for them",
			slog.Int64("links_no_archive", k.rows), slog.String("first_links_id", k.first))
	}
	if len(s.unregistered) > 0 {
		log.Warn("mysql cache: LANL links whose archive_id names no archive_register row: each such id is registered as the archive "+lanlArchivePrefix+"<id> and its links are copied",
			slog.Int("archive_ids", len(s.unregistered)), slog.String("links_per_id", s.unregisteredText()))
	}
	if k := s.masterBadKeys; k.rows > 0 {
		log.Warn("mysql cache: LANL linkmaster rows whose id is no MD5 (32 hex digits): copied as they are, skipped by stale scans", "rows", k.rows, "first_id", k.first)
	}
}

// planNotes is what the plan line of the copy of table adds: the survey's
// counts of that table's rows and what the copy does with them.
func (s lanlSurvey) planNotes(table string) string {
	var b strings.Builder
	note := func(k lanlKind, format string) {
		if k.rows > 0 {
			fmt.Fprintf(&b, " ("+format+")", k.rows, k.first)
		}
	}
	switch table {
	case "archive_register":
		if len(s.unregistered) > 0 {
			fmt.Fprintf(&b, " (%d archive_id of links not in archive_register, each registered as %s<id> with its links copied: %s)", len(s.unregistered), lanlArchivePrefix, s.unregisteredText())
		}
	case "linkmaster":
		if s.masterZero.rows > 0 {
			fmt.Fprintf(&b, " (%d with a zero reqtime or updtime, 0000-00-00, copied as NULL)", s.masterZero.rows)
		}
		note(s.masterNoURIR, "%d with no URI-R (url NULL or empty), copied with url '': found by their hash key, skipped by stale scans until a search stores their URI-R; the first id %s")
		note(s.masterBadKeys, "%d whose id is no MD5, copied as they are and skipped by stale scans; the first id %s")
	case "links":
		note(s.linksZeroMdate, "%d with a zero mdate, 0000-00-00, not copied: kept in links_lanl; the first id %s")
		note(s.linksNoURIM, "%d with a datetime and no URI-M (href NULL or empty), not copied: kept in links_lanl; the first id %s")
		note(s.linksNoArchive, "%d with a datetime and a URI-M and no archive (archive_id NULL), not copied: kept in links_lanl; the first id %s")
	case "jobs":
		note(s.jobsNoURIR, "%d with no URI-R (url NULL or empty), not copied: kept in jobs_lanl; the first id %s")
		note(s.jobsZeroReq, "%d with a zero reqtime, 0000-00-00, copied with the job's compltime, or the migration's time, as reqtime; the first id %s")
		note(s.jobsZeroCompl, "%d with a zero compltime, 0000-00-00, copied as open (compltime NULL): they run again; the first id %s")
	}
	return b.String()
}

// tableColumns returns the columns of each table of the current database
// ("table.column", lower case).
func tableColumns(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (map[string]bool, map[string]bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT TABLE_NAME, COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()`)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, tables := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return nil, nil, err
		}
		t = strings.ToLower(t)
		tables[t] = true
		cols[t+"."+strings.ToLower(c)] = true
	}
	return cols, tables, rows.Err()
}

// lanlNeeded reports whether the database holds LANL tables still to
// migrate: a linkmaster without the status column, or a migration
// recorded as started and not swapped.
func lanlNeeded(ctx context.Context, conn *sql.Conn) (bool, map[string]bool, error) {
	cols, tables, err := tableColumns(ctx, conn)
	if err != nil {
		return false, nil, err
	}
	done, err := lanlDone(ctx, conn, tables)
	if err != nil {
		return false, nil, err
	}
	switch {
	case done["swap"]:
		return false, done, nil
	case tables["linkmaster"] && !cols["linkmaster.status"]:
		return true, done, nil
	case tables["linkmaster_lanl"] && tables["linkmaster"] && cols["linkmaster.status"] && !tables["linkmaster_mk"]:
		// Swapped, not recorded (cut off between the rename and the record).
		done["swap"] = true
		return true, done, nil
	}
	return false, done, nil
}

func lanlDone(ctx context.Context, conn *sql.Conn, tables map[string]bool) (map[string]bool, error) {
	done := map[string]bool{}
	if !tables["mementokit_lanl_migration"] {
		return done, nil
	}
	rows, err := conn.QueryContext(ctx, "SELECT step FROM mementokit_lanl_migration")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		done[s] = true
	}
	return done, rows.Err()
}

// lanlRun is how migrateLANL runs: its log, the rows of one batch, and,
// for tests, where it ends with errLANLStopped as a crash would (after
// the named step, or after stopBatches batches of a batched step).
type lanlRun struct {
	log         *slog.Logger
	batchRows   int
	stopAfter   string
	stopBatches int
}

// defaultMigrateBatchRows is Options.MigrateBatchRows when 0.
const defaultMigrateBatchRows = 50000

const sqlLANLProgress = `CREATE TABLE IF NOT EXISTS mementokit_lanl_progress (
  step        VARCHAR(64) NOT NULL PRIMARY KEY,
  last_id     VARBINARY(255) NOT NULL,
  rows_copied BIGINT NOT NULL,
  batches     BIGINT NOT NULL
) ENGINE=InnoDB`

// lanlProgress returns the last id a batched step committed, the rows and
// batches it copied so far (ok false: none yet).
func lanlProgress(ctx context.Context, conn *sql.Conn, step string) (last string, rows, batches int64, ok bool, err error) {
	err = conn.QueryRowContext(ctx, "SELECT last_id, rows_copied, batches FROM mementokit_lanl_progress WHERE step = ?", step).Scan(&last, &rows, &batches)
	if errors.Is(err, sql.ErrNoRows) {
		return "", 0, 0, false, nil
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) && me.Number == 1146 { // no such table: nothing copied yet
		return "", 0, 0, false, nil
	}
	return last, rows, batches, err == nil, err
}

// runBatches copies st.batch's table in batches of size rows by ranges of
// its id, each batch in one transaction with its progress record,
// resuming after the last batch committed. It returns the rows copied by
// this run.
func runBatches(ctx context.Context, conn *sql.Conn, st lanlStep, r lanlRun) (int64, error) {
	b := st.batch
	if _, err := conn.ExecContext(ctx, sqlLANLProgress); err != nil {
		return 0, err
	}
	last, copied, batches, resumed, err := lanlProgress(ctx, conn, st.name)
	if err != nil {
		return 0, err
	}
	var total int64
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+b.table).Scan(&total); err != nil {
		return 0, err
	}
	if resumed {
		r.log.Info("mysql cache: LANL copy resumes after the last batch committed", "step", st.name, "after_id", last, "rows_copied", copied, "of", total, "batches", batches)
	}
	var run, runBatches int64
	for {
		start := time.Now()
		// The batch ends at the id batchRows rows on; every row of that id
		// is in the batch.
		q, args := "SELECT id FROM "+b.table+" ORDER BY id LIMIT 1 OFFSET ?", []any{r.batchRows - 1}
		if resumed {
			q, args = "SELECT id FROM "+b.table+" WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?", []any{last, r.batchRows - 1}
		}
		var hi sql.NullString
		if err := conn.QueryRowContext(ctx, q, args...).Scan(&hi); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return run, fmt.Errorf("batch %d: find its end: %w", batches+1, err)
		}
		var conds []string
		args = nil
		if resumed {
			conds, args = append(conds, b.key+" > ?"), append(args, last)
		}
		if hi.Valid {
			conds, args = append(conds, b.key+" <= ?"), append(args, hi.String)
		}
		if len(conds) == 0 {
			conds = []string{"TRUE"}
		}
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return run, err
		}
		res, err := tx.ExecContext(ctx, fmt.Sprintf(b.stmt, strings.Join(conds, " AND ")), args...)
		var n int64
		if err == nil {
			n, err = res.RowsAffected()
		}
		if err == nil && hi.Valid {
			_, err = tx.ExecContext(ctx, `INSERT INTO mementokit_lanl_progress (step, last_id, rows_copied, batches) VALUES (?, ?, ?, ?)
ON DUPLICATE KEY UPDATE last_id = VALUES(last_id), rows_copied = VALUES(rows_copied), batches = VALUES(batches)`, st.name, hi.String, copied+n, batches+1)
		}
		if err == nil {
			err = tx.Commit()
		} else {
			tx.Rollback()
		}
		if err != nil {
			from := "the first id"
			if resumed {
				from = "id " + last
			}
			return run, fmt.Errorf("batch %d (after %s): %w", batches+1, from, err)
		}
		run, copied, batches, runBatches = run+n, copied+n, batches+1, runBatches+1
		r.log.Info("mysql cache: LANL copy batch committed", "step", st.name, "batch", batches, "rows", n, "rows_copied", copied, "of", total, "last_id", hi.String, "elapsed", time.Since(start))
		if !hi.Valid {
			return run, nil
		}
		last, resumed = hi.String, true
		if r.stopBatches > 0 && runBatches >= int64(r.stopBatches) {
			return run, errLANLStopped
		}
	}
}

// migrateLANL runs the steps of the LANL migration not yet done, on conn
// (which holds the migration lock), recording each.
func migrateLANL(ctx context.Context, conn *sql.Conn, r lanlRun) error {
	need, done, err := lanlNeeded(ctx, conn)
	if err != nil || !need {
		return err
	}
	steps, err := lanlSteps()
	if err != nil {
		return err
	}
	if done["swap"] {
		// The rename happened, its record did not: record it.
		_, err := conn.ExecContext(ctx, "INSERT IGNORE INTO mementokit_lanl_migration (step, done) VALUES ('swap', ?)", time.Now().UTC().Truncate(time.Second))
		return err
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS mementokit_lanl_migration (
  step VARCHAR(64) NOT NULL PRIMARY KEY,
  done DATETIME NOT NULL
) ENGINE=InnoDB`); err != nil {
		return fmt.Errorf("lanl migration: %w", err)
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.batchRows <= 0 {
		r.batchRows = defaultMigrateBatchRows
	}
	log := r.log
	// What is migrated, before anything changes: the old tables with their
	// row counts, the steps to run and those already done (a resumed
	// migration).
	attrs := []any{}
	for _, t := range lanlTables {
		var n int64
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err == nil {
			attrs = append(attrs, slog.Int64(t+"_rows", n))
		}
	}
	var todo, already []string
	for _, st := range steps {
		if done[st.name] {
			already = append(already, st.name)
		} else {
			todo = append(todo, st.name)
		}
	}
	survey, err := lanlSurveyOf(ctx, conn)
	if err != nil {
		return fmt.Errorf("lanl migration: %w", err)
	}
	survey.warn(log)
	attrs = append(attrs, slog.String("tables", strings.Join(lanlTables, ",")), slog.String("steps", strings.Join(todo, ",")))
	if len(already) > 0 {
		attrs = append(attrs, slog.String("resuming_after", strings.Join(already, ",")))
	}
	log.Info("mysql cache: migrating the Time Travel aggregator's tables (conf/agg_tables.sql) to this schema, keeping every row", attrs...)
	begin := time.Now()
	for _, st := range steps {
		if done[st.name] {
			continue
		}
		start := time.Now()
		var rows int64
		switch {
		case st.run != nil:
			err = st.run(ctx, conn)
		case st.batch != nil:
			rows, err = runBatches(ctx, conn, st, r)
			if errors.Is(err, errLANLStopped) {
				return err
			}
		}
		for i := 0; err == nil && i < len(st.stmts); i++ {
			var res sql.Result
			res, err = conn.ExecContext(ctx, st.stmts[i])
			if err != nil {
				err = fmt.Errorf("statement %d: %w", i+1, err)
			} else if n, e := res.RowsAffected(); e == nil {
				rows += n
			}
		}
		if err == nil {
			_, err = conn.ExecContext(ctx, "INSERT IGNORE INTO mementokit_lanl_migration (step, done) VALUES (?, ?)", st.name, time.Now().UTC().Truncate(time.Second))
		}
		if err != nil {
			return fmt.Errorf("lanl migration, step %s (%s): %w; run again to resume", st.name, st.what, err)
		}
		stepAttrs := []any{slog.String("step", st.name), slog.String("what", st.what), slog.Duration("elapsed", time.Since(start))}
		if strings.HasPrefix(st.name, "copy-") {
			stepAttrs = append(stepAttrs, slog.Int64("rows_copied", rows))
		}
		log.Info("mysql cache: LANL table migration step done", stepAttrs...)
		if st.name == r.stopAfter {
			return errLANLStopped
		}
	}
	log.Info("mysql cache: LANL table migration done; the old tables are kept as linkmaster_lanl, links_lanl, jobs_lanl, archive_register_lanl (and jobs_lanl_duplicates) for the operator to check and drop; cleanup counts the migrated rows' ages from now, so none is deleted before one full retention period has passed",
		append(survey.attrs(), slog.Duration("elapsed", time.Since(begin)))...)
	return nil
}

var errLANLStopped = errors.New("lanl migration stopped after the step asked")

// MigrationPlan connects to the database dsn names and returns the steps
// Open would run on it, one line each, without changing anything: the
// steps of the migration from the Time Travel aggregator's tables
// (conf/agg_tables.sql) not yet done, with the row counts of the tables
// they copy and, in parentheses, the rows each copy does not take as they
// are, counted, with the first id and what the copy does with them (zero
// dates, NULL or empty URIs, archive ids not registered, ids that are no
// MD5; see the top of lanl.go), and the schema versions not yet applied.
// An empty plan means the database is up to date. Errors are Open's (*cache.Error for an
// unreachable server, an unknown database, a refused user).
func MigrationPlan(ctx context.Context, dsn string) ([]string, error) {
	c, err := connect(ctx, dsn, nil)
	if err != nil {
		return nil, err
	}
	defer c.db.Close()
	conn, err := c.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var plan []string
	need, done, err := lanlNeeded(ctx, conn)
	if err != nil {
		return nil, err
	}
	if need {
		steps, err := lanlSteps()
		if err != nil {
			return nil, err
		}
		survey, err := lanlSurveyOf(ctx, conn)
		if err != nil {
			return nil, err
		}
		counts := map[string]int64{}
		for _, t := range lanlTables {
			var n int64
			if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+t).Scan(&n); err == nil {
				counts[t] = n
			}
		}
		for _, st := range steps {
			if done[st.name] {
				plan = append(plan, "done: "+st.name)
				continue
			}
			line := "lanl " + st.name + ": " + st.what
			if t, ok := strings.CutPrefix(st.name, "copy-"); ok {
				line += fmt.Sprintf(" [%d rows]", counts[t]) + survey.planNotes(t)
			}
			if st.batch != nil {
				if last, rows, batches, ok, err := lanlProgress(ctx, conn, st.name); err != nil {
					return nil, err
				} else if ok {
					line += fmt.Sprintf(" (resumes after id %s: %d rows copied in %d batches)", last, rows, batches)
				}
			}
			plan = append(plan, line)
		}
	}
	ms, err := migrations()
	if err != nil {
		return nil, err
	}
	var current int
	if err := conn.QueryRowContext(ctx, "SELECT COALESCE(MAX(version), 0) FROM mementokit_schema").Scan(&current); err != nil {
		current = 0 // no table yet
	}
	for _, m := range ms {
		if m.version > current {
			plan = append(plan, fmt.Sprintf("schema %s (version %d)", m.name, m.version))
		}
	}
	return plan, nil
}
