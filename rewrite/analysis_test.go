package rewrite

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/validate"
)

// TestAnalysisUnchangedByPlanning: the analysis of a project (its
// databases with their socket mounts, the values that do not parse, the
// clients' connection values with the notes and repairs the collection
// made) is computed once and only read afterwards. For the input of every golden
// case, a migration's whole plan runs over one analysis, which must then
// be deep-equal to a second, untouched analysis of the same project; the
// validator's run over an analysis leaves it equal too.
func TestAnalysisUnchangedByPlanning(t *testing.T) {
	files, _ := filepath.Glob("../testdata/script/*/*.txtar")
	planned, withDBs := 0, 0
	for _, f := range files {
		dir, inputs := writeGolden(t, f)
		var in []byte
		for _, af := range inputs {
			if af.Name == "compose.yml" {
				in = af.Data
			}
		}
		if in == nil {
			continue
		}
		opts := DefaultOptions()
		p, err := analyze.Load(context.Background(), []Input{{Path: filepath.Join(dir, "compose.yml"), Data: in}}, opts)
		if err != nil {
			continue // a golden about bad input
		}
		a, err := analyze.Analyze(p, opts)
		if err != nil {
			continue // a golden about a refused flag or project
		}
		fresh, _ := analyze.Analyze(p, opts)
		if _, err := plan(p, opts, a); err != nil {
			continue
		}
		planned++
		if len(a.DBs) > 0 {
			withDBs++
		}
		if !sameAnalysis(a, fresh) {
			t.Errorf("%s: planning changed the analysis:\n%s", filepath.Base(f), analysisDiff(a, fresh))
		}
		validate.Check(p, opts, a)
		if !sameAnalysis(a, fresh) {
			t.Errorf("%s: validating changed the analysis:\n%s", filepath.Base(f), analysisDiff(a, fresh))
		}
	}
	t.Logf("%d goldens planned, %d with a database", planned, withDBs)
	if planned < 100 || withDBs < 80 {
		t.Fatalf("only %d goldens planned (%d with a database)", planned, withDBs)
	}
}

// sameAnalysis is reflect.DeepEqual, except that two functions are equal
// when both are set or both nil: two analyses of one project hold
// different closures (a configuration file value's renderer) that do the
// same.
func sameAnalysis(a, b analyze.Topology) bool {
	return deepEqual(reflect.ValueOf(a), reflect.ValueOf(b), map[[2]uintptr]bool{})
}

func deepEqual(a, b reflect.Value, seen map[[2]uintptr]bool) bool {
	if a.IsValid() != b.IsValid() || (a.IsValid() && a.Type() != b.Type()) {
		return false
	}
	if !a.IsValid() {
		return true
	}
	switch a.Kind() {
	case reflect.Func:
		return a.IsNil() == b.IsNil()
	case reflect.Pointer, reflect.Map, reflect.Slice:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		if a.Kind() != reflect.Slice {
			k := [2]uintptr{a.Pointer(), b.Pointer()}
			if k[0] == k[1] || seen[k] {
				return true
			}
			seen[k] = true
		}
	}
	switch a.Kind() {
	case reflect.Pointer, reflect.Interface:
		return deepEqual(a.Elem(), b.Elem(), seen)
	case reflect.Struct:
		for i := range a.NumField() {
			if !deepEqual(a.Field(i), b.Field(i), seen) {
				return false
			}
		}
		return true
	case reflect.Slice, reflect.Array:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !deepEqual(a.Index(i), b.Index(i), seen) {
				return false
			}
		}
		return true
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			if !deepEqual(a.MapIndex(k), b.MapIndex(k), seen) {
				return false
			}
		}
		return true
	case reflect.String:
		return a.String() == b.String()
	case reflect.Bool:
		return a.Bool() == b.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return a.Int() == b.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return a.Uint() == b.Uint()
	case reflect.Float32, reflect.Float64:
		return a.Float() == b.Float()
	}
	return true
}

// analysisDiff names the databases whose analysis differs.
func analysisDiff(got, want analyze.Topology) string {
	var b strings.Builder
	for i := range got.DBs {
		if i < len(want.DBs) && !reflect.DeepEqual(*got.DBs[i], *want.DBs[i]) {
			b.WriteString("  " + got.DBs[i].Name + " differs\n")
		}
	}
	if !reflect.DeepEqual(got.BadConn, want.BadConn) {
		b.WriteString("  the values that do not parse differ\n")
	}
	for i := range got.Edges {
		if i < len(want.Edges) && !deepEqual(reflect.ValueOf(got.Edges[i]), reflect.ValueOf(want.Edges[i]), map[[2]uintptr]bool{}) {
			b.WriteString("  the edge of " + got.Edges[i].Var.Service + "/" + got.Edges[i].Var.Key + " differs\n")
		}
	}
	if len(got.Edges) != len(want.Edges) || len(got.Notes) != len(want.Notes) || len(got.Repairs) != len(want.Repairs) {
		b.WriteString("  the edges, notes or repairs differ in number\n")
	}
	return b.String()
}
