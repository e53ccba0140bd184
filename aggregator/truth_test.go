package aggregator

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// TestTruthfulOutcomes: three archives whose MementoMaps say "absent" and
// one unreachable archive give a 404 that names both (a map's "absent" is
// an answer), never a 502 "every archive failed"; the archives skipped by
// their maps are reported as skipped even once they would be dormant; and
// when the only archive asked fails, with no map skipping any, the answer
// is the 502.
func TestTruthfulOutcomes(t *testing.T) {
	urir := "http://example.com/"
	var archives []Archive
	for _, id := range []string{"a", "b", "c"} {
		archives = append(archives, entry(id, newArchive(t, archivetest.Config{})))
	}
	down := newArchive(t, archivetest.Config{Fault: archivetest.FaultReset})
	archives = append(archives, entry("d", down))
	ag := newAggregator(t, Options{Archives: archives, Tolerance: 1})
	absent := MapLookupFunc(func(string) (int64, error) { return 0, nil })
	for _, id := range []string{"a", "b", "c"} {
		if err := ag.SetMap(id, absent, nil, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	resp, body := do(t, ag.Handler(), "GET", "/timemap/link/"+urir)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("3 skipped by map + 1 failed: status %d, want 404: %s", resp.StatusCode, body)
	}
	for _, want := range []string{"No mementos found for " + urir, "1 archive failed, 3 skipped by MementoMap: d=reset"} {
		if !strings.Contains(body, want) {
			t.Errorf("body %q lacks %q", body, want)
		}
	}
	if got := resp.Header.Get("Archive-Failures"); got != "d=reset" {
		t.Errorf("Archive-Failures = %q, want d=reset", got)
	}
	// d is now dormant (tolerance 1): the next answer is still a 404,
	// and a, b, c are skipped by their maps, not dormant.
	res, err := ag.Search(t.Context(), TimeMapDynamic, urir, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Status{}
	for _, o := range res.Outcomes {
		got[o.Archive] = o.Status
	}
	want := map[string]Status{"a": StatusSkippedByMap, "b": StatusSkippedByMap, "c": StatusSkippedByMap, "d": StatusDormant}
	for id, st := range want {
		if got[id] != st {
			t.Errorf("outcome of %s = %v, want %v", id, got[id], st)
		}
	}
	if res.AllFailed() {
		t.Errorf("AllFailed with three archives skipped by their maps")
	}
	if c := res.Counts(); c != (Counts{SkippedByMap: 3, Dormant: 1}) || c.String() != "3 archives skipped by MementoMap, 1 dormant" {
		t.Errorf("Counts = %+v %q", c, c.String())
	}

	// The failing archive alone: 502, the text says every asked archive failed.
	ag2 := newAggregator(t, Options{Archives: []Archive{entry("d", down)}})
	resp, body = do(t, ag2.Handler(), "GET", "/timemap/link/"+urir)
	if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "Every asked archive failed") || !strings.Contains(body, "(1 archive failed: d=reset)") {
		t.Errorf("only archive failed: %d %q, want 502 naming d=reset", resp.StatusCode, body)
	}
}

// TestSkippedByRuleCounted: archives of the registry that the service's
// rule leaves out are counted in the outcome summary.
func TestSkippedByRuleCounted(t *testing.T) {
	a := newArchive(t, archivetest.Config{})
	b := newArchive(t, archivetest.Config{})
	rules, err := ParseRules(strings.NewReader(`{"timemap_dynamicdefault": "a", "timemap_cachedefault": "a", "batchdefault": "a"}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	ag := newAggregator(t, Options{Archives: []Archive{entry("a", a), entry("b", b)}, Rules: rules})
	resp, body := do(t, ag.Handler(), "GET", "/timemap/link/http://example.com/")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(body, "1 archive answered none, 1 skipped by rule") {
		t.Errorf("status %d body %q, want 404 with 1 archive answered none, 1 skipped by rule", resp.StatusCode, body)
	}
}
