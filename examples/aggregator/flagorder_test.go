package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mementokit/mementokit/internal/archivetest"
	"github.com/mementokit/mementokit/internal/cli"
)

// TestCLIFlagAfterURIR: a flag given after the URI-R ("aggregator URI-R
// -format json", which Go's flag package reads as arguments) is a usage
// error, exit 2, one line naming the flag and saying that flags come
// before the URI-R; no archive is asked. An argument that only looks like
// a flag ("-1", no such flag) stays an argument.
func TestCLIFlagAfterURIR(t *testing.T) {
	day := time.Date(2010, 1, 1, 0, 0, 0, 0, time.UTC)
	arc := archivetest.New(archivetest.Config{Holdings: map[string][]time.Time{"http://dup.example.net/": {day}}})
	t.Cleanup(arc.Close)
	list := filepath.Join(t.TempDir(), "archives.json")
	if err := os.WriteFile(list, []byte(`[{"id": "arc.local", "timemap": "`+arc.TimeMapPrefix()+`", "timegate": "`+arc.TimeGatePrefix()+`"}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	runIt := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		cliFormat = "link"
		defer func() { cliFormat = "link" }()
		err := run(context.Background(), append([]string{"-cache", "none", "-archives", list}, args...), nil, &out, &errb)
		return cli.Status("aggregator", err, &errb), out.String(), errb.String()
	}
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"http://dup.example.net/", "-format", "json"}, "-format"},
		{[]string{"http://dup.example.net/", "2010", "-format=json"}, "-format"},
		{[]string{"http://dup.example.net/", "--base-url", "http://x.example/"}, "--base-url"},
		{[]string{"http://dup.example.net/", "-h"}, "-h"},
	} {
		code, out, errs := runIt(c.args...)
		want := "aggregator: flag " + c.flag + " after the URI-R: flags come before it (aggregator [flags] URI-R [DATETIME])\n"
		if code != 2 || out != "" || errs != want {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.args, code, out, errs, want)
		}
	}
	if n := len(arc.Requests()); n != 0 {
		t.Errorf("the archive was asked %d times for refused command lines", n)
	}
	// The same flags before the URI-R: the answer.
	if code, out, errs := runIt("-format", "json", "http://dup.example.net/"); code != 0 || !strings.Contains(out, `"original_uri": "http://dup.example.net/"`) {
		t.Errorf("flags first: exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	// Not a flag of the aggregator: read as the datetime, refused by its rule.
	if code, _, errs := runIt("http://dup.example.net/", "-1"); code != 2 || !strings.Contains(errs, `invalid datetime "-1"`) {
		t.Errorf(`datetime "-1": exit %d, stderr %q; want 2, an invalid datetime`, code, errs)
	}
}
