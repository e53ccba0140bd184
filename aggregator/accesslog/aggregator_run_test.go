package accesslog_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mementokit/mementokit/aggregator/accesslog"
	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/internal/archivetest"
)

// syncBuffer is a log sink written by the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRealAggregatorLog runs the aggregator on 127.0.0.1 over three
// archives (one holds the URI-R, one holds nothing, one answers 503), sends
// it requests, and reads its JSON log: the lookups, their datetimes and
// the Table 3 counts must be what the requests did.
func TestRealAggregatorLog(t *testing.T) {
	const held = "http://example.com/"
	days := []time.Time{time.Date(2005, 3, 1, 12, 0, 0, 0, time.UTC), time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)}
	full := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{held: days}})
	defer full.Close()
	empty := archivetest.New(archivetest.Config{})
	defer empty.Close()
	down := archivetest.New(archivetest.Config{Fault: archivetest.FaultStatus})
	defer down.Close()
	dir := t.TempDir()
	list := `[{"id": "full", "timemap": "` + full.TimeMapPrefix() + `", "timegate": "` + full.TimeGatePrefix() + `"},
	{"id": "empty", "timemap": "` + empty.TimeMapPrefix() + `", "timegate": "` + empty.TimeGatePrefix() + `"},
	{"id": "down", "timemap": "` + down.TimeMapPrefix() + `", "timegate": "` + down.TimeGatePrefix() + `"}]`
	if err := os.WriteFile(filepath.Join(dir, "archives.json"), []byte(list), 0o644); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	c := server.DefaultConfig()
	c.Archives, c.Cache, c.DataDir = filepath.Join(dir, "archives.json"), "memory", dir
	c.Workers, c.Tolerance, c.ScanEvery = 0, -1, 0
	c.Logger = slog.New(slog.NewJSONHandler(logs, nil))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	c.BaseURL = base
	ctx, cancel := context.WithCancel(t.Context())
	s, err := server.New(ctx, &c)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path, acceptDatetime string) int {
		req, _ := http.NewRequest("GET", base+path, nil)
		if acceptDatetime != "" {
			req.Header.Set("Accept-Datetime", acceptDatetime)
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	for _, r := range []struct {
		path, ad string
		want     int
	}{
		{"/timemap/link/" + held, "", 200},                    // searched: full found, empty none, down failed
		{"/timemap/link/" + held, "", 200},                    // searched again: a search with a failure is cached stale
		{"/memento/2009/http://example.com/nothing", "", 404}, // searched: every archive none or failed
		{"/timegate/http://example.org/gone", "Sun, 01 Jan 2006 00:00:00 GMT", 404},
		{"/timemap/link/ftp://example.com/", "", 400}, // refused
		{"/healthz", "", 200},                         // no lookup
	} {
		if got := get(r.path, r.ad); got != r.want {
			t.Errorf("GET %s: status %d, want %d", r.path, got, r.want)
		}
	}
	cancel()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	rd := accesslog.NewReader(nil)
	var got []accesslog.Lookup
	if err := rd.Read(context.Background(), strings.NewReader(logs.String()), "aggregator.log", func(l accesslog.Lookup) error {
		got = append(got, l)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	st := rd.Stats()
	if len(got) != 4 || got[0].URIR != held || got[1].URIR != held || got[2].URIR != "http://example.com/nothing" ||
		!got[2].Datetime.Equal(time.Date(2009, 1, 1, 0, 0, 0, 0, time.UTC)) ||
		!got[3].Datetime.Equal(time.Date(2006, 1, 1, 0, 0, 0, 0, time.UTC)) || !got[0].Datetime.IsZero() {
		t.Errorf("lookups %+v", got)
	}
	if st.Formats[0] != accesslog.Aggregator || st.Lookups != 4 || st.Searched != 4 || st.FromCache != 0 || st.Refused != 1 || st.Bad != 0 {
		t.Errorf("stats %+v\n%s", st, logs.String())
	}
	want := map[string]accesslog.ArchiveCounts{
		"down":  {Archive: "down", Requests: 4, Errors: 4},
		"empty": {Archive: "empty", Requests: 4, Misses: 4},
		"full":  {Archive: "full", Requests: 4, Hits: 2, Misses: 2},
	}
	if len(st.Archives) != len(want) {
		t.Fatalf("archives %+v", st.Archives)
	}
	for _, a := range st.Archives {
		if a != want[a.Archive] {
			t.Errorf("Table 3 row %+v, want %+v", a, want[a.Archive])
		}
	}
	// Each archive was asked as often as Table 3 says: its own request log.
	for _, a := range []struct {
		id  string
		arc *archivetest.Archive
	}{{"full", full}, {"empty", empty}, {"down", down}} {
		n := 0
		for _, r := range a.arc.Requests() {
			if r.Endpoint == "timemap" || r.Endpoint == "timegate" {
				n++
			}
		}
		if n < 4 {
			t.Errorf("archive %s received %d TimeMap and TimeGate requests, fewer than the 4 searches that asked it", a.id, n)
		}
	}
}
