package mysqlcache_test

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

// defaultDSN is the server that .ci/run starts; MEMENTOKIT_MYSQL_DSN
// overrides it. The database named in it is not used: each test makes its own.
const defaultDSN = "root@tcp(127.0.0.1:3306)/test"

// serverDSN returns the configured DSN. When the server does not answer, the
// test fails if MEMENTOKIT_REQUIRE_MYSQL=1 (as in CI) and is skipped
// otherwise.
func serverDSN(t testing.TB) *mysql.Config {
	t.Helper()
	dsn := os.Getenv("MEMENTOKIT_MYSQL_DSN")
	if dsn == "" {
		dsn = defaultDSN
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		t.Fatalf("MEMENTOKIT_MYSQL_DSN: %v", err)
	}
	cfg.Timeout = 3 * time.Second
	db, err := openServer(cfg)
	if err == nil {
		db.Close()
		return cfg
	}
	if os.Getenv("MEMENTOKIT_REQUIRE_MYSQL") == "1" {
		t.Fatalf("MySQL at %s unreachable and MEMENTOKIT_REQUIRE_MYSQL=1: %v", cfg.Addr, err)
	}
	t.Skipf("MySQL at %s unreachable (set MEMENTOKIT_MYSQL_DSN; MEMENTOKIT_REQUIRE_MYSQL=1 makes this a failure): %v", cfg.Addr, err)
	return nil
}

// openServer connects without selecting a database.
func openServer(cfg *mysql.Config) (*sql.DB, error) {
	c := cfg.Clone()
	c.DBName = ""
	conn, err := mysql.NewConnector(c)
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// testDB creates a database with a unique name on the configured server,
// drops it when the test ends, and returns a DSN for it.
func testDB(t testing.TB) string {
	t.Helper()
	cfg := serverDSN(t)
	return createDB(t, cfg)
}

func createDB(t testing.TB, cfg *mysql.Config) string {
	t.Helper()
	db, err := openServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var rnd [6]byte
	rand.Read(rnd[:])
	name := "mkcache_" + time.Now().UTC().Format("150405") + "_" + hex.EncodeToString(rnd[:])
	// Identifiers cannot be placeholders; name is made of [a-z0-9_] above.
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		db, err := openServer(cfg)
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer db.Close()
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	c := cfg.Clone()
	c.DBName = name
	return c.FormatDSN()
}
