package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/mementokit/mementokit/aggregator/server"
	"github.com/mementokit/mementokit/cache/boltcache"
	"github.com/mementokit/mementokit/internal/cli"
)

func TestParseConfig(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "agg.json", []byte(`{
	  "addr": "127.0.0.1:9999",
	  "cache": "memory",
	  "workers": 7,
	  "request_timeout": "3s",
	  "mementomap": {"ia": "/maps/ia.ukvs", "ukwa": "discover"},
	  "log_format": "text"
	}`))
	tests := []struct {
		name string
		args []string
		edit func(c *server.Config) // applied to defaults() to make the expected config
	}{
		{"defaults", nil, func(c *server.Config) {}},
		{"flags", []string{"-addr", ":1", "-workers", "2", "-dynamic-budget", "5s", "-mementomap", "a=x.map", "-mementomap", "b=https://b.example/map"},
			func(c *server.Config) {
				c.Addr, c.Workers, c.DynamicBudget = ":1", 2, server.Duration(5*time.Second)
				c.MementoMaps = server.MapSources{"a": "x.map", "b": "https://b.example/map"}
			}},
		{"file", []string{"-config", file}, func(c *server.Config) {
			c.Addr, c.Cache, c.Workers, c.RequestTimeout, c.LogFormat, c.DataDir = "127.0.0.1:9999", "memory", 7, server.Duration(3*time.Second), "text", ""
			c.MementoMaps = server.MapSources{"ia": "/maps/ia.ukvs", "ukwa": "discover"}
		}},
		{"sizes by one rule, flags and file", []string{"-body-memory", "64MiB", "-max-proxy-bytes", "1000"}, func(c *server.Config) {
			c.BodyMemory, c.MaxProxyBytes = 64<<20, 1000
		}},
		{"body memory -1 and 0", []string{"-body-memory", "-1", "-max-proxy-bytes", "0"}, func(c *server.Config) {
			c.BodyMemory, c.MaxProxyBytes = -1, 0
		}},
		{"sizes in a file", []string{"-config", writeFile(t, dir, "sizes.json", []byte(`{"body_memory": "256MiB", "max_proxy_bytes": 4096}`))}, func(c *server.Config) {
			c.BodyMemory, c.MaxProxyBytes = 256<<20, 4096
		}},
		{"sizes in a file as strings of bytes", []string{"-config", writeFile(t, dir, "sizes2.json", []byte(`{"body_memory": "-1", "max_proxy_bytes": "2GiB"}`))}, func(c *server.Config) {
			c.BodyMemory, c.MaxProxyBytes = -1, 2<<30
		}},
		{"flags win over the file, wherever they are", []string{"-workers", "1", "-config", file, "-mementomap", "ia=other.map", "-access-log=false"}, func(c *server.Config) {
			c.Addr, c.Cache, c.Workers, c.RequestTimeout, c.LogFormat, c.DataDir = "127.0.0.1:9999", "memory", 1, server.Duration(3*time.Second), "text", ""
			c.MementoMaps = server.MapSources{"ia": "other.map", "ukwa": "discover"}
			c.AccessLog = false
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := parseConfig(tc.args, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			want := server.DefaultConfig()
			want.DataDir = defaultDataDir()
			tc.edit(&want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("config (-want +got):\n%s", d)
			}
		})
	}
}

func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		file string // config file contents, "" for none
		args []string
		want string // substring of the error
	}{
		{"unknown flag", "", []string{"-nope"}, "flag provided but not defined"},
		{"bad duration flag", "", []string{"-request-timeout", "soon"}, "invalid value"},
		{"zero timeout", "", []string{"-request-timeout", "0s"}, "request-timeout must be positive"},
		{"negative workers", "", []string{"-workers", "-1"}, "workers must not be negative"},
		{"zero fan-out", "", []string{"-fan-out", "0"}, "fan-out must be positive"},
		{"zero tolerance", "", []string{"-tolerance", "0"}, "tolerance must not be 0"},
		{"bad log level", "", []string{"-log-level", "loud"}, `log-level "loud"`},
		{"bad log format", "", []string{"-log-format", "xml"}, `log-format "xml"`},
		{"bad mementomap flag", "", []string{"-mementomap", "nosource"}, "want id=SOURCE"},
		{"missing file", "", []string{"-config", filepath.Join(dir, "absent.json")}, "no such file"},
		{"syntax error", `{"workers": 2,}`, nil, "byte 15"},
		{"wrong type", `{"workers": "two"}`, nil, `key "workers": want a int, got string`},
		{"bad duration", `{"request_timeout": "fast"}`, nil, `want a duration string such as "10s"`},
		{"unknown key", `{"wrokers": 2}`, nil, `unknown key "wrokers" (did you mean "workers"?)`},
		{"key named as the flag is", `{"mementomaps": {"ia": "discover"}}`, nil, `unknown key "mementomaps" (did you mean "mementomap"?)`},
		{"unknown key far from all", `{"zzzzzzzz": 1}`, nil, `: unknown key "zzzzzzzz"`},
		{"two objects", `{} {}`, nil, "data after the JSON object"},
		{"file value checked", `{"fan_out": -3}`, nil, "fan-out must be positive"},
		{"bad size flag", "", []string{"-body-memory", "lots"}, `invalid size "lots"`},
		{"bad size unit", "", []string{"-max-proxy-bytes", "3PiB"}, `invalid size "3PiB"`},
		{"bad size in file", `{"body_memory": "256 mebibytes"}`, nil, `invalid size "256 mebibytes"`},
		{"size of wrong type in file", `{"body_memory": true}`, nil, `want a number of bytes or a size string such as "256MiB"`},
		{"body memory below -1", "", []string{"-body-memory", "-2"}, `invalid size "-2"`},
		{"body memory below -1 in file", `{"body_memory": -2}`, nil, "body_memory must be -1"},
		{"negative proxy bytes", "", []string{"-max-proxy-bytes", "-1"}, "max_proxy_bytes must not be negative"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if tc.file != "" {
				args = append([]string{"-config", writeFile(t, dir, strings.Repeat("c", i+1)+".json", []byte(tc.file))}, args...)
			}
			_, _, err := parseConfig(args, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			// run reports it as a usage error (exit status 2).
			err = run(t.Context(), args, strings.NewReader(""), io.Discard, io.Discard)
			var ue cli.Usage
			if !errors.As(err, &ue) {
				t.Errorf("run: %v is not a usage error", err)
			}
		})
	}
	if err := run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, io.Discard); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("-h: %v, want flag.ErrHelp", err)
	}
}

// TestBoltCacheSurvivesRestart runs the server twice on one bolt file: what
// the first run cached is served by the second without asking the archive.
func TestBoltCacheSurvivesRestart(t *testing.T) {
	f := newFederation(t)
	db := filepath.Join(f.dir, "shared.db")
	args := []string{"-archives", f.list, "-cache", "bolt:" + db, "-data-dir", f.dir, "-workers", "0"}
	first := start(t, args...)
	if r := do(t, first.URL, "GET", "/timemap/link/"+held); r.Status != 200 {
		t.Fatalf("first run: status %d", r.Status)
	}
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	f.a1.ResetLog()
	second := start(t, args...)
	r := do(t, second.URL, "GET", "/timemap/link/"+held, "Cache-Control", "only-if-cached")
	if r.Status != 200 || r.Header.Get("X-Memento-Count") != "5" {
		t.Errorf("second run, only-if-cached: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	if n := f.a1.Count(""); n != 0 {
		t.Errorf("the second run asked a1 %d times", n)
	}
	// The file is closed after the second run: another process may open it.
	if err := second.stop(); err != nil {
		t.Fatal(err)
	}
	c, err := boltcache.Open(db, &boltcache.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("bolt file still locked after shutdown: %v", err)
	}
	c.Close()
}

// TestRulesAndXMLList runs the server over an archivelist.xml with a rules
// file that sends .org URI-Rs to a2 only.
func TestRulesAndXMLList(t *testing.T) {
	f := newFederation(t)
	xml := `<links>
  <link id="a1" longname="Fake one"><timegate uri="` + f.a1.TimeGatePrefix() + `"/><timemap uri="` + f.a1.TimeMapPrefix() + `"/></link>
  <link id="a2" longname="Fake two"><timegate uri="` + f.a2.TimeGatePrefix() + `"/><timemap uri="` + f.a2.TimeMapPrefix() + `"/></link>
</links>`
	rules := `{"timemap_dynamicdefault": "a1,a2", "timemap_cachedefault": "a1,a2", "batchdefault": "a1,a2",
	  "rules": [{"url": "\\.org/", "timemap_dynamic": "a2", "timemap_cache": "a2", "batch": "a2,ghost"}]}`
	in := start(t, "-archives", writeFile(t, f.dir, "archivelist.xml", []byte(xml)), "-rules", writeFile(t, f.dir, "rules.json", []byte(rules)),
		"-cache", "memory", "-data-dir", f.dir, "-workers", "0")
	r := do(t, in.URL, "GET", "/timemap/link/"+other)
	if r.Status != 200 || r.Header.Get("X-Memento-Count") != "1" {
		t.Errorf("status %d, %s mementos; body:\n%s", r.Status, r.Header.Get("X-Memento-Count"), r.Body)
	}
	if n := f.a1.Count(""); n != 0 {
		t.Errorf("a1 was asked %d times about a .org URI-R", n)
	}
	if r := do(t, in.URL, "GET", "/"); !strings.Contains(r.Body, "Fake two") {
		t.Errorf("the home page does not list the XML list's names")
	}
	if recs := in.Stderr.records(t, "rules name archives that are not in the list; they are dropped"); len(recs) != 1 {
		t.Errorf("%d warnings about the unknown id ghost, want 1", len(recs))
	}
}

// TestRunFailsCleanly checks start-up errors: they come back from run
// (exit status 2, TestExitStatus) without leaving a listener.
func TestRunFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad blacklist", []string{"-blacklist", writeFile(t, dir, "bl.txt", []byte("ok.example\nnot a host\n"))}, "line 2"},
		{"bad rules", []string{"-rules", writeFile(t, dir, "rules.json", []byte(`{"rules": [{}]}`))}, "rule 0"},
		{"bad address", []string{"-addr", "256.0.0.1:1"}, "listen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"-addr", "127.0.0.1:0", "-cache", "memory", "-data-dir", dir}, tc.args...)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err := run(ctx, args, strings.NewReader(""), io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestExampleConfig keeps example-config.json valid: every key known,
// every value accepted, and every key of the configuration present; its
// state goes under the user's cache folder (a normal user can run it).
func TestExampleConfig(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	c, _, err := parseConfig([]string{"-config", "example-config.json"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := home + "/mementokit-aggregator"; c.DataDir != want {
		t.Errorf("data folder %q, want %q (under the user's cache folder)", c.DataDir, want)
	}
	if c.Workers != 4 || c.MementoMaps["web.archive.org"] != "discover" || time.Duration(c.MapRefresh) != 24*time.Hour {
		t.Errorf("example-config.json read as %+v", c)
	}
	b, err := os.ReadFile("example-config.json")
	if err != nil {
		t.Fatal(err)
	}
	var keys map[string]any
	if err := json.Unmarshal(b, &keys); err != nil {
		t.Fatal(err)
	}
	typ := reflect.TypeOf(server.Config{})
	for i := range typ.NumField() {
		tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if _, ok := keys[tag]; !ok {
			t.Errorf("example-config.json lacks the key %q", tag)
		}
	}
}

// TestUsageCacheModes: -h says which store each mode uses without -cache:
// bolt in the data folder for the server, none for the command-line mode.
func TestUsageCacheModes(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	if text := out.String(); !strings.Contains(text, "server mode default bolt:DATA-DIR/cache.db") || !strings.Contains(text, "command-line mode, a URI-R given, caches nothing unless -cache") {
		t.Errorf("-h does not say the command-line mode caches nothing without -cache:\n%s", text)
	}
}

// TestUsageText: -h lists every flag once, each with a placeholder that
// names what it takes (never a value such as "link", never Go's "int" or
// "value"), and help texts without a closing full stop.
func TestUsageText(t *testing.T) {
	var out strings.Builder
	if err := run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v, want flag.ErrHelp", err)
	}
	text := out.String()
	c := server.DefaultConfig()
	var file string
	fs := flagSet(&c, &file, io.Discard)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		name, help := flag.UnquoteUsage(f)
		head := "  -" + f.Name
		if name != "" {
			head += " " + name
		}
		if strings.Count(text, "\n"+head+"\n") != 1 {
			t.Errorf("-%s: no line %q in the usage text", f.Name, head)
		}
		switch name {
		case "int", "value", "string", "link", "json", "cdxj":
			t.Errorf("-%s: placeholder %q names no kind of value", f.Name, name)
		}
		if !strings.HasSuffix(help, ")") && strings.HasSuffix(help, ".") {
			t.Errorf("-%s: help %q ends with a full stop", f.Name, help)
		}
	})
	if n < 35 {
		t.Errorf("%d flags, want the aggregator's 35 or more", n)
	}
	if strings.Contains(text, "-format link") {
		t.Errorf("usage shows -format with a value for placeholder:\n%s", text)
	}
}
