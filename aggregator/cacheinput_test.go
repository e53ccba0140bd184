package aggregator

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// hostileEntry is what someone with write access to a shared cache could
// store: URI-Ms that are scripts, carry CR LF, or are not URLs at all,
// next to two good ones.
func hostileEntry(t *testing.T) cache.Result {
	t0 := ts(t, "20010101000000")
	ms := []cache.StoredMemento{
		{URIM: "javascript:alert(document.cookie)", Datetime: t0, Archive: "a"},
		{URIM: "JavaScript://%0aalert(1)", Datetime: t0.Add(time.Hour), Archive: "a"},
		{URIM: "http://a.example/web/2/\r\nSet-Cookie: pwned=1\r\n\r\n<script>x</script>", Datetime: t0.Add(2 * time.Hour), Archive: "a"},
		{URIM: "data:text/html,<script>alert(1)</script>", Datetime: t0.Add(3 * time.Hour), Archive: "a"},
		{URIM: "http://a.example/web/1/http://r.example/", Datetime: t0.Add(-time.Hour), Archive: "a"},
		{URIM: "http://a.example/web/9/http://r.example/", Datetime: t0.Add(9 * time.Hour), Archive: "a"},
		{URIM: "//a.example/scheme-relative", Datetime: t0.Add(4 * time.Hour), Archive: "a"},
	}
	return cache.Result{Status: cache.StatusFound, Updated: time.Now(), Mementos: ms}
}

// URI-Ms read from the cache pass the same checks as those of archive
// answers: no javascript: or data: URI-M reaches Location or a body, and
// no raw CR or LF reaches a header or a TimeMap line.
func TestCachedURIMsAreChecked(t *testing.T) {
	t.Run("memory", func(t *testing.T) { cachedURIMsTest(t, newMemCache(t)) })
	t.Run("mysql", func(t *testing.T) { cachedURIMsTest(t, openMySQL(t, mysqlDSN(t))) })
}

func cachedURIMsTest(t *testing.T, c cache.Cache) {
	a := newArchive(t, archivetest.Config{})
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a)}, Cache: c})
	if err := c.Put(t.Context(), "http://r.example/", hostileEntry(t)); err != nil {
		t.Fatal(err)
	}
	h := ag.Handler()
	for _, target := range []string{
		"/timemap/link/http://r.example/", "/timemap/json/http://r.example/", "/timemap/cdxj/http://r.example/",
		"/timemap/link/1/http://r.example/",
		"/timegate/http://r.example/", "/memento/2001/http://r.example/", "/memento/20010101020000/http://r.example/",
		"/api/json/20010101020000/http://r.example/", "/list/20010101020000/http://r.example/",
	} {
		for _, at := range []string{"", "Mon, 01 Jan 2001 00:00:00 GMT", "Mon, 01 Jan 2001 02:00:00 GMT"} {
			resp, body := do(t, h, http.MethodGet, target, "Accept-Datetime", at)
			if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusFound {
				t.Errorf("%s: %d\n%s", target, resp.StatusCode, body)
				continue
			}
			low := strings.ToLower(body)
			for _, bad := range []string{"javascript:", "data:text", "\r", "set-cookie", "<script"} {
				if strings.Contains(low, bad) {
					t.Errorf("%s (Accept-Datetime %q): body holds %q:\n%s", target, at, bad, body)
				}
			}
			for k, vs := range resp.Header {
				for _, v := range vs {
					if lv := strings.ToLower(v); strings.ContainsAny(v, "\r\n") && k != "Link" || strings.Contains(lv, "javascript:") || strings.Contains(lv, "data:") {
						t.Errorf("%s: header %s: %q", target, k, v)
					}
				}
			}
			if loc := resp.Header.Get("Location"); loc != "" && !strings.HasPrefix(loc, "http://a.example/") {
				t.Errorf("%s: Location %q", target, loc)
			}
			if resp.Header.Get("Set-Cookie") != "" {
				t.Errorf("%s: a header was injected: %v", target, resp.Header)
			}
		}
	}
	// The good mementos are still served.
	resp, body := do(t, h, http.MethodGet, "/timemap/link/http://r.example/")
	if n := resp.Header.Get("X-Memento-Count"); n != "2" {
		t.Errorf("X-Memento-Count %s, want 2 (the two good URI-Ms; the scheme-relative one is not a URI-M)\n%s", n, body)
	}
}
