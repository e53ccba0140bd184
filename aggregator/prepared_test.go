package aggregator

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/memento"
)

// TestPreparedTimeMaps: a TimeMap served from the cache is the same in
// every format whether it is written for the request or comes prepared
// from an earlier one, for a store that shares its slices and for one
// that copies them; a changed entry (new mementos, the same count and
// second of Updated, so that only the contents tell) is served as it now
// is; Lookup's answers are not the prepared ones (the caller may write
// them).
func TestPreparedTimeMaps(t *testing.T) {
	urir := "http://example.com/"
	t0 := time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, share := range []bool{true, false} {
		t.Run(map[bool]string{true: "shared", false: "copied"}[share], func(t *testing.T) {
			f := newFake()
			f.holdings["arc0"] = map[string][]memento.Memento{urir: {
				{URIM: "http://arc0/web/20050301120000/" + urir, Datetime: t0},
				{URIM: "http://arc0/web/20100101000000/" + urir, Datetime: t0.AddDate(5, 0, 0)}}}
			store, err := memorycache.New(&memorycache.Options{ShareMementos: share})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { store.Close() })
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "arc0", TimeMap: "http://arc0/"}}, Upstream: f, Cache: store})
			h := ag.Handler()
			// the first request searches and stores; the second writes from
			// the cache and prepares; the third is the prepared body
			var first map[string]string
			for round := range 3 {
				got := map[string]string{}
				for _, format := range []string{"link", "json", "cdxj"} {
					resp, body := do(t, h, "GET", "/timemap/"+format+"/"+urir)
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("round %d %s: %d %s", round, format, resp.StatusCode, body)
					}
					got[format] = body + "|" + resp.Header.Get("X-Memento-Count") + "|" + resp.Header.Get("Content-Length")
				}
				if round == 0 {
					first = got
					continue
				}
				for k, v := range got {
					if v != first[k] {
						t.Errorf("round %d, %s:\n%s\nwant\n%s", round, k, v, first[k])
					}
				}
			}
			if p, ok := ag.preparedCache().Get(urir); !ok || p.bodies[formatLink].Load() == nil || p.bodies[formatCDXJ].Load() == nil {
				t.Fatalf("no prepared TimeMaps after three rounds")
			}
			if n := f.count("arc0"); n != 1 {
				t.Fatalf("%d upstream requests, want 1", n)
			}

			// Lookup's mementos are the caller's own
			ans, err := ag.Lookup(context.Background(), FamilyTimeMap, urir, time.Time{}, CacheControl{})
			if err != nil || ans.Status != http.StatusOK || ans.prep != nil {
				t.Fatalf("Lookup: %v %+v", err, ans)
			}
			ans.Mementos[0].URIM = "http://written.example/"
			if _, body := do(t, h, "GET", "/timemap/link/"+urir); strings.Contains(body, "written.example") {
				t.Fatalf("a Lookup caller's write reached the Handler's TimeMap:\n%s", body)
			}

			// the entry changes within the same second, the count kept
			e, err := store.Get(context.Background(), cache.URIRKeyOf(urir))
			if err != nil {
				t.Fatal(err)
			}
			changed := append([]cache.StoredMemento(nil), e.Mementos...)
			changed[1].URIM = "http://arc0/web/20100101000000/changed/" + urir
			if err := store.Put(context.Background(), urir, cache.Result{Status: cache.StatusFound, Updated: e.Updated, Mementos: changed}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, body := do(t, h, "GET", "/timemap/link/"+urir); !strings.Contains(body, "/changed/") {
					t.Fatalf("after the entry changed, the TimeMap is the old one:\n%s", body)
				}
			}
		})
	}
}
