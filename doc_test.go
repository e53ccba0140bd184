package mementokit_test

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// moduleGoFiles returns the .go files of the root module: every file below
// the module root except those of nested modules (folders with their own
// go.mod, such as beam and columnar/duckdbtest) and of testdata folders.
func moduleGoFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if path != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .go files found below the module root")
	}
	return files
}

// TestExportedDocComments fails naming every exported identifier of a
// non-test file of the root module that has no doc comment: types, functions,
// methods on exported types, and constants and variables (a documented group
// counts for its members). Struct fields and interface methods are not
// checked.
func TestExportedDocComments(t *testing.T) {
	fset := token.NewFileSet()
	var missing []string
	checked := 0
	for _, path := range moduleGoFiles(t) {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		report := func(pos token.Pos, what string) {
			p := fset.Position(pos)
			missing = append(missing, fmt.Sprintf("%s:%d: %s", p.Filename, p.Line, what))
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverType(d.Recv.List[0].Type)
					if !ast.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				checked++
				if d.Doc == nil {
					report(d.Pos(), "func "+name)
				}
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						checked++
						if s.Doc == nil && d.Doc == nil {
							report(s.Pos(), "type "+s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if !n.IsExported() {
								continue
							}
							checked++
							if s.Doc == nil && d.Doc == nil && s.Comment == nil {
								report(n.Pos(), d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no exported identifiers found: the walk read nothing")
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("no doc comment: %s", m)
	}
}

// TestGofmt fails naming every .go file of the root module that go/format
// would change (the same check as `gofmt -l`).
func TestGofmt(t *testing.T) {
	for _, path := range moduleGoFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out, err := format.Source(src)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		if !bytes.Equal(src, out) {
			t.Errorf("%s: not gofmt-formatted (run gofmt -w %s)", path, path)
		}
	}
}

// receiverType returns the type name of a method receiver (T, *T, T[P], *T[P]).
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TestPublicPackagesHaveExamples fails naming every public package of the
// root module (not main, not under an internal folder) that exports an
// identifier and has no Example function in its _test.go files, and every
// Example without an "Output:" comment (compiled, never run) outside the
// packages whose examples cannot run alone: cache/cachetest (its Run takes
// the *testing.T of a test) and cache/mysqlcache (it needs a MySQL server;
// its tests make the same calls against one).
func TestPublicPackagesHaveExamples(t *testing.T) {
	type pkg struct {
		name               string
		exported, examples int
		unrun              []string
	}
	fset := token.NewFileSet()
	pkgs := map[string]*pkg{}
	for _, path := range moduleGoFiles(t) {
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "internal" || strings.HasPrefix(dir, "internal/") || strings.Contains(dir, "/internal/") || strings.HasSuffix(dir, "/internal") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		p := pkgs[dir]
		if p == nil {
			p = &pkg{}
			pkgs[dir] = p
		}
		if !strings.HasSuffix(path, "_test.go") {
			p.name = f.Name.Name
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && d.Recv == nil {
						p.exported++
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() {
								p.exported++
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() {
									p.exported++
								}
							}
						}
					}
				}
			}
			continue
		}
		for _, decl := range f.Decls {
			d, ok := decl.(*ast.FuncDecl)
			if !ok || d.Recv != nil || !strings.HasPrefix(d.Name.Name, "Example") {
				continue
			}
			p.examples++
			if !hasOutputComment(f, d) {
				p.unrun = append(p.unrun, fset.Position(d.Pos()).String()+": "+d.Name.Name)
			}
		}
	}
	compiledOnly := map[string]bool{"cache/cachetest": true, "cache/mysqlcache": true}
	public := 0
	for _, dir := range sortedKeys(pkgs) {
		p := pkgs[dir]
		if p.name == "" || p.name == "main" || p.exported == 0 {
			continue // a command, or the root package's map of the module
		}
		public++
		if p.examples == 0 {
			t.Errorf("package %s (%s) has no Example function: add one to an example_test.go", dir, p.name)
		}
		if !compiledOnly[dir] {
			for _, u := range p.unrun {
				t.Errorf("%s has no Output comment: it is compiled, never run", u)
			}
		}
	}
	if public < 15 {
		t.Errorf("%d public packages found, want the module's 15 or more: the walk missed some", public)
	}
}

// hasOutputComment reports whether the function d of f holds an
// "Output:" or "Unordered output:" comment, which makes go test run it.
func hasOutputComment(f *ast.File, d *ast.FuncDecl) bool {
	for _, g := range f.Comments {
		if g.Pos() < d.Body.Lbrace || g.End() > d.Body.Rbrace {
			continue
		}
		for _, c := range g.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if strings.HasPrefix(text, "Output:") || strings.HasPrefix(text, "Unordered output:") {
				return true
			}
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
