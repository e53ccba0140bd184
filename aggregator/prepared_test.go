package aggregator

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
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

// TestPreparedBytesBounded: the prepared entries hold at most
// maxPreparedBytes in all, however many URI-Rs are requested (least
// recently requested dropped first), an entry over maxPreparedEntry is
// not prepared, and the count goes back to zero when every entry is
// dropped.
func TestPreparedBytesBounded(t *testing.T) {
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://127.0.0.1:1/"}}})
	entryOf := func(n int) (*cache.Entry, []memento.Memento) {
		e := &cache.Entry{Info: cache.Info{Status: cache.StatusFound, Updated: time.Now()}}
		ms := make([]memento.Memento, n)
		t0 := time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range ms {
			u := "http://a.example/web/" + t0.Add(time.Duration(i)*time.Second).Format("20060102150405") + "/http://example.com/"
			e.Mementos = append(e.Mementos, cache.StoredMemento{URIM: u, Datetime: t0.Add(time.Duration(i) * time.Second), Archive: "a"})
			ms[i] = memento.Memento{URIM: u, Datetime: e.Mementos[i].Datetime, Archive: "a"}
		}
		return e, ms
	}
	big, bigMs := entryOf(30000) // about 6 MiB
	if w := preparedWeight(big.Mementos, bigMs); w <= maxPreparedEntry {
		t.Fatalf("weight of 30000 mementos %d, want over %d", w, maxPreparedEntry)
	}
	if p := ag.prepare("http://big.example/", big, bigMs); p != nil || ag.prepBytes.Load() != 0 {
		t.Errorf("an entry over maxPreparedEntry was prepared (%d bytes counted)", ag.prepBytes.Load())
	}
	e, ms := entryOf(15000) // about 3 MiB
	w := preparedWeight(e.Mementos, ms)
	for i := range 3 * maxPreparedBytes / int(w) {
		p := ag.prepare("http://u"+strconv.Itoa(i)+".example/", e, ms)
		if p == nil {
			t.Fatalf("entry %d of %d bytes not prepared", i, w)
		}
		_, _ = p.body(formatLink, func() []byte { return make([]byte, 512<<10) })
		if n := ag.prepBytes.Load(); n > maxPreparedBytes {
			t.Fatalf("after %d entries the prepared entries hold %d bytes, over %d", i+1, n, maxPreparedBytes)
		}
	}
	c := ag.preparedCache()
	if _, ok := c.Peek("http://u0.example/"); ok {
		t.Error("the least recently requested entry was kept")
	}
	c.Purge()
	if n := ag.prepBytes.Load(); n != 0 {
		t.Errorf("no entry left, %d bytes counted", n)
	}
}

// TestPreparedHeaders: answers from a prepared entry carry its
// Last-Modified, X-Memento-Count and Content-Length values written once
// for the entry (the same slices in every answer, not made per request),
// and the values are those of the answer: the entry's Updated as an HTTP
// date, the memento count and the body's length.
func TestPreparedHeaders(t *testing.T) {
	urir := "http://example.com/"
	t0 := time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)
	f := newFake()
	f.holdings["arc0"] = map[string][]memento.Memento{urir: {
		{URIM: "http://arc0/web/20050301120000/" + urir, Datetime: t0},
		{URIM: "http://arc0/web/20100101000000/" + urir, Datetime: t0.AddDate(5, 0, 0)}}}
	store, err := memorycache.New(&memorycache.Options{ShareMementos: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "arc0", TimeMap: "http://arc0/"}}, Upstream: f, Cache: store})
	h := ag.Handler()
	var prev http.Header
	for round := range 4 { // search, prepare, then two prepared answers
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/"+urir, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("round %d: %d %s", round, rec.Code, rec.Body)
		}
		hd := rec.Result().Header
		if got, want := hd.Get("Content-Length"), strconv.Itoa(rec.Body.Len()); got != want {
			t.Errorf("round %d: Content-Length %s, want %s", round, got, want)
		}
		if got := hd.Get("X-Memento-Count"); got != "2" {
			t.Errorf("round %d: X-Memento-Count %s, want 2", round, got)
		}
		if round < 2 {
			continue
		}
		e, err := store.Get(t.Context(), cache.URIRKeyOf(urir))
		if err != nil {
			t.Fatal(err)
		}
		if got, want := hd.Get("Last-Modified"), memento.FormatHTTPDate(e.Updated); got != want {
			t.Errorf("round %d: Last-Modified %s, want %s", round, got, want)
		}
		if round == 3 {
			for _, k := range []string{"Last-Modified", "X-Memento-Count", "Content-Length"} {
				if &rec.Header()[k][0] != &prev[k][0] {
					t.Errorf("%s: a value made for each answer, want the prepared entry's", k)
				}
			}
		}
		prev = rec.Header()
	}
}

// TestPreparedPromotedOncePerInterval: a prepared entry read again is
// made the most recently used (kept when the cache is full and another
// is added) once promoteEvery has passed since it was last; read again
// within it, it keeps its place and is dropped first.
func TestPreparedPromotedOncePerInterval(t *testing.T) {
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "arc0", TimeMap: "http://arc0/"}}, Upstream: newFake()})
	t0 := time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)
	entry := func(i int) (string, *cache.Entry, []memento.Memento) {
		urir := "http://example.com/" + strconv.Itoa(i)
		urim := "http://arc0/web/20050301120000/" + urir
		e := &cache.Entry{Info: cache.Info{Status: cache.StatusFound, Updated: t0},
			Mementos: []cache.StoredMemento{{URIM: urim, Datetime: t0, Archive: "arc0"}}}
		return urir, e, []memento.Memento{{URIM: urim, Datetime: t0, Archive: "arc0"}}
	}
	for i := range maxPrepared {
		if ag.prepare(entry(i)) == nil {
			t.Fatalf("entry %d not prepared", i)
		}
	}
	u0, e0, _ := entry(0)
	u1, e1, _ := entry(1)
	p0 := ag.preparedFor(u0, e0)
	if p0 == nil {
		t.Fatal("entry 0 not found")
	}
	p0.promoted.Store(time.Now().Add(-promoteEvery).UnixNano()) // last promoted an interval ago
	if ag.preparedFor(u0, e0) == nil || ag.preparedFor(u1, e1) == nil {
		t.Fatal("entries 0 and 1 not found")
	}
	ag.prepare(entry(maxPrepared)) // the cache is full: the least recently used goes
	if ag.preparedFor(u0, e0) == nil {
		t.Error("entry 0, read again after promoteEvery, was dropped")
	}
	if ag.preparedFor(u1, e1) != nil {
		t.Error("entry 1, read again within promoteEvery of its preparation, was kept instead of dropped first")
	}
}
