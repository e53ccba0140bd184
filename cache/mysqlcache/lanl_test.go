package mysqlcache_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/mysqltest"
)

// loadLANL creates a database with the Time Travel aggregator's own schema
// (testdata/lanl_agg_tables.sql, conf/agg_tables.sql as LANL ships it,
// read as the mysql client reads it: its "delimiter |" lines included,
// mysqltest.Script) and rows shaped like theirs (testdata/lanl_rows.sql),
// and returns its DSN. The test's database stands for the script's
// "aggregator": the statements that drop, create and select that database
// and the GRANT (which would create the user cache@localhost on the
// shared server) are not sent, ALTER DATABASE names the test's database,
// and the triggers' DEFINER=`cache`@`localhost` is dropped (the triggers
// run as the test's user). Everything else is sent as written.
func loadLANL(t *testing.T) string {
	t.Helper()
	dsn := testDB(t)
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := rawDB(t, dsn).Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	sent := 0
	for _, f := range []string{"testdata/lanl_agg_tables.sql", "testdata/lanl_rows.sql"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := mysqltest.Script(string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, st := range stmts {
			s, lower := st.SQL, strings.ToLower(st.SQL)
			switch {
			case strings.HasPrefix(lower, "drop database"), strings.HasPrefix(lower, "create database"),
				strings.HasPrefix(lower, "use "), strings.HasPrefix(lower, "grant "):
				continue
			case strings.HasPrefix(lower, "alter database aggregator "):
				s = "ALTER DATABASE " + cfg.DBName + s[len("alter database aggregator"):]
			}
			s = strings.ReplaceAll(s, "DEFINER=`cache`@`localhost` ", "")
			if _, err := conn.ExecContext(t.Context(), s); err != nil {
				t.Fatalf("%s:%d: %v\n%s", f, st.Line, err, s)
			}
			sent++
		}
	}
	// 13 of the schema (ALTER DATABASE, 4 tables, 2 keys, 4 indexes, 2
	// triggers) and 4 INSERTs of rows.
	if sent != 17 {
		t.Fatalf("%d statements sent, want 13 of the schema and 4 of rows", sent)
	}
	return dsn
}

// lanlRows is every row of the four tables, as comparable strings:
// linkmaster (url, id, reqtime, numreq, updtime), links (id, mdate, the
// archive's hostname, lanl-archive-<archive_id> for an archive not
// registered, href, type, rel), jobs (id, url, reqtime, claimed by,
// compltime), archive_register without the lanl-archive-<id> rows the
// migration adds. suffix names the tables ("" or "_lanl"); dups adds
// jobs_lanl_duplicates.
func lanlRows(t *testing.T, db *sql.DB, suffix string, dups bool) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	q := func(table, query string) {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatalf("%s: %v", table, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, v := range vals {
				if v.Valid {
					parts = append(parts, v.String)
				} else {
					parts = append(parts, "NULL")
				}
			}
			out[table] = append(out[table], strings.Join(parts, " | "))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	q("linkmaster", "SELECT url, id, reqtime, numreq, updtime FROM linkmaster"+suffix+" ORDER BY id")
	q("links", "SELECT l.id, l.mdate, COALESCE(a.hostname, CONCAT('lanl-archive-', l.archive_id)), l.href, l.type, l.rel FROM links"+suffix+" l LEFT JOIN archive_register"+suffix+" a ON a.id = l.archive_id ORDER BY l.id, l.mdate, l.href")
	jobs := "SELECT id, url, reqtime, process_id, compltime FROM jobs" + suffix
	if dups {
		jobs += " UNION ALL SELECT id, url, reqtime, process_id, compltime FROM jobs_lanl_duplicates"
	}
	q("jobs", jobs+" ORDER BY id")
	q("archive_register", "SELECT id, hostname, timegate, timemap FROM archive_register"+suffix+" WHERE hostname NOT LIKE 'lanl-archive-%' ORDER BY id")
	return out
}

// checkMigrated checks that the migrated tables hold every row of the
// LANL tables (kept as *_lanl) and that the store reads them.
func checkMigrated(t *testing.T, dsn string, before map[string][]string) {
	t.Helper()
	c, err := mysqlcache.Open(t.Context(), dsn, nil)
	if err != nil {
		t.Fatalf("Open after migration: %v", err)
	}
	defer c.Close()
	db := rawDB(t, dsn)
	if d := cmp.Diff(before, lanlRows(t, db, "_lanl", false)); d != "" {
		t.Errorf("the old tables changed (-before +kept):\n%s", d)
	}
	if d := cmp.Diff(before, lanlRows(t, db, "", true)); d != "" {
		t.Errorf("rows in != rows out (-LANL +migrated):\n%s", d)
	}
	ctx := t.Context()
	e, err := c.Get(ctx, cache.URIRKeyOf("http://example.com/"))
	if err != nil || e.Status != cache.StatusFound || len(e.Mementos) != 4 || !e.Updated.Equal(time.Date(2016, 3, 1, 8, 30, 0, 0, time.UTC)) || e.Requests != 12 {
		t.Errorf("Get example.com: %v %+v", err, e)
	} else if m := e.Mementos[2]; m.Archive != "arquivo.pt" && e.Mementos[1].Archive != "arquivo.pt" {
		t.Errorf("Get example.com: archive ids %+v", e.Mementos)
	}
	if e, err := c.Get(ctx, cache.URIRKeyOf("https://nothing.example/")); err != nil || e.Status != cache.StatusNone {
		t.Errorf("Get nothing.example: %v %+v, want none (searched, no link)", err, e)
	}
	if e, err := c.Get(ctx, cache.URIRKeyOf("http://pending.example/")); err != nil || e.Status != cache.StatusPending {
		t.Errorf("Get pending.example: %v %+v, want pending", err, e)
	}
	e, err = c.Get(ctx, cache.URIRKeyOf("http://example.org/page?q=1&x=%20"))
	if err != nil || len(e.Mementos) != 2 || e.Mementos[1].Archive != "lanl-archive-9" {
		t.Errorf("Get example.org: %v %+v, want the link of the unregistered archive 9 kept as lanl-archive-9", err, e)
	}
}

// claimMigrated checks that the open job of pending.example (the older of
// its two) is the one to claim.
func claimMigrated(t *testing.T, dsn string) {
	c, err := mysqlcache.Open(t.Context(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	j, err := c.Claim(t.Context(), "w1", time.Date(2016, 3, 7, 0, 0, 0, 0, time.UTC))
	if err != nil || j.URIR != "http://pending.example/" || j.ID != 2 {
		t.Errorf("Claim: %v %+v, want job 2 of http://pending.example/", err, j)
	}
}

// TestLANLMigration: a database made by LANL's agg_tables.sql, with rows
// shaped like theirs, is migrated in place by Open: rows in, same rows
// out; a second Open changes nothing; MigrationPlan says what Open would
// do, and nothing once done.
func TestLANLMigration(t *testing.T) {
	dsn := loadLANL(t)
	before := lanlRows(t, rawDB(t, dsn), "", false)
	if n := len(before["links"]); n != 6 {
		t.Fatalf("fixture: %d links", n)
	}
	plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lanl create", "lanl copy-archive_register", "lanl copy-linkmaster", "lanl copy-links", "lanl copy-jobs", "lanl check", "lanl swap", "schema 0001_init.sql"}
	if len(plan) != len(want) {
		t.Fatalf("plan:\n%s", strings.Join(plan, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(plan[i], w) {
			t.Errorf("plan line %d = %q, want %s...", i, plan[i], w)
		}
	}
	if !strings.Contains(plan[3], "[6 rows]") || !strings.Contains(plan[4], "[4 rows]") ||
		!strings.HasSuffix(plan[1], "[3 rows] (1 archive_id of links not in archive_register, each registered as lanl-archive-<id> with its links copied: 9 (1 row))") {
		t.Errorf("plan row counts:\n%s", strings.Join(plan, "\n"))
	}
	if after := lanlRows(t, rawDB(t, dsn), "", false); !cmp.Equal(before, after) {
		t.Errorf("MigrationPlan changed the database")
	}
	var logBuf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := mysqlcache.Open(t.Context(), dsn, &mysqlcache.Options{Logger: log})
	if err != nil {
		t.Fatalf("Open of a LANL database: %v", err)
	}
	c.Close()
	checkLANLLog(t, logBuf.String())
	checkMigrated(t, dsn, before)
	// Twice: the second Open (inside checkMigrated) and a third change
	// nothing, and the plan is empty.
	c, err = mysqlcache.Open(t.Context(), dsn, nil)
	if err != nil {
		t.Fatalf("third Open: %v", err)
	}
	c.Close()
	if d := cmp.Diff(before, lanlRows(t, rawDB(t, dsn), "", true)); d != "" {
		t.Errorf("after a third Open (-LANL +now):\n%s", d)
	}
	if plan, err := mysqlcache.MigrationPlan(t.Context(), dsn); err != nil || len(plan) != 0 {
		t.Errorf("plan after migration: %v %q, want none", err, plan)
	}
	claimMigrated(t, dsn)
}

// checkLANLLog: the migration said at info level what it migrates (the
// tables with their row counts, the steps), each step done (copies with
// their rows), and the end.
func checkLANLLog(t *testing.T, log string) {
	t.Helper()
	var start map[string]any
	steps := map[string]map[string]any{}
	done := false
	for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		msg, _ := rec["msg"].(string)
		switch {
		case rec["level"] != "INFO":
		case strings.HasPrefix(msg, "mysql cache: migrating the Time Travel aggregator's tables"):
			start = rec
		case msg == "mysql cache: LANL table migration step done":
			steps[rec["step"].(string)] = rec
		case strings.HasPrefix(msg, "mysql cache: LANL table migration done"):
			done = true
		}
	}
	if start == nil || start["linkmaster_rows"] != 4.0 || start["links_rows"] != 6.0 || start["jobs_rows"] != 4.0 || start["archive_register_rows"] != 3.0 ||
		start["steps"] != "create,copy-archive_register,copy-linkmaster,copy-links,copy-jobs,check,swap" || start["tables"] != "archive_register,linkmaster,links,jobs" {
		t.Errorf("start record %v\nlog:\n%s", start, log)
	}
	if len(steps) != 7 || steps["copy-links"]["rows_copied"] != 6.0 || steps["copy-jobs"]["rows_copied"] != 4.0 || steps["swap"]["what"] == "" {
		t.Errorf("step records %v\nlog:\n%s", steps, log)
	}
	if !done {
		t.Errorf("no end record\nlog:\n%s", log)
	}
}

// TestLANLMigrationResumes: a migration cut off after each step resumes
// where it stopped when the database is opened again, and ends with the
// same rows.
func TestLANLMigrationResumes(t *testing.T) {
	for _, step := range []string{"create", "copy-archive_register", "copy-linkmaster", "copy-links", "copy-jobs", "check", "swap"} {
		t.Run(step, func(t *testing.T) {
			dsn := loadLANL(t)
			before := lanlRows(t, rawDB(t, dsn), "", false)
			_, err := mysqlcache.OpenStoppingLANL(context.Background(), dsn, step)
			if !errors.Is(err, mysqlcache.ErrLANLStopped) {
				t.Fatalf("stopped after %s: err = %v", step, err)
			}
			plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			if step != "swap" && !strings.Contains(strings.Join(plan, "\n"), "done: "+step) {
				t.Errorf("plan after a stop at %s:\n%s", step, strings.Join(plan, "\n"))
			}
			checkMigrated(t, dsn, before)
			claimMigrated(t, dsn)
		})
	}
}

// TestLANLCopyLossStops: a copy that would lose a row (a links row whose
// (id, mdate, archive) the new key cannot tell apart is impossible, so a
// row is removed from the copy by hand) stops before the swap, the old
// tables untouched, with an error naming the table and the first key that
// differs; the copy of that table is undone, so that opening again copies
// it again and finishes with every row.
func TestLANLCopyLossStops(t *testing.T) {
	dsn := loadLANL(t)
	before := lanlRows(t, rawDB(t, dsn), "", false)
	if _, err := mysqlcache.OpenStoppingLANL(t.Context(), dsn, "copy-links"); !errors.Is(err, mysqlcache.ErrLANLStopped) {
		t.Fatal(err)
	}
	db := rawDB(t, dsn)
	var lost string
	if err := db.QueryRow("SELECT id FROM links_mk ORDER BY mdate LIMIT 1").Scan(&lost); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DELETE FROM links_mk ORDER BY mdate LIMIT 1"); err != nil {
		t.Fatal(err)
	}
	_, err := mysqlcache.Open(t.Context(), dsn, nil)
	if err == nil || !strings.Contains(err.Error(), "table links: 6 rows, 5 copied; first differing key: id "+lost+" (4 rows with a datetime, a URI-M and an archive, 3 copied)") ||
		!strings.Contains(err.Error(), "undone") {
		t.Fatalf("Open after a lost row: err = %v", err)
	}
	if d := cmp.Diff(before, lanlRows(t, db, "", false)); d != "" {
		t.Errorf("old tables changed after the refused migration:\n%s", d)
	}
	plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "done: copy-linkmaster") || !strings.Contains(p, "lanl copy-links:") || strings.Contains(p, "done: copy-links") {
		t.Errorf("plan after the refused check:\n%s", p)
	}
	checkMigrated(t, dsn, before)
}

// TestLANLRowsWrittenDuringCopy: rows written to the old tables after
// their copy (the Time Travel aggregator still running) fail the check,
// naming the first new key; the next Open copies those tables again and
// finishes with every row, the new ones included.
func TestLANLRowsWrittenDuringCopy(t *testing.T) {
	dsn := loadLANL(t)
	if _, err := mysqlcache.OpenStoppingLANL(t.Context(), dsn, "copy-jobs"); !errors.Is(err, mysqlcache.ErrLANLStopped) {
		t.Fatal(err)
	}
	db := rawDB(t, dsn)
	for _, q := range []string{
		"INSERT INTO linkmaster (url, id, reqtime, numreq, updtime) VALUES ('late.example/', MD5('late.example/'), '2016-03-07 10:00:00', 1, '2016-03-07 10:00:01')",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('late.example/'), '2003-03-03 03:03:03', 1, 'http://web.archive.org/web/20030303030303/http://late.example/', NULL, 'memento', 0)",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	before := lanlRows(t, db, "", false)
	var late string
	if err := db.QueryRow("SELECT MD5('late.example/')").Scan(&late); err != nil {
		t.Fatal(err)
	}
	_, err := mysqlcache.Open(t.Context(), dsn, nil)
	if err == nil || !strings.Contains(err.Error(), "table linkmaster: 5 rows, 4 copied; first differing key: id "+late+" (url late.example/)") {
		t.Fatalf("Open after rows written during the copy: err = %v", err)
	}
	_, err = mysqlcache.Open(t.Context(), dsn, nil)
	if err == nil || !strings.Contains(err.Error(), "table links: 7 rows, 6 copied; first differing key: id "+late+" (1 rows with a datetime, a URI-M and an archive, 0 copied)") {
		t.Fatalf("second Open: err = %v", err)
	}
	checkMigrated(t, dsn, before)
	c, err := mysqlcache.Open(t.Context(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if e, err := c.Get(t.Context(), cache.URIRKeyOf("http://late.example/")); err != nil || len(e.Mementos) != 1 {
		t.Errorf("Get late.example: %v %+v, want its memento", err, e)
	}
}

// TestLANLZeroDates: links rows whose mdate is 0000-00-00 (MyISAM kept
// them) are not copied as mementos of year 0001: the plan and the log
// count them and name the first id, the old rows stay in links_lanl, and
// a zero linkmaster updtime becomes NULL (pending), counted. A zero jobs
// reqtime becomes the job's compltime, or without one the migration's
// time; a zero jobs compltime becomes NULL (the job is open again); the
// plan, the warning and the last record count both.
func TestLANLZeroDates(t *testing.T) {
	dsn := loadLANL(t)
	db := rawDB(t, dsn)
	for _, q := range []string{
		"INSERT INTO linkmaster (url, id, reqtime, numreq, updtime) VALUES ('zero.example/', MD5('zero.example/'), '2016-03-07 10:00:00', 1, '0000-00-00 00:00:00')",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('zero.example/'), '0000-00-00 00:00:00', 1, 'http://web.archive.org/web/0/http://zero.example/', NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('zero.example/'), '2005-00-00 00:00:00', 2, 'http://arquivo.pt/wayback/2005/http://zero.example/', NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('zero.example/'), '2006-06-06 06:06:06', 1, 'http://web.archive.org/web/20060606060606/http://zero.example/', NULL, 'memento', 0)",
		"INSERT INTO jobs (id, url, reqtime, process_id, compltime) VALUES (20, 'http://zerojob.example/', '0000-00-00 00:00:00', NULL, '2016-03-01 00:00:00')",
		"INSERT INTO jobs (id, url, reqtime, process_id, compltime) VALUES (21, 'http://zerojob2.example/', '0000-00-00 00:00:00', NULL, NULL)",
		"INSERT INTO jobs (id, url, reqtime, process_id, compltime) VALUES (22, 'http://zerocompl.example/', '2016-03-02 00:00:00', 5, '2016-00-00 00:00:00')",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	var zero string
	if err := db.QueryRow("SELECT MD5('zero.example/')").Scan(&zero); err != nil {
		t.Fatal(err)
	}
	plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "[9 rows] (2 with a zero mdate, 0000-00-00, not copied: kept in links_lanl; the first id "+zero+")") ||
		!strings.Contains(p, "[5 rows] (1 with a zero reqtime or updtime, 0000-00-00, copied as NULL)") ||
		!strings.Contains(p, "[7 rows] (2 with a zero reqtime, 0000-00-00, copied with the job's compltime, or the migration's time, as reqtime; the first id 20) (1 with a zero compltime, 0000-00-00, copied as open (compltime NULL): they run again; the first id 22)") {
		t.Errorf("plan:\n%s", p)
	}
	begin := time.Now().UTC().Truncate(time.Second)
	var logBuf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := mysqlcache.Open(t.Context(), dsn, &mysqlcache.Options{Logger: log})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer c.Close()
	var warned, summarized bool
	for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		msg, _ := rec["msg"].(string)
		switch {
		case rec["level"] == "WARN" && strings.Contains(msg, "zero dates"):
			warned = rec["links_zero_mdate"] == 2.0 && rec["linkmaster_zero_times"] == 1.0 && rec["first_links_id"] == zero &&
				rec["jobs_zero_reqtime"] == 2.0 && rec["jobs_zero_compltime"] == 1.0 && rec["first_jobs_id"] == "20"
		case strings.HasPrefix(msg, "mysql cache: LANL table migration done"):
			summarized = rec["links_zero_mdate"] == 2.0 && rec["linkmaster_zero_times"] == 1.0 &&
				rec["jobs_zero_reqtime"] == 2.0 && rec["first_jobs_zero_reqtime_id"] == "20" && rec["jobs_zero_compltime"] == 1.0 && rec["first_jobs_zero_compltime_id"] == "22"
		}
	}
	if !warned || !summarized {
		t.Errorf("zero dates not logged (warning %v, summary %v):\n%s", warned, summarized, logBuf.String())
	}
	var kept, copied int
	if err := db.QueryRow("SELECT COUNT(*) FROM links_lanl WHERE id = ?", zero).Scan(&kept); err != nil || kept != 3 {
		t.Errorf("links_lanl holds %d rows of zero.example (%v), want 3", kept, err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM links WHERE id = ?", zero).Scan(&copied); err != nil || copied != 1 {
		t.Errorf("links holds %d rows of zero.example (%v), want 1", copied, err)
	}
	e, err := c.Get(t.Context(), cache.URIRKeyOf("http://zero.example/"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range e.Mementos {
		if m.Datetime.Year() < 1000 {
			t.Errorf("memento %+v of year %d", m, m.Datetime.Year())
		}
	}
	if len(e.Mementos) > 1 || !e.Updated.IsZero() {
		t.Errorf("zero.example: %+v, want at most its one dated memento and no update time", e)
	}
	type job struct {
		req                   string // rawDB reads DATETIME as text
		claimedBy, claim, end sql.NullString
	}
	jobs := map[int]job{}
	rows, err := db.Query("SELECT id, reqtime, process_id, claimtime, compltime FROM jobs WHERE id IN (20, 21, 22)")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var j job
		if err := rows.Scan(&id, &j.req, &j.claimedBy, &j.claim, &j.end); err != nil {
			t.Fatal(err)
		}
		jobs[id] = j
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	const march1, march2 = "2016-03-01 00:00:00", "2016-03-02 00:00:00"
	if j := jobs[20]; j.req != march1 || j.end.String != march1 {
		t.Errorf("job 20 (zero reqtime, completed): %+v, want reqtime = compltime = 2016-03-01", j)
	}
	req21, err := time.Parse(time.DateTime, jobs[21].req)
	if j := jobs[21]; err != nil || req21.Before(begin) || req21.After(time.Now().Add(time.Second)) || j.end.Valid {
		t.Errorf("job 21 (zero reqtime, open): %+v (%v), want the migration's time (after %v) and open", j, err, begin)
	}
	if j := jobs[22]; j.req != march2 || j.end.Valid || j.claimedBy.String != "5" || j.claim.String != march2 {
		t.Errorf("job 22 (zero compltime, held by process 5): %+v, want open, claimed by 5 at its reqtime", j)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs_lanl WHERE id IN (20, 21, 22)"); n != 3 {
		t.Errorf("jobs_lanl keeps %d of the 3 jobs with zero dates", n)
	}
}
