package evidence

import (
	"strings"
	"testing"
)

// replaced is files with the first old in files[name] replaced by new; the
// test fails when old is not there (a variant that changes nothing).
func replaced(t *testing.T, files map[string]string, name, old, new string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for a, b := range files {
		out[a] = b
	}
	if !strings.Contains(out[name], old) {
		t.Fatalf("%s has no %q", name, old)
	}
	out[name] = strings.Replace(out[name], old, new, 1)
	return out
}

// shapeCase is a project (files), the host variable asked about and the
// service's environment, and the verdict wanted: a directory at file:line
// from driver, or none (file "").
type shapeCase struct {
	name  string
	files map[string]string
	key   string
	env   map[string]string
	file  string
	line  int
}

// runShapes asks Find about each case in a project of its files.
func runShapes(t *testing.T, driver string, cases []shapeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				write(t, dir, name, text)
			}
			v, ok := Find(Scope{ProjectDir: dir, Roots: []string{dir}, Env: c.env}, c.key)
			if c.file == "" {
				if ok {
					t.Errorf("got %+v; want no verdict", v)
				}
				return
			}
			if !ok || !v.Directory || v.File != c.file || v.Line != c.line || v.Driver != driver {
				t.Errorf("got %+v, %v; want a directory at %s:%d from %s", v, ok, c.file, c.line, driver)
			}
		})
	}
}
