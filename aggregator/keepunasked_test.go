package aggregator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// An entry holding mementos of archives the registry does not list (a
// database migrated from the Time Travel aggregator, or a registry that
// dropped an archive) keeps them when a search of the listed archives
// replaces the entry, and the request count goes on counting.
func TestStoreKeepsUnaskedArchives(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    func(t *testing.T) cache.Cache
	}{
		{"memory", func(t *testing.T) cache.Cache { return newMemCache(t) }},
		{"mysql", func(t *testing.T) cache.Cache { return openMySQL(t, mysqlDSN(t)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			c := tc.c(t)
			urir := "http://example.com/"
			arc := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{urir: times(t, "20100101000000", "20110101000000")}})
			old := ts(t, "20160301083000")
			retired := cache.StoredMemento{URIM: "http://retired.example/web/20050301120000/http://example.com/", Datetime: ts(t, "20050301120000"), Archive: "retired.example", Rel: "memento"}
			gone := cache.StoredMemento{URIM: arc.URIM(urir, ts(t, "19990125093000")), Datetime: ts(t, "19990125093000"), Archive: "a", Rel: "memento"}
			if err := c.Put(ctx, urir, cache.Result{Status: cache.StatusFound, Updated: old, Mementos: []cache.StoredMemento{retired, gone}}); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if err := c.RecordRequest(ctx, urir, old); err != nil {
					t.Fatal(err)
				}
			}
			ag := newAggregator(t, Options{Archives: []Archive{entry("a", arc)}, Cache: c})
			if resp, body := do(t, ag.Handler(), "GET", "/timemap/link/"+urir); resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			e, err := c.Get(ctx, cache.URIRKeyOf(urir))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, m := range e.Mementos {
				got = append(got, m.Archive+" "+m.URIM)
			}
			want := []string{
				"retired.example " + retired.URIM,
				"a " + arc.URIM(urir, ts(t, "20100101000000")),
				"a " + arc.URIM(urir, ts(t, "20110101000000")),
			}
			if len(got) != len(want) {
				t.Fatalf("stored mementos %q, want %q", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("memento %d: %q, want %q", i, got[i], want[i])
				}
			}
			if e.Requests != 4 {
				t.Errorf("requests %d, want 4 (3 before, 1 now)", e.Requests)
			}
			if !e.Updated.After(old) || e.Status != cache.StatusFound {
				t.Errorf("entry not refreshed: %v %v", e.Status, e.Updated)
			}
			// Served from the cache with the kept memento.
			_, body := do(t, ag.Handler(), "GET", "/timemap/link/"+urir)
			if !strings.Contains(body, retired.URIM) {
				t.Errorf("cached TimeMap lacks the kept memento:\n%s", body)
			}
		})
	}
}
