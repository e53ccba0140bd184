package mysqlcache_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

func rawDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dsn := testDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			c, err := open(t, dsn)
			if err == nil {
				c.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Open %d: %v", i, err)
		}
	}
	rows, err := rawDB(t, dsn).Query("SELECT version, name FROM mementokit_schema ORDER BY version")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var v int
		var name string
		if err := rows.Scan(&v, &name); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(v, " ", name))
	}
	if diff := cmp.Diff([]string{"1 0001_init.sql"}, got); diff != "" {
		t.Errorf("applied migrations (-want +got):\n%s", diff)
	}
	// The tables are InnoDB and utf8mb4.
	rows2, err := rawDB(t, dsn).Query(`SELECT TABLE_NAME, ENGINE, TABLE_COLLATION FROM information_schema.TABLES
WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows2.Close()
	for rows2.Next() {
		var name, engine, coll string
		if err := rows2.Scan(&name, &engine, &coll); err != nil {
			t.Fatal(err)
		}
		if engine != "InnoDB" || !strings.HasPrefix(coll, "utf8mb4") {
			t.Errorf("table %s: engine %s collation %s, want InnoDB utf8mb4", name, engine, coll)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	cases := []struct {
		name  string
		setup string // SQL run in the fresh database before Open
		want  string
	}{
		{"newer_schema", `CREATE TABLE mementokit_schema (version INT NOT NULL PRIMARY KEY, name VARCHAR(255) NOT NULL,
applied DATETIME NOT NULL); INSERT INTO mementokit_schema VALUES (999, '0999_future.sql', '2030-01-01')`,
			"schema version 999 is newer"},
		// The original Time Travel table, as internal/spec/TIMETRAVEL.md section 4 gives it.
		{"original_linkmaster", `CREATE TABLE linkmaster (url VARCHAR(1024), id CHAR(32) NOT NULL PRIMARY KEY,
reqtime DATETIME, numreq INT, updtime DATETIME, status CHAR(1))`, "table linkmaster has no column lastused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dsn := testDB(t)
			db := rawDB(t, dsn)
			for _, s := range strings.Split(tc.setup, ";") {
				if _, err := db.Exec(s); err != nil {
					t.Fatal(err)
				}
			}
			c, err := open(t, dsn)
			var se *cache.Error
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				if c != nil {
					c.Close()
				}
				t.Fatalf("Open err = %v, want a *cache.Error mentioning %q", err, tc.want)
			}
		})
	}
}

func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name, dsn, want string
	}{
		{"not_a_dsn", "secretpw@@nonsense(", "invalid DSN"},
		{"no_database", "root:secretpw@tcp(127.0.0.1:3306)/", "names no database"},
		{"nothing_listens", "root:secretpw@tcp(127.0.0.1:1)/db", "connection refused"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			c, err := mysqlcache.Open(ctx, tc.dsn, nil)
			var se *cache.Error
			if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
				if c != nil {
					c.Close()
				}
				t.Fatalf("Open err = %v, want a *cache.Error mentioning %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secretpw") {
				t.Errorf("error shows the password: %v", err)
			}
		})
	}
}

// TestOpenSilentServer: a DSN naming a port where something accepts the
// connection but never speaks MySQL (an HTTP server waits for its client to
// speak first) must fail after the DSN's timeout, even under a context
// without deadline, rather than hang.
func TestOpenSilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var conns []net.Conn
	var mu sync.Mutex
	defer func() {
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	done := make(chan error, 1)
	go func() {
		c, err := mysqlcache.Open(context.Background(), "root:secretpw@tcp("+ln.Addr().String()+")/db?timeout=300ms", nil)
		if c != nil {
			c.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		var se *cache.Error
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "handshake") {
			t.Fatalf("Open err = %v, want a *cache.Error about the missing handshake", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Open still waiting for a server that never answers after 15 s (DSN timeout 300ms)")
	}
}

// TestIndexesUsed checks with EXPLAIN that the queries on large tables use
// their indexes rather than scanning.
func TestIndexesUsed(t *testing.T) {
	dsn := testDB(t)
	c, err := open(t, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 300 {
		u := fmt.Sprintf("http://e.org/%d", i)
		r := cache.Result{Status: cache.StatusFound, Updated: t0.Add(time.Duration(i) * time.Hour),
			Mementos: []cache.StoredMemento{{URIM: "m" + u, Datetime: t0, Archive: "ia"}, {URIM: "n" + u, Datetime: t0, Archive: "bl"}}}
		if err := c.Put(ctx, u, r); err != nil {
			t.Fatal(err)
		}
		if err := c.Enqueue(ctx, u, cache.Priority(1+i%2), t0); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := c.Claim(ctx, "w", t0); err != nil {
				t.Fatal(err)
			}
		}
	}
	db := rawDB(t, dsn)
	if _, err := db.Exec("ANALYZE TABLE linkmaster, links, jobs"); err != nil {
		t.Fatal(err)
	}
	k := cache.URIRKeyOf("e.org/7").String()
	cases := []struct {
		name  string
		query string
		args  []any
		want  []string // the key used by each row of the plan that reads a table
	}{
		{"get", mysqlcache.SQLGet, []any{k, k}, []string{"PRIMARY", "PRIMARY", "PRIMARY"}},
		{"stale", mysqlcache.SQLStale, []any{t0.Add(5 * time.Hour), 10}, []string{"linkmaster_updtime"}},
		{"claim", mysqlcache.SQLClaimSelect, nil, []string{"jobs_queue"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := db.Query("EXPLAIN "+tc.query, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			cols, _ := rows.Columns()
			var got []string
			for rows.Next() {
				vals := make([]sql.NullString, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				row := map[string]string{}
				for i, c := range cols {
					row[c] = vals[i].String
				}
				if row["table"] == "" || strings.HasPrefix(row["table"], "<union") {
					continue
				}
				got = append(got, row["key"])
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("EXPLAIN keys (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOpenNamesTheCause: a DSN naming a database the server lacks, or a
// user it refuses, gets an error that says so (the server's answer comes
// at once: it is no missing handshake).
func TestOpenNamesTheCause(t *testing.T) {
	cfg := serverDSN(t)
	c := cfg.Clone()
	c.DBName = "mkcache_no_such_database_x"
	_, err := mysqlcache.Open(t.Context(), c.FormatDSN(), nil)
	if err == nil || !strings.Contains(err.Error(), "no database mkcache_no_such_database_x") || strings.Contains(err.Error(), "handshake") {
		t.Errorf("unknown database: err = %v, want one naming the missing database", err)
	}
	c = cfg.Clone()
	c.User, c.Passwd = "mkcache_no_such_user", "wrong"
	_, err = mysqlcache.Open(t.Context(), c.FormatDSN(), nil)
	if err == nil || !strings.Contains(err.Error(), "access denied") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("unknown user: err = %v, want access denied without the password", err)
	}
}
