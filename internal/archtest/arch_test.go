package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/uds-migrate/uds-migrate/"

// allowed pins the module packages each package of the pipeline may
// import (REDESIGN.md, "Import direction"): the leaves first, then what is
// built on them. A package not listed here is not pinned, but it may not
// import cmd/ or a command's package (see commands).
var allowed = map[string][]string{
	"finding":           {"docs"},
	"internal/textedit": {},
	"yamledit":          {"finding", "internal/textedit"},
	// jdbc and libpq are the grammars the registry is built on.
	"dialect": {"finding", "internal/interp", "jdbc", "libpq"},
	// jdbc and libpq: the password backstop of loader errors (HideValues).
	"compose":             {"finding", "internal/confine", "internal/interp", "internal/textedit", "jdbc", "libpq", "yamledit"},
	"pgserver":            {"catalog", "compose"},
	"internal/dockerfile": {},
	"proxy":               {"appserver", "catalog", "compose", "finding", "internal/dockerfile", "internal/textedit", "nginx", "yamledit"},
	"report":              {"docs", "finding"},
	// The host-variable and consumer decision: the user's word, evidence,
	// the catalogue; it reads the project, decides, and reports nothing.
	"hostvar": {"catalog", "compose", "consumer", "dialect", "evidence", "finding", "internal/confine",
		"internal/dockerfile", "libpq", "pgserver", "yamledit"},
	// The analysis reads the project with every knowledge package and
	// edits nothing (a plan's editor reaches it only to hand over notes
	// and gather the result: ReportNotes, NewResult).
	"analyze": {"catalog", "compose", "configfile", "consumer", "dialect", "evidence", "finding", "hostvar",
		"internal/dockerfile", "internal/interp", "jdbc", "libpq", "pgserver", "yamledit"},
	// validate reads the analysis and checks; it edits nothing.
	"validate": {"analyze", "catalog", "compose", "dialect", "finding", "hostvar", "libpq", "pgserver", "yamledit"},
	// revert reads the analysis, edits through its own editor and checks
	// its output with validate: it shares the migration's knowledge, not
	// its plan (proxy: only whether the project has a reverse proxy, which
	// revert does not undo).
	"revert": {"analyze", "compose", "dialect", "finding", "hostvar", "internal/interp", "pgserver", "proxy", "validate"},
	"rewrite": {"analyze", "catalog", "compose", "consumer", "dialect", "finding", "hostvar", "internal/interp", "jdbc",
		"libpq", "pgserver", "proxy", "validate", "yamledit"},
}

// commands are the packages that run a command of the CLI (migrate,
// validate, revert), each with the packages that may import it: the CLI
// and the checks that run one (smoke, the end-to-end tests), and, for
// validate, the two commands that check their output with it. Nothing
// below the commands imports one.
var commands = map[string][]string{
	"rewrite":  {"cmd/uds-migrate", "smoke", "e2e", "e2e/docker"},
	"revert":   {"cmd/uds-migrate", "smoke", "e2e", "e2e/docker"},
	"validate": {"cmd/uds-migrate", "smoke", "e2e", "e2e/docker", "rewrite", "revert"},
}

type pkg struct {
	imports []string // module packages, relative to the module
	lines   int      // non-test lines
	methods map[string]int
}

// load reads every package of the module from its non-test files.
func load(t *testing.T) map[string]*pkg {
	t.Helper()
	out := map[string]*pkg{}
	fset := token.NewFileSet()
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); n == "testdata" || n == ".git" || n == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel("../..", filepath.Dir(p))
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, p, data, 0)
		if err != nil {
			return err
		}
		pk := out[rel]
		if pk == nil {
			pk = &pkg{methods: map[string]int{}}
			out[rel] = pk
		}
		pk.lines += strings.Count(string(data), "\n")
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			if r, ok := strings.CutPrefix(path, module); ok && !slices.Contains(pk.imports, r) {
				pk.imports = append(pk.imports, r)
			}
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if g, ok := typ.(*ast.IndexExpr); ok {
				typ = g.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				pk.methods[id.Name]++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 20 {
		t.Fatalf("only %d packages found", len(out))
	}
	return out
}

// TestImportDirection pins the import graph: each pinned package imports
// only what it is allowed, nothing imports the CLI, only the CLI and the
// checks import a command's package (validate: migrate and revert too),
// and there is no cycle.
func TestImportDirection(t *testing.T) {
	pkgs := load(t)
	for name, want := range allowed {
		p, ok := pkgs[name]
		if !ok {
			t.Errorf("pinned package %s does not exist", name)
			continue
		}
		for _, im := range p.imports {
			if !slices.Contains(want, im) {
				t.Errorf("%s imports %s, which its place in the layout does not allow (internal/archtest: allowed)", name, im)
			}
		}
	}
	for name, p := range pkgs {
		for _, im := range p.imports {
			if strings.HasPrefix(im, "cmd/") {
				t.Errorf("%s imports the command %s", name, im)
			}
			if users, ok := commands[im]; ok && !slices.Contains(users, name) {
				t.Errorf("%s imports %s: a command is imported only by %s", name, im, strings.Join(users, ", "))
			}
		}
	}
	// A cycle: Go refuses one between packages, this keeps the test honest
	// about the graph it read.
	state := map[string]int{}
	var visit func(n string, path []string)
	visit = func(n string, path []string) {
		switch state[n] {
		case 1:
			t.Errorf("import cycle: %s", strings.Join(append(path, n), " -> "))
			return
		case 2:
			return
		}
		state[n] = 1
		if p := pkgs[n]; p != nil {
			for _, im := range p.imports {
				visit(im, append(path, n))
			}
		}
		state[n] = 2
	}
	for n := range pkgs {
		visit(n, nil)
	}
}

// maxShare is the largest share of the non-test lines one package may
// hold (issue #22: none over a quarter).
const maxShare = 0.25

// TestPackageShare fails when a package passes a quarter of the code.
func TestPackageShare(t *testing.T) {
	pkgs := load(t)
	total := 0
	for _, p := range pkgs {
		total += p.lines
	}
	type share struct {
		name  string
		lines int
	}
	var all []share
	for n, p := range pkgs {
		all = append(all, share{n, p.lines})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].lines > all[j].lines })
	for _, s := range all {
		if float64(s.lines) > maxShare*float64(total) {
			t.Errorf("%s has %d of %d non-test lines (%.1f%%), more than %.0f%%: split it by concern", s.name, s.lines, total, 100*float64(s.lines)/float64(total), 100*maxShare)
		}
	}
	var top []string
	for _, s := range all[:min(5, len(all))] {
		top = append(top, fmt.Sprintf("%s %d (%.1f%%)", s.name, s.lines, 100*float64(s.lines)/float64(total)))
	}
	t.Logf("%d non-test lines; largest: %s", total, strings.Join(top, ", "))
}

// maxMethods is how many methods one type may have: more means it holds
// the behaviour of several concerns (the planner once had 101).
const maxMethods = 25

// methodBudget are the types over maxMethods, at most their count today:
// the figure may fall, never rise. compose.Project answers the compose
// questions of every stage.
var methodBudget = map[string]int{
	"compose.Project": 26,
}

// TestMethodsPerType fails when a type gains methods past its budget.
func TestMethodsPerType(t *testing.T) {
	for name, p := range load(t) {
		for typ, n := range p.methods {
			id := name + "." + typ
			limit := maxMethods
			if b, ok := methodBudget[id]; ok {
				limit = b
			}
			if n > limit {
				t.Errorf("%s has %d methods, more than %d: give the new behaviour a type of its own", id, n, limit)
			}
		}
	}
	for id := range methodBudget {
		name, typ, _ := strings.Cut(id, ".")
		if p := load(t)[name]; p == nil || p.methods[typ] <= maxMethods {
			t.Errorf("%s is within %d methods now: drop it from methodBudget", id, maxMethods)
		}
	}
}
