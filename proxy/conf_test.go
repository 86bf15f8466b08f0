package proxy

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestConfPathsBounded: a bind mount of a big directory (/ in the fuzz
// finding) is searched three levels deep, for regular files only.
func TestConfPathsBounded(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"nginx.conf", "conf.d/a.conf", "conf.d/x/b.conf", "conf.d/x/y/c.conf", "sites-enabled/site"} {
		p = filepath.Join(dir, p)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("events {}\n"), 0o644)
	}
	syscall.Mkfifo(filepath.Join(dir, "conf.d", "pipe.conf"), 0o644)
	var got []string
	for _, p := range confPaths(dir) {
		rel, _ := filepath.Rel(dir, p)
		got = append(got, filepath.ToSlash(rel))
	}
	want := []string{"conf.d/a.conf", "conf.d/x/b.conf", "nginx.conf", "sites-enabled/site"}
	if !slices.Equal(got, want) {
		t.Errorf("confPaths = %q, want %q", got, want)
	}
}
