package aggregator

import (
	"context"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/mysqlcache"
	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/mysqltest"
)

// mysqlDSN returns a private database on the test MySQL server
// (internal/mysqltest), dropped when the test ends.
func mysqlDSN(t *testing.T) string { return mysqltest.Database(t, "mkagg_") }

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
	e, err := c.Get(context.Background(), cache.URIRKeyOf(urir))
	if err != nil || len(e.Mementos) != 2 || e.Mementos[0].URIM != arc.URIM(urir, ts(t, "20100101000000")) {
		t.Errorf("stored entry: %v %+v", err, e)
	}
}
