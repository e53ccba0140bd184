package mysqlcache_test

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// exec runs each statement on db, failing the test on an error.
func exec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
}

// openLogged opens dsn with a JSON log at info level and returns the
// cache and the log's records.
func openLogged(t *testing.T, dsn string) (*mysqlcache.Cache, func() []map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	c, err := mysqlcache.Open(t.Context(), dsn, &mysqlcache.Options{Logger: log})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c, func() []map[string]any {
		var out []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatalf("log line %q: %v", l, err)
			}
			out = append(out, rec)
		}
		return out
	}
}

// record returns the first log record whose msg starts with prefix (nil
// when none).
func record(recs []map[string]any, prefix string) map[string]any {
	for _, r := range recs {
		if msg, _ := r["msg"].(string); strings.HasPrefix(msg, prefix) {
			return r
		}
	}
	return nil
}

// planText is MigrationPlan's lines, joined.
func planText(t *testing.T, dsn string) string {
	t.Helper()
	plan, err := mysqlcache.MigrationPlan(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// md5Of is MySQL's MD5(s).
func md5Of(t *testing.T, db *sql.DB, s string) string {
	t.Helper()
	var h string
	if err := db.QueryRow("SELECT MD5(?)", s).Scan(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

// count is SELECT COUNT(*) ... with args.
func count(t *testing.T, db *sql.DB, q string, args ...any) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
	return n
}

// TestLANLNoURIs: Time Travel rows whose URI is NULL or empty. A links
// row with no href has no URI-M: it is not copied (kept in links_lanl); a
// jobs row with no url is nothing to search: not copied (kept in
// jobs_lanl); a linkmaster row with no url is copied with an empty url (its
// mementos are found by its hash key; stale scans skip it until a search
// of its URI-R stores the URI-R). The dry-run plan, the warning before the
// copy and the last record after it count each kind with its first id.
func TestLANLNoURIs(t *testing.T) {
	dsn := loadLANL(t)
	db := rawDB(t, dsn)
	exec(t, db,
		"INSERT INTO linkmaster (url, id, reqtime, numreq, updtime) VALUES (NULL, MD5('nourl.example/'), '2016-03-07 10:00:00', 5, '2016-01-01 00:00:00')",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('nourl.example/'), '2004-04-04 04:04:04', 1, 'http://web.archive.org/web/20040404040404/http://nourl.example/', NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('nourl.example/'), '2005-05-05 05:05:05', 1, NULL, NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('example.com/'), '2006-06-06 06:06:06', 2, '', NULL, 'memento', 0)",
		"INSERT INTO jobs (id, url, reqtime, process_id, compltime) VALUES (10, NULL, '2016-03-06 10:00:00', NULL, NULL)",
		"INSERT INTO jobs (id, url, reqtime, process_id, compltime) VALUES (11, '', '2016-03-06 11:00:00', 7, NULL)",
	)
	nourl, example := md5Of(t, db, "nourl.example/"), md5Of(t, db, "example.com/")
	firstNoURIM := min(nourl, example)
	before := lanlRows(t, db, "", false)

	p := planText(t, dsn)
	for _, want := range []string{
		"lanl copy-linkmaster: copy linkmaster (status N where searched and no link is copied) [5 rows] (1 with no URI-R (url NULL or empty), copied with url '': found by their hash key, skipped by stale scans until a search stores their URI-R; the first id " + nourl + ")",
		"[9 rows] (2 with a datetime and no URI-M (href NULL or empty), not copied: kept in links_lanl; the first id " + firstNoURIM + ")",
		"[6 rows] (2 with no URI-R (url NULL or empty), not copied: kept in jobs_lanl; the first id 10)",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("plan lacks %q:\n%s", want, p)
		}
	}
	if d := cmp.Diff(before, lanlRows(t, db, "", false)); d != "" {
		t.Errorf("MigrationPlan changed the database:\n%s", d)
	}

	c, logRecs := openLogged(t, dsn)
	recs := logRecs()
	warn := record(recs, "mysql cache: LANL rows with no URI (NULL or empty)")
	if warn == nil || warn["level"] != "WARN" || warn["links_no_urim"] != 2.0 || warn["first_links_id"] != firstNoURIM ||
		warn["linkmaster_no_urir"] != 1.0 || warn["first_linkmaster_id"] != nourl || warn["jobs_no_urir"] != 2.0 || warn["first_jobs_id"] != "10" {
		t.Errorf("warning %v", warn)
	}
	done := record(recs, "mysql cache: LANL table migration done")
	if done == nil || done["links_no_urim"] != 2.0 || done["linkmaster_no_urir"] != 1.0 || done["jobs_no_urir"] != 2.0 || done["first_jobs_no_urir_id"] != "10" {
		t.Errorf("last record %v", done)
	}
	// Every old row is kept in the old tables, and what was copied is in
	// the new ones.
	if d := cmp.Diff(before, lanlRows(t, db, "_lanl", false)); d != "" {
		t.Errorf("the old tables changed (-before +kept):\n%s", d)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM links WHERE href = ''"); n != 0 {
		t.Errorf("%d links with an empty URI-M copied", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM links_lanl WHERE href IS NULL OR href = ''"); n != 2 {
		t.Errorf("links_lanl keeps %d rows with no URI-M, want 2", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs WHERE id IN (10, 11) OR url = ''"); n != 0 {
		t.Errorf("%d jobs with no URI-R copied", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs_lanl_duplicates WHERE id IN (10, 11)"); n != 0 {
		t.Errorf("%d jobs with no URI-R among the duplicates", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM jobs_lanl WHERE id IN (10, 11)"); n != 2 {
		t.Errorf("jobs_lanl keeps %d of the jobs with no URI-R, want 2", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM linkmaster WHERE id = ? AND url = '' AND numreq = 5", nourl); n != 1 {
		t.Errorf("linkmaster row of nourl.example: %d with url '' and its request count, want 1", n)
	}

	ctx := t.Context()
	key := cache.URIRKeyOf("http://nourl.example/")
	e, err := c.Get(ctx, key)
	if err != nil || e.URIR != "" || e.Requests != 5 || len(e.Mementos) != 1 || e.Mementos[0].URIM != "http://web.archive.org/web/20040404040404/http://nourl.example/" {
		t.Errorf("Get nourl.example: %v %+v, want its one memento with a URI-M", err, e)
	}
	if e, err := c.Get(ctx, cache.URIRKeyOf("http://example.com/")); err != nil || len(e.Mementos) != 4 {
		t.Errorf("Get example.com: %v %d mementos, want the 4 with a URI-M", err, len(e.Mementos))
	}
	stale := func() []string {
		infos, err := c.Stale(ctx, cache.MaxTime, 100)
		if err != nil {
			t.Fatalf("Stale: %v", err)
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.URIR)
		}
		return got
	}
	if got := stale(); slices.Contains(got, "") || len(got) != 4 {
		t.Errorf("stale URI-Rs %q, want the 4 with a URI-R", got)
	}
	if w := record(logRecs(), "mysql cache: linkmaster rows with no URI-R"); w == nil || w["rows"] != 1.0 || w["first_id"] != nourl {
		t.Errorf("the first stale scan's warning: %v", w)
	}
	// A search of the URI-R stores it; the row is then scanned as any other.
	if err := c.Put(ctx, "http://nourl.example/", cache.Result{Status: cache.StatusFound, Updated: time.Date(2016, 3, 8, 0, 0, 0, 0, time.UTC), Mementos: e.Mementos}); err != nil {
		t.Fatal(err)
	}
	if got := stale(); !slices.Contains(got, "nourl.example/") {
		t.Errorf("stale URI-Rs %q, want nourl.example/ once its URI-R is stored", got)
	}
}

// TestLANLUnregisteredArchives: links whose archive_id names no
// archive_register row keep that id, each registered as the archive
// lanl-archive-<id> (the rows of archives 9 and 12 stay apart, and apart
// from those of registered archives at the same datetime), counted per id in the dry-run plan, the
// warning and the last record. The aggregator serves them as the rows of
// any archive its registry does not list: kept, with their URI-Ms, when a
// search of the listed archives replaces the entry, and served from the
// cache with it.
func TestLANLUnregisteredArchives(t *testing.T) {
	dsn := loadLANL(t)
	db := rawDB(t, dsn)
	exec(t, db,
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('example.com/'), '2005-03-01 12:00:00', 9, 'http://retired.example/web/20050301120000/http://example.com/', NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('example.com/'), '2007-07-07 07:07:07', 12, 'http://gone.example/a/20070707070707/http://example.com/', NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('example.com/'), '2008-08-08 08:08:08', 12, 'http://gone.example/b/20080808080808/http://example.com/', NULL, 'memento', 0)",
	)
	before := lanlRows(t, db, "", false)
	if p := planText(t, dsn); !strings.Contains(p, "(2 archive_id of links not in archive_register, each registered as lanl-archive-<id> with its links copied: 9 (2 rows), 12 (2 rows))") {
		t.Errorf("plan:\n%s", p)
	}
	c, logRecs := openLogged(t, dsn)
	recs := logRecs()
	if w := record(recs, "mysql cache: LANL links whose archive_id names no archive_register row"); w == nil || w["archive_ids"] != 2.0 || w["links_per_id"] != "9 (2 rows), 12 (2 rows)" {
		t.Errorf("warning %v", w)
	}
	if d := record(recs, "mysql cache: LANL table migration done"); d == nil || d["unregistered_archive_ids"] != 2.0 || d["unregistered_archive_links"] != 4.0 || d["unregistered_archives"] != "9 (2 rows), 12 (2 rows)" {
		t.Errorf("last record %v", d)
	}
	if d := cmp.Diff(before, lanlRows(t, db, "", true)); d != "" {
		t.Errorf("rows in != rows out (-LANL +migrated):\n%s", d)
	}
	if d := cmp.Diff(before, lanlRows(t, db, "_lanl", false)); d != "" {
		t.Errorf("the old tables changed (-before +kept):\n%s", d)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM archive_register WHERE (id, hostname) IN ((9, 'lanl-archive-9'), (12, 'lanl-archive-12'))"); n != 2 {
		t.Errorf("archive_register holds %d of lanl-archive-9 and lanl-archive-12 with their ids, want 2", n)
	}

	ctx := t.Context()
	urir := "http://example.com/"
	byArchive := func() map[string][]string {
		e, err := c.Get(ctx, cache.URIRKeyOf(urir))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for _, m := range e.Mementos {
			out[m.Archive] = append(out[m.Archive], m.URIM)
		}
		return out
	}
	migrated := byArchive()
	if want := []string{"http://gone.example/a/20070707070707/http://example.com/", "http://gone.example/b/20080808080808/http://example.com/"}; !cmp.Equal(migrated["lanl-archive-12"], want) ||
		!cmp.Equal(migrated["lanl-archive-9"], []string{"http://retired.example/web/20050301120000/http://example.com/"}) {
		t.Fatalf("migrated mementos by archive %v", migrated)
	}

	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{urir: {time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}}})
	defer arc.Close()
	ag, err := aggregator.New(&aggregator.Options{BaseURL: "http://localhost:1208", Cache: c,
		Archives: []aggregator.Archive{{ID: "ia", Name: "Fake ia", TimeMap: arc.TimeMapPrefix(), TimeGate: arc.TimeGatePrefix()}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	// The migrated entry (updated 2016) is stale: this request searches
	// the registry's one archive and stores the result.
	rec := httptest.NewRecorder()
	ag.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/"+urir, nil))
	if rec.Code != 200 {
		t.Fatalf("TimeMap: %d %s", rec.Code, rec.Body)
	}
	after := byArchive()
	if len(after["ia"]) != 1 {
		t.Errorf("the search's memento not stored: %v", after)
	}
	for id, ms := range migrated {
		if !cmp.Equal(after[id], ms) {
			t.Errorf("archive %s: %q after the search, want %q kept", id, after[id], ms)
		}
	}
	// The next request is served from the cache, the kept mementos with it.
	rec = httptest.NewRecorder()
	ag.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/"+urir, nil))
	if rec.Code != 200 {
		t.Fatalf("cached TimeMap: %d %s", rec.Code, rec.Body)
	}
	for _, u := range append(migrated["lanl-archive-12"], migrated["lanl-archive-9"]...) {
		if !strings.Contains(rec.Body.String(), "<"+u+">") {
			t.Errorf("cached TimeMap lacks %s:\n%s", u, rec.Body)
		}
	}
}

// TestLANLLinksWithoutArchive: a links row whose archive_id is NULL is a
// link without an archive. The shipped agg_tables.sql cannot hold one
// (archive_id is part of the PRIMARY KEY, which makes the column NOT
// NULL); a table whose key was made a UNIQUE key (as here: MySQL allows
// NULL in one) can. Such a row is not copied (no archive to serve it
// under; kept in links_lanl) and is not registered as an archive: the
// dry-run plan, the warning before the copy and the last record after it
// count the rows and name the first id, and no archive id 0 appears.
func TestLANLLinksWithoutArchive(t *testing.T) {
	dsn := loadLANL(t)
	db := rawDB(t, dsn)
	exec(t, db,
		"ALTER TABLE links DROP PRIMARY KEY, MODIFY archive_id INT(11) DEFAULT NULL, ADD CONSTRAINT pk_link UNIQUE (id, mdate, archive_id, part)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('example.com/'), '2009-09-09 09:09:09', NULL, 'http://somewhere.example/web/20090909090909/http://example.com/', NULL, 'memento', 0)",
		"INSERT INTO links (id, mdate, archive_id, href, type, rel, part) VALUES (MD5('example.com/'), '2010-10-10 10:10:10', NULL, 'http://somewhere.example/web/20101010101010/http://example.com/', NULL, 'memento', 0)",
	)
	if n := count(t, db, "SELECT COUNT(*) FROM links WHERE archive_id IS NULL"); n != 2 {
		t.Fatalf("fixture: %d links with a NULL archive_id, want 2", n)
	}
	example := md5Of(t, db, "example.com/")
	before := lanlRows(t, db, "", false)

	p := planText(t, dsn)
	if want := "[8 rows] (2 with a datetime and a URI-M and no archive (archive_id NULL), not copied: kept in links_lanl; the first id " + example + ")"; !strings.Contains(p, want) {
		t.Errorf("plan lacks %q:\n%s", want, p)
	}
	if !strings.Contains(p, "(1 archive_id of links not in archive_register, each registered as lanl-archive-<id> with its links copied: 9 (1 row))") {
		t.Errorf("plan: the unregistered archives are not archive 9 alone:\n%s", p)
	}

	c, logRecs := openLogged(t, dsn)
	recs := logRecs()
	if w := record(recs, "mysql cache: LANL links with no archive"); w == nil || w["level"] != "WARN" || w["links_no_archive"] != 2.0 || w["first_links_id"] != example {
		t.Errorf("warning %v", w)
	}
	if d := record(recs, "mysql cache: LANL table migration done"); d == nil || d["links_no_archive"] != 2.0 || d["first_links_no_archive_id"] != example ||
		d["unregistered_archive_ids"] != 1.0 || d["unregistered_archive_links"] != 1.0 {
		t.Errorf("last record %v", d)
	}
	if d := cmp.Diff(before, lanlRows(t, db, "_lanl", false)); d != "" {
		t.Errorf("the old tables changed (-before +kept):\n%s", d)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM archive_register WHERE id = 0 OR hostname IS NULL OR hostname IN ('', 'lanl-archive-')"); n != 0 {
		t.Errorf("archive_register holds %d rows for links without an archive", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM links WHERE archive_id = 0 OR href LIKE 'http://somewhere.example/%'"); n != 0 {
		t.Errorf("%d links without an archive copied", n)
	}
	if n := count(t, db, "SELECT COUNT(*) FROM links_lanl WHERE archive_id IS NULL"); n != 2 {
		t.Errorf("links_lanl keeps %d rows without an archive, want 2", n)
	}
	e, err := c.Get(t.Context(), cache.URIRKeyOf("http://example.com/"))
	if err != nil || len(e.Mementos) != 4 {
		t.Fatalf("Get example.com: %v %+v, want its 4 mementos of an archive", err, e)
	}
	for _, m := range e.Mementos {
		if m.Archive == "" || m.Archive == "lanl-archive-0" || m.Archive == "lanl-archive-" {
			t.Errorf("memento %+v of no archive", m)
		}
	}
}
