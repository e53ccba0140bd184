package main

import (
	"flag"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mementokit/mementokit/aggregator/server"
)

// memgatorFlags are the flags of MemGator 1.0-rc9, short and long, as its
// main.go declares them (github.com/oduwsdl/MemGator, commit 6a22246:
// the flag.String, flag.Int, flag.Bool and flag.Duration calls).
var memgatorFlags = []string{
	"-f, --format", "-a, --arcs", "-l, --log", "-b, --benchmark", "-c, --contact", "-A, --agent", "-H, --host",
	"-P, --proxy", "-R, --root", "-D, --static", "-p, --port", "-k, --topk", "-F, --tolerance", "-V, --verbose",
	"-v, --version", "-S, --spoof", "-m, --monitor", "-t, --contimeout", "-T, --hdrtimeout", "-r, --restimeout",
	"-d, --dormant",
}

// TestCompatTableFlags checks the "MemGator flags" table of
// aggregator/server/README.md against the code: every flag of MemGator
// 1.0-rc9 has its row, and every flag of this program (flagSet) is named
// in the table, with its counterpart or in a row of its own.
func TestCompatTableFlags(t *testing.T) {
	b, err := os.ReadFile("../../aggregator/server/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n### MemGator flags\n")
	if !ok {
		t.Fatal("aggregator/server/README.md has no \"### MemGator flags\" section")
	}
	table, _, _ = strings.Cut(table, "\n### ")
	for _, f := range memgatorFlags {
		if !strings.Contains(table, "`"+f+"`") {
			t.Errorf("the table has no row for MemGator's %s", f)
		}
	}
	c := server.DefaultConfig()
	var file string
	fs := flagSet(&c, &file, io.Discard)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !regexp.MustCompile("`-" + regexp.QuoteMeta(f.Name) + "[^a-z0-9-]").MatchString(table) {
			t.Errorf("the table does not name -%s", f.Name)
		}
	})
	if n < 30 {
		t.Errorf("%d flags visited, want the program's whole flag set", n)
	}
}
