package aggregator

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/cache"
	"github.com/mementokit/mementokit/cache/memorycache"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// ts parses a 14-digit timestamp or fails the test.
func ts(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse("20060102150405", s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func times(t testing.TB, ss ...string) []time.Time {
	out := make([]time.Time, len(ss))
	for i, s := range ss {
		out[i] = ts(t, s)
	}
	return out
}

// newArchive starts a fake archive closed at the end of the test.
func newArchive(t testing.TB, cfg archivetest.Config) *archivetest.Archive {
	t.Helper()
	a := archivetest.New(cfg)
	t.Cleanup(a.Close)
	return a
}

// entry builds the registry entry of a fake archive.
func entry(id string, a *archivetest.Archive) Archive {
	return Archive{ID: id, Name: "Fake " + id, TimeMap: a.TimeMapPrefix(), TimeGate: a.TimeGatePrefix()}
}

// memgatorArchives starts the three fake archives of the MemGator
// transcripts (internal/sampledata/cases/memgator_transcripts.md), minus
// arc2's unparsable ISO-8601 datetime, which is tested separately.
func memgatorArchives(t testing.TB) (arc1, arc2, arc3 *archivetest.Archive) {
	arc1 = newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/":                       times(t, "19990125093000", "20050301120000", "20120615080910", "20200101000000"),
		"http://dup.example.net/":                   times(t, "20100101000000", "20110101000000"),
		"http://example.com/search?q=a%20b&lang=en": times(t, "20130303030303"),
		"http://comma.example.org/a,b;c=d":          times(t, "20150101000000", "20160101000000"),
	}})
	arc2 = newArchive(t, archivetest.Config{Descending: true, Holdings: map[string][]time.Time{
		"http://example.com/":     times(t, "20050301120000", "20160229235959"),
		"http://dup.example.net/": times(t, "20100101000000"),
	}})
	arc3 = newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": times(t, "20010911084600", "20230808080808"),
	}})
	return
}

// newAggregator builds an aggregator closed at the end of the test.
func newAggregator(t testing.TB, o Options) *Aggregator {
	t.Helper()
	if o.BaseURL == "" {
		o.BaseURL = "http://localhost:1208"
	}
	ag, err := New(&o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ag.Close() })
	return ag
}

func newMemCache(t testing.TB) cache.Cache {
	t.Helper()
	c, err := memorycache.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// do sends one request to h and returns the recorded response and body.
func do(t testing.TB, h http.Handler, method, target string, header ...string) (*http.Response, string) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	resp := rec.Result()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func lines(s string) []string { return strings.Split(strings.TrimRight(s, "\n"), "\n") }
