package aggregator

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// TestAboutArchiveStates: /about gives each archive's state with the
// counters behind it, in the text (a line below MemGator's archive line)
// and in JSON: an archive that answered is ok with its found count, one
// whose MementoMap says "absent" counts the requests its map saved, and
// one that failed (tolerance 1) is dormant until a time, with its failed
// request and the request skipped while dormant; the configuration lists
// the fan-out, the rules and the blacklist, and no DSN.
func TestAboutArchiveStates(t *testing.T) {
	good := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		"http://example.com/": times(t, "20100101000000"), "http://example.org/": times(t, "20110101000000")}})
	mapped := newArchive(t, archivetest.Config{})
	down := newArchive(t, archivetest.Config{Fault: archivetest.FaultReset})
	ag := newAggregator(t, Options{Archives: []Archive{entry("good", good), entry("mapped", mapped), entry("down", down)}, Tolerance: 1, FanOut: 3})
	loaded := time.Now().UTC().Truncate(time.Second)
	if err := ag.SetMap("mapped", MapLookupFunc(func(string) (int64, error) { return 0, nil }), nil, loaded); err != nil {
		t.Fatal(err)
	}
	h := ag.Handler()
	for _, u := range []string{"http://example.com/", "http://example.org/"} {
		if resp, body := do(t, h, "GET", "/timemap/link/"+u); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", u, resp.StatusCode, body)
		}
	}
	until := ag.Stats()[2].DormantUntil
	if until.IsZero() {
		t.Fatalf("down is not dormant after a failure with tolerance 1: %+v", ag.Stats()[2])
	}
	_, body := do(t, h, "GET", "/about")
	for _, want := range []string{
		"1. [Fake good](good)\n   state ok; sent 2 (found 2, none 0, failed 0); 0 mementos left out; skipped 0 by MementoMap, 0 while dormant; refused 0; probes 0 (0 failed); no MementoMap\n",
		"2. [Fake mapped](mapped)\n   state unknown; sent 0 (found 0, none 0, failed 0); 0 mementos left out; skipped 2 by MementoMap, 0 while dormant; refused 0; probes 0 (0 failed); MementoMap loaded " + isoDate(loaded) + "\n",
		"3. [Fake down](down) - (DORMANT until " + isoDate(until) + ")\n   state dormant until " + isoDate(until) + "; sent 1 (found 0, none 0, failed 1); 0 mementos left out; skipped 0 by MementoMap, 1 while dormant;",
		"Fan-out:                3\n", "Rules:                  none (every archive for every service)\n", "Blacklisted hosts:      0\n",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/about lacks %q:\n%s", want, body)
		}
	}
	_, body = do(t, h, "GET", "/about", "Accept", "application/json")
	type state struct {
		ID, State, DormantUntil                    string
		Sent, Found, Failed, SkippedByMap, Skipped int64
		MapLoadedAt                                string
	}
	var doc struct {
		Archives []struct {
			ID           string `json:"id"`
			State        string `json:"state"`
			DormantUntil string `json:"dormant_until"`
			Sent         int64  `json:"sent"`
			Found        int64  `json:"found"`
			Failed       int64  `json:"failed"`
			SkippedByMap int64  `json:"skipped_by_map"`
			Dormant      int64  `json:"skipped_dormant"`
			MapLoadedAt  string `json:"mementomap_loaded_at"`
		} `json:"archives"`
		Config map[string]string `json:"config"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("/about JSON: %v\n%s", err, body)
	}
	var got []state
	for _, a := range doc.Archives {
		got = append(got, state{a.ID, a.State, a.DormantUntil, a.Sent, a.Found, a.Failed, a.SkippedByMap, a.Dormant, a.MapLoadedAt})
	}
	want := []state{
		{"good", "ok", "", 2, 2, 0, 0, 0, ""},
		{"mapped", "unknown", "", 0, 0, 0, 2, 0, isoDate(loaded)},
		{"down", "dormant", isoDate(until), 1, 0, 1, 0, 1, ""},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("/about JSON archives (-want +got):\n%s\n%s", d, body)
	}
	if doc.Config["Fan-out"] != "3" || doc.Config["Miss to /list"] != "false" {
		t.Errorf("/about JSON config: %v", doc.Config)
	}
}

// TestAboutDroppedMementos: the memento links an archive's TimeMaps held
// that the searches left out (Stats.Dropped: a datetime that cannot be
// read, none, a URI-M that is no http(s) URL) are counted per archive in
// /about, in the text's state line and as dropped_mementos in JSON; an
// archive whose links were all read shows 0. The archives are servers on
// 127.0.0.1.
func TestAboutDroppedMementos(t *testing.T) {
	var arcURL string
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/link-format")
		io.WriteString(w, strings.ReplaceAll(`<http://ex.com/>; rel="original",
<ARC/web/20050301120000/http://ex.com/>; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT",
<ARC/web/1/x>; rel="memento"; datetime="not a date",
<ARC/web/2/x>; rel="memento",
<javascript:alert(1)>; rel="memento"; datetime="Tue, 01 Mar 2005 12:00:00 GMT",
<ARC/web/20100101000000/http://ex.com/>; rel="memento"; datetime="Fri, 01 Jan 2010 00:00:00 GMT"
`, "ARC", arcURL))
	}))
	t.Cleanup(bad.Close)
	arcURL = bad.URL
	good := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{"http://ex.com/": times(t, "20100101000000")}})
	ag := newAggregator(t, Options{Archives: []Archive{{ID: "bad", Name: "Fake bad", TimeMap: bad.URL + "/timemap/link/"}, entry("good", good)}})
	h := ag.Handler()
	if resp, body := do(t, h, "GET", "/timemap/link/http://ex.com/"); resp.StatusCode != 200 || resp.Header.Get("X-Memento-Count") != "3" {
		t.Fatalf("TimeMap: %d, %s mementos\n%s", resp.StatusCode, resp.Header.Get("X-Memento-Count"), body)
	}
	_, body := do(t, h, "GET", "/about")
	for _, want := range []string{
		"1. [Fake bad](bad)\n   state ok; sent 1 (found 1, none 0, failed 0); 3 mementos left out; skipped 0",
		"2. [Fake good](good)\n   state ok; sent 1 (found 1, none 0, failed 0); 0 mementos left out; skipped 0",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/about lacks %q:\n%s", want, body)
		}
	}
	_, body = do(t, h, "GET", "/about", "Accept", "application/json")
	var doc struct {
		Archives []struct {
			ID      string `json:"id"`
			Dropped *int64 `json:"dropped_mementos"`
		} `json:"archives"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("/about JSON: %v\n%s", err, body)
	}
	got := map[string]int64{}
	for _, a := range doc.Archives {
		if a.Dropped == nil {
			t.Errorf("/about JSON: archive %s has no dropped_mementos\n%s", a.ID, body)
			continue
		}
		got[a.ID] = *a.Dropped
	}
	if d := cmp.Diff(map[string]int64{"bad": 3, "good": 0}, got); d != "" {
		t.Errorf("/about JSON dropped_mementos (-want +got):\n%s", d)
	}
}
