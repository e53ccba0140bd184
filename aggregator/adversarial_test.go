package aggregator

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A MementoMap file changed under the aggregator: replaced by a rename
// (the open map keeps the old file), or truncated in place, which made the
// next lookup touch an unmapped page (SIGBUS ended the process). A damaged
// map must fail its lookups, so that the archive is asked.
func TestMementoMapFileChangedWhileOpen(t *testing.T) {
	lines := map[string]string{}
	for k := range 20000 {
		lines[fmt.Sprintf("com,site%05d)/page", k)] = "3"
	}
	held, absent := "http://www.site19999.com/page", "http://www.nothing.com/page"
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, path string)
		// want: the decisions for held and absent after the change
		want    []Status
		damaged bool
	}{
		{"unchanged", func(*testing.T, string) {}, []Status{0, StatusSkippedByMap}, false},
		{"replaced-by-rename", func(t *testing.T, p string) {
			q := writeMap(t, filepath.Dir(p), "new.map", map[string]string{"com,other)/": "1"})
			if err := os.Rename(q, p); err != nil {
				t.Fatal(err)
			}
		}, []Status{0, StatusSkippedByMap}, false},
		{"truncated-to-zero", func(t *testing.T, p string) {
			if err := os.Truncate(p, 0); err != nil {
				t.Fatal(err)
			}
		}, []Status{0, 0}, true},
		{"rewritten-shorter-in-place", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("!fields {\"keys\": [\"surt_k\"], \"values\": [\"frequency\"]}\ncom,other)/ 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []Status{0, 0}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeMap(t, t.TempDir(), "a.map", lines)
			ag := newAggregator(t, Options{Archives: []Archive{{ID: "a", TimeMap: "http://a/", Map: MapSource{File: p}}}, Upstream: newFake()})
			if err := ag.LoadMaps(t.Context()); err != nil {
				t.Fatal(err)
			}
			tc.change(t, p)
			var got []Status
			for _, u := range []string{held, absent} {
				got = append(got, ag.Route(TimeMapCache, u)[0].Status)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decisions for %s, %s (-want +got):\n%s", held, absent, diff)
			}
			_, err := ag.byID["a"].profile.Load().lookup.Frequency(absent)
			if errors.Is(err, ErrMapDamaged) != tc.damaged {
				t.Errorf("Frequency error %v, want damaged=%v", err, tc.damaged)
			}
		})
	}
}
