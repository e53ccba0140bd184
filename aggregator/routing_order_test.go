package aggregator

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/memento"
	"github.com/mementokit/mementokit/ukvs"
)

// TestRoutingByOutOfOrderMap: an archive's MementoMap lists "com,b)/"
// after "com,c)/", where a binary search misses it. Routing by that map
// never skips the archive for a URI-R it holds, in both ways the
// aggregator documents: OpenMementoMap refuses the file (ErrNotAMap
// wrapping ukvs.ErrOutOfOrder, naming the line), so no map is set and the
// archive is asked; and a map file rewritten in place out of order after
// it was opened (same size, before its first lookup) fails its lookups
// with ukvs.ErrOutOfOrder, which routing takes as "may hold" (mayHold):
// the archive is asked. The sorted map skips the archive for a URI-R it
// does not list, so the test sees routing at work.
func TestRoutingByOutOfOrderMap(t *testing.T) {
	const hdr = "!fields {\"keys\": [\"surt\"], \"values\": [\"frequency\"]}\n"
	const sorted = hdr + "com,a)/ 1\ncom,b)/ 1\ncom,c)/ 1\ncom,d)/ 1\n"
	const unsorted = hdr + "com,a)/ 1\ncom,c)/ 1\ncom,b)/ 1\ncom,d)/ 1\n"
	dt := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	f := newFake()
	archives := []Archive{{ID: "arc0", TimeMap: "http://arc0/timemap/"}, {ID: "arc1", TimeMap: "http://arc1/timemap/"}}
	f.holdings["arc0"] = map[string][]memento.Memento{"http://b.com/": {{URIM: "http://arc0/web/20100101000000/http://b.com/", Datetime: dt}}}
	f.holdings["arc1"] = map[string][]memento.Memento{}
	dir := t.TempDir()

	p := filepath.Join(dir, "unsorted.map")
	if err := os.WriteFile(p, []byte(unsorted), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := OpenMementoMap(p); !errors.Is(err, ErrNotAMap) || !errors.Is(err, ukvs.ErrOutOfOrder) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("OpenMementoMap of a map out of order: %v; want ErrNotAMap wrapping ukvs.ErrOutOfOrder naming line 4", err)
	}

	for _, tc := range []struct {
		name    string
		rewrite bool // the file rewritten out of order after it was opened
		urir    string
		asked   bool // arc0 asked for urir
	}{
		{"rewritten out of order, held", true, "http://b.com/", true},
		{"rewritten out of order, not listed", true, "http://e.com/", true},
		{"sorted, held", false, "http://b.com/", true},
		{"sorted, not listed", false, "http://e.com/", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "arc0.map")
			if err := os.WriteFile(p, []byte(sorted), 0o644); err != nil {
				t.Fatal(err)
			}
			ag := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1})
			m, closer, err := OpenMementoMap(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := ag.SetMap("arc0", m, closer, time.Now()); err != nil {
				t.Fatal(err)
			}
			if tc.rewrite {
				if err := os.WriteFile(p, []byte(unsorted), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := m.Frequency(tc.urir); !errors.Is(err, ukvs.ErrOutOfOrder) {
					t.Fatalf("lookup in the rewritten map: %v; want ukvs.ErrOutOfOrder", err)
				}
			}
			got, err := ag.Search(context.Background(), TimeMapCache, tc.urir, time.Time{})
			if err != nil {
				t.Fatal(err)
			}
			if want := len(f.holdings["arc0"][tc.urir]); len(got.Mementos) != want {
				t.Errorf("Search(%s) found %d mementos, want %d: %+v", tc.urir, len(got.Mementos), want, got.Mementos)
			}
			st := ag.Stats()[0]
			if asked := st.Sent > 0; asked != tc.asked || asked == (st.Saved > 0) {
				t.Errorf("arc0: sent %d, saved %d; want asked %v", st.Sent, st.Saved, tc.asked)
			}
		})
	}
}
