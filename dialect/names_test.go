package dialect

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestNoDialectBranchesOutside: no non-test file outside dialect/ names a
// dialect of the registry (smoke/ and e2e/ are independent checks of the
// tool and may): what a form means is asked of the registry (Dialect's
// fields, Lookup, Recognise, HostVar), never decided by comparing names
// elsewhere. It finds the registry's names as the constants of this
// package whose value is the Name of an entry, and the old rewrite.Dialect*
// spelling.
func TestNoDialectBranchesOutside(t *testing.T) {
	names := registryConstants(t)
	if len(names) != len(All()) {
		t.Fatalf("found constants %v for %d dialects", names, len(All()))
	}
	oldName := regexp.MustCompile(`^Dialect[A-Z]`)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, "../"))
		if d.IsDir() {
			switch rel {
			case "dialect", "smoke", "e2e", "testdata", ".git":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		checked++
		local := "" // the name this file imports package dialect under
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path == "github.com/uds-migrate/uds-migrate/dialect" {
				local = "dialect"
				if im.Name != nil {
					local = im.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				if x, ok := n.X.(*ast.Ident); ok && local != "" && x.Name == local && slices.Contains(names, n.Sel.Name) {
					t.Errorf("%s: names the dialect %s.%s; ask the registry instead", fset.Position(n.Pos()), local, n.Sel.Name)
				}
			case *ast.Ident:
				if oldName.MatchString(n.Name) {
					t.Errorf("%s: names %s; ask the dialect registry instead", fset.Position(n.Pos()), n.Name)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Errorf("only %d files checked", checked)
	}
}

// registryConstants are the constants of this package whose value is the
// Name of a registry entry.
func registryConstants(t *testing.T) []string {
	t.Helper()
	isName := map[string]bool{}
	for _, d := range All() {
		isName[d.Name] = true
	}
	fset := token.NewFileSet()
	files, _ := filepath.Glob("*.go")
	var out []string
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, v := range vs.Values {
					if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, _ := strconv.Unquote(lit.Value); isName[s] {
							out = append(out, vs.Names[i].Name)
						}
					}
				}
			}
		}
	}
	return out
}
