package aggregator

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// TestEarliestDatetimeRule: one rule for the earliest datetimes. A
// requested datetime before 1000-01-01 (years 0000 and 0001, the zero time
// included, in a path or in Accept-Datetime) is read as 1000-01-01 and asks
// for the earliest memento; an archive's memento before 1000-01-01 is left
// out of the answer (counted in Outcome.Dropped), so the answer is stored
// and no output holds it.
func TestEarliestDatetimeRule(t *testing.T) {
	for _, s := range []string{"0000", "0001", "0999", "00010101000000", "Mon, 01 Jan 0001 00:00:00 GMT", "Sat, 01 Jan 0000 00:00:00 GMT", "10000101000000"} {
		if got, err := ParsePathDatetime(s); err != nil || !got.Equal(EarliestDatetime) {
			t.Errorf("ParsePathDatetime(%q) = %v, %v; want %v", s, got, err, EarliestDatetime)
		}
	}
	if got, err := ParsePathDatetime("10000101000001"); err != nil || !got.Equal(EarliestDatetime.Add(time.Second)) {
		t.Errorf("a second after the earliest: %v %v", got, err)
	}
	for _, s := range []string{"000113", "00011301", "00", "Mon, 01 Jan 0001 25:00:00 GMT"} {
		if _, err := ParsePathDatetime(s); err == nil {
			t.Errorf("ParsePathDatetime(%q) accepted", s)
		}
	}
	early, dated := time.Date(500, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2005, 1, 1, 0, 0, 0, 0, time.UTC)
	a := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{"http://example.com/": {early, dated}}})
	store, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var log logBuffer
	ag := newAggregator(t, Options{Cache: store, Archives: []Archive{entry("a", a)}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	h := ag.Handler()
	resp, body := do(t, h, "GET", "/timemap/link/http://example.com/")
	if resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != "1" || strings.Contains(body, "0500") || resp.Header.Get("Cache-Degraded") != "" {
		t.Errorf("TimeMap: %d count %s Cache-Degraded %q\n%s", resp.StatusCode, resp.Header.Get("X-Memento-Count"), resp.Header.Get("Cache-Degraded"), body)
	}
	if l := log.String(); !strings.Contains(l, "level=WARN") || !strings.Contains(l, "mementos left out") || !strings.Contains(l, "archive=a") ||
		!strings.Contains(l, "left_out=1 listed=2") {
		t.Errorf("the memento left out is not logged:\n%s", l)
	}
	if e, err := store.Get(t.Context(), cache.URIRKeyOf("http://example.com/")); err != nil || len(e.Mementos) != 1 {
		t.Errorf("stored: %v %+v, want the one dated memento", err, e)
	}
	want := a.URIM("http://example.com/", dated)
	for _, p := range []string{"/memento/0000/", "/memento/0001/", "/memento/0999/", "/memento/1000/"} {
		resp, body := do(t, h, "GET", p+"http://example.com/")
		if resp.StatusCode != 302 || resp.Header.Get("Location") != want {
			t.Errorf("%s: %d Location %q, want 302 to %s\n%s", p, resp.StatusCode, resp.Header.Get("Location"), want, body)
		}
	}
	for _, ad := range []string{"Mon, 01 Jan 0001 00:00:00 GMT", "Sat, 01 Jan 0000 00:00:00 GMT", "Wed, 01 Jan 1000 00:00:00 GMT"} {
		resp, body := do(t, h, "GET", "/timegate/http://example.com/", "Accept-Datetime", ad)
		if resp.StatusCode != 302 || resp.Header.Get("Location") != want {
			t.Errorf("Accept-Datetime %s: %d Location %q\n%s", ad, resp.StatusCode, resp.Header.Get("Location"), body)
		}
	}
	res, err := ag.Search(t.Context(), TimeMapDynamic, "http://example.com/", time.Time{})
	if err != nil || len(res.Mementos) != 1 || len(res.Outcomes) != 1 || res.Outcomes[0].Dropped != 1 || res.Outcomes[0].Mementos != 1 {
		t.Errorf("Search: %v %+v", err, res)
	}
}

// TestAPIAlias: /api/{link|cdxj|proxy}/... is MemGator's alias of
// /memento/{link|cdxj|proxy}/... (its bytes), /api/json/... Time Travel's JSON,
// and /api/ without a format 400, as MemGator answers
// ("/api without a format" in the transcripts).
func TestAPIAlias(t *testing.T) {
	ag, _ := memgatorAggregator(t, Options{})
	h := ag.Handler()
	for _, f := range []string{"link", "cdxj"} {
		_, want := do(t, h, "GET", "/memento/"+f+"/2016/http://example.com/")
		if resp, body := do(t, h, "GET", "/api/"+f+"/2016/http://example.com/"); resp.StatusCode != 200 || body != want {
			t.Errorf("/api/%s: %d\n%s\nwant\n%s", f, resp.StatusCode, body, want)
		}
	}
	wantResp, want := do(t, h, "GET", "/memento/proxy/2016/http://example.com/")
	if resp, body := do(t, h, "GET", "/api/proxy/2016/http://example.com/"); resp.StatusCode != wantResp.StatusCode || body != want ||
		resp.Header.Get("Memento-Datetime") == "" || resp.Header.Get("Memento-Datetime") != wantResp.Header.Get("Memento-Datetime") {
		t.Errorf("/api/proxy: %d %v\n%s\nwant %d %v\n%s", resp.StatusCode, resp.Header, body, wantResp.StatusCode, wantResp.Header, want)
	}
	if resp, body := do(t, h, "GET", "/api/2016/http://example.com/"); resp.StatusCode != 400 || !strings.HasPrefix(body, "Malformed request: /api/2016/http://example.com/\n") {
		t.Errorf("/api/2016/...: %d %q, want 400", resp.StatusCode, body)
	}
}
