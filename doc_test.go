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
