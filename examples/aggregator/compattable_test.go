package main

import (
	"errors"
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

// TestCompatTableFlagsExist: every flag the tables of
// aggregator/server/README.md ("Coming from MemGator or Time Travel")
// name as this program's (a `-name` in a column other than the first,
// which is MemGator's or Time Travel's own) is a flag of the program's
// -h.
func TestCompatTableFlagsExist(t *testing.T) {
	b, err := os.ReadFile("../../aggregator/server/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, tables, ok := strings.Cut(string(b), "\n## Coming from MemGator or Time Travel\n")
	if !ok {
		t.Fatal("aggregator/server/README.md has no \"## Coming from MemGator or Time Travel\" section")
	}
	tables, _, _ = strings.Cut(tables, "\n## ")
	var help strings.Builder
	if err := run(t.Context(), []string{"-h"}, strings.NewReader(""), io.Discard, &help); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	inHelp := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help.String(), -1) {
		inHelp[m[1]] = true
	}
	if len(inHelp) < 30 {
		t.Fatalf("%d flags read from -h, want its whole list:\n%s", len(inHelp), help.String())
	}
	code := regexp.MustCompile("`([^`]*)`")
	name := regexp.MustCompile(`(?:^|[\s(])-([a-z][a-z0-9-]*)`)
	n := 0
	for _, row := range strings.Split(tables, "\n") {
		cells := strings.Split(strings.ReplaceAll(row, `\|`, "\x00"), "|")
		if len(cells) < 4 || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		for _, cell := range cells[2:] {
			for _, c := range code.FindAllStringSubmatch(cell, -1) {
				if strings.HasPrefix(c[1], "memgator") || strings.Contains(c[1], "--") {
					continue // MemGator's own command line
				}
				for _, f := range name.FindAllStringSubmatch(c[1], -1) {
					n++
					if !inHelp[f[1]] {
						t.Errorf("the tables name -%s (in %q), which -h does not list", f[1], c[1])
					}
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("%d flags named in the tables, want the whole table", n)
	}
}

// TestCompatTableEndpoints checks the tables of aggregator/server/README.md
// ("Coming from MemGator or Time Travel") against this program's endpoint
// list (the package doc of main.go): each path the program serves, in
// each of its forms ({link|json} alternatives, [optional] parts), is
// named in them, with its MemGator or Time Travel counterpart or as its
// own row.
func TestCompatTableEndpoints(t *testing.T) {
	b, err := os.ReadFile("../../aggregator/server/README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, tables, ok := strings.Cut(string(b), "\n## Coming from MemGator or Time Travel\n")
	if !ok {
		t.Fatal("aggregator/server/README.md has no \"## Coming from MemGator or Time Travel\" section")
	}
	tables, _, _ = strings.Cut(tables, "\n## ")
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`(/[^`]*)`").FindAllStringSubmatch(tables, -1) {
		for _, f := range pathForms(strings.ReplaceAll(m[1], `\|`, "|")) {
			named[f] = true
		}
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, _, _ := strings.Cut(string(src), "\npackage main")
	n := 0
	for _, l := range strings.Split(doc, "\n") {
		p, ok := strings.CutPrefix(l, "//\t/")
		if !ok {
			continue
		}
		n++
		p = strings.Fields("/" + p)[0]
		for _, f := range pathForms(p) {
			if prefix, ok := strings.CutSuffix(f, "..."); ok {
				found := false
				for g := range named {
					found = found || strings.HasPrefix(g, prefix)
				}
				if !found {
					t.Errorf("the tables do not name %s (of %s)", f, p)
				}
			} else if !named[f] {
				t.Errorf("the tables do not name %s (of %s)", f, p)
			}
		}
	}
	if n < 15 {
		t.Fatalf("%d endpoints in main.go's package doc, want its whole list", n)
	}
}

// pathForms expands a path pattern into its forms: each alternative of
// a {a|b} part, with and without each [optional] part, in lower case,
// {date} spelt {datetime}, a query or a following word dropped.
func pathForms(p string) []string {
	p = strings.ToLower(strings.ReplaceAll(p, "{DATE}", "{datetime}"))
	p, _, _ = strings.Cut(p, "?")
	p, _, _ = strings.Cut(p, " ")
	if i := strings.IndexByte(p, '['); i >= 0 {
		if j := strings.IndexByte(p[i:], ']'); j > 0 {
			return append(pathForms(p[:i]+p[i+j+1:]), pathForms(p[:i]+p[i+1:i+j]+p[i+j+1:])...)
		}
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '{' {
			continue
		}
		j := strings.IndexByte(p[i:], '}')
		if j < 0 {
			break
		}
		if alts := p[i+1 : i+j]; strings.Contains(alts, "|") {
			var out []string
			for _, a := range strings.Split(alts, "|") {
				out = append(out, pathForms(p[:i]+a+p[i+j+1:])...)
			}
			return out
		}
	}
	return []string{p}
}
