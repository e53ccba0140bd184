package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMapChangedInPlace truncates the MementoMap file of a running server:
// /healthz stops counting it as loaded and says it is dropped, the metrics
// count the change, the log says so, and the map comes back once a good
// file is in place.
func TestMapChangedInPlace(t *testing.T) {
	f := newFederation(t)
	// a2's map file, made large enough that lookups reach past a truncation.
	var b strings.Builder
	b.WriteString("com,example)/ 2\n")
	for i := range 20000 {
		fmt.Fprintf(&b, "com,filler%05d)/ 1\n", i)
	}
	b.WriteString("org,example,other)/ 1\n")
	mapFile := filepath.Join(f.dir, "a2.mementomap")
	if err := os.WriteFile(mapFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	in := startFederation(t, f, "-mementomap-check-every", "50ms")
	health := func() (loaded, dropped int) {
		var h struct {
			Archives struct {
				Loaded  int `json:"mementomaps_loaded"`
				Dropped int `json:"mementomaps_dropped"`
			} `json:"archives"`
		}
		r := do(t, in.URL, "GET", "/healthz")
		if err := json.Unmarshal([]byte(r.Body), &h); err != nil {
			t.Fatalf("/healthz: %v: %s", err, r.Body)
		}
		return h.Archives.Loaded, h.Archives.Dropped
	}
	if l, d := health(); l != 2 || d != 0 {
		t.Fatalf("before: loaded %d, dropped %d", l, d)
	}
	if err := os.Truncate(mapFile, 0); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the change seen", func() bool { l, d := health(); return l == 1 && d == 1 })
	metrics := do(t, in.URL, "GET", "/metrics").Body
	for _, want := range []string{`mementokit_mementomap_changed_total{archive="a2"} 1`, `mementokit_mementomap_dropped{archive="a2"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if !strings.Contains(in.Stderr.String(), "mementomap changed in place") {
		t.Errorf("the change is not logged")
	}
	// The archive is asked while its map is dropped.
	if r := do(t, in.URL, "GET", "/timemap/link/"+other); r.Status != 200 || !strings.Contains(r.Body, "20150505050505") {
		t.Errorf("TimeMap of %s while the map is dropped: %d %.200s", other, r.Status, r.Body)
	}
	if err := os.WriteFile(mapFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the map loaded again", func() bool { l, d := health(); return l == 2 && d == 0 })
	if m := do(t, in.URL, "GET", "/metrics").Body; !strings.Contains(m, `mementokit_mementomap_reloads_total{archive="a2"} 1`) {
		t.Errorf("metrics lack the reload")
	}
}
