package aggregator

import (
	"encoding/json"
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
		"1. [Fake good](good)\n   state ok; sent 2 (found 2, none 0, failed 0); skipped 0 by MementoMap, 0 while dormant; refused 0; probes 0 (0 failed); no MementoMap\n",
		"2. [Fake mapped](mapped)\n   state unknown; sent 0 (found 0, none 0, failed 0); skipped 2 by MementoMap, 0 while dormant; refused 0; probes 0 (0 failed); MementoMap loaded " + isoDate(loaded) + "\n",
		"3. [Fake down](down) - (DORMANT until " + isoDate(until) + ")\n   state dormant until " + isoDate(until) + "; sent 1 (found 0, none 0, failed 1); skipped 0 by MementoMap, 1 while dormant;",
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
