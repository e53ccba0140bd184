package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/internal/cli"
)

// TestStatsAndLookupTimeKeys runs stats on the paper's Figure 2 map (its
// total is its "*" line, not the sum 67221~ of every line) and stats and
// lookup on a map with a datetime key column.
func TestStatsAndLookupTimeKeys(t *testing.T) {
	dir := t.TempDir()
	fig2 := filepath.Join(dir, "figure2.ukvs")
	os.WriteFile(fig2, []byte(`!context ["http://oduwsdl.github.io/contexts/ukvs"]
!id {uri: "http://archive.example.org/"}
!fields {keys: ["surt"], values: ["frequency"]}
!meta {type: "MementoMap", name: "A Test Web Archive", year: 1996}
!meta {updated_at: "2018-09-03T13:27:52Z"}
* 54321/20000
com,* 10000+
org,arxiv)/ 100
org,arxiv)/* 2500~/900
org,arxiv)/pdf/* 0
uk,co,bbc)/images/* 300+/20-
`), 0o644)
	out, _, err := runCmd(t, "", "stats", fig2)
	if err != nil || !strings.Contains(out, "\ntotal\t54321/20000\n") || !strings.Contains(out, "under a wildcard\t5\n") {
		t.Errorf("stats of Figure 2 = %q, %v", out, err)
	}
	dt := filepath.Join(dir, "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
com,twitter)/* 2015 60+/30+
com,twitter)/* : 100/35
`), 0o644)
	out, _, err = runCmd(t, "", "stats", dt)
	if err != nil || !strings.Contains(out, "data lines\t3\ntime key\tdatetime\nkeys\t1\n") || !strings.Contains(out, "\ntotal\t100/35\n") {
		t.Errorf("stats of a datetime map = %q, %v", out, err)
	}
	out, _, err = runCmd(t, "", "lookup", "-at", "2014", dt, "http://twitter.com/a")
	if want := "http://twitter.com/a 2014\tcom,twitter)/*\t2014\t20~/10\n"; err != nil || out != want {
		t.Errorf("lookup -at = %q, %v; want %q", out, err, want)
	}
	out, _, err = runCmd(t, "http://twitter.com/a\nhttp://twitter.com/b 20150601\n", "lookup", dt)
	if want := "http://twitter.com/a\tcom,twitter)/*\t:\t100/35\nhttp://twitter.com/b 20150601\tcom,twitter)/*\t2015\t60+/30+\n"; err != nil || out != want {
		t.Errorf("lookup from stdin = %q, %v; want %q", out, err, want)
	}
	if _, _, err := runCmd(t, "", "lookup", "-at", "2014", fig2, "http://arxiv.org/"); err == nil {
		t.Error("lookup -at accepted a map without a datetime key column")
	}
}

// TestEvalObservedExpired evaluates an observed map: an expired negative
// for a URI-R the index holds is asked for (as the aggregator routes), so
// it is no false negative, while a trusted one is.
func TestEvalObservedExpired(t *testing.T) {
	dir := t.TempDir()
	idx := filepath.Join(dir, "idx.cdxj")
	os.WriteFile(idx, []byte(`com,example)/b 20240102000000 {"url": "http://example.com/b", "mime": "text/html", "status": "200"}
`), 0o644)
	om := filepath.Join(dir, "observed.ukvs")
	os.WriteFile(om, []byte(`!fields {"keys": ["surt", "observed"], "values": ["frequency"]}
!meta {"type": "MementoMap", "negatives_max_age": "48h"}
* - /
com,example)/b 20240101000000 0
com,example)/c 20240101000000 0
`), 0o644)
	lk := filepath.Join(dir, "lookups.txt")
	os.WriteFile(lk, []byte("http://example.com/b\nhttp://example.com/c\n"), 0o644)
	out, errOut, err := runCmd(t, "", "eval", "-q", "-now", "20240104000000", "-lookups", lk, om, idx)
	for _, want := range []string{"expired negatives\t2\n", "max age\t48h0m0s\n", "held\t1\n", "precision\t0.5000\n", "recall\t1.0000\n"} {
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("eval after expiry: %v; output %q lacks %q\n%s", err, out, want, errOut)
		}
	}
	out, _, err = runCmd(t, "", "eval", "-q", "-now", "2024-01-02T00:00:00Z", "-lookups", lk, om, idx)
	if err == nil || !strings.Contains(out, "expired negatives\t0\n") || !strings.Contains(out, "recall\t0.0000\n") {
		t.Errorf("eval with trusted negatives: %v, %q; want a false negative", err, out)
	}
	if _, _, err := runCmd(t, "", "eval", "-q", "-now", "soon", "-lookups", lk, om, idx); err == nil || !strings.Contains(err.Error(), "-now") {
		t.Errorf("eval -now soon: %v", err)
	}
}

// TestLookupBadDatetimeArgument looks a URI up in a datetime map with a
// datetime that is none: an error naming the argument, exit status 2, and
// no answer line (not a miss).
func TestLookupBadDatetimeArgument(t *testing.T) {
	dt := filepath.Join(t.TempDir(), "datetime.ukvs")
	os.WriteFile(dt, []byte(`!fields {keys: ["surt", "datetime"], values: ["frequency"]}
com,twitter)/* 2014 20~/10
`), 0o644)
	for _, args := range [][]string{
		{"lookup", dt, "http://twitter.com/a 2014x3"},
		{"lookup", "-at", "2014x3", dt, "http://twitter.com/a"},
	} {
		out, _, err := runCmd(t, "", args...)
		var stderr strings.Builder
		if code := cli.Status("mementomap", err, &stderr); code != 2 || !strings.Contains(stderr.String(), `"2014x3"`) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, stdout %q; want exit 2 naming the datetime and no output", args, code, stderr.String(), out)
		}
	}
}

// TestLookupUnreadableInput: an input that cannot be canonicalized prints
// "-" like a miss, and the command then fails (exit 1) naming it, so that
// it is not taken for an archive's "absent".
func TestLookupUnreadableInput(t *testing.T) {
	m := filepath.Join(t.TempDir(), "plain.ukvs")
	if err := os.WriteFile(m, []byte("com,twitter)/a 1/1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCmd(t, "", "lookup", m, "http://twitter.com/a", "http://example.com:99999/")
	var stderr strings.Builder
	code := cli.Status("mementomap", err, &stderr)
	if want := "http://twitter.com/a\tcom,twitter)/a\t1/1\nhttp://example.com:99999/\t-\t-\n"; out != want {
		t.Errorf("stdout %q, want %q", out, want)
	}
	if code != 1 || !strings.Contains(stderr.String(), `1 of 2 inputs could not be looked up`) || !strings.Contains(stderr.String(), `line 2 "http://example.com:99999/"`) {
		t.Errorf("exit %d, stderr %q; want exit 1 naming line 2", code, stderr.String())
	}
}
