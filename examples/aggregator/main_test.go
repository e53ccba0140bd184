package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
)

// testHome is the home and cache folder of every test of this package
// (HOME and XDG_CACHE_HOME, which os.UserCacheDir reads), made by TestMain.
var testHome string

// TestMain lets the signal tests run main itself: when
// MEMENTOKIT_AGGREGATOR_MAIN is set, the test binary is the aggregator,
// with the arguments JSON-encoded in that variable. Otherwise it runs the
// tests with HOME and XDG_CACHE_HOME set to a temporary folder (testHome,
// removed at the end), inherited by the aggregators the tests start as
// processes: a run without -cache or -data-dir keeps its bolt cache and
// MementoMaps there (defaultDataDir), never in the user's cache folder.
func TestMain(m *testing.M) {
	if v := os.Getenv("MEMENTOKIT_AGGREGATOR_MAIN"); v != "" {
		var args []string
		if err := json.Unmarshal([]byte(v), &args); err != nil {
			panic(err)
		}
		os.Args = append([]string{"aggregator"}, args...)
		main()
		os.Exit(0)
	}
	home, err := os.MkdirTemp("", "aggregator-test-home-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testHome = home
	os.Setenv("HOME", home)
	os.Setenv("XDG_CACHE_HOME", filepath.Join(home, ".cache"))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// TestDefaultDataDirIsTemporary: the default data folder of every run in
// these tests is under testHome, in-process and in a process the tests
// start (a bolt cache there with -cache bolt and no -data-dir, its path
// named on stderr), so that nothing lands in the user's cache folder.
func TestDefaultDataDirIsTemporary(t *testing.T) {
	if d := defaultDataDir(); testHome == "" || !strings.HasPrefix(d, testHome+string(filepath.Separator)) {
		t.Fatalf("defaultDataDir() = %q, want a folder under the tests' home %q", d, testHome)
	}
	day, _ := time.Parse("20060102", "20100101")
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://found.example.net/": {day}}})
	t.Cleanup(arc.Close)
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc1.local", "timemap": "`+arc.TimeMapPrefix()+`", "timegate": "`+arc.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	// -cache bolt: the bolt cache in the default data folder.
	out, err := command(t, "-cache", "bolt", "-archives", list, "http://found.example.net/").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	db := filepath.Join(testHome, ".cache", "mementokit-aggregator", "cache.db")
	if _, err := os.Stat(db); err != nil {
		t.Errorf("a process's bolt cache in the default data folder is not under the tests' home: %v", err)
	}
	// The command line names the file no flag named.
	if want := "aggregator: cache bolt:" + db + " (the data folder's; "; !strings.Contains(string(out), want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// command runs the test binary as the aggregator with args.
func command(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "MEMENTOKIT_AGGREGATOR_MAIN="+string(b))
	return cmd
}

// TestSignals sends SIGTERM and SIGINT to a running aggregator process: it
// drains and exits with status 0.
func TestSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			f := newFederation(t)
			cmd := command(t, "-addr", "127.0.0.1:0", "-archives", f.list, "-cache", "bolt:"+f.dir+"/c.db", "-data-dir", f.dir, "-workers", "2")
			var stderr lockedBuffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan error, 1)
			lines := make(chan string, 1)
			go func() {
				sc := bufio.NewScanner(out)
				for sc.Scan() {
					if u, ok := strings.CutPrefix(sc.Text(), "aggregator: listening on "); ok {
						lines <- u
					}
				}
				exited <- cmd.Wait()
			}()
			var url string
			select {
			case url = <-lines:
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("no listening line; stderr:\n%s", stderr.String())
			}
			resp, err := http.Get(url + "/healthz")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("/healthz: %d", resp.StatusCode)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				if err != nil {
					t.Errorf("exit after %v: %v; stderr:\n%s", sig, err, stderr.String())
				}
			case <-time.After(20 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("still running 20 s after %v", sig)
			}
			if n := len(stderr.records(t, "stopped")); n != 1 {
				t.Errorf("%d \"stopped\" records in the log, want 1:\n%s", n, stderr.String())
			}
		})
	}
}

// TestExitStatus checks main's exit statuses on the running binary: 0 for
// -h and a memento found, 1 for none found (command-line mode), 2 for a
// usage, configuration or start-up error in either mode.
func TestExitStatus(t *testing.T) {
	day, _ := time.Parse("20060102", "20100101")
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://found.example.net/": {day}}})
	t.Cleanup(arc.Close)
	dir := t.TempDir()
	list := filepath.Join(dir, "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc1.local", "name": "One", "timemap": "`+arc.TimeMapPrefix()+`", "timegate": "`+arc.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	// An archive that answers none for every URI-R (an empty TimeMap 404)
	// and one that fails (its port closed).
	none := archivetest.New(archivetest.Config{})
	t.Cleanup(none.Close)
	down := archivetest.New(archivetest.Config{})
	down.Close()
	downList := filepath.Join(dir, "down.json")
	if err := os.WriteFile(downList, []byte(`[{"id": "down.local", "name": "Down", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	noneDownList := filepath.Join(dir, "none-down.json")
	if err := os.WriteFile(noneDownList, []byte(`[{"id": "none.local", "name": "None", "timemap": "`+none.TimeMapPrefix()+`", "timegate": "`+none.TimeGatePrefix()+`"},
 {"id": "down.local", "name": "Down", "timemap": "`+down.TimeMapPrefix()+`", "timegate": "`+down.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	badConfig := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(badConfig, []byte(`{"fan_out": 4,`), 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	serve := []string{"-addr", "127.0.0.1:0", "-archives", list, "-cache", "memory"}
	with := func(args ...string) []string { return append(slices.Clone(serve), args...) }
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"help", []string{"-h"}, 0, "usage: aggregator"},
		{"found", []string{"-archives", list, "http://found.example.net/"}, 0, ""},
		{"not found", []string{"-archives", list, "http://nothing.example.net/"}, 1, "No mementos found"},
		{"none answered, one failed", []string{"-cache", "none", "-archives", noneDownList, "http://nothing.example.net/"}, 1, "(1 archive answered none, 1 failed: down.local="},
		{"every archive failed", []string{"-cache", "none", "-archives", downList, "http://found.example.net/"}, 3, "(1 archive failed: down.local="},
		{"every archive failed, at a datetime", []string{"-cache", "none", "-archives", downList, "http://found.example.net/", "2010"}, 3, "(1 archive failed: down.local="},
		{"bad flag", []string{"-workers", "many"}, 2, "invalid value"},
		{"flag after server", []string{"server", "-workers", "many"}, 2, "invalid value \"many\" for flag -workers"},
		{"bad value", []string{"-fan-out", "0"}, 2, "aggregator: fan-out must be positive"},
		{"bad datetime", []string{"-archives", list, "http://found.example.net/", "201013"}, 2, `invalid datetime "201013": month 13 out of range`},
		{"datetime with a line end", []string{"-archives", list, "http://found.example.net/", "2010\r\n"}, 2, `invalid datetime "2010\r\n": neither timestamp digits`},
		{"missing archive list", with("-archives", "/nonexistent/list.json"), 2, "no such file"},
		{"missing archive list, command line", []string{"-archives", "/nonexistent/list.json", "http://found.example.net/"}, 2, "no such file"},
		{"bad config file", []string{"-config", badConfig}, 2, "bad.json"},
		{"missing config file", []string{"-config", filepath.Join(dir, "none.json")}, 2, "none.json"},
		{"missing blacklist", with("-blacklist", filepath.Join(dir, "none.txt")), 2, "none.txt"},
		{"bolt cache cannot open", with("-cache", "bolt:"+list+"/cache.db"), 2, "not a directory"},
		{"MySQL cache cannot open", with("-cache", "root@tcp(127.0.0.1:1)/test"), 2, "127.0.0.1:1"},
		{"address in use", []string{"-addr", busy.Addr().String(), "-archives", list, "-cache", "memory"}, 2, "address already in use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := command(t, tc.args...)
			out, err := cmd.CombinedOutput()
			code := 0
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(string(out), tc.msg) {
				t.Errorf("exit %d, want %d with %q; output:\n%s", code, tc.code, tc.msg, out)
			}
		})
	}
}
