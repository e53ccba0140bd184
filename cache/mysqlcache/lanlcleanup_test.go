package mysqlcache_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
)

// TestLANLCleanupAfterMigration: the migration keeps every row, and so does
// the first cleanup after it. The fixture's rows were last requested in
// 2016, far more than the default policy's 182 days before now; they count
// from the migration's time, so the Time Travel policy run right after the
// switch (and a day before the shorter period, 90 days for completed jobs,
// has passed) deletes
// no entry and no completed job. A period after the migration, the policy
// applies to them as to any row; an entry written after the migration with
// an old request time is judged by its own time.
func TestLANLCleanupAfterMigration(t *testing.T) {
	dsn := loadLANL(t)
	before := lanlRows(t, rawDB(t, dsn), "", false)
	c, err := mysqlcache.Open(t.Context(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := t.Context()
	var migrated time.Time
	if err := c.DB().QueryRowContext(ctx, "SELECT done FROM mementokit_lanl_migration WHERE step = 'swap'").Scan(&migrated); err != nil {
		t.Fatalf("migration time: %v", err)
	}
	day := 24 * time.Hour
	for _, now := range []time.Time{time.Now(), migrated.Add(89 * day)} {
		st, err := c.Cleanup(ctx, cache.DefaultCleanupPolicy(now))
		if err != nil {
			t.Fatalf("Cleanup at %v: %v", now, err)
		}
		if st.EntriesDeleted != 0 || st.JobsDeleted != 0 {
			t.Errorf("Cleanup at %v, %v after the migration: %+v, want no migrated entry or job deleted", now, now.Sub(migrated).Round(time.Second), st)
		}
	}
	// The claim of job 3, by a Time Travel worker (4711) that no longer
	// runs, is released (the job waits again); nothing else changes.
	want := map[string][]string{}
	for k, v := range before {
		want[k] = slices.Clone(v)
	}
	i := slices.Index(want["jobs"], "3 | http://claimed.example/ | 2016-03-06 09:10:00 | 4711 | NULL")
	if i < 0 {
		t.Fatalf("fixture: jobs %q", want["jobs"])
	}
	want["jobs"][i] = "3 | http://claimed.example/ | 2016-03-06 09:10:00 | NULL | NULL"
	if d := cmp.Diff(want, lanlRows(t, rawDB(t, dsn), "", true)); d != "" {
		t.Errorf("rows lost to the cleanup after the migration (-LANL +now):\n%s", d)
	}

	// One full period after the migration the migrated rows (requested in
	// 2016) are unrequested: the 4 entries and the completed job go.
	st, err := c.Cleanup(ctx, cache.DefaultCleanupPolicy(migrated.Add(183*day)))
	if err != nil {
		t.Fatal(err)
	}
	if st.EntriesDeleted != 4 || st.JobsDeleted != 1 {
		t.Errorf("Cleanup 183 days after the migration: %+v, want the 4 entries and 1 completed job of 2016", st)
	}
}
