package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// privateDatabase makes a database of its own on the MySQL or MariaDB
// server of MEMENTOKIT_MYSQL_DSN (default root@tcp(127.0.0.1:3306)/test),
// dropped when the test ends, and returns its DSN. Without a reachable
// server the test is skipped, or fails when MEMENTOKIT_REQUIRE_MYSQL=1
// (CI).
func privateDatabase(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("MEMENTOKIT_MYSQL_DSN")
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:3306)/test"
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("MEMENTOKIT_MYSQL_DSN does not parse: %v", err)
	}
	cfg.Timeout = 3 * time.Second
	admin := cfg.Clone()
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	err = db.PingContext(ctx)
	cancel()
	if err != nil {
		db.Close()
		if os.Getenv("MEMENTOKIT_REQUIRE_MYSQL") == "1" {
			t.Fatalf("MySQL at %s does not answer: %v", cfg.Addr, err)
		}
		t.Skipf("MySQL at %s does not answer: %v", cfg.Addr, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := "mkserver_" + hex.EncodeToString(b[:]) // [a-z0-9_]: safe as an identifier
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		db.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
		db.Close()
	})
	own := cfg.Clone()
	own.DBName = name
	return own.FormatDSN()
}

// TestMySQLCache runs the server on a MySQL cache: a TimeMap found once is
// served from the database the second time, and a second server sharing the
// database serves it too.
func TestMySQLCache(t *testing.T) {
	dsn := privateDatabase(t)
	f := newFederation(t)
	args := []string{"-archives", f.list, "-cache", dsn, "-data-dir", f.dir, "-workers", "1"}
	one := start(t, args...)
	if r := do(t, one.URL, "GET", "/timemap/link/"+held); r.Status != 200 || r.Header.Get("X-Memento-Count") != "5" {
		t.Fatalf("first lookup: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	two := start(t, append(args, "-cache", "mysql:"+dsn)...)
	r := do(t, two.URL, "GET", "/timemap/link/"+held, "Cache-Control", "only-if-cached")
	if r.Status != 200 || r.Header.Get("X-Memento-Count") != "5" {
		t.Errorf("second server, only-if-cached: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	if v, _ := metric(do(t, two.URL, "GET", "/metrics").Body, `mementokit_cache_lookups_total{result="fresh"}`); v != 1 {
		t.Errorf("second server: %v fresh cache hits, want 1", v)
	}
	if r := do(t, two.URL, "GET", "/healthz"); r.Status != 200 {
		t.Errorf("/healthz on MySQL: %d %s", r.Status, r.Body)
	}
}
