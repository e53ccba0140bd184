package archiveserver

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mementokit/mementokit/cdxj"
	"github.com/mementokit/mementokit/internal/sampledata"
	"github.com/mementokit/mementokit/mementomap"
)

// TestServedMapIsBuild: the MementoMap a Server publishes at
// /.well-known/mementomap is, byte for byte, mementomap.Build of the same
// inputs with the same options (compacted with the Server's options):
// the same frequencies, duplicates of a capture counted as Build counts
// them, and the same !meta counts (rekeyed_lines over a mix of the
// shipped indexes whose keys another canonicalizer made).
func TestServedMapIsBuild(t *testing.T) {
	var all []string
	for _, name := range sampledata.IndexFiles() {
		if !strings.Contains(name, "5mementos-timemap") { // a TimeMap with invalid JSON, not an index
			all = append(all, name)
		}
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	never := &mementomap.CompactOptions{HostFactor: math.Inf(1), PathFactor: math.Inf(1)}
	for _, tc := range []struct {
		name    string
		files   []string
		compact *mementomap.CompactOptions // nil: the defaults (W_h = W_p = 1)
		want    []string                   // lines the served map holds
		dups    int64                      // LoadStats.Duplicates
	}{
		// 23 records repeat a (SURT, timestamp, URL) capture: the TimeMap of
		// org,archive)/ lists 2,121 mementos, the map counts 2,144 records.
		{"openwayback", []string{"real/openwayback_archive-org.cdx"}, never, []string{"org,archive)/ 2144/1"}, 23},
		{"openwayback compacted", []string{"real/openwayback_archive-org.cdx"}, nil, []string{"org,archive)/ 2144/1"}, 23},
		{"all shipped", all, nil, []string{`"rekeyed_lines":`}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bo := mementomap.BuildOptions{ArchiveID: "ow", Name: "ow", Now: func() time.Time { return at }}
			idx, st, err := LoadIndex(t.Context(), sampleInputs(t, tc.files), &LoadOptions{Map: &bo})
			if err != nil {
				t.Fatal(err)
			}
			if tc.dups >= 0 && st.Duplicates != tc.dups {
				t.Errorf("LoadStats.Duplicates = %d, want %d", st.Duplicates, tc.dups)
			}
			s, err := New(t.Context(), idx, &Options{ID: "ow", Compact: tc.compact})
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(s)
			defer hs.Close()
			a := get(t, hs.URL, MementoMapPath)
			if a.status != http.StatusOK {
				t.Fatalf("GET %s: %d %s", MementoMapPath, a.status, a.body)
			}
			served := []byte(a.body)

			var built bytes.Buffer
			bst, err := mementomap.Build(context.Background(), &built, sampleInputs(t, tc.files), &bo)
			if err != nil {
				t.Fatal(err)
			}
			want := built.Bytes()
			if tc.compact != never {
				var c bytes.Buffer
				if _, err := mementomap.Compact(&c, bytes.NewReader(want), tc.compact); err != nil {
					t.Fatal(err)
				}
				want = c.Bytes()
			}
			if diff := cmp.Diff(string(want), string(served)); diff != "" {
				t.Errorf("served map (+) differs from the build (-):\n%s", diff)
			}
			if !cmp.Equal(st.Map, bst) {
				t.Errorf("LoadStats.Map = %+v, Build's stats %+v", st.Map, bst)
			}
			for _, line := range tc.want {
				if !bytes.Contains(served, []byte(line)) {
					t.Errorf("served map has no %q", line)
				}
			}
		})
	}
}

// sampleInputs opens shipped index files as streams.
func sampleInputs(t *testing.T, names []string) []cdxj.Searcher {
	t.Helper()
	var ins []cdxj.Searcher
	for _, name := range names {
		b, err := sampledata.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, cdxj.NewStream(name, bytes.NewReader(b), nil))
	}
	return ins
}
