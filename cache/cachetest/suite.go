package cachetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/mementokit/mementokit/cache"
)

// t0 is the suite's clock: every time is an offset from it.
var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

// ctxT bounds each suite call, so that a hanging store fails instead of
// stalling the run.
func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func mustPut(t *testing.T, c cache.Cache, uriR string, r cache.Result) {
	t.Helper()
	if err := c.Put(ctxT(t), uriR, r); err != nil {
		t.Fatalf("Put(%.60q): %v", uriR, err)
	}
}

func mustGet(t *testing.T, c cache.Cache, uriR string) cache.Entry {
	t.Helper()
	e, err := c.Get(ctxT(t), cache.URIRKeyOf(uriR))
	if err != nil {
		t.Fatalf("Get(%.60q): %v", uriR, err)
	}
	return e
}

func found(updated time.Time, ms ...cache.StoredMemento) cache.Result {
	return cache.Result{Status: cache.StatusFound, Updated: updated, Mementos: ms}
}

func mem(urim string, sec int, archive string) cache.StoredMemento {
	return cache.StoredMemento{URIM: urim, Datetime: at(sec), Archive: archive, Rel: "memento"}
}

// awkward URIs that every store must keep byte-exact.
func awkwardURIs() map[string]string {
	long := "example.org/long?" + strings.Repeat("q=%22x%22&", 8192/10)
	long = long[:8192]
	return map[string]string{
		"quotes":       `http://example.org/a"b'c?q="x"&r='y'`,
		"backslashes":  `http://example.org/a\b\\c\'\"`,
		"utf8_4byte":   "http://example.org/\U0001F600/\U00010348?\u00e9=\u4e2d",
		"8KiB":         "http://" + long,
		"not_utf8":     "http://example.org/\xff\xfe\x80%00",
		"sql_comment":  "http://example.org/'; DROP TABLE links; -- ",
		"trailing_sp":  "http://example.org/a   ",
		"nul_and_tab":  "http://example.org/\x00\t",
		"percent_case": "http://example.org/%7e%7E",
	}
}

func testGetMissing(t *testing.T, s Store) {
	_, err := s.Cache.Get(ctxT(t), cache.URIRKeyOf("example.org/"))
	if !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("Get of a missing key: err = %v, want ErrNotFound", err)
	}
	var se *cache.Error
	if errors.As(err, &se) {
		t.Errorf("not-found error is a store failure (*cache.Error): %v", err)
	}
}

func testRoundTrip(t *testing.T, s Store) {
	paris := time.FixedZone("CET", 3600)
	type tc struct {
		name string
		uriR string
		in   cache.Result
		want cache.Entry
	}
	cases := []tc{
		{
			name: "one_memento",
			uriR: "http://example.org/",
			in:   found(at(0), mem("https://web.archive.org/web/20010101000000/http://example.org/", -100, "ia")),
			want: cache.Entry{
				Info:     cache.Info{URIR: "example.org/", Status: cache.StatusFound, Updated: at(0)},
				Mementos: []cache.StoredMemento{mem("https://web.archive.org/web/20010101000000/http://example.org/", -100, "ia")},
			},
		},
		{
			name: "sorted_and_deduplicated",
			uriR: "https://example.org/s",
			in: found(at(1),
				mem("u3", 30, "ia"), mem("u1", 10, "ukwa"), mem("u2", 10, "ia"),
				mem("u3", 30, "ia"), cache.StoredMemento{URIM: "u3", Datetime: at(30), Archive: "ia", Rel: "last memento", Type: "text/html"}),
			want: cache.Entry{
				Info: cache.Info{URIR: "example.org/s", Status: cache.StatusFound, Updated: at(1)},
				Mementos: []cache.StoredMemento{mem("u2", 10, "ia"), mem("u1", 10, "ukwa"),
					cache.StoredMemento{URIM: "u3", Datetime: at(30), Archive: "ia", Rel: "last memento", Type: "text/html"},
					mem("u3", 30, "ia")},
			},
		},
		{
			name: "seconds_in_utc",
			uriR: "http://example.org/t",
			in: found(t0.In(paris).Add(999*time.Millisecond),
				cache.StoredMemento{URIM: "m", Datetime: time.Date(1996, 1, 2, 3, 4, 5, 987654321, paris), Archive: "ia"}),
			want: cache.Entry{
				Info:     cache.Info{URIR: "example.org/t", Status: cache.StatusFound, Updated: t0},
				Mementos: []cache.StoredMemento{{URIM: "m", Datetime: time.Date(1996, 1, 2, 2, 4, 5, 0, time.UTC), Archive: "ia"}},
			},
		},
		{
			name: "time_range_ends",
			uriR: "http://example.org/range",
			in: found(cache.MaxTime,
				cache.StoredMemento{URIM: "old", Datetime: cache.MinTime, Archive: "ia"},
				cache.StoredMemento{URIM: "new", Datetime: cache.MaxTime, Archive: "ia"}),
			want: cache.Entry{
				Info: cache.Info{URIR: "example.org/range", Status: cache.StatusFound, Updated: cache.MaxTime},
				Mementos: []cache.StoredMemento{{URIM: "old", Datetime: cache.MinTime, Archive: "ia"},
					{URIM: "new", Datetime: cache.MaxTime, Archive: "ia"}},
			},
		},
		{
			name: "none_found",
			uriR: "http://example.org/none",
			in:   cache.Result{Status: cache.StatusNone, Updated: at(2)},
			want: cache.Entry{Info: cache.Info{URIR: "example.org/none", Status: cache.StatusNone, Updated: at(2)}},
		},
		{
			name: "blocked",
			uriR: "http://example.org/blocked",
			in:   cache.Result{Status: cache.StatusBlocked, Updated: at(3)},
			want: cache.Entry{Info: cache.Info{URIR: "example.org/blocked", Status: cache.StatusBlocked, Updated: at(3)}},
		},
		{
			name: "failed_keeps_given_mementos",
			uriR: "http://example.org/failed",
			in:   cache.Result{Status: cache.StatusFailed, Updated: at(4), Mementos: []cache.StoredMemento{mem("f", 1, "ia")}},
			want: cache.Entry{
				Info:     cache.Info{URIR: "example.org/failed", Status: cache.StatusFailed, Updated: at(4)},
				Mementos: []cache.StoredMemento{mem("f", 1, "ia")},
			},
		},
		{
			name: "fields_at_limits",
			uriR: "http://example.org/fields",
			in: found(at(5), cache.StoredMemento{URIM: "m", Datetime: at(0),
				Archive: strings.Repeat("\U0001F600", cache.MaxFieldLen/4),
				Rel:     "first last memento", Type: strings.Repeat("t", cache.MaxFieldLen)}),
			want: cache.Entry{
				Info: cache.Info{URIR: "example.org/fields", Status: cache.StatusFound, Updated: at(5)},
				Mementos: []cache.StoredMemento{{URIM: "m", Datetime: at(0),
					Archive: strings.Repeat("\U0001F600", cache.MaxFieldLen/4),
					Rel:     "first last memento", Type: strings.Repeat("t", cache.MaxFieldLen)}},
			},
		},
	}
	for name, u := range awkwardURIs() {
		urim := "https://archive.example/web/2001/" + u
		if len(urim) > cache.MaxURILen {
			urim = urim[:cache.MaxURILen]
		}
		ms := []cache.StoredMemento{{URIM: urim, Datetime: at(-1), Archive: "a\"'\\\U0001F600"}, mem(u, 7, "ia")}
		cases = append(cases, tc{
			name: "uri_" + name,
			uriR: u,
			in:   found(at(6), ms...),
			want: cache.Entry{
				Info:     cache.Info{URIR: cache.StripScheme(u), Status: cache.StatusFound, Updated: at(6)},
				Mementos: ms,
			},
		})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := c.in
			in.Mementos = append([]cache.StoredMemento(nil), c.in.Mementos...)
			mustPut(t, s.Cache, c.uriR, in)
			if diff := cmp.Diff(c.in.Mementos, in.Mementos); diff != "" {
				t.Errorf("Put modified its argument (-before +after):\n%s", diff)
			}
			got := mustGet(t, s.Cache, c.uriR)
			c.want.Key = cache.URIRKeyOf(c.uriR)
			if diff := cmp.Diff(c.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Get after Put (-want +got):\n%s", diff)
			}
			for i, m := range got.Mementos {
				if m.Datetime.Location() != time.UTC {
					t.Errorf("memento %d datetime in %v, want UTC", i, m.Datetime.Location())
				}
			}
			if got.Updated.Location() != time.UTC {
				t.Errorf("Updated in %v, want UTC", got.Updated.Location())
			}
		})
	}
}

func testManyMementos(t *testing.T, s Store) {
	// 2,000 mementos, three per (datetime, archive), URI-Ms of 4.5 KB: about
	// 9 MB, several batches (by count and by size) for stores that write in
	// batches, with groups of equal (datetime, archive) across batches.
	var ms []cache.StoredMemento
	pad := strings.Repeat("p", 4500)
	for i := range 2000 {
		ms = append(ms, cache.StoredMemento{URIM: fmt.Sprintf("https://a.example/%05d/%s", i, pad),
			Datetime: at(i / 3), Archive: "ia", Rel: "memento"})
	}
	mustPut(t, s.Cache, "http://e.org/many", found(at(0), ms...))
	got := mustGet(t, s.Cache, "http://e.org/many")
	if diff := cmp.Diff(ms, got.Mementos); diff != "" {
		t.Errorf("many mementos (-want +got):\n%.2000s", diff)
	}
	// Replaced by fewer: none of the old ones may survive.
	mustPut(t, s.Cache, "http://e.org/many", found(at(1), ms[:2]...))
	if got := mustGet(t, s.Cache, "http://e.org/many"); len(got.Mementos) != 2 {
		t.Errorf("after replacing 2,000 mementos by 2: %d mementos", len(got.Mementos))
	}
}

func testSchemeAgnostic(t *testing.T, s Store) {
	mustPut(t, s.Cache, "https://example.org/x", found(at(0), mem("m", 0, "ia")))
	for _, u := range []string{"http://example.org/x", "example.org/x", "//example.org/x", "HTTPS://example.org/x"} {
		if got := mustGet(t, s.Cache, u); got.URIR != "example.org/x" || len(got.Mementos) != 1 {
			t.Errorf("Get(%q) = %q with %d mementos, want the https entry", u, got.URIR, len(got.Mementos))
		}
	}
	if _, err := s.Cache.Get(ctxT(t), cache.URIRKeyOf("http://example.org/X")); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("path case must matter: Get(example.org/X) err = %v, want ErrNotFound", err)
	}
}

func testPutReplaces(t *testing.T, s Store) {
	const u = "http://example.org/r"
	ctx := ctxT(t)
	if err := s.Cache.RecordRequest(ctx, u, at(5)); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s.Cache, u, found(at(10), mem("a", 1, "ia"), mem("b", 2, "ia"), mem("c", 3, "ukwa")))
	mustPut(t, s.Cache, u, found(at(20), mem("d", 4, "ia")))
	want := cache.Entry{
		Info: cache.Info{Key: cache.URIRKeyOf(u), URIR: "example.org/r", Status: cache.StatusFound,
			Requested: at(5), Requests: 1, Updated: at(20)},
		Mementos: []cache.StoredMemento{mem("d", 4, "ia")},
	}
	if diff := cmp.Diff(want, mustGet(t, s.Cache, u)); diff != "" {
		t.Errorf("after the second Put (-want +got):\n%s", diff)
	}
	mustPut(t, s.Cache, u, cache.Result{Status: cache.StatusNone, Updated: at(30)})
	want.Status, want.Updated, want.Mementos = cache.StatusNone, at(30), nil
	if diff := cmp.Diff(want, mustGet(t, s.Cache, u), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("after Put of none found (-want +got):\n%s", diff)
	}
}

func testInvalid(t *testing.T, s Store) {
	ok := mem("m", 0, "ia")
	with := func(f func(m *cache.StoredMemento)) cache.Result {
		m := ok
		f(&m)
		return found(at(0), m)
	}
	cases := []struct {
		name string
		uriR string
		r    cache.Result
	}{
		{"empty_uri", "", found(at(0), ok)},
		{"scheme_only", "http://", found(at(0), ok)},
		{"uri_too_long", "http://" + strings.Repeat("a", cache.MaxURILen+1), found(at(0), ok)},
		{"zero_updated", "http://e.org/", found(time.Time{}, ok)},
		{"updated_year_10000", "http://e.org/", found(cache.MaxTime.Add(time.Second), ok)},
		{"pending_status", "http://e.org/", cache.Result{Status: cache.StatusPending, Updated: at(0)}},
		{"unknown_status", "http://e.org/", cache.Result{Status: 99, Updated: at(0), Mementos: []cache.StoredMemento{ok}}},
		{"found_without_mementos", "http://e.org/", found(at(0))},
		{"none_with_mementos", "http://e.org/", cache.Result{Status: cache.StatusNone, Updated: at(0), Mementos: []cache.StoredMemento{ok}}},
		{"blocked_with_mementos", "http://e.org/", cache.Result{Status: cache.StatusBlocked, Updated: at(0), Mementos: []cache.StoredMemento{ok}}},
		{"memento_zero_datetime", "http://e.org/", with(func(m *cache.StoredMemento) { m.Datetime = time.Time{} })},
		{"memento_year_999", "http://e.org/", with(func(m *cache.StoredMemento) { m.Datetime = cache.MinTime.Add(-time.Second) })},
		{"memento_empty_urim", "http://e.org/", with(func(m *cache.StoredMemento) { m.URIM = "" })},
		{"memento_urim_too_long", "http://e.org/", with(func(m *cache.StoredMemento) { m.URIM = strings.Repeat("u", cache.MaxURILen+1) })},
		{"memento_empty_archive", "http://e.org/", with(func(m *cache.StoredMemento) { m.Archive = "" })},
		{"memento_archive_not_utf8", "http://e.org/", with(func(m *cache.StoredMemento) { m.Archive = "\xff" })},
		{"memento_rel_too_long", "http://e.org/", with(func(m *cache.StoredMemento) { m.Rel = strings.Repeat("r", cache.MaxFieldLen+1) })},
		{"memento_type_not_utf8", "http://e.org/", with(func(m *cache.StoredMemento) { m.Type = "text/\xc3" })},
	}
	ctx := ctxT(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.Cache.Put(ctx, c.uriR, c.r)
			if !errors.Is(err, cache.ErrInvalid) {
				t.Fatalf("Put: err = %v, want ErrInvalid", err)
			}
			if c.uriR != "" {
				if _, err := s.Cache.Get(ctx, cache.URIRKeyOf(c.uriR)); !errors.Is(err, cache.ErrNotFound) {
					t.Errorf("refused Put left an entry: Get err = %v", err)
				}
			}
		})
	}
	calls := []struct {
		name string
		call func() error
	}{
		{"request_zero_time", func() error { return s.Cache.RecordRequest(ctx, "http://e.org/", time.Time{}) }},
		{"request_empty_uri", func() error { return s.Cache.RecordRequest(ctx, "", at(0)) }},
		{"stale_zero_limit", func() error { _, err := s.Cache.Stale(ctx, at(0), 0); return err }},
		{"stale_zero_time", func() error { _, err := s.Cache.Stale(ctx, time.Time{}, 1); return err }},
		{"enqueue_priority_0", func() error { return s.Cache.Enqueue(ctx, "http://e.org/", 0, at(0)) }},
		{"enqueue_priority_10", func() error { return s.Cache.Enqueue(ctx, "http://e.org/", 10, at(0)) }},
		{"enqueue_long_uri", func() error {
			return s.Cache.Enqueue(ctx, "http://"+strings.Repeat("a", cache.MaxURILen), cache.PriorityLive, at(0))
		}},
		{"claim_empty_worker", func() error { _, err := s.Cache.Claim(ctx, "", at(0)); return err }},
		{"claim_zero_time", func() error { _, err := s.Cache.Claim(ctx, "w", time.Time{}); return err }},
		{"complete_zero_time", func() error { return s.Cache.Complete(ctx, cache.Job{ID: 1, Worker: "w"}, time.Time{}) }},
		{"cleanup_zero_now", func() error { _, err := s.Cache.Cleanup(ctx, cache.CleanupPolicy{}); return err }},
		{"cleanup_negative_age", func() error {
			_, err := s.Cache.Cleanup(ctx, cache.CleanupPolicy{Now: at(0), UnrequestedAge: -time.Hour})
			return err
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.call(); !errors.Is(err, cache.ErrInvalid) {
				t.Errorf("err = %v, want ErrInvalid", err)
			}
		})
	}
	if _, err := s.Cache.Claim(ctx, "w", at(0)); !errors.Is(err, cache.ErrNoJob) {
		t.Errorf("a refused Enqueue queued a job: Claim err = %v", err)
	}
}

func testRecordRequest(t *testing.T, s Store) {
	const u = "https://example.org/req"
	ctx := ctxT(t)
	for _, sec := range []int{10, 30, 20} {
		if err := s.Cache.RecordRequest(ctx, u, at(sec)); err != nil {
			t.Fatal(err)
		}
	}
	want := cache.Entry{Info: cache.Info{Key: cache.URIRKeyOf(u), URIR: "example.org/req",
		Status: cache.StatusPending, Requested: at(30), Requests: 3}}
	if diff := cmp.Diff(want, mustGet(t, s.Cache, u), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("pending entry (-want +got):\n%s", diff)
	}
	mustPut(t, s.Cache, u, found(at(40), mem("m", 1, "ia")))
	if err := s.Cache.RecordRequest(ctx, "http://example.org/req", at(50)); err != nil {
		t.Fatal(err)
	}
	want.Status, want.Updated, want.Requested, want.Requests = cache.StatusFound, at(40), at(50), 4
	want.Mementos = []cache.StoredMemento{mem("m", 1, "ia")}
	if diff := cmp.Diff(want, mustGet(t, s.Cache, u)); diff != "" {
		t.Errorf("after Put and a fourth request (-want +got):\n%s", diff)
	}
}

// testRecordRequestGet: a store that implements cache.RequestGetter
// answers RecordRequestGet as RecordRequest then Get: a pending entry
// for a URI-R never searched, the stored one with the request counted,
// and a refused argument refused as RecordRequest refuses it. A store
// without it skips.
func testRecordRequestGet(t *testing.T, s Store) {
	rg, ok := s.Cache.(cache.RequestGetter)
	if !ok {
		t.Skip("the store does not implement cache.RequestGetter")
	}
	const u = "https://example.org/rg"
	ctx := ctxT(t)
	e, err := rg.RecordRequestGet(ctx, u, at(10))
	if err != nil {
		t.Fatal(err)
	}
	want := cache.Entry{Info: cache.Info{Key: cache.URIRKeyOf(u), URIR: "example.org/rg",
		Status: cache.StatusPending, Requested: at(10), Requests: 1}}
	if diff := cmp.Diff(want, e, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("first request (-want +got):\n%s", diff)
	}
	mustPut(t, s.Cache, u, found(at(40), mem("m", 1, "ia")))
	if e, err = rg.RecordRequestGet(ctx, "http://example.org/rg", at(50)); err != nil {
		t.Fatal(err)
	}
	want.Status, want.Updated, want.Requested, want.Requests = cache.StatusFound, at(40), at(50), 2
	want.Mementos = []cache.StoredMemento{mem("m", 1, "ia")}
	if diff := cmp.Diff(want, e); diff != "" {
		t.Errorf("after Put and a second request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, mustGet(t, s.Cache, u)); diff != "" {
		t.Errorf("Get after RecordRequestGet (-want +got):\n%s", diff)
	}
	if _, err := rg.RecordRequestGet(ctx, "", at(0)); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("RecordRequestGet of an empty URI-R: err = %v, want cache.ErrInvalid", err)
	}
}

func testStale(t *testing.T, s Store) {
	ctx := ctxT(t)
	mustPut(t, s.Cache, "http://e.org/b", found(at(100), mem("m", 0, "ia")))
	mustPut(t, s.Cache, "http://e.org/a", found(at(100), mem("m", 0, "ia")))
	mustPut(t, s.Cache, "http://e.org/old", cache.Result{Status: cache.StatusNone, Updated: at(50)})
	mustPut(t, s.Cache, "http://e.org/fresh", found(at(200), mem("m", 0, "ia")))
	if err := s.Cache.RecordRequest(ctx, "http://e.org/pending", at(300)); err != nil {
		t.Fatal(err)
	}
	ab := []string{"e.org/a", "e.org/b"}
	if cache.URIRKeyOf(ab[0]).String() > cache.URIRKeyOf(ab[1]).String() {
		ab[0], ab[1] = ab[1], ab[0]
	}
	cases := []struct {
		name   string
		before time.Time
		limit  int
		want   []string
	}{
		{"all_but_fresh", at(150), 10, []string{"e.org/pending", "e.org/old", ab[0], ab[1]}},
		{"strictly_before", at(100), 10, []string{"e.org/pending", "e.org/old"}},
		{"limit", at(150), 3, []string{"e.org/pending", "e.org/old", ab[0]}},
		{"only_pending", at(50), 10, []string{"e.org/pending"}},
		{"everything", at(201), 100, []string{"e.org/pending", "e.org/old", ab[0], ab[1], "e.org/fresh"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			infos, err := s.Cache.Stale(ctx, c.before, c.limit)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, i := range infos {
				got = append(got, i.URIR)
				if i.Key != cache.URIRKeyOf(i.URIR) {
					t.Errorf("%s: Key %s, want URIRKeyOf(URIR)", i.URIR, i.Key)
				}
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Stale(%v, %d) (-want +got):\n%s", c.before, c.limit, diff)
			}
		})
	}
	infos, err := s.Cache.Stale(ctx, at(60), 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []cache.Info{
		{Key: cache.URIRKeyOf("e.org/pending"), URIR: "e.org/pending", Status: cache.StatusPending, Requested: at(300), Requests: 1},
		{Key: cache.URIRKeyOf("e.org/old"), URIR: "e.org/old", Status: cache.StatusNone, Updated: at(50)},
	}
	if diff := cmp.Diff(want, infos); diff != "" {
		t.Errorf("Stale infos (-want +got):\n%s", diff)
	}
}

func testDelete(t *testing.T, s Store) {
	ctx := ctxT(t)
	mustPut(t, s.Cache, "http://e.org/d", found(at(0), mem("m1", 0, "ia"), mem("m2", 1, "ia")))
	mustPut(t, s.Cache, "http://e.org/keep", found(at(0), mem("k", 0, "ia")))
	if err := s.Cache.Delete(ctx, cache.URIRKeyOf("e.org/d")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cache.Get(ctx, cache.URIRKeyOf("e.org/d")); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("Get after Delete: err = %v, want ErrNotFound", err)
	}
	if err := s.Cache.Delete(ctx, cache.URIRKeyOf("e.org/d")); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("second Delete: err = %v, want ErrNotFound", err)
	}
	if got := mustGet(t, s.Cache, "e.org/keep"); len(got.Mementos) != 1 {
		t.Errorf("Delete touched another entry: %d mementos", len(got.Mementos))
	}
	// A deleted entry comes back empty: no memento of the old one survives.
	mustPut(t, s.Cache, "http://e.org/d", found(at(9), mem("m3", 2, "ia")))
	if diff := cmp.Diff([]cache.StoredMemento{mem("m3", 2, "ia")}, mustGet(t, s.Cache, "e.org/d").Mementos); diff != "" {
		t.Errorf("re-put after Delete (-want +got):\n%s", diff)
	}
}

// claimAll claims until ErrNoJob and returns the URI-Rs in claim order.
func claimAll(t *testing.T, c cache.Cache, worker string, now time.Time) []cache.Job {
	t.Helper()
	var jobs []cache.Job
	for {
		j, err := c.Claim(ctxT(t), worker, now)
		if errors.Is(err, cache.ErrNoJob) {
			return jobs
		}
		if err != nil {
			t.Fatalf("Claim: %v", err)
		}
		jobs = append(jobs, j)
		if len(jobs) > 10000 {
			t.Fatal("Claim never runs dry")
		}
	}
}

func uris(jobs []cache.Job) []string {
	var out []string
	for _, j := range jobs {
		out = append(out, j.URIR)
	}
	return out
}

func testQueueOrder(t *testing.T, s Store) {
	ctx := ctxT(t)
	enq := []struct {
		u   string
		p   cache.Priority
		sec int
	}{
		{"http://e.org/refresh-early", cache.PriorityRefresh, 1},
		{"http://e.org/live-late", cache.PriorityLive, 5},
		{"http://e.org/live-early", cache.PriorityLive, 2},
		{"http://e.org/p9", 9, 0},
		{"http://e.org/refresh-late", cache.PriorityRefresh, 3},
		{"http://e.org/live-tie-b", cache.PriorityLive, 7},
		{"http://e.org/live-tie-a", cache.PriorityLive, 7},
	}
	for _, e := range enq {
		if err := s.Cache.Enqueue(ctx, e.u, e.p, at(e.sec)); err != nil {
			t.Fatal(err)
		}
	}
	jobs := claimAll(t, s.Cache, "w1", at(10))
	want := []string{"http://e.org/live-early", "http://e.org/live-late", "http://e.org/live-tie-b", "http://e.org/live-tie-a",
		"http://e.org/refresh-early", "http://e.org/refresh-late", "http://e.org/p9"}
	if diff := cmp.Diff(want, uris(jobs)); diff != "" {
		t.Errorf("claim order (-want +got):\n%s", diff)
	}
	if len(jobs) > 0 {
		j := jobs[0]
		wantJ := cache.Job{ID: j.ID, Key: cache.URIRKeyOf("e.org/live-early"), URIR: "http://e.org/live-early",
			Priority: cache.PriorityLive, Enqueued: at(2), Worker: "w1", Claimed: at(10)}
		if diff := cmp.Diff(wantJ, j); diff != "" {
			t.Errorf("claimed job (-want +got):\n%s", diff)
		}
	}
	ids := map[int64]bool{}
	for _, j := range jobs {
		if ids[j.ID] {
			t.Errorf("job ID %d given twice", j.ID)
		}
		ids[j.ID] = true
	}
}

func testQueueDedup(t *testing.T, s Store) {
	ctx := ctxT(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Same resource by http and https: one job; the live request raises it.
	must(s.Cache.Enqueue(ctx, "http://e.org/x", cache.PriorityRefresh, at(1)))
	must(s.Cache.Enqueue(ctx, "http://e.org/y", cache.PriorityLive, at(2)))
	must(s.Cache.Enqueue(ctx, "https://e.org/x", cache.PriorityLive, at(3)))
	must(s.Cache.Enqueue(ctx, "http://e.org/x", cache.PriorityRefresh, at(4))) // does not lower it
	jobs := claimAll(t, s.Cache, "w", at(5))
	if diff := cmp.Diff([]string{"http://e.org/x", "http://e.org/y"}, uris(jobs)); diff != "" {
		t.Fatalf("claims (-want +got):\n%s", diff)
	}
	x := jobs[0]
	if x.Priority != cache.PriorityLive || !x.Enqueued.Equal(at(1)) {
		t.Errorf("raised job: priority %d enqueued %v, want 1 at %v", x.Priority, x.Enqueued, at(1))
	}
	// Enqueued again while claimed: still the one claimed job, not queued twice.
	must(s.Cache.Enqueue(ctx, "http://e.org/x", cache.PriorityLive, at(6)))
	if more := claimAll(t, s.Cache, "w", at(7)); len(more) != 0 {
		t.Errorf("a claimed job was queued again: %v", uris(more))
	}
	// Completed, then enqueued again: reopened with the same ID.
	must(s.Cache.Complete(ctx, x, at(8)))
	must(s.Cache.Enqueue(ctx, "https://e.org/x", cache.PriorityRefresh, at(9)))
	again := claimAll(t, s.Cache, "w2", at(10))
	want := []cache.Job{{ID: x.ID, Key: x.Key, URIR: "https://e.org/x", Priority: cache.PriorityRefresh,
		Enqueued: at(9), Worker: "w2", Claimed: at(10)}}
	if diff := cmp.Diff(want, again); diff != "" {
		t.Errorf("reopened job (-want +got):\n%s", diff)
	}
}

func testComplete(t *testing.T, s Store) {
	ctx := ctxT(t)
	if err := s.Cache.Enqueue(ctx, "http://e.org/c", cache.PriorityLive, at(0)); err != nil {
		t.Fatal(err)
	}
	j, err := s.Cache.Claim(ctx, "w1", at(1))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		job  cache.Job
		want error
	}{
		{"unknown_id", cache.Job{ID: j.ID + 1000, Worker: "w1"}, cache.ErrNotFound},
		{"other_worker", cache.Job{ID: j.ID, Worker: "w2"}, cache.ErrNotFound},
		{"no_worker", cache.Job{ID: j.ID}, cache.ErrNotFound},
		{"owner", j, nil},
		{"owner_again", j, nil},
	}
	for _, c := range cases {
		if err := s.Cache.Complete(ctx, c.job, at(2)); !errors.Is(err, c.want) || (c.want == nil && err != nil) {
			t.Errorf("%s: Complete err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := s.Cache.Claim(ctx, "w3", at(3)); !errors.Is(err, cache.ErrNoJob) {
		t.Errorf("Claim after Complete: err = %v, want ErrNoJob", err)
	}
	// Completing a waiting (unclaimed) job is refused.
	if err := s.Cache.Enqueue(ctx, "http://e.org/c2", cache.PriorityLive, at(4)); err != nil {
		t.Fatal(err)
	}
	j2, err := s.Cache.Claim(ctx, "w1", at(5))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cache.Cleanup(ctx, cache.CleanupPolicy{Now: at(100), ClaimTimeout: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := s.Cache.Complete(ctx, j2, at(101)); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("Complete of a released claim: err = %v, want ErrNotFound", err)
	}
}

func testCleanup(t *testing.T, s Store) {
	ctx := ctxT(t)
	day := 24 * time.Hour
	now := t0
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	// Entries: requested long ago, requested lately, never requested but updated lately/long ago.
	must(s.Cache.RecordRequest(ctx, "http://e.org/old-req", now.Add(-200*day)))
	mustPut(t, s.Cache, "http://e.org/old-req", found(now.Add(-day), mem("m", 0, "ia")))
	must(s.Cache.RecordRequest(ctx, "http://e.org/new-req", now.Add(-day)))
	mustPut(t, s.Cache, "http://e.org/new-req", found(now.Add(-300*day), mem("m", 0, "ia")))
	mustPut(t, s.Cache, "http://e.org/old-put", cache.Result{Status: cache.StatusNone, Updated: now.Add(-190 * day)})
	mustPut(t, s.Cache, "http://e.org/new-put", cache.Result{Status: cache.StatusNone, Updated: now.Add(-10 * day)})
	// Jobs: completed long ago, completed lately, claimed long ago, claimed lately, waiting.
	for i, u := range []string{"http://e.org/j-old", "http://e.org/j-new", "http://e.org/j-stuck", "http://e.org/j-busy"} {
		must(s.Cache.Enqueue(ctx, u, cache.PriorityLive, now.Add(-time.Duration(200-i)*day)))
	}
	must(s.Cache.Enqueue(ctx, "http://e.org/j-wait", cache.PriorityRefresh, now.Add(-day)))
	claim := func(when time.Time) cache.Job {
		t.Helper()
		j, err := s.Cache.Claim(ctx, "w", when)
		must(err)
		return j
	}
	must(s.Cache.Complete(ctx, claim(now.Add(-100*day)), now.Add(-95*day)))
	must(s.Cache.Complete(ctx, claim(now.Add(-10*day)), now.Add(-9*day)))
	stuck := claim(now.Add(-2 * time.Hour))
	claim(now.Add(-10 * time.Minute))

	st, err := s.Cache.Cleanup(ctx, cache.DefaultCleanupPolicy(now))
	must(err)
	if diff := cmp.Diff(cache.CleanupStats{JobsReleased: 1, JobsDeleted: 1, EntriesDeleted: 2}, st); diff != "" {
		t.Errorf("Cleanup stats (-want +got):\n%s", diff)
	}
	for u, want := range map[string]error{"e.org/old-req": cache.ErrNotFound, "e.org/old-put": cache.ErrNotFound,
		"e.org/new-req": nil, "e.org/new-put": nil} {
		if _, err := s.Cache.Get(ctx, cache.URIRKeyOf(u)); !errors.Is(err, want) || (want == nil && err != nil) {
			t.Errorf("after Cleanup, Get(%s) err = %v, want %v", u, err, want)
		}
	}
	// The stuck job is back first in the queue (live, enqueued before j-wait); the busy one is not.
	jobs := claimAll(t, s.Cache, "w2", now)
	if diff := cmp.Diff([]string{"http://e.org/j-stuck", "http://e.org/j-wait"}, uris(jobs)); diff != "" {
		t.Errorf("queue after Cleanup (-want +got):\n%s", diff)
	}
	if len(jobs) > 0 && jobs[0].ID != stuck.ID {
		t.Errorf("released job has ID %d, want %d", jobs[0].ID, stuck.ID)
	}
	// The deleted completed job is gone: enqueueing it makes a new job.
	must(s.Cache.Enqueue(ctx, "http://e.org/j-old", cache.PriorityLive, now))
	if j := claim(now); j.URIR != "http://e.org/j-old" || !j.Enqueued.Equal(now) {
		t.Errorf("re-enqueued deleted job: %+v", j)
	}
	// Zero ages disable everything.
	st, err = s.Cache.Cleanup(ctx, cache.CleanupPolicy{Now: now.Add(1000 * day)})
	must(err)
	if st != (cache.CleanupStats{}) {
		t.Errorf("Cleanup with zero ages did %+v", st)
	}
}

func testCleanupCap(t *testing.T, s Store) {
	ctx := ctxT(t)
	for i := range 5 {
		mustPut(t, s.Cache, fmt.Sprintf("http://e.org/%d", i), cache.Result{Status: cache.StatusNone, Updated: at(i)})
	}
	p := cache.CleanupPolicy{Now: at(1000), UnrequestedAge: time.Second, MaxEntries: 2}
	st, err := s.Cache.Cleanup(ctx, p)
	if err != nil || st.EntriesDeleted != 2 {
		t.Fatalf("capped Cleanup = %+v, %v; want 2 entries deleted", st, err)
	}
	infos, err := s.Cache.Stale(ctx, at(2000), 10)
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, i := range infos {
		left = append(left, i.URIR)
	}
	if diff := cmp.Diff([]string{"e.org/2", "e.org/3", "e.org/4"}, left); diff != "" {
		t.Errorf("capped Cleanup must delete the oldest first (-want +got):\n%s", diff)
	}
}

func testConcurrentRequests(t *testing.T, s Store) {
	const workers, rounds, keys = 8, 25, 5
	ctx := ctxT(t)
	var wg sync.WaitGroup
	errs := make(chan error, workers*rounds*3)
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				u := fmt.Sprintf("http://e.org/k%d", (w+r)%keys)
				if err := s.Cache.RecordRequest(ctx, u, at(r)); err != nil {
					errs <- err
				}
				if err := s.Cache.Put(ctx, u, found(at(r), mem(fmt.Sprint("m", w), r, "ia"))); err != nil {
					errs <- err
				}
				if e, err := s.Cache.Get(ctx, cache.URIRKeyOf(u)); err != nil || len(e.Mementos) != 1 {
					errs <- fmt.Errorf("Get(%s) = %d mementos, %v", u, len(e.Mementos), err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var total int64
	for k := range keys {
		total += mustGet(t, s.Cache, fmt.Sprintf("e.org/k%d", k)).Requests
	}
	if total != workers*rounds {
		t.Errorf("requests recorded = %d, want %d (lost updates)", total, workers*rounds)
	}
}

func testAtomicPut(t *testing.T, s Store) {
	const u = "http://e.org/atomic"
	small := found(at(1), mem("s", 1, "ia"))
	var big []cache.StoredMemento
	for i := range 300 {
		big = append(big, mem(fmt.Sprint("b", i), i, "ukwa"))
	}
	mustPut(t, s.Cache, u, small)
	ctx := ctxT(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(stop)
		for i := range 20 {
			r := small
			if i%2 == 0 {
				r = found(at(2), big...)
			}
			if err := s.Cache.Put(ctx, u, r); err != nil {
				t.Error(err)
				return
			}
		}
	})
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				e, err := s.Cache.Get(ctx, cache.URIRKeyOf(u))
				if err != nil {
					t.Error(err)
					return
				}
				n := len(e.Mementos)
				if (n == 1 && !e.Updated.Equal(at(1))) || (n == len(big) && !e.Updated.Equal(at(2))) || (n != 1 && n != len(big)) {
					t.Errorf("Get saw a mix: %d mementos with updated %v", n, e.Updated)
					return
				}
			}
		})
	}
	wg.Wait()
}

// claimRace enqueues n jobs and has the handles claim them concurrently,
// two goroutines per handle; every job must be claimed exactly once.
func claimRace(t *testing.T, handles []cache.Cache, n int) {
	ctx := ctxT(t)
	for i := range n {
		p := cache.PriorityRefresh
		if i%3 == 0 {
			p = cache.PriorityLive
		}
		if err := handles[0].Enqueue(ctx, fmt.Sprintf("http://e.org/job%d", i), p, at(i)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[int64]string{}
	var wg sync.WaitGroup
	for h, c := range handles {
		for g := range 2 {
			worker := fmt.Sprintf("h%d-g%d", h, g)
			wg.Go(func() {
				for {
					j, err := c.Claim(ctx, worker, at(n))
					if errors.Is(err, cache.ErrNoJob) {
						return
					}
					if err != nil {
						t.Errorf("%s: Claim: %v", worker, err)
						return
					}
					mu.Lock()
					if prev, dup := seen[j.ID]; dup {
						t.Errorf("job %d (%s) claimed by %s and %s", j.ID, j.URIR, prev, worker)
					}
					seen[j.ID] = worker
					mu.Unlock()
					if err := c.Complete(ctx, j, at(n+1)); err != nil {
						t.Errorf("%s: Complete: %v", worker, err)
					}
				}
			})
		}
	}
	wg.Wait()
	if len(seen) != n {
		t.Errorf("%d jobs claimed, want %d (jobs lost)", len(seen), n)
	}
}

func testConcurrentClaim(t *testing.T, s Store) {
	claimRace(t, []cache.Cache{s.Cache}, 60)
}

func testSharedClaim(t *testing.T, s Store) {
	if !s.Shared || s.Reopen == nil {
		t.Skip("store is not shared between handles")
	}
	other, err := s.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// Writes through one handle are seen through the other.
	mustPut(t, s.Cache, "http://e.org/shared", found(at(0), mem("m", 0, "ia")))
	if got := mustGet(t, other, "e.org/shared"); len(got.Mementos) != 1 {
		t.Errorf("second handle sees %d mementos, want 1", len(got.Mementos))
	}
	claimRace(t, []cache.Cache{s.Cache, other}, 60)
}

func testPersistence(t *testing.T, s Store) {
	if s.Reopen == nil {
		t.Skip("store is not persistent")
	}
	ctx := ctxT(t)
	awk := awkwardURIs()["utf8_4byte"]
	mustPut(t, s.Cache, awk, found(at(0), mem("m", 0, "ia"), mem("n", 1, "bl")))
	if err := s.Cache.RecordRequest(ctx, awk, at(3)); err != nil {
		t.Fatal(err)
	}
	if err := s.Cache.Enqueue(ctx, "http://e.org/a", cache.PriorityRefresh, at(1)); err != nil {
		t.Fatal(err)
	}
	if err := s.Cache.Enqueue(ctx, "http://e.org/b", cache.PriorityLive, at(2)); err != nil {
		t.Fatal(err)
	}
	want := mustGet(t, s.Cache, awk)
	if err := s.Cache.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := s.Reopen()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if diff := cmp.Diff(want, mustGet(t, c, awk)); diff != "" {
		t.Errorf("entry after reopening (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"http://e.org/b", "http://e.org/a"}, uris(claimAll(t, c, "w", at(5)))); diff != "" {
		t.Errorf("queue after reopening (-want +got):\n%s", diff)
	}
}

func testCanceled(t *testing.T, s Store) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	mustPut(t, s.Cache, "http://e.org/c", found(at(0), mem("m", 0, "ia")))
	calls := map[string]func() error{
		"get":     func() error { _, err := s.Cache.Get(ctx, cache.URIRKeyOf("e.org/c")); return err },
		"put":     func() error { return s.Cache.Put(ctx, "http://e.org/d", found(at(0), mem("m", 0, "ia"))) },
		"request": func() error { return s.Cache.RecordRequest(ctx, "http://e.org/d", at(0)) },
		"stale":   func() error { _, err := s.Cache.Stale(ctx, at(10), 10); return err },
		"enqueue": func() error { return s.Cache.Enqueue(ctx, "http://e.org/d", cache.PriorityLive, at(0)) },
		"claim":   func() error { _, err := s.Cache.Claim(ctx, "w", at(0)); return err },
		"cleanup": func() error { _, err := s.Cache.Cleanup(ctx, cache.DefaultCleanupPolicy(at(0))); return err },
	}
	for name, call := range calls {
		err := call()
		var se *cache.Error
		if !errors.Is(err, context.Canceled) || !errors.As(err, &se) {
			t.Errorf("%s with a canceled context: err = %v, want a *cache.Error wrapping context.Canceled", name, err)
		}
	}
	if _, err := s.Cache.Get(ctxT(t), cache.URIRKeyOf("e.org/d")); !errors.Is(err, cache.ErrNotFound) {
		t.Errorf("a canceled Put or RecordRequest wrote: Get err = %v", err)
	}
}

func testClosed(t *testing.T, s Store) {
	if err := s.Cache.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Cache.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	ctx := ctxT(t)
	if _, err := s.Cache.Get(ctx, cache.URIRKeyOf("e.org/")); !errors.Is(err, cache.ErrClosed) {
		t.Errorf("Get after Close: err = %v, want ErrClosed", err)
	}
	if err := s.Cache.Put(ctx, "e.org/", found(at(0), mem("m", 0, "ia"))); !errors.Is(err, cache.ErrClosed) {
		t.Errorf("Put after Close: err = %v, want ErrClosed", err)
	}
	if _, err := s.Cache.Claim(ctx, "w", at(0)); !errors.Is(err, cache.ErrClosed) {
		t.Errorf("Claim after Close: err = %v, want ErrClosed", err)
	}
	if rg, ok := s.Cache.(cache.RequestGetter); ok {
		if _, err := rg.RecordRequestGet(ctx, "e.org/", at(0)); !errors.Is(err, cache.ErrClosed) {
			t.Errorf("RecordRequestGet after Close: err = %v, want ErrClosed", err)
		}
	}
}
