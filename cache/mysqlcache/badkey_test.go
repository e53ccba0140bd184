package mysqlcache_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

// A migrated linkmaster row whose id is no hash key ('a0notanmd5') is
// counted by the migration (its plan and log) and skipped by stale scans,
// which go on with the other rows; the first scan logs its count.
func TestStaleSkipsBadKeys(t *testing.T) {
	dsn := loadLANL(t)
	db := rawDB(t, dsn)
	if _, err := db.Exec("INSERT INTO linkmaster (url, id, reqtime, numreq, updtime) VALUES ('bad.example/', 'a0notanmd5', '2016-03-07 10:00:00', 1, '2016-01-01 00:00:00')"); err != nil {
		t.Fatal(err)
	}
	plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	if p := strings.Join(plan, "\n"); !strings.Contains(p, "(1 whose id is no MD5, copied as they are and skipped by stale scans; the first id a0notanmd5)") {
		t.Errorf("plan:\n%s", p)
	}
	var logBuf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := mysqlcache.Open(t.Context(), dsn, &mysqlcache.Options{Logger: log})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer c.Close()
	for range 2 {
		infos, err := c.Stale(t.Context(), cache.MaxTime, 100)
		if err != nil {
			t.Fatalf("Stale: %v", err)
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.URIR)
		}
		// The four rows of lanl_rows.sql, updtime NULL (pending) first.
		want := "pending.example/ example.org/page?q=1&x=%20 example.com/ nothing.example/"
		if strings.Join(got, " ") != want {
			t.Errorf("stale URI-Rs %q, want %q", strings.Join(got, " "), want)
		}
	}
	warned := 0
	for _, l := range strings.Split(strings.TrimSpace(logBuf.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatal(err)
		}
		if msg, _ := rec["msg"].(string); strings.Contains(msg, "no hash key") || strings.Contains(msg, "no MD5") {
			warned++
			if rec["rows"] != 1.0 || rec["first_id"] != "a0notanmd5" {
				t.Errorf("warning %v, want rows 1 and first_id a0notanmd5", rec)
			}
		}
	}
	if warned != 2 {
		t.Errorf("%d warnings of rows with bad keys, want 2 (migration, first scan):\n%s", warned, logBuf.String())
	}
}
