package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/cli"
)

// observedRun serves two archives (x1 holds held, x2 holds other) with
// cache store, asks for held, other and a URI-R neither holds, stops the
// server, and writes the observed maps of both with "aggregator observed".
// It returns the two maps' data lines and the command's output.
func observedRun(t *testing.T, store string) (x1, x2 []string, dir, list, out string) {
	t.Helper()
	dir = t.TempDir()
	a1 := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{
		held: {ts(t, "19990125093000"), ts(t, "20050301120000"), ts(t, "20200101000000")}}})
	a2 := newArchive(t, archivetest.Config{Holdings: map[string][]time.Time{other: {ts(t, "20150505050505")}}})
	list = writeList(t, dir, entryOf("x1", a1), entryOf("x2", a2))
	in := start(t, "-archives", list, "-cache", store, "-data-dir", filepath.Join(dir, "data"), "-workers", "0")
	for _, u := range []string{held, other, "http://nobody.example.net/page"} {
		do(t, in.URL, "GET", "/timemap/link/"+u)
	}
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	maps := filepath.Join(dir, "maps")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"observed", "-cache", store, "-archive-id", "x1,x2", "-o", maps}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("observed: %v\n%s", err, stderr.String())
	}
	lines := func(id string) []string {
		b, err := os.ReadFile(filepath.Join(maps, id+".ukvs"))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if !strings.HasPrefix(l, "!") {
				out = append(out, l)
			}
		}
		return out
	}
	return lines("x1"), lines("x2"), dir, list, stdout.String()
}

// checkObserved checks the maps of observedRun: each archive's positives
// and negatives, with the observation times, one line per URI-R asked.
func checkObserved(t *testing.T, x1, x2 []string, out string) {
	t.Helper()
	line := regexp.MustCompile(`^(\S+) (\d{14}) (\S+)$`)
	want := map[string][]string{
		"x1": {"* - /", "com,example)/ 3/1", "net,example,nobody)/page 0", "org,example,other)/ 0"},
		"x2": {"* - /", "com,example)/ 0", "net,example,nobody)/page 0", "org,example,other)/ 1/1"},
	}
	for id, got := range map[string][]string{"x1": x1, "x2": x2} {
		var norm []string
		for _, l := range got {
			if m := line.FindStringSubmatch(l); m != nil {
				at, _ := time.Parse("20060102150405", m[2])
				if d := time.Since(at); d < -time.Minute || d > 10*time.Minute {
					t.Errorf("%s: line %q: observed %v ago", id, l, d)
				}
				l = m[1] + " " + m[3]
			}
			norm = append(norm, l)
		}
		if strings.Join(norm, "\n") != strings.Join(want[id], "\n") {
			t.Errorf("observed map of %s:\n%s\nwant (times aside):\n%s", id, strings.Join(got, "\n"), strings.Join(want[id], "\n"))
		}
	}
	if !strings.Contains(out, "x1\t") || !strings.Contains(out, "entries 3, positives 1, negatives 2, kept 0") {
		t.Errorf("output %q", out)
	}
}

// TestObservedBolt writes observed maps from the bolt cache of a real
// run, then serves with x2's map: a URI-R x2 answered none for is not
// asked of it (the access record says x2=skipped-by-map), one it held is.
// A second run over the maps keeps their negatives.
func TestObservedBolt(t *testing.T) {
	dir0 := t.TempDir()
	store := "bolt:" + filepath.Join(dir0, "cache.db")
	x1, x2, dir, list, out := observedRun(t, store)
	checkObserved(t, x1, x2, out)
	maps := filepath.Join(dir, "maps")
	in := start(t, "-archives", list, "-cache", "memory", "-data-dir", filepath.Join(dir, "data2"), "-workers", "0",
		"-mementomap", "x2="+filepath.Join(maps, "x2.ukvs"))
	waitFor(t, "x2's map loaded", func() bool {
		return strings.Contains(do(t, in.URL, "GET", "/healthz").Body, `"mementomaps_loaded": 1`)
	})
	if r := do(t, in.URL, "GET", "/timemap/link/"+held); r.Status != 200 || r.Header.Get("X-Memento-Count") != "3" {
		t.Errorf("held with the observed map: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	if r := do(t, in.URL, "GET", "/timemap/link/"+other); r.Status != 200 || r.Header.Get("X-Memento-Count") != "1" {
		t.Errorf("other with the observed map: status %d, %s mementos", r.Status, r.Header.Get("X-Memento-Count"))
	}
	if err := in.stop(); err != nil {
		t.Fatal(err)
	}
	logs := in.Stderr.String()
	if !strings.Contains(logs, `"archives":"x1=found:3, x2=skipped-by-map"`) || !strings.Contains(logs, `"archives":"x1=none, x2=found:1"`) {
		t.Errorf("access records do not show x2 skipped for held and asked for other:\n%s", logs)
	}
	// Again over the maps just written: nothing new, every line kept.
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"observed", "-cache", store, "-archive-id", "x2", "-o", maps}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "positives 0, negatives 0, kept 3") {
		t.Errorf("second run: %q", stdout.String())
	}
	// No evidence, no map: an archive no entry holds a memento of, a
	// missing or empty cache file; nothing is written.
	x1Before, _ := os.ReadFile(filepath.Join(maps, "x1.ukvs"))
	empty := filepath.Join(dir0, "empty.db")
	os.WriteFile(empty, nil, 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-cache", store, "-archive-id", "nosuch", "-o", maps}, "nothing shows it was asked"},
		{[]string{"-cache", store, "-archive-id", "nosuch", "-archives", list, "-o", maps}, "not in"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir0, "nonexist", "x.db"), "-archive-id", "x1", "-o", maps}, "no such cache file"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir0, "typo.db"), "-archive-id", "x1", "-o", maps}, "no such cache file"},
		{[]string{"-cache", "bolt:" + empty, "-archive-id", "x1", "-o", maps}, "empty file"},
	} {
		err := run(context.Background(), append([]string{"observed"}, tc.args...), strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("observed %q: %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	if _, err := os.Stat(filepath.Join(maps, "nosuch.ukvs")); err == nil {
		t.Error("a map was written for an archive never observed")
	}
	for _, p := range []string{filepath.Join(dir0, "nonexist"), filepath.Join(dir0, "typo.db")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	if st, err := os.Stat(empty); err != nil || st.Size() != 0 {
		t.Errorf("the empty file was written: %v", err)
	}
	if x1After, _ := os.ReadFile(filepath.Join(maps, "x1.ukvs")); !bytes.Equal(x1Before, x1After) {
		t.Error("x1's map was rewritten by a failed run")
	}
	// A listed archive that holds nothing is written with its negatives.
	stdout.Reset()
	list3 := writeList(t, dir0, listEntry{ID: "x1", TimeMap: "http://127.0.0.1:1/timemap/"}, listEntry{ID: "x3", TimeMap: "http://127.0.0.1:1/timemap/"})
	if err := run(context.Background(), []string{"observed", "-cache", store, "-archive-id", "x3", "-archives", list3, "-o", maps}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatalf("listed x3: %v", err)
	}
	if !strings.Contains(stdout.String(), "positives 0, negatives 3") {
		t.Errorf("listed x3: %q", stdout.String())
	}
}

// TestObservedMySQL writes the observed maps from a MariaDB cache.
func TestObservedMySQL(t *testing.T) {
	x1, x2, _, _, out := observedRun(t, privateDatabase(t))
	checkObserved(t, x1, x2, out)
}

func TestObservedUsage(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-archive-id", "a", "-o", dir}, "-cache is required"},
		{[]string{"-cache", "memory", "-archive-id", "a", "-o", dir}, "ends with its process"},
		{[]string{"-cache", "bolt", "-archive-id", "a", "-o", dir}, "bolt:PATH"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir, "c.db"), "-o", dir}, "-archive-id is required"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir, "c.db"), "-archive-id", "a"}, "-o DIR"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir, "c.db"), "-archive-id", "../a", "-o", dir}, "cannot name a file"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir, "c.db"), "-archive-id", "a", "-o", dir, "extra"}, "unexpected argument"},
		{[]string{"-cache", "bolt:" + filepath.Join(dir, "c.db"), "-archive", "a", "-o", dir}, "-archive"}, // the flag is -archive-id, as in the other tools
	} {
		var stderr bytes.Buffer
		err := run(context.Background(), append([]string{"observed"}, tc.args...), strings.NewReader(""), &bytes.Buffer{}, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("observed %q: %v, want an error with %q", tc.args, err, tc.want)
		}
		if _, ok := err.(cli.Usage); !ok {
			t.Errorf("observed %q: %T is not a usage error (exit status 2)", tc.args, err)
		}
	}
}
