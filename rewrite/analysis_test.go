package rewrite

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestAnalysisUnchangedByPlanning: the analysis of a project (its
// databases with their socket mounts, the values that do not parse) is
// computed once and only read afterwards. For the input of every golden
// case, a migration's whole plan runs over one analysis, which must then
// be deep-equal to a second, untouched analysis of the same project; the
// validator's run over an analysis leaves it equal too.
func TestAnalysisUnchangedByPlanning(t *testing.T) {
	files, _ := filepath.Glob("../testdata/script/*/*.txtar")
	planned, withDBs := 0, 0
	for _, f := range files {
		ar, err := txtar.ParseFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		var in []byte
		for _, af := range ar.Files {
			if strings.HasPrefix(af.Name, "want/") {
				continue
			}
			if af.Name == "compose.yml" {
				in = af.Data
			}
			p := filepath.Join(dir, af.Name)
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, af.Data, 0o644)
		}
		if in == nil {
			continue
		}
		opts := DefaultOptions()
		p, err := load(context.Background(), []Input{{Path: filepath.Join(dir, "compose.yml"), Data: in}}, opts)
		if err != nil {
			continue // a golden about bad input
		}
		a, err := analyze(p, opts)
		if err != nil {
			continue // a golden about a refused flag or project
		}
		fresh, _ := analyze(p, opts)
		pl := newPlanner(p, opts)
		if err := pl.run(a); err != nil {
			continue
		}
		planned++
		if len(a.dbs) > 0 {
			withDBs++
		}
		if !reflect.DeepEqual(a, fresh) {
			t.Errorf("%s: planning changed the analysis:\n%s", filepath.Base(f), analysisDiff(a, fresh))
		}
		v := &validator{p: p, opts: opts}
		v.runOn(a)
		if !reflect.DeepEqual(a, fresh) {
			t.Errorf("%s: validating changed the analysis:\n%s", filepath.Base(f), analysisDiff(a, fresh))
		}
	}
	t.Logf("%d goldens planned, %d with a database", planned, withDBs)
	if planned < 100 || withDBs < 80 {
		t.Fatalf("only %d goldens planned (%d with a database)", planned, withDBs)
	}
}

// analysisDiff names the databases whose analysis differs.
func analysisDiff(got, want analysis) string {
	var b strings.Builder
	for i := range got.dbs {
		if i < len(want.dbs) && !reflect.DeepEqual(*got.dbs[i], *want.dbs[i]) {
			b.WriteString("  " + got.dbs[i].name + " differs\n")
		}
	}
	if !reflect.DeepEqual(got.badConn, want.badConn) {
		b.WriteString("  the values that do not parse differ\n")
	}
	return b.String()
}
