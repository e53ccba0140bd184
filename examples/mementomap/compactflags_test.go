package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/cli"
	"github.com/mementokit/mementokit/mementomap"
)

// TestCompactBadFlagValues: a compaction flag whose value the options
// check refuses (a negative factor, NaN, a depth out of range, a
// negative power-law constant) is a usage error, exit 2, naming the
// value, and no output is written; a good value compacts.
func TestCompactBadFlagValues(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.ukvs")
	if err := os.WriteFile(in, []byte("!fields {keys: [\"surt\"]}\ncom,example)/ 3\ncom,example)/a 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ flag, value, named string }{
		{"-hcf", "-1", "host factor -1"},
		{"-pcf", "NaN", "path factor NaN"},
		{"-hdepth", "99", "host depth 99"},
		{"-pa", "-2", "power law"},
	} {
		out := filepath.Join(dir, "out-"+strings.TrimPrefix(tc.flag, "-")+".ukvs")
		_, _, err := runCmd(t, "", "compact", tc.flag, tc.value, in, out)
		var msg strings.Builder
		if code := cli.Status("mementomap", err, &msg); code != 2 || !errors.Is(err, mementomap.ErrBadOptions) || !strings.Contains(fmt.Sprint(err), tc.named) {
			t.Errorf("compact %s %s = %v (exit %d); want exit 2 naming %q", tc.flag, tc.value, err, code, tc.named)
		}
		if want := "mementomap: compact: invalid options: " + tc.named; !strings.HasPrefix(msg.String(), want) {
			t.Errorf("compact %s %s printed %q, want it to start %q (the program named once)", tc.flag, tc.value, msg.String(), want)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("compact %s %s left %s (%v)", tc.flag, tc.value, out, err)
		}
	}
	out := filepath.Join(dir, "good.ukvs")
	if _, _, err := runCmd(t, "", "compact", "-hcf", "2", in, out); err != nil {
		t.Fatalf("compact -hcf 2: %v", err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("compact -hcf 2 wrote no output: %v", err)
	}
}

// TestUsageListsFlagsRead: each command's -h lists the CDX server flags
// (-url-prefix, -domain) only when the command reads indexes through them
// (build, profile, logs -index): compact reads a map, never a CDX server.
// The written map's header flags (-archive-id, -name, -updated-at) are
// build's alone: eval, logs and profile write no map.
func TestUsageListsFlagsRead(t *testing.T) {
	readsIndexes := map[string]bool{"build": true, "profile": true, "logs": true}
	writesHeaders := map[string]bool{"build": true}
	e := &env{}
	for _, c := range e.commands() {
		_, usage, err := runCmd(t, "", c.Name, "-h")
		if cli.Status("mementomap", err, io.Discard) != 0 || !strings.HasPrefix(usage, "usage: mementomap "+c.Name) {
			t.Fatalf("%s -h: %v, usage %.80q", c.Name, err, usage)
		}
		for _, f := range []string{"-url-prefix", "-domain"} {
			if got := strings.Contains(usage, "\n  "+f+" "); got != readsIndexes[c.Name] {
				t.Errorf("%s -h lists %s: %v, want %v", c.Name, f, got, readsIndexes[c.Name])
			}
		}
		// The sort's temporary folder is -tmpdir in every tool (cdxj -tmpdir).
		if strings.Contains(usage, "\n  -tmp ") || strings.Contains(usage, "\n  -mem ") != strings.Contains(usage, "\n  -tmpdir ") {
			t.Errorf("%s -h: -mem without -tmpdir, or a -tmp flag:\n%s", c.Name, usage)
		}
		for _, f := range []string{"-archive-id", "-name", "-updated-at"} {
			if got := strings.Contains(usage, "\n  "+f+" "); got != writesHeaders[c.Name] {
				t.Errorf("%s -h lists %s: %v, want %v", c.Name, f, got, writesHeaders[c.Name])
			}
		}
	}
}

// TestUsageNamesNoGoIdentifier: no command's -h names a Go identifier
// of the library (mementomap.MinFitR2): it says the value instead, as
// compact's -fit-fallback says the R² below which a fit is refused.
func TestUsageNamesNoGoIdentifier(t *testing.T) {
	goName := regexp.MustCompile(`\b(mementomap|cdxj|ukvs|surt)\.[A-Z]\w*`)
	e := &env{}
	for _, c := range e.commands() {
		_, usage, _ := runCmd(t, "", c.Name, "-h")
		if m := goName.FindString(usage); m != "" {
			t.Errorf("%s -h names the Go identifier %s", c.Name, m)
		}
	}
	_, usage, _ := runCmd(t, "", "compact", "-h")
	if want := fmt.Sprintf("R² below %g", mementomap.MinFitR2); !strings.Contains(usage, want) {
		t.Errorf("compact -h does not say %q:\n%s", want, usage)
	}
}

// TestEvalUsageRequiresLookups checks that the usage lines show -lookups
// as the required flag it is, not as an optional one.
func TestEvalUsageRequiresLookups(t *testing.T) {
	_, top, _ := runCmd(t, "", "-h")
	_, sub, _ := runCmd(t, "", "eval", "-h")
	for name, usage := range map[string]string{"mementomap -h": top, "mementomap eval -h": sub} {
		if strings.Contains(usage, "[-lookups FILE") || !strings.Contains(usage, "-lookups FILE MAP INDEX...") {
			t.Errorf("%s shows -lookups as optional or not at all:\n%s", name, usage)
		}
	}
	if _, _, err := runCmd(t, "", "eval", "m.ukvs", "i.cdxj"); err == nil || !strings.Contains(err.Error(), "want -lookups FILE") {
		t.Errorf("eval without -lookups: err %v", err)
	}
}

// TestStatusFlagValues: -status of build, eval and profile takes HTTP
// status classes 1 to 5 ("2", "2,3", "2xx"); anything else (not a number,
// or a class such as 7 that no record has, which would build an empty map
// with exit 0) is a usage error, exit 2, naming the field, and no map is
// written.
func TestStatusFlagValues(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "index.cdxj")
	if err := os.WriteFile(idx, []byte(`com,example)/ 20100101000000 {"url": "http://example.com/", "status": "200", "mime": "text/html"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, value := range []string{"7", "0", "9x", "2,6"} {
		out := filepath.Join(dir, "bad.ukvs")
		_, _, err := runCmd(t, "", "build", "-q", "-status", value, "-o", out, idx)
		if code := cli.Status("mementomap", err, io.Discard); code != 2 || !strings.Contains(fmt.Sprint(err), "-status") {
			t.Errorf("build -status %s = %v (exit %d); want exit 2 naming -status", value, err, code)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("build -status %s left %s (%v)", value, out, err)
		}
	}
	for _, value := range []string{"2", "2,3", "2xx"} {
		out := filepath.Join(dir, "good.ukvs")
		if _, _, err := runCmd(t, "", "build", "-q", "-status", value, "-o", out, idx); err != nil {
			t.Errorf("build -status %s: %v", value, err)
		} else if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), "com,example)/ 1/1") {
			t.Errorf("build -status %s wrote %q (%v), want the one key", value, b, err)
		}
	}
}
