package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// newTestServer builds the server (without listening) over one fake
// archive holding held, with a memory cache.
func newTestServer(tb testing.TB, edit func(*Config)) *Server {
	tb.Helper()
	a := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: {
		time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)}}})
	tb.Cleanup(a.Close)
	dir := tb.TempDir()
	list := `[{"id": "a", "timemap": "` + a.TimeMapPrefix() + `", "timegate": "` + a.TimeGatePrefix() + `"}]`
	path := dir + "/archives.json"
	if err := os.WriteFile(path, []byte(list), 0o644); err != nil {
		tb.Fatal(err)
	}
	c := DefaultConfig()
	c.Archives, c.Cache, c.DataDir, c.Addr = path, "memory", dir, "127.0.0.1:1208"
	c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	if edit != nil {
		edit(&c)
	}
	s, err := New(tb.Context(), &c)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestHealth checks /healthz's 503 answers: while draining, and when the
// cache does not answer.
func TestHealth(t *testing.T) {
	s := newTestServer(t, nil)
	get := func() (int, string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get(); code != http.StatusOK || !strings.Contains(body, `"status": "ok"`) {
		t.Errorf("healthy: %d %s", code, body)
	}
	s.draining.Store(true)
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, `"status": "draining"`) {
		t.Errorf("draining: %d %s", code, body)
	}
	s.draining.Store(false)
	s.store.Close()
	if code, body := get(); code != http.StatusServiceUnavailable || !strings.Contains(body, `"status": "unavailable"`) || !strings.Contains(body, "closed") {
		t.Errorf("cache closed: %d %s", code, body)
	}
}

func TestEndpointLabel(t *testing.T) {
	for raw, want := range map[string]string{
		"/": "home", "/?x=1": "home", "/search?url=a": "search", "/metrics": "metrics", "/healthz": "healthz",
		"/static/style.css": "static", "/list/2005/http://a.example/": "list", "/timemap/link/http://a.example/": "timemap",
		"/timegate/http://a.example/": "timegate", "/memento/2005/http://a.example/": "memento",
		"/api/json/2005/http://a.example/": "api_json", "/wp-admin/": "other", "/metrics/x": "other", "/timemapx": "other",
	} {
		if got := endpoint(raw); got != want {
			t.Errorf("endpoint(%q) = %q, want %q", raw, got, want)
		}
	}
}

// BenchmarkCachedTimeMap is the server's whole path for a TimeMap served
// from the memory cache: routing, metrics, the access log (JSON, from
// NewLogger, to a discarding writer) and the aggregator's handler. SetBytes: the body.
func BenchmarkCachedTimeMap(b *testing.B) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
	}{{"access-log", nil}, {"no-access-log", func(c *Config) { c.AccessLog = false }}} {
		b.Run(tc.name, func(b *testing.B) {
			s := newTestServer(b, func(c *Config) {
				var err error
				if c.Logger, err = c.NewLogger(io.Discard); err != nil { // as a deployment logs
					b.Fatal(err)
				}
				if tc.edit != nil {
					tc.edit(c)
				}
			})
			req := httptest.NewRequest("GET", "/timemap/link/"+held, nil)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != 200 {
				b.Fatalf("warm-up: %d %s", rec.Code, rec.Body)
			}
			b.ReportAllocs()
			b.SetBytes(int64(rec.Body.Len()))
			for b.Loop() {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				if rec.Code != 200 {
					b.Fatal(rec.Code)
				}
			}
		})
	}
}

// TestHealthDegraded: with its only archive failing, then dormant,
// /healthz answers 503 "degraded" with the counts.
func TestHealthDegraded(t *testing.T) {
	a := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: {time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)}}})
	t.Cleanup(a.Close)
	dir := t.TempDir()
	list := writeFile(t, dir, "archives.json", []byte(`[{"id": "a", "timemap": "`+a.TimeMapPrefix()+`", "timegate": "`+a.TimeGatePrefix()+`"}]`))
	c := DefaultConfig()
	c.Archives, c.Cache, c.DataDir, c.Addr, c.Tolerance, c.DormantFor = list, "memory", dir, "127.0.0.1:1208", 2, Duration(time.Hour)
	c.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	s, err := New(t.Context(), &c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	get := func(target string) (int, string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/healthz"); code != http.StatusOK || !strings.Contains(body, `"failing": 0`) {
		t.Fatalf("before failures: %d %s", code, body)
	}
	a.SetFault(archivetest.FaultReset)
	get("/timemap/link/http://one.example/")
	if code, body := get("/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"status": "degraded"`) || !strings.Contains(body, `"failing": 1`) {
		t.Errorf("one failure of the only archive: %d %s, want 503 degraded, failing 1", code, body)
	}
	get("/timemap/link/http://two.example/")
	if code, body := get("/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, `"status": "degraded"`) || !strings.Contains(body, `"dormant": 1`) {
		t.Errorf("only archive dormant: %d %s, want 503 degraded, dormant 1", code, body)
	}
}

// TestNoCache: with the cache "none" every TimeMap request is a search
// of its own (the archive is asked each time), /healthz reports the
// cache as "none" and stays 200.
func TestNoCache(t *testing.T) {
	a := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: {time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC)}}})
	defer a.Close()
	dir := t.TempDir()
	list := writeFile(t, dir, "archives.json", []byte(`[{"id": "a", "timemap": "`+a.TimeMapPrefix()+`", "timegate": "`+a.TimeGatePrefix()+`"}]`))
	c := DefaultConfig()
	c.Archives, c.Cache, c.Addr = list, "none", "127.0.0.1:1208"
	s, err := New(t.Context(), &c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Cache() != nil {
		t.Errorf("Cache() = %v, want nil", s.Cache())
	}
	for i := range 3 {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/"+held, nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	if n := a.Count("timemap"); n != 3 {
		t.Errorf("archive asked %d times for 3 uncached requests, want 3", n)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/healthz", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"cache": "none"`) {
		t.Errorf("healthz without a cache: %d %s", rec.Code, rec.Body)
	}
}

// TestOneRecordPerRequest: with the access log on, a TimeMap request
// writes one record, "access", holding the aggregator's answer (URI-R,
// scenario, source, memento count, Accept-Datetime) next to the HTTP
// fields; with it off, the aggregator's own "request" record is the one;
// at level warn, none; the same with slog's JSON handler and with
// NewLogger's.
func TestOneRecordPerRequest(t *testing.T) {
	for _, tc := range []struct {
		name      string
		accessLog bool
		level     slog.Level
		want      []string // messages of the records, in order
	}{
		{"access log on", true, slog.LevelInfo, []string{"access", "access"}},
		{"access log off", false, slog.LevelInfo, []string{"request", "request"}},
		{"level warn", true, slog.LevelWarn, nil},
	} {
		for _, newLogger := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/NewLogger=%v", tc.name, newLogger), func(t *testing.T) {
				var out bytes.Buffer
				s := newTestServer(t, func(c *Config) {
					c.AccessLog = tc.accessLog
					c.Logger = slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: tc.level}))
					if newLogger { // the JSON handler with the direct access record path
						c.LogLevel = strings.ToLower(tc.level.String())
						var err error
						if c.Logger, err = c.NewLogger(&out); err != nil {
							t.Fatal(err)
						}
					}
				})
				out.Reset() // the start-up records
				for _, h := range []string{"", "Sun, 01 Jan 2006 00:00:00 GMT"} {
					req := httptest.NewRequest("GET", "/timemap/link/"+held, nil)
					if h != "" {
						req.Header.Set("Accept-Datetime", h)
					}
					rec := httptest.NewRecorder()
					s.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						t.Fatalf("status %d", rec.Code)
					}
				}
				var msgs []string
				var recs []map[string]any
				for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
					if line == "" {
						continue
					}
					var m map[string]any
					if err := json.Unmarshal([]byte(line), &m); err != nil {
						t.Fatalf("log line %q: %v", line, err)
					}
					msgs = append(msgs, m["msg"].(string))
					recs = append(recs, m)
				}
				if !slices.Equal(msgs, tc.want) {
					t.Fatalf("records %q, want %q:\n%s", msgs, tc.want, out.String())
				}
				if len(recs) != 2 {
					return
				}
				// the first request searched, the second came from the cache
				for i, want := range []map[string]any{
					{"urir": held, "scenario": "unknown", "from_cache": false, "mementos": float64(3), "status": float64(200), "archives": "a=found:3"},
					{"urir": held, "scenario": "fresh", "from_cache": true, "mementos": float64(3), "status": float64(200),
						"accept_datetime": "Sun, 01 Jan 2006 00:00:00 GMT"},
				} {
					for k, v := range want {
						if recs[i][k] != v {
							t.Errorf("record %d: %s = %v, want %v (%v)", i, k, recs[i][k], v, recs[i])
						}
					}
					if a, ok := recs[i]["archives"]; i == 1 && ok && a != "" {
						t.Errorf("record %d, an answer from the cache, names archive outcomes: %v", i, recs[i])
					}
				}
			})
		}
	}
}

// TestRootListURLUserAgent: with -root the server answers under the
// prefix only and its links carry it; the archive list comes from a URL
// (a 404 there is a start-up error naming it); archives get the
// configured User-Agent with the contact, and so does the server of the
// archive list.
func TestRootListURLUserAgent(t *testing.T) {
	var mu sync.Mutex
	var agents, listAgents []string
	arc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents = append(agents, r.UserAgent())
		mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(arc.Close)
	list := `[{"id": "a", "timemap": "` + arc.URL + `/timemap/link/", "timegate": "` + arc.URL + `/timegate/"}]`
	lists := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		listAgents = append(listAgents, r.UserAgent())
		mu.Unlock()
		if r.URL.Path != "/archives.json" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(list))
	}))
	t.Cleanup(lists.Close)
	c := DefaultConfig()
	c.Archives, c.Cache, c.DataDir, c.Addr = lists.URL+"/archives.json", "none", "", "127.0.0.1:1208"
	c.Root, c.UserAgent, c.Contact = "/mg/", "ops-agent", "ops@example.org"
	var logBuf lockedBuffer
	c.Logger = slog.New(slog.NewJSONHandler(&logBuf, nil))
	s, err := New(t.Context(), &c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	get := func(target string) (int, string) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", target, nil))
		return rec.Code, rec.Body.String()
	}
	if code, body := get("/mg/timemap/link/http://example.com/"); code != 404 || !strings.Contains(body, "No mementos found for http://example.com/") {
		t.Errorf("under the root: %d %q", code, body)
	}
	if code, body := get("/timemap/link/http://example.com/"); code != 404 || !strings.Contains(body, "answers under /mg/") {
		t.Errorf("outside the root: %d %q", code, body)
	}
	if code, body := get("/mg/about"); code != 200 || !strings.Contains(body, "http://127.0.0.1:1208/mg/timemap/") || !strings.Contains(body, "Service path prefix:    /mg/") ||
		!strings.Contains(body, "Archive list:           "+lists.URL+"/archives.json") {
		t.Errorf("/mg/about: %d\n%s", code, body)
	}
	if code, _ := get("/mg/healthz"); code != 200 {
		t.Errorf("/mg/healthz: %d", code)
	}
	// The web page's own links carry the root.
	if code, body := get("/mg/"); code != 200 || !strings.Contains(body, `href="/mg/static/style.css"`) || !strings.Contains(body, `action="/mg/search"`) {
		t.Errorf("/mg/: %d\n%s", code, body)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/mg/search?url=example.com/&date=2005-03-01", nil))
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/mg/list/20050301000000/http://example.com/" {
		t.Errorf("/mg/search: %d Location %q", rec.Code, loc)
	}
	// The access log's target is the request's, the prefix included.
	if log := logBuf.String(); !strings.Contains(log, `"target":"/mg/timemap/link/http://example.com/"`) || !strings.Contains(log, `"target":"/mg/about"`) {
		t.Errorf("access log targets without the root prefix:\n%s", log)
	}
	mu.Lock()
	if len(agents) == 0 || agents[0] != "ops-agent <ops@example.org>" {
		t.Errorf("User-Agent seen by the archive: %q", agents)
	}
	if len(listAgents) != 1 || listAgents[0] != "ops-agent <ops@example.org>" {
		t.Errorf("User-Agent seen by the archive list's server: %q", listAgents)
	}
	mu.Unlock()

	c.Archives = lists.URL + "/missing.json"
	if _, err := New(t.Context(), &c); err == nil || !strings.Contains(err.Error(), lists.URL+"/missing.json") || !strings.Contains(err.Error(), "404") {
		t.Errorf("archive list URL answering 404: err = %v", err)
	}
}

// lockedBuffer is a bytes.Buffer safe for the log's concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (l *lockedBuffer) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Reset()
}

// TestNoEmptyMapFolder: a server with a bolt cache and no MementoMap
// leaves no empty data_dir/mementomaps folder; the folder is made when a
// fetched map is written to it.
func TestNoEmptyMapFolder(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, func(c *Config) {
		c.DataDir = filepath.Join(dir, "data")
		c.Cache = "bolt:" + filepath.Join(dir, "cache.db")
	})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest("GET", "/timemap/link/"+held, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("timemap: %d %s", rec.Code, rec.Body.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "mementomaps")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("data_dir/mementomaps: %v, want none", err)
	}
}
