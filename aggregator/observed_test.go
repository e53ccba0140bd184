package aggregator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/memento"
)

func putEntry(t *testing.T, c cache.Cache, urir string, st cache.Status, at time.Time, archives ...string) {
	t.Helper()
	r := cache.Result{Status: st, Updated: at}
	for i, a := range archives {
		r.Mementos = append(r.Mementos, cache.StoredMemento{URIM: fmt.Sprintf("http://%s/web/%d/%s", a, i, urir), Datetime: at.Add(-time.Duration(i+1) * time.Hour), Archive: a})
	}
	if err := c.Put(context.Background(), urir, r); err != nil {
		t.Fatal(err)
	}
}

func TestWriteObservedMap(t *testing.T) {
	c, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	t2 := t1.Add(48 * time.Hour)
	putEntry(t, c, "http://example.com/a", cache.StatusFound, t1, "A", "A", "B")
	putEntry(t, c, "http://example.com/b", cache.StatusNone, t2)
	putEntry(t, c, "http://example.com/c?x=1", cache.StatusFound, t1, "B") // A answered none
	putEntry(t, c, "http://example.com/d", cache.StatusFailed, t1, "B")    // says nothing
	var out bytes.Buffer
	now := func() time.Time { return t2.Add(time.Hour) }
	st, err := WriteObservedMap(context.Background(), &out, c, &ObservedOptions{Archive: "A", MaxAge: 72 * time.Hour, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := `!context ["https://oduwsdl.github.io/contexts/ukvs"]
!id {"uri":"A"}
!fields {"keys": ["surt", "observed"], "values": ["frequency"]}
!meta {"name":"observed answers of A","negatives_max_age":"72h0m0s","type":"MementoMap","updated_at":"2026-03-03T11:00:00Z"}
* - /
com,example)/a 20260301100000 2/1
com,example)/b 20260303100000 0
com,example)/c?x=1 20260301100000 0
`
	if out.String() != want {
		t.Errorf("map:\n%s\nwant:\n%s", out.String(), want)
	}
	if st.Entries != 4 || st.Positives != 1 || st.Negatives != 2 || st.Skipped != 1 {
		t.Errorf("stats %+v", st)
	}
	// Routing with it: b is absent for 72 hours after t2, then asked again;
	// a is present; a URI-R never observed is present.
	path := filepath.Join(t.TempDir(), "A.observed")
	os.WriteFile(path, out.Bytes(), 0o644)
	var clock time.Time
	l, closer, err := OpenMementoMapAt(path, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	defer closer.Close()
	for _, c := range []struct {
		uri  string
		at   time.Time
		want int64
	}{
		{"http://example.com/b", t2.Add(time.Hour), 0},
		{"https://example.com/b", t2.Add(71 * time.Hour), 0},
		{"http://example.com/b", t2.Add(73 * time.Hour), 1},
		{"http://example.com/a", t2.Add(1000 * time.Hour), 1},
		{"http://example.com/c?x=1", t1.Add(time.Hour), 0},
		{"http://example.com/c?x=2", t1.Add(time.Hour), 1},
		{"http://example.com/never", t1, 1},
		{"http://other.example/", t1, 1},
	} {
		clock = c.at
		got, err := l.Frequency(c.uri)
		if err != nil || got != c.want {
			t.Errorf("%s at %s: %d, %v; want %d", c.uri, c.at, got, err, c.want)
		}
	}
}

// TestObservedMapFindsNewMementoAfterExpiry runs the aggregator: a search
// for a URI-R that archive A does not hold is cached as "none"; the
// observed map of A built from the cache then routes around A. A gains a
// memento: while the negative is trusted the routed aggregator does not
// ask A; once it expired, A is asked and the memento found.
func TestObservedMapFindsNewMementoAfterExpiry(t *testing.T) {
	const u = "http://example.com/news"
	f := newFake()
	archives := []Archive{{ID: "A", TimeMap: "http://A/timemap/"}, {ID: "B", TimeMap: "http://B/timemap/"}}
	f.holdings["A"] = map[string][]memento.Memento{}
	f.holdings["B"] = map[string][]memento.Memento{}
	c, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	first := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1, Cache: c})
	if _, err := first.Lookup(context.Background(), FamilyTimeMap, u, time.Time{}, CacheControl{}); err != nil {
		t.Fatal(err)
	}
	e, err := c.Get(context.Background(), cache.URIRKeyOf(u))
	if err != nil || e.Status != cache.StatusNone {
		t.Fatalf("cache entry %+v, %v: want a none", e.Info, err)
	}
	observedAt := e.Updated
	var out bytes.Buffer
	if _, err := WriteObservedMap(context.Background(), &out, c, &ObservedOptions{Archive: "A", MaxAge: 24 * time.Hour, Listed: true}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "A.observed")
	os.WriteFile(path, out.Bytes(), 0o644)
	clock := observedAt.Add(time.Hour)
	l, closer, err := OpenMementoMapAt(path, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	routed := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1})
	if err := routed.SetMap("A", l, closer, time.Now()); err != nil {
		t.Fatal(err)
	}
	// A gains a memento after the observation.
	f.mu.Lock()
	f.holdings["A"][u] = []memento.Memento{{URIM: "http://A/web/20260101000000/" + u, Datetime: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	f.mu.Unlock()
	calls := func() int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls["A"] }
	before := calls()
	res, err := routed.Search(context.Background(), TimeMapCache, u, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if calls() != before || len(res.Mementos) != 0 {
		t.Fatalf("within the max age: A asked %d times, %d mementos; want A skipped", calls()-before, len(res.Mementos))
	}
	clock = observedAt.Add(25 * time.Hour)
	res, err = routed.Search(context.Background(), TimeMapCache, u, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if calls() != before+1 || len(res.Mementos) != 1 || res.Mementos[0].Archive != "A" {
		t.Fatalf("after the max age: A asked %d times, mementos %+v; want A asked and its memento found", calls()-before, res.Mementos)
	}
}

// TestObservedRoutingRecallProperty simulates 60 days of an aggregator
// that routes three archives by their observed maps, rebuilt from its
// cache every 3 days (each from the one in use), while the archives gain
// mementos at random. The property: an archive the map skips never holds a
// memento it gained more than the max age before the lookup (recall 1.000
// for everything but the newest mementos of URI-Rs it had answered none
// for), over 20 seeds.
func TestObservedRoutingRecallProperty(t *testing.T) {
	const maxAge = 7 * 24 * time.Hour
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for seed := uint64(1); seed <= 20; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		var uris []string
		for i := range 40 {
			uris = append(uris, fmt.Sprintf("http://site%d.example/page%d", i%7, i))
		}
		archives := []string{"A", "B", "C"}
		gained := map[string]map[string]time.Time{} // archive → URI → first memento
		for _, a := range archives {
			gained[a] = map[string]time.Time{}
		}
		c, err := memorycache.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var clock time.Time
		maps := map[string]MapLookup{}
		paths := map[string]string{}
		rebuild := func() {
			for _, a := range archives {
				var out bytes.Buffer
				if _, err := WriteObservedMap(context.Background(), &out, c, &ObservedOptions{Archive: a, MaxAge: maxAge, Previous: paths[a], Listed: true}); err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(dir, fmt.Sprintf("%s.%d.observed", a, clock.Unix()))
				os.WriteFile(p, out.Bytes(), 0o644)
				l, closer, err := OpenMementoMapAt(p, func() time.Time { return clock })
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { closer.Close() })
				maps[a], paths[a] = l, p
			}
		}
		var skips, allowedMisses, lookups int
		for day := 0; day < 60; day++ {
			for _, a := range archives {
				for _, u := range uris {
					if _, ok := gained[a][u]; !ok && r.IntN(60) == 0 {
						gained[a][u] = start.Add(time.Duration(day)*24*time.Hour + time.Duration(r.IntN(24))*time.Hour)
					}
				}
			}
			for q := range 20 {
				clock = start.Add(time.Duration(day)*24*time.Hour + time.Duration(q)*time.Hour + 30*time.Minute)
				u := uris[r.IntN(len(uris))]
				lookups++
				var found []string
				for _, a := range archives {
					g, holds := gained[a][u]
					holds = holds && !g.After(clock)
					if l := maps[a]; l != nil {
						if fr, err := l.Frequency(u); err == nil && fr == 0 {
							skips++
							if holds && !g.After(clock.Add(-maxAge)) {
								b, _ := os.ReadFile(paths[a])
								e, _ := c.Get(context.Background(), cache.URIRKeyOf(u))
								t.Fatalf("seed %d day %d (%s): %s skipped for %s, which it has held since %s (more than %s); map %s\n%s\nentry %+v", seed, day, clock, a, u, g, maxAge, paths[a], b, e)
							}
							if holds {
								allowedMisses++
							}
							continue
						}
					}
					if holds {
						found = append(found, a)
					}
				}
				st := cache.StatusNone
				if len(found) > 0 {
					st = cache.StatusFound
				}
				putEntry(t, c, u, st, clock, found...)
			}
			if day%3 == 2 {
				rebuild()
			}
		}
		if skips == 0 {
			t.Fatalf("seed %d: no archive was ever skipped: the test routes nothing", seed)
		}
		if seed == 1 {
			t.Logf("seed 1: %d lookups, %d archive requests skipped, %d of them within %s of a memento's arrival (allowed)", lookups, skips, allowedMisses, maxAge)
		}
	}
}

// TestWriteObservedMapEvidence: an archive no entry holds a memento of is
// refused unless listed, and a previous map's bad lines are errors naming
// the file and line.
func TestWriteObservedMapEvidence(t *testing.T) {
	c, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t1 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	putEntry(t, c, "http://example.com/a", cache.StatusFound, t1, "A")
	putEntry(t, c, "http://example.com/b", cache.StatusNone, t1)
	var out bytes.Buffer
	_, err = WriteObservedMap(context.Background(), &out, c, &ObservedOptions{Archive: "nosuch"})
	if !errors.Is(err, ErrArchiveNotObserved) || !strings.Contains(err.Error(), `["A"]`) {
		t.Fatalf("unobserved archive: %v, want ErrArchiveNotObserved naming the archives seen", err)
	}
	if out.Len() != 0 {
		t.Errorf("wrote %q for an unobserved archive", out.String())
	}
	if _, err := WriteObservedMap(context.Background(), &out, c, &ObservedOptions{Archive: "nosuch", Listed: true}); err != nil || !strings.Contains(out.String(), "com,example)/b 20260301100000 0\n") {
		t.Fatalf("listed archive: %v\n%s", err, out.String())
	}
	dir := t.TempDir()
	for i, bad := range []string{"com,example)/x 20260301100000 abc", "com,example)/x 20260301100000 -5/x", "com,example)/x 20260301100000", "com,example)/x 20260301100000 0 extra"} {
		p := filepath.Join(dir, fmt.Sprintf("%d.ukvs", i))
		os.WriteFile(p, []byte("!fields {}\n* - /\ncom,example)/a 20260301100000 1/1\n"+bad+"\n"), 0o644)
		_, err := WriteObservedMap(context.Background(), &bytes.Buffer{}, c, &ObservedOptions{Archive: "A", Previous: p})
		if err == nil || !strings.Contains(err.Error(), p+": line 4") {
			t.Errorf("previous line %q: %v, want an error naming %s line 4", bad, err, p)
		}
	}
}
