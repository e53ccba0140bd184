package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/aggregator"
	"github.com/mementokit/mementokit/cache"
)

// TestEmbeddedArchives checks the default list: MemGator's public list
// without its ignored entries (README.md).
func TestEmbeddedArchives(t *testing.T) {
	c := DefaultConfig()
	as, name, err := LoadArchives(t.Context(), &c)
	if err != nil {
		t.Fatal(err)
	}
	if name != "embedded public list" {
		t.Errorf("list name %q", name)
	}
	var ids []string
	for _, a := range as {
		ids = append(ids, a.ID)
		if !strings.HasPrefix(a.TimeMap, "http") || !strings.HasPrefix(a.TimeGate, "http") || a.Name == "" || a.Name == a.ID && a.ID != "archive.today" {
			t.Errorf("entry %+v lacks a prefix or a display name", a)
		}
	}
	want := []string{"archive.today", "arquivo.pt", "perma.cc", "waext.banq.qc.ca", "warp.da.ndl.go.jp",
		"wayback.archive-it.org", "wayback.vefsafn.is", "web.archive.org", "web.archive.org.au",
		"webarchiveweb.bac-lac.canada.ca", "webarchive.nrscotland.gov.uk", "webarchive.org.uk", "webarchive.parliament.uk"}
	if d := cmp.Diff(want, ids); d != "" {
		t.Errorf("embedded archive ids (-want +got):\n%s", d)
	}
}

func TestLoadArchives(t *testing.T) {
	dir := t.TempDir()
	xml := writeFile(t, dir, "archivelist.xml", []byte(`<?xml version="1.0"?>
<links>
  <link id="ia" longname="Internet Archive">
    <timegate uri="https://web.archive.org/web/" redirect="no"/>
    <timemap uri="https://web.archive.org/web/timemap/link/" paging-status="2"/>
    <archive type="snapshot" memento-status="yes"/>
  </link>
  <link id="ukwa" longname="UK Web Archive">
    <timegate uri="https://www.webarchive.org.uk/wayback/archive/"/>
    <timemap uri="https://www.webarchive.org.uk/wayback/archive/timemap/link/"/>
  </link>
</links>
`))
	json := writeFile(t, dir, "list.json", []byte(` [{"id": "ia", "timemap": "https://web.archive.org/web/timemap/link/", "mementomap": "https://maps.example/ia"},
		{"id": "pp", "timemap": "http://pp.example/tm/", "ignore": true}]`))
	bad := writeFile(t, dir, "bad.json", []byte(`[{"id": "x"}]`))
	type got struct {
		IDs  []string
		Maps []aggregator.MapSource
	}
	tests := []struct {
		name    string
		c       func(c *Config)
		want    got
		wantErr string
	}{
		{"xml", func(c *Config) { c.Archives = xml }, got{[]string{"ia", "ukwa"}, []aggregator.MapSource{{}, {}}}, ""},
		{"xml with a map file and discovery for the rest", func(c *Config) {
			c.Archives, c.DiscoverMaps, c.MapRefresh = xml, true, Duration(time.Hour)
			c.MementoMaps = MapSources{"ia": "ia.map"}
		}, got{[]string{"ia", "ukwa"}, []aggregator.MapSource{{File: "ia.map"}, {Discover: true, Refresh: time.Hour}}}, ""},
		{"json keeps its own map source, gets the refresh", func(c *Config) { c.Archives, c.MapRefresh = json, Duration(time.Minute) },
			got{[]string{"ia"}, []aggregator.MapSource{{URL: "https://maps.example/ia", Refresh: time.Minute}}}, ""},
		{"flag wins over the list", func(c *Config) { c.Archives, c.MementoMaps = json, MapSources{"ia": "discover"} },
			got{[]string{"ia"}, []aggregator.MapSource{{Discover: true}}}, ""},
		{"unknown id in -mementomap ignored", func(c *Config) { c.Archives, c.MementoMaps = xml, MapSources{"nope": "x", "ia": "discover"} },
			got{[]string{"ia", "ukwa"}, []aggregator.MapSource{{Discover: true}, {}}}, ""},
		{"bad entry", func(c *Config) { c.Archives = bad }, got{}, "bad.json: archive list: byte 1, entry 0"},
		{"missing file", func(c *Config) { c.Archives = filepath.Join(dir, "absent") }, got{}, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.c(&c)
			as, _, err := LoadArchives(t.Context(), &c)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var g got
			for _, a := range as {
				g.IDs = append(g.IDs, a.ID)
				g.Maps = append(g.Maps, a.Map)
			}
			if d := cmp.Diff(tc.want, g); d != "" {
				t.Errorf("archives (-want +got):\n%s", d)
			}
		})
	}
}

func TestOpenCache(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		spec     string
		wantName string
		wantFile string // a file that must exist afterwards
		wantErr  string
	}{
		{"memory", "memory", "", ""},
		{"", "bolt:" + filepath.Join(dir, "data", "cache.db"), filepath.Join(dir, "data", "cache.db"), ""},
		{"bolt", "bolt:" + filepath.Join(dir, "data", "cache.db"), filepath.Join(dir, "data", "cache.db"), ""},
		{"bolt:" + filepath.Join(dir, "sub", "c.db"), "bolt:" + filepath.Join(dir, "sub", "c.db"), filepath.Join(dir, "sub", "c.db"), ""},
		{"nonsense", "", "", "want memory, bolt:PATH or a MySQL DSN"},
		{"mysql:user:secret@tcp(127.0.0.1:1)/db?timeout=200ms", "", "", "cache: mysql open"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			c, name, err := OpenCache(t.Context(), tc.spec, filepath.Join(dir, "data"), nil)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "secret") {
					t.Errorf("the error shows the DSN's password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if name != tc.wantName {
				t.Errorf("name %q, want %q", name, tc.wantName)
			}
			if tc.wantFile != "" {
				if _, err := os.Stat(tc.wantFile); err != nil {
					t.Error(err)
				}
			}
			// The store works.
			if err := c.Put(t.Context(), held, cache.Result{Status: cache.StatusNone, Updated: time.Now()}); err != nil {
				t.Fatal(err)
			}
			if e, err := c.Get(t.Context(), cache.URIRKeyOf(held)); err != nil || e.Status != cache.StatusNone {
				t.Errorf("Get after Put: %v, %v", e.Status, err)
			}
		})
	}
}

// TestCheckRoot: a Root no request path can reach as written is refused
// (a "." or ".." segment, non-ASCII, '%', '?', '#', white space); real
// prefixes pass.
func TestCheckRoot(t *testing.T) {
	for _, bad := range []string{"/../", "/mg/../x", "/./mg", "/é/", "/mg?x", "/m#g", "/m%20g", "/m g", "/mg\n"} {
		if err := checkRoot(bad); err == nil {
			t.Errorf("checkRoot(%q): no error", bad)
		}
	}
	for _, good := range []string{"", "/", "/mg", "/mg/", "/a/b.c/..d/", "/~x/a-b_c"} {
		if err := checkRoot(good); err != nil {
			t.Errorf("checkRoot(%q): %v", good, err)
		}
	}
}

// TestCheckBaseURL: a BaseURL that is no absolute http(s) URL with a host
// is refused by Check, naming base-url; "" (the default) and real ones pass.
func TestCheckBaseURL(t *testing.T) {
	for _, bad := range []string{"notaurl", "ftp://x y", "ftp://x", "/mg", "http://", "http:x", "http://a b/", "http://h/ x", "http://h/?q", "http://h/#f", "http://u@h/", "http://h/\n"} {
		c := DefaultConfig()
		c.BaseURL = bad
		if err := c.Check(); err == nil || !strings.Contains(err.Error(), "base-url") {
			t.Errorf("Check with BaseURL %q: %v, want an error naming base-url", bad, err)
		}
	}
	for _, good := range []string{"", "http://agg.example.org", "http://agg.example.org/", "https://agg.example.org/mk", "http://127.0.0.1:8080"} {
		c := DefaultConfig()
		c.BaseURL = good
		if err := c.Check(); err != nil {
			t.Errorf("Check with BaseURL %q: %v", good, err)
		}
	}
}

// TestLoadArchivesUnknownMapWarns: a mementomaps entry for an archive the
// list lacks is ignored with one warning naming it and the list.
func TestLoadArchivesUnknownMapWarns(t *testing.T) {
	list := writeFile(t, t.TempDir(), "list.json", []byte(`[{"id": "a", "timemap": "http://127.0.0.1:1/tm/"}]`))
	var logBuf bytes.Buffer
	c := DefaultConfig()
	c.Archives, c.MementoMaps = list, MapSources{"web.archive.org": "discover", "zz": "z.map", "a": "a.map"}
	c.Logger = slog.New(slog.NewJSONHandler(&logBuf, nil))
	as, _, err := LoadArchives(t.Context(), &c)
	if err != nil || len(as) != 1 || as[0].Map.File != "a.map" {
		t.Fatalf("LoadArchives: %v %+v, want archive a with its map file", err, as)
	}
	var rec struct {
		Level, Msg, List string
		Unknown          []string
	}
	lines := strings.Split(strings.TrimSpace(logBuf.String()), "\n")
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &rec) != nil || rec.Level != "WARN" || rec.List != list ||
		!slices.Equal(rec.Unknown, []string{"web.archive.org", "zz"}) || !strings.Contains(rec.Msg, "ignored") {
		t.Errorf("log %q, want one warning naming web.archive.org and zz and the list", logBuf.String())
	}
}

// TestOpenCacheLogsBoltPath: a bolt cache without a path is logged at
// info with the file it uses in the data folder and whether that folder
// was made now; one with a path is not.
func TestOpenCacheLogsBoltPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	type record struct {
		Level, Msg, Path string
		Created          bool `json:"folder_created"`
	}
	records := func() []record {
		var out []record
		for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
			var r record
			if json.Unmarshal([]byte(l), &r) == nil && r.Msg == "bolt cache in the data folder" {
				out = append(out, r)
			}
		}
		buf.Reset()
		return out
	}
	want := filepath.Join(dir, "cache.db")
	for i, created := range []bool{true, false} {
		c, _, err := OpenCache(t.Context(), "bolt", dir, log)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if d := cmp.Diff([]record{{Level: "INFO", Msg: "bolt cache in the data folder", Path: want, Created: created}}, records()); d != "" {
			t.Errorf("open %d: records (-want +got):\n%s", i+1, d)
		}
	}
	c, _, err := OpenCache(t.Context(), "bolt:"+filepath.Join(dir, "given.db"), dir, log)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if r := records(); len(r) != 0 {
		t.Errorf("a bolt path given is logged as chosen: %+v", r)
	}
}
