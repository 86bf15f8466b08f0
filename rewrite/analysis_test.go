package rewrite

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
		p, err := load(context.Background(), []Input{{Path: filepath.Join(dir, "compose.yml"), Data: in}}, opts)
		if err != nil {
			continue // a golden about bad input
		}
		a, err := analyzeClients(p, opts)
		if err != nil {
			continue // a golden about a refused flag or project
		}
		fresh, _ := analyzeClients(p, opts)
		if _, err := plan(p, opts, a); err != nil {
			continue
		}
		planned++
		if len(a.dbs) > 0 {
			withDBs++
		}
		if !sameAnalysis(a, fresh) {
			t.Errorf("%s: planning changed the analysis:\n%s", filepath.Base(f), analysisDiff(a, fresh))
		}
		v := &validator{p: p, opts: opts}
		v.runOn(a)
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
func sameAnalysis(a, b analysis) bool {
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
	for i := range got.edges {
		if i < len(want.edges) && !deepEqual(reflect.ValueOf(got.edges[i]), reflect.ValueOf(want.edges[i]), map[[2]uintptr]bool{}) {
			b.WriteString("  the edge of " + got.edges[i].v.Service + "/" + got.edges[i].v.Key + " differs\n")
		}
	}
	if len(got.edges) != len(want.edges) || len(got.notes) != len(want.notes) || len(got.repairs) != len(want.repairs) {
		b.WriteString("  the edges, notes or repairs differ in number\n")
	}
	return b.String()
}
