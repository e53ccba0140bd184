// Package mysqltest gives tests a private MySQL or MariaDB database of
// their own, so that packages tested in parallel never share tables.
//
// The server is the one named by the MEMENTOKIT_MYSQL_DSN environment
// variable (go-sql-driver DSN form, default DefaultDSN; the database named
// in it is not used). When the server does not answer, the test is skipped,
// or fails when MEMENTOKIT_REQUIRE_MYSQL=1, as .ci/run sets.
package mysqltest

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

// DefaultDSN is the server CI makes sure of: root with an empty password
// on 127.0.0.1:3306.
const DefaultDSN = "root@tcp(127.0.0.1:3306)/test"

// Database creates a database named prefix plus 12 random hex digits
// (prefix must be lower-case letters, digits and underscores), utf8mb4 with
// a binary collation, drops it when the test ends, and returns a DSN that
// selects it. The connection timeout is 3 s.
func Database(t testing.TB, prefix string) string {
	t.Helper()
	dsn := os.Getenv("MEMENTOKIT_MYSQL_DSN")
	if dsn == "" {
		dsn = DefaultDSN
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	err = db.PingContext(ctx)
	cancel()
	if err != nil {
		db.Close()
		if os.Getenv("MEMENTOKIT_REQUIRE_MYSQL") == "1" {
			t.Fatalf("MySQL at %s does not answer and MEMENTOKIT_REQUIRE_MYSQL=1: %v", cfg.Addr, err)
		}
		t.Skipf("MySQL at %s does not answer (set MEMENTOKIT_MYSQL_DSN): %v", cfg.Addr, err)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := prefix + hex.EncodeToString(b[:])
	// Identifiers cannot be placeholders; the caller's prefix and hex digits
	// keep name to [a-z0-9_].
	if _, err := db.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"); err != nil {
		db.Close()
		t.Fatalf("create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
		db.Close()
	})
	own := cfg.Clone()
	own.DBName = name
	return own.FormatDSN()
}
