package confine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCheck: a path is judged where it leads, parents resolved.
func TestCheck(t *testing.T) {
	top := t.TempDir()
	proj := filepath.Join(top, "proj")
	for _, d := range []string{"proj/sub", "outside/cfg"} {
		os.MkdirAll(filepath.Join(top, d), 0o755)
	}
	os.WriteFile(filepath.Join(top, "outside/cfg/a.properties"), nil, 0o644)
	os.Symlink("../outside", filepath.Join(proj, "linkdir"))
	os.Symlink("sub", filepath.Join(proj, "inlink"))
	for _, c := range []struct {
		path string
		ok   bool
		link string
	}{
		{"sub", true, ""},
		{"inlink/new.txt", true, ""},
		{"linkdir/cfg/a.properties", false, "linkdir"},
		{"linkdir/cfg/missing/file", false, "linkdir"},
		{"../outside/cfg", false, ""},
		{".", true, ""},
	} {
		err := Check(proj, filepath.Join(proj, c.path))
		var e *EscapeError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case !c.ok && !errors.As(err, &e):
			t.Errorf("%s: got %v, want an EscapeError", c.path, err)
		case !c.ok && c.link != "" && e.Link != filepath.Join(proj, c.link):
			t.Errorf("%s: link %q, want %q (%v)", c.path, e.Link, c.link, err)
		}
	}
}
