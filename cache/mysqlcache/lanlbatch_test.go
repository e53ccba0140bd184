package mysqlcache_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/mementokit/mementokit/cache/mysqlcache"
)

// loadLANLLarge is loadLANL with, generated in SQL (MariaDB's sequence
// tables), 14,000 more linkmaster rows, 15 links each for 12,000 of them
// (180,000 rows, over the three archives), and 5,000 completed jobs.
func loadLANLLarge(t *testing.T) string {
	t.Helper()
	dsn := loadLANL(t)
	db := rawDB(t, dsn)
	for _, s := range []string{
		`INSERT INTO linkmaster (url, id, reqtime, numreq, updtime)
SELECT CONCAT('gen.example/p', seq), MD5(CONCAT('gen.example/p', seq)), '2016-03-01' + INTERVAL seq SECOND, seq % 7, '2016-02-01' + INTERVAL seq SECOND
FROM seq_1_to_14000`,
		`INSERT INTO links (id, mdate, archive_id, href, type, rel, part)
SELECT MD5(CONCAT('gen.example/p', p.seq)), '2000-01-01' + INTERVAL (m.seq * 40 + p.seq % 30) DAY, 1 + m.seq % 3,
  CONCAT('http://web.archive.org/web/', m.seq, '/http://gen.example/p', p.seq), NULL, 'memento', 0
FROM seq_1_to_12000 p JOIN seq_1_to_15 m`,
		`INSERT INTO jobs (id, url, reqtime, process_id, compltime)
SELECT 100 + seq, CONCAT('http://gen.example/p', seq), '2016-01-01' + INTERVAL seq MINUTE, 1, '2016-01-02' + INTERVAL seq MINUTE FROM seq_1_to_5000`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	return dsn
}

// TestLANLMigrationBatches: on a database with 180,006 links rows, the
// copy of links runs in batches of 20,000 rows, each committed with its
// progress; a migration stopped after 4 batches (as a killed process
// stops) resumes after the last batch committed, copying only the rows
// not yet copied, and every row is migrated.
func TestLANLMigrationBatches(t *testing.T) {
	dsn := loadLANLLarge(t)
	db := rawDB(t, dsn)
	before := lanlRows(t, db, "", false)
	if n := len(before["links"]); n != 180006 {
		t.Fatalf("fixture: %d links", n)
	}
	const batch = 20000
	if _, err := mysqlcache.OpenStoppingBatches(t.Context(), dsn, batch, 4); !errors.Is(err, mysqlcache.ErrLANLStopped) {
		t.Fatalf("stopped after 4 batches: err = %v", err)
	}
	var copied, batches, inTable int64
	if err := db.QueryRow("SELECT rows_copied, batches FROM mementokit_lanl_progress WHERE step = 'copy-links'").Scan(&copied, &batches); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM links_mk").Scan(&inTable); err != nil {
		t.Fatal(err)
	}
	// Every row of an id is in one batch: a batch holds batchRows rows and
	// the rest of its last id's rows.
	if batches != 4 || copied != inTable || copied < 4*batch || copied > 4*batch+4*15 {
		t.Fatalf("after the stop: %d batches, %d rows recorded, %d in links_mk", batches, copied, inTable)
	}
	plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "done: copy-linkmaster") || !strings.Contains(p, "rows copied in 4 batches)") {
		t.Errorf("plan after the stop:\n%s", p)
	}

	var logBuf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := mysqlcache.Open(t.Context(), dsn, &mysqlcache.Options{Logger: log, MigrateBatchRows: batch})
	if err != nil {
		t.Fatalf("resumed migration: %v", err)
	}
	c.Close()
	var resumed bool
	var rows, n int64
	sc := bufio.NewScanner(&logBuf)
	for sc.Scan() {
		var l struct {
			Msg, Step string
			Rows      int64
			AfterID   string `json:"after_id"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("log line %s: %v", sc.Text(), err)
		}
		switch {
		case l.Step != "copy-links":
		case strings.Contains(l.Msg, "resumes after the last batch"):
			resumed = l.AfterID != ""
		case strings.Contains(l.Msg, "batch committed"):
			rows += l.Rows
			n++
		}
	}
	if !resumed || rows != 180006-copied || n != (180006-copied+batch-1)/batch {
		t.Errorf("resumed run: resumed %v, %d rows in %d batches, want %d rows in %d:\n%s", resumed, rows, n, 180006-copied, (180006-copied+batch-1)/batch, logBuf.String())
	}
	checkMigrated(t, dsn, before)
}

// TestMigrationLockHeld: while another connection holds the migration
// lock, Open fails naming that connection's id, whether the lock wait or
// Open's context ends first.
func TestMigrationLockHeld(t *testing.T) {
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
	var id, got int64
	if err := conn.QueryRowContext(t.Context(), "SELECT CONNECTION_ID(), GET_LOCK(?, 0)", "mementokit.cache.migrate"+cfg.DBName).Scan(&id, &got); err != nil || got != 1 {
		t.Fatalf("take the lock: %v %d", err, got)
	}
	want := "another connection (id " + itoa(id) + ", sleep for "
	if _, err := mysqlcache.Open(t.Context(), dsn, &mysqlcache.Options{MigrateLockWait: time.Second}); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "not granted within 1s") {
		t.Errorf("lock wait over: err = %v, want %q", err, want)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 1500*time.Millisecond)
	defer cancel()
	if _, err := mysqlcache.Open(ctx, dsn, nil); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "KILL "+itoa(id)) {
		t.Errorf("Open's context over: err = %v, want %q", err, want)
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
