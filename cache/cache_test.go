package cache_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/cache"
)

func TestStripScheme(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"http", "http://example.org/a", "example.org/a"},
		{"https", "https://example.org/a", "example.org/a"},
		{"upper_case_scheme", "HTTPS://example.org/a", "example.org/a"},
		{"ftp", "ftp://example.org/f", "example.org/f"},
		{"scheme_with_plus", "svn+ssh://example.org/r", "example.org/r"},
		{"network_path", "//example.org/a", "example.org/a"},
		{"no_scheme", "example.org/a", "example.org/a"},
		{"port_not_scheme", "example.org:8080/a", "example.org:8080/a"},
		{"digit_first_not_scheme", "1http://example.org/", "1http://example.org/"},
		{"scheme_in_query_kept", "http://e.org/?u=http://x.org/", "e.org/?u=http://x.org/"},
		{"double_prefix_once", "http://http://e.org/", "http://e.org/"},
		{"empty", "", ""},
		{"scheme_only", "https://", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := cache.StripScheme(c.in); got != c.want {
				t.Errorf("StripScheme(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestKey(t *testing.T) {
	// printf example.org/ | md5sum, and MySQL's md5('example.org/').
	const want = "95646b5d76f5871edd829eecdcc0bd56"
	for _, u := range []string{"http://example.org/", "https://example.org/", "example.org/"} {
		if got := cache.URIRKeyOf(u).String(); got != want {
			t.Errorf("URIRKeyOf(%q) = %s, want %s", u, got, want)
		}
	}
	k, err := cache.ParseURIRKey(strings.ToUpper(want))
	if err != nil || k != cache.URIRKeyOf("example.org/") {
		t.Errorf("ParseURIRKey(upper case) = %s, %v", k, err)
	}
	for _, bad := range []string{"", "b3f4", want + "0", "g3f4b4cf1bc2c0d2b0ddd5d2d8b33ef5"} {
		if _, err := cache.ParseURIRKey(bad); !errors.Is(err, cache.ErrInvalid) {
			t.Errorf("ParseURIRKey(%q) err = %v, want ErrInvalid", bad, err)
		}
	}
}

func TestStatusString(t *testing.T) {
	got := []string{cache.StatusPending.String(), cache.StatusFound.String(), cache.StatusNone.String(),
		cache.StatusFailed.String(), cache.StatusBlocked.String(), cache.Status(42).String()}
	want := []string{"pending", "found", "none", "failed", "blocked", "Status(42)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Error(diff)
	}
}

func TestCheckResultErrorsNameTheMemento(t *testing.T) {
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := cache.StoredMemento{URIM: "u", Datetime: t0, Archive: "ia"}
	bad := ok
	bad.Rel = "\xff"
	cases := []struct {
		name string
		r    cache.Result
		want string
	}{
		{"third_memento_rel", cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{ok, ok, bad}}, "memento 2 rel"},
		{"zero_updated", cache.Result{Status: cache.StatusNone}, "updated 0001-01-01T00:00:00Z outside"},
		{"found_empty", cache.Result{Status: cache.StatusFound, Updated: t0}, "status found with no mementos"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := cache.CheckResult(c.r)
			if !errors.Is(err, cache.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckResult err = %v, want ErrInvalid mentioning %q", err, c.want)
			}
		})
	}
}

func TestMemoryEvictsLeastRecentlyUsed(t *testing.T) {
	ctx := t.Context()
	m, err := cache.NewMemory(&cache.MemoryOptions{MaxEntries: 2})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	none := cache.Result{Status: cache.StatusNone, Updated: t0}
	for _, u := range []string{"e.org/a", "e.org/b"} {
		if err := m.Put(ctx, u, none); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.Get(ctx, cache.URIRKeyOf("e.org/a")); err != nil { // a is now the most recent
		t.Fatal(err)
	}
	if err := m.RecordRequest(ctx, "e.org/c", t0); err != nil { // evicts b
		t.Fatal(err)
	}
	var got []string
	for _, u := range []string{"e.org/a", "e.org/b", "e.org/c"} {
		if _, err := m.Get(ctx, cache.URIRKeyOf(u)); err == nil {
			got = append(got, u)
		} else if !errors.Is(err, cache.ErrNotFound) {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"e.org/a", "e.org/c"}, got); diff != "" {
		t.Errorf("entries kept (-want +got):\n%s", diff)
	}
	if m.Len() != 2 {
		t.Errorf("Len = %d, want 2", m.Len())
	}
	if _, err := cache.NewMemory(&cache.MemoryOptions{MaxEntries: -1}); !errors.Is(err, cache.ErrInvalid) {
		t.Errorf("NewMemory(-1) err = %v, want ErrInvalid", err)
	}
}

func TestGetReturnsACopy(t *testing.T) {
	ctx := t.Context()
	m, _ := cache.NewMemory(nil)
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	r := cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{{URIM: "u", Datetime: t0, Archive: "ia"}}}
	if err := m.Put(ctx, "e.org/", r); err != nil {
		t.Fatal(err)
	}
	e, _ := m.Get(ctx, cache.URIRKeyOf("e.org/"))
	e.Mementos[0].URIM = "changed"
	if e2, _ := m.Get(ctx, cache.URIRKeyOf("e.org/")); e2.Mementos[0].URIM != "u" {
		t.Errorf("modifying a Get result changed the store: %q", e2.Mementos[0].URIM)
	}
	r.Mementos[0].URIM = "changed too"
	if e2, _ := m.Get(ctx, cache.URIRKeyOf("e.org/")); e2.Mementos[0].URIM != "u" {
		t.Errorf("modifying a Put argument changed the store: %q", e2.Mementos[0].URIM)
	}
}

func TestSharedMementosAppendCopies(t *testing.T) {
	ctx := t.Context()
	m, _ := cache.NewMemory(&cache.MemoryOptions{ShareMementos: true})
	t0 := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	one := cache.StoredMemento{URIM: "u", Datetime: t0, Archive: "ia"}
	r := cache.Result{Status: cache.StatusFound, Updated: t0, Mementos: []cache.StoredMemento{one, one, one}} // duplicates: capacity left after compaction
	if err := m.Put(ctx, "e.org/", r); err != nil {
		t.Fatal(err)
	}
	a, _ := m.Get(ctx, cache.URIRKeyOf("e.org/"))
	b, _ := m.Get(ctx, cache.URIRKeyOf("e.org/"))
	_ = append(a.Mementos, cache.StoredMemento{URIM: "appended by a"})
	b.Mementos = append(b.Mementos, cache.StoredMemento{URIM: "appended by b"})
	if len(a.Mementos) != 1 || len(b.Mementos) != 2 || b.Mementos[1].URIM != "appended by b" {
		t.Errorf("appends to shared slices interfere: a %v, b %v", a.Mementos, b.Mementos)
	}
	if e, _ := m.Get(ctx, cache.URIRKeyOf("e.org/")); len(e.Mementos) != 1 {
		t.Errorf("store has %d mementos after appends, want 1", len(e.Mementos))
	}
}
