package aggregator

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// mysqlDSN creates a private database on the server named by
// MEMENTOKIT_MYSQL_DSN (default root@tcp(127.0.0.1:3306)/test), drops it
// when the test ends, and returns a DSN for it. An unreachable server skips
// the test, or fails it when MEMENTOKIT_REQUIRE_MYSQL=1 (as CI sets).
func mysqlDSN(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("MEMENTOKIT_MYSQL_DSN")
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:3306)/test"
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("MEMENTOKIT_MYSQL_DSN: %v", err)
	}
	cfg.Timeout = 3 * time.Second
	server := cfg.Clone()
	server.DBName = ""
	db, err := sql.Open("mysql", server.FormatDSN())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		if db != nil {
			db.Close()
		}
		if os.Getenv("MEMENTOKIT_REQUIRE_MYSQL") == "1" {
			t.Fatalf("MySQL at %s unreachable: %v", cfg.Addr, err)
		}
		t.Skipf("MySQL at %s unreachable: %v", cfg.Addr, err)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	name := "mkagg_" + hex.EncodeToString(rnd[:])
	// Identifiers cannot be placeholders; name is [a-z0-9_] by construction.
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		db.Close()
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	c := cfg.Clone()
	c.DBName = name
	return c.FormatDSN()
}

func openMySQL(t *testing.T, dsn string) cache.Cache {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := mysqlcache.Open(ctx, dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Two nodes, each with its own handle on one MariaDB cache, drain one
// queue: every job is done exactly once.
func TestMySQLSharedQueue(t *testing.T) {
	dsn := mysqlDSN(t)
	sharedQueueTest(t, openMySQL(t, dsn), openMySQL(t, dsn))
}

// The cache scenarios end to end over MariaDB: unknown → searched and
// stored; repeat → fresh from the cache; a none → 404 from the cache;
// only-if-cached for an unknown URI-R → 504.
func TestMySQLScenarios(t *testing.T) {
	c := openMySQL(t, mysqlDSN(t))
	urir := "http://example.com/search?q=%26&x='quoted'"
	arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20100101000000", "20110101000000")}})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}, Cache: c})
	h := ag.Handler()
	for _, tc := range []struct {
		name, target string
		header       []string
		status       int
		upstream     int
	}{
		{"unknown: searched", "/timemap/link/" + urir, nil, 200, 1},
		{"fresh: from MySQL", "/timemap/json/" + urir, nil, 200, 0},
		{"https form: same entry", "/timemap/cdxj/https://example.com/search?q=%26&x='quoted'", nil, 200, 0},
		{"none: searched", "/timemap/link/http://none.example/", nil, 404, 1},
		{"none: 404 from MySQL", "/timemap/link/http://none.example/", nil, 404, 0},
		{"only-if-cached unknown: 504", "/timemap/link/http://never.example/", []string{"Cache-Control", "only-if-cached"}, 504, 0},
		{"no-cache within 10 minutes: cache", "/timegate/" + urir, []string{"Cache-Control", "no-cache"}, 302, 0},
	} {
		before := arc.Count("")
		resp, body := do(t, h, "GET", tc.target, tc.header...)
		if resp.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, resp.StatusCode, tc.status, body)
		}
		if n := arc.Count("") - before; n != tc.upstream {
			t.Errorf("%s: %d upstream requests, want %d", tc.name, n, tc.upstream)
		}
	}
	e, err := c.Get(context.Background(), cache.KeyOf(urir))
	if err != nil || len(e.Mementos) != 2 || e.Mementos[0].URIM != arc.URIM(urir, ts(t, "20100101000000")) {
		t.Errorf("stored entry: %v %+v", err, e)
	}
}
