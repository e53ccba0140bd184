package aggregator

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/memento"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/internal/cdxgen"
	"github.com/mementokit/mementokit/mementomap"
)

// TestRoutingWithBuiltMaps runs the whole pipeline: synthetic archive
// indexes (internal/cdxgen, shaped after the Arquivo.pt statistics), a
// baseline map per archive (mementomap.Build), compacted with the paper's
// defaults (mementomap.Compact), opened for routing (OpenMementoMap); then
// lookups, a share of them held, go through an aggregator that routes and
// one that asks everyone. Recall must be 1.0; the test reports the share
// of upstream requests saved with baseline and with compact maps.
func TestRoutingWithBuiltMaps(t *testing.T) {
	const nArchives, lines, lookupsPer = 4, 15000, 400
	f := newFake()
	dir := t.TempDir()
	var archives []Archive
	var lookups []string
	baseline, compact := map[string]string{}, map[string]string{}
	for i := range nArchives {
		id := fmt.Sprintf("arc%d", i)
		archives = append(archives, Archive{ID: id, TimeMap: "http://" + id + "/timemap/"})
		f.holdings[id] = map[string][]memento.Memento{}
		cfg := cdxgen.Config{Lines: lines, Seed: uint64(100 + i)}
		g := cdxgen.New(cfg)
		dt := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
		g.OnURIR = func(_, url string) {
			f.holdings[id][url] = []memento.Memento{{URIM: "http://" + id + "/web/20100101000000/" + url, Datetime: dt}}
		}
		var cdx bytes.Buffer
		if _, err := g.Write(&cdx); err != nil {
			t.Fatal(err)
		}
		var base bytes.Buffer
		st, err := mementomap.Build(context.Background(), &base, []cdxj.Searcher{cdxj.NewStream(id, &cdx, nil)}, &mementomap.BuildOptions{ArchiveID: id, TempDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if st.Mismatched != 0 {
			t.Fatalf("%s: %d keys differ from surt.Canonicalize: %v", id, st.Mismatched, st.MismatchExamples)
		}
		var comp bytes.Buffer
		if _, err := mementomap.Compact(&comp, bytes.NewReader(base.Bytes()), mementomap.DefaultCompactOptions()); err != nil {
			t.Fatal(err)
		}
		baseline[id] = filepath.Join(dir, id+".base.map")
		compact[id] = filepath.Join(dir, id+".compact.map")
		if err := os.WriteFile(baseline[id], base.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(compact[id], comp.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		var lb bytes.Buffer
		if _, err := cdxgen.WriteLookups(&lb, cfg, cdxgen.LookupConfig{N: lookupsPer, Held: 0.25}); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(&lb)
		for sc.Scan() {
			if u := strings.TrimSpace(sc.Text()); u != "" {
				lookups = append(lookups, u)
			}
		}
		t.Logf("%s: %d URI-Rs, baseline map %d bytes, compact %d bytes", id, len(f.holdings[id]), base.Len(), comp.Len())
	}
	all := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1})
	for _, kind := range []struct {
		name  string
		files map[string]string
	}{{"baseline", baseline}, {"compact", compact}} {
		t.Run(kind.name, func(t *testing.T) {
			routed := newAggregator(t, Options{Archives: archives, Upstream: f, Tolerance: -1})
			for id, p := range kind.files {
				m, closer, err := OpenMementoMap(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := routed.SetMap(id, m, closer, time.Now()); err != nil {
					t.Fatal(err)
				}
			}
			found := 0
			for _, u := range lookups {
				want, err := all.Search(context.Background(), TimeMapCache, u, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				got, err := routed.Search(context.Background(), TimeMapCache, u, time.Time{})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want.Mementos, got.Mementos); d != "" {
					t.Fatalf("%s: routing lost mementos (-all +routed):\n%s", u, d)
				}
				found += len(want.Mementos)
			}
			var sent, saved int64
			for _, s := range routed.Stats() {
				sent += s.Sent
				saved += s.Saved
			}
			if found == 0 || saved == 0 {
				t.Fatalf("degenerate: %d found, %d saved", found, saved)
			}
			t.Logf("%s maps: %d lookups (25%% held per archive), %d mementos found by both, recall 1.0; %d requests sent, %d saved: %.1f%% of %d",
				kind.name, len(lookups), found, sent, saved, 100*float64(saved)/float64(sent+saved), sent+saved)
		})
	}
}
