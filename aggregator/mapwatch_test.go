package aggregator

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// logBuffer collects log records for a test.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// bigLines is a map of n hosts, large enough that its end is pages past
// its start.
func bigLines(n int) map[string]string {
	lines := map[string]string{}
	for k := range n {
		lines[fmt.Sprintf("com,site%05d)/page", k)] = "3"
	}
	return lines
}

// TestMapChangedInPlaceIsReloaded truncates a real mapped map file under
// the aggregator, then writes a new map into it: the change is detected,
// logged and counted, the map dropped (the archive is asked), and the file
// loaded again once it holds still.
func TestMapChangedInPlaceIsReloaded(t *testing.T) {
	dir := t.TempDir()
	p := writeMap(t, dir, "a.map", bigLines(20000))
	var log logBuffer
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://a/", Map: MapSource{File: p}}},
		Upstream: newFake(), MapCheckEvery: -1, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err := ag.LoadMaps(t.Context()); err != nil {
		t.Fatal(err)
	}
	held, absent, other := "http://www.site19999.com/page", "http://www.nothing.com/page", "http://other.com/"
	route := func() []Status {
		var out []Status
		for _, u := range []string{held, absent, other} {
			out = append(out, ag.Route(TimeMapCache, u)[0].Status)
		}
		return out
	}
	if got := route(); got[1] != StatusSkippedByMap || got[2] != StatusSkippedByMap {
		t.Fatalf("before: %v", got)
	}
	if err := ag.CheckMaps(t.Context()); err != nil {
		t.Fatalf("CheckMaps of an unchanged map: %v", err)
	}
	if err := os.Truncate(p, 0); err != nil {
		t.Fatal(err)
	}
	// A lookup past the new end faults: recovered, the archive is asked.
	if got := route(); got[0] != 0 || got[1] != 0 {
		t.Errorf("after truncation: %v, want the archive asked", got)
	}
	if err := ag.CheckMaps(t.Context()); err == nil {
		t.Error("CheckMaps found nothing wrong with a truncated map")
	}
	st := ag.Stats()[0]
	if st.MapChanged != 1 || !st.MapDropped || !st.MapLoaded.IsZero() {
		t.Errorf("stats after the change: changed %d, dropped %v, loaded %v", st.MapChanged, st.MapDropped, st.MapLoaded)
	}
	if !strings.Contains(log.String(), "mementomap changed in place") || !strings.Contains(log.String(), p) {
		t.Errorf("the change is not logged:\n%s", log.String())
	}
	// A new map written in place: loaded once it held still for one check.
	if err := os.WriteFile(p, []byte("com,other)/ 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ag.CheckMaps(t.Context())
	if st := ag.Stats()[0]; !st.MapDropped || st.MapReloads != 0 {
		t.Errorf("a file just written is loaded at once: %+v", st)
	}
	if err := ag.CheckMaps(t.Context()); err != nil {
		t.Fatal(err)
	}
	st = ag.Stats()[0]
	if st.MapDropped || st.MapReloads != 1 || st.MapLoaded.IsZero() {
		t.Errorf("stats after the reload: %+v", st)
	}
	if got := route(); got[0] != StatusSkippedByMap || got[1] != StatusSkippedByMap || got[2] != 0 {
		t.Errorf("after the reload: %v, want the new map's answers", got)
	}
}

// TestMapFileReplacedIsReloaded: a new map renamed over a file source is
// loaded; the count of changes in place stays 0.
func TestMapFileReplacedIsReloaded(t *testing.T) {
	dir := t.TempDir()
	p := writeMap(t, dir, "a.map", map[string]string{"com,old)/": "1"})
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://a/", Map: MapSource{File: p}}},
		Upstream: newFake(), MapCheckEvery: -1})
	if err := ag.LoadMaps(t.Context()); err != nil {
		t.Fatal(err)
	}
	q := writeMap(t, dir, "new.map", map[string]string{"com,new)/": "1"})
	if err := os.Rename(q, p); err != nil {
		t.Fatal(err)
	}
	if got := ag.Route(TimeMapCache, "http://new.com/")[0].Status; got != StatusSkippedByMap {
		t.Fatalf("before the check: %v (the old map answers)", got)
	}
	if err := ag.CheckMaps(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := ag.Route(TimeMapCache, "http://new.com/")[0].Status; got != 0 {
		t.Errorf("after the check: %v, want the new map's answer", got)
	}
	if st := ag.Stats()[0]; st.MapReloads != 1 || st.MapChanged != 0 || st.MapDropped {
		t.Errorf("stats: %+v", st)
	}
	// A broken new file leaves the working map in place.
	os.WriteFile(q, []byte("<html>not a map</html>\n"), 0o644)
	os.Rename(q, p)
	if err := ag.CheckMaps(t.Context()); err == nil {
		t.Error("a broken replacement loaded")
	}
	if got := ag.Route(TimeMapCache, "http://new.com/")[0].Status; got != 0 {
		t.Errorf("after a broken replacement: %v, want the previous map still answering", got)
	}
}

// TestMapWatchAfterFault: with the watch running, the lookup that faults
// on a truncated map starts a check at once; a URL map is fetched again.
func TestMapWatchAfterFault(t *testing.T) {
	var b strings.Builder
	for k := range 20000 {
		fmt.Fprintf(&b, "com,site%05d)/page 3\n", k)
	}
	body := b.String()
	var fetches atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetches.Add(1)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: srv.URL + "/tm/", Map: MapSource{URL: srv.URL + "/map"}}},
		Upstream: newFake(), MapDir: dir, MapCheckEvery: time.Hour})
	if err := ag.LoadMaps(t.Context()); err != nil {
		t.Fatal(err)
	}
	ag.StartMapRefresh(t.Context())
	if err := os.Truncate(filepath.Join(dir, "a.mementomap"), 0); err != nil {
		t.Fatal(err)
	}
	if got := ag.Route(TimeMapCache, "http://www.site19999.com/page")[0].Status; got != 0 {
		t.Errorf("after truncation: %v, want the archive asked", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for ag.Stats()[0].MapReloads == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("not reloaded 10 s after the fault: %+v", ag.Stats()[0])
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := ag.Stats()[0]
	if st.MapChanged != 1 || st.MapDropped || fetches.Load() != 2 {
		t.Errorf("stats %+v, %d fetches; want one change, the map back, two fetches", st, fetches.Load())
	}
	if got := ag.Route(TimeMapCache, "http://www.nothing.com/page")[0].Status; got != StatusSkippedByMap {
		t.Errorf("after the reload: %v", got)
	}
}
