package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// TestProbesWithoutTraffic: with -probe-every, an archive that is down
// from the start is known to be failing, then dormant, with no request
// sent to the server: /healthz counts it (and is degraded, 503, once no
// archive answers), /about gives its state as an enumerated value with
// the reason apart.
func TestProbesWithoutTraffic(t *testing.T) {
	up := archivetest.New(archivetest.Config{})
	t.Cleanup(up.Close)
	down := archivetest.New(archivetest.Config{})
	down.Close() // down from the start: connection refused
	list := filepath.Join(t.TempDir(), "archives.json")
	write := func(entries string) {
		if err := os.WriteFile(list, []byte("["+entries+"]"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entry := func(id string, a *archivetest.Archive) string {
		return `{"id": "` + id + `", "timemap": "` + a.TimeMapPrefix() + `", "timegate": "` + a.TimeGatePrefix() + `"}`
	}
	type health struct {
		Status   string `json:"status"`
		Archives struct {
			Total, OK, Dormant, Failing, Unknown int
		} `json:"archives"`
	}
	healthOf := func(in *instance) (int, health) {
		r := do(t, in.URL, "GET", "/healthz")
		var h health
		if err := json.Unmarshal([]byte(r.Body), &h); err != nil {
			t.Fatalf("/healthz: %v: %s", err, r.Body)
		}
		return r.Status, h
	}

	// One archive up, one down: ok, with one failing, then dormant after
	// -tolerance 2 probes.
	write(entry("up", up) + "," + entry("down", down))
	in := start(t, "-archives", list, "-cache", "none", "-workers", "0", "-probe-every", "50ms", "-probe-timeout", "2s", "-tolerance", "2")
	waitFor(t, "the down archive dormant by probes", func() bool {
		_, h := healthOf(in)
		return h.Archives.Dormant == 1
	})
	code, h := healthOf(in)
	if code != 200 || h.Status != "ok" || h.Archives.Total != 2 || h.Archives.OK != 1 || h.Archives.Unknown != 0 {
		t.Errorf("/healthz with one archive up: %d %+v", code, h)
	}
	var about struct {
		Archives []struct {
			ID, State, Detail string
			LastProbe         string `json:"last_probe"`
		} `json:"archives"`
	}
	r := do(t, in.URL, "GET", "/about", "Accept", "application/json")
	if err := json.Unmarshal([]byte(r.Body), &about); err != nil || len(about.Archives) != 2 {
		t.Fatalf("/about: %v\n%s", err, r.Body)
	}
	for _, a := range about.Archives {
		switch a.ID {
		case "up":
			if a.State != "ok" || a.Detail != "" || a.LastProbe == "" {
				t.Errorf("/about up: %+v", a)
			}
		case "down":
			if a.State != "dormant" || a.LastProbe == "" || !strings.Contains(a.Detail, "DORMANT until ") || !strings.Contains(a.Detail, "last probe") {
				t.Errorf("/about down: %+v", a)
			}
		}
	}
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	if n := len(in.Stderr.records(t, "probe")); n == 0 {
		t.Errorf("no probe record logged:\n%s", in.Stderr)
	}

	// Only the down archive: degraded (503) with no traffic at all.
	write(entry("down", down))
	in = start(t, "-archives", list, "-cache", "none", "-workers", "0", "-probe-every", "1h", "-probe-timeout", "2s")
	waitFor(t, "the first probe", func() bool {
		_, h := healthOf(in)
		return h.Archives.Unknown == 0
	})
	if code, h := healthOf(in); code != 503 || h.Status != "degraded" || h.Archives.Failing != 1 {
		t.Errorf("/healthz with the only archive down: %d %+v, want 503 degraded, 1 failing", code, h)
	}

	// Without probes nothing is known until traffic: "unknown", and ok.
	in = start(t, "-archives", list, "-cache", "none", "-workers", "0")
	if code, h := healthOf(in); code != 200 || h.Archives.Unknown != 1 {
		t.Errorf("/healthz without probes: %d %+v, want 200, 1 unknown", code, h)
	}
}
