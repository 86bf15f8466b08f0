package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// files writes name→content into dir with mode 0644.
func files(t *testing.T, dir string, m map[string]string) {
	t.Helper()
	for name, data := range m {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// contents reads every entry of dir: the test sees stray temporary files.
func contents(t *testing.T, dir string) map[string]string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range ents {
		if e.IsDir() {
			out[e.Name()] = "(directory)"
			continue
		}
		if e.Type()&os.ModeSymlink != 0 {
			dest, _ := os.Readlink(filepath.Join(dir, e.Name()))
			out[e.Name()] = "-> " + dest
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func equal(t *testing.T, got, want map[string]string) {
	t.Helper()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected file %s", k)
		}
	}
}

func TestWriteAllReplacesEvery(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"a": "old a", "b": "old b", "c": "old c"})
	os.Chmod(filepath.Join(dir, "b"), 0o600)
	err := WriteAll([]File{{filepath.Join(dir, "a"), []byte("new a")}, {filepath.Join(dir, "b"), []byte("new b")}})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, contents(t, dir), map[string]string{"a": "new a", "b": "new b", "c": "old c"})
	if fi, _ := os.Stat(filepath.Join(dir, "b")); fi.Mode().Perm() != 0o600 {
		t.Errorf("b: mode %v, want 0600", fi.Mode().Perm())
	}
}

// TestWriteAllNoneOnFailure: whichever file fails, and however, every target
// keeps its old content and no temporary file is left.
func TestWriteAllNoneOnFailure(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string // returns the failing path
		msg   string
	}{
		{"read-only last", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "z")
			os.Chmod(p, 0o444)
			return p
		}, "file is read-only"},
		{"missing", func(t *testing.T, dir string) string { return filepath.Join(dir, "gone") }, "no such file"},
		{"dangling symlink", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "dangling")
			os.Symlink("nowhere", p)
			return p
		}, "no such file"},
		{"directory", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "sub")
			os.Mkdir(p, 0o755)
			return p
		}, "not a regular file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files(t, dir, map[string]string{"a": "old a", "z": "old z"})
			bad := c.setup(t, dir)
			before := contents(t, dir)
			err := WriteAll([]File{{filepath.Join(dir, "a"), []byte("new a")}, {bad, []byte("new")}})
			if err == nil || !strings.HasPrefix(err.Error(), bad+": ") || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("error %v, want %s: ...%s...", err, bad, c.msg)
			}
			equal(t, contents(t, dir), before)
		})
	}
}

// TestWriteAllStageFailure: the second target's name is 250 bytes, so its
// temporary file's name (name + ".uds-migrate-" + digits) passes NAME_MAX
// and cannot be created, after the first file was staged: that temporary
// file is removed and no target changes.
func TestWriteAllStageFailure(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("x", 250) // 255 is the usual NAME_MAX
	files(t, dir, map[string]string{"a": "old a", long: "old long"})
	err := WriteAll([]File{{filepath.Join(dir, "a"), []byte("new a")}, {filepath.Join(dir, long), []byte("new")}})
	if err == nil {
		t.Skip("this file system takes names longer than 255 bytes")
	}
	equal(t, contents(t, dir), map[string]string{"a": "old a", long: "old long"})
}

func TestWriteAllThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "real"), 0o755)
	files(t, filepath.Join(dir, "real"), map[string]string{"f": "old"})
	link := filepath.Join(dir, "link")
	if err := os.Symlink("real/f", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAll([]File{{link, []byte("new")}}); err != nil {
		t.Fatal(err)
	}
	equal(t, contents(t, dir), map[string]string{"link": "-> real/f", "real": "(directory)"})
	equal(t, contents(t, filepath.Join(dir, "real")), map[string]string{"f": "new"})
}

func TestWriteAllNothing(t *testing.T) {
	if err := WriteAll(nil); err != nil {
		t.Error(err)
	}
}

// TestWriteAllKeepsModeLinksOwner (issue 25): the setgid bit stays, a
// target with another hard link is written over (both names see the new
// content), and a target of another owner keeps it (as root; a user who
// cannot give it is written over in place, like a hard link).
func TestWriteAllKeepsModeLinksOwner(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"g.yml": "old\n", "linked.env": "old\n", "owned.yml": "old\n"})
	g := filepath.Join(dir, "g.yml")
	if err := os.Chmod(g, 0o664|os.ModeSetgid); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other-name.env")
	if err := os.Link(filepath.Join(dir, "linked.env"), other); err != nil {
		t.Fatal(err)
	}
	owned := filepath.Join(dir, "owned.yml")
	root := os.Geteuid() == 0
	if root {
		if err := os.Chown(owned, 12345, 12345); err != nil {
			t.Fatal(err)
		}
	}
	err := WriteAll([]File{{g, []byte("new\n")}, {filepath.Join(dir, "linked.env"), []byte("new\n")}, {owned, []byte("new\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(g); fi.Mode() != 0o664|os.ModeSetgid {
		t.Errorf("g.yml mode %v, want %v", fi.Mode(), 0o664|os.ModeSetgid)
	}
	if b, _ := os.ReadFile(other); string(b) != "new\n" {
		t.Errorf("the other hard link reads %q: the link was cut", b)
	}
	if root {
		fi, _ := os.Stat(owned)
		if st := fi.Sys().(*syscall.Stat_t); st.Uid != 12345 || st.Gid != 12345 {
			t.Errorf("owned.yml owner %d:%d, want 12345:12345", st.Uid, st.Gid)
		}
	}
	equal(t, contents(t, dir), map[string]string{"g.yml": "new\n", "linked.env": "new\n", "other-name.env": "new\n", "owned.yml": "new\n"})
}

// TestWriteAllRemovesStaleTemps: temporary files a killed run left beside
// a target (older than staleAge) are removed by the next run; a recent
// one, perhaps another run's, stays.
func TestWriteAllRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	files(t, dir, map[string]string{"compose.yml": "old\n", ".compose.yml.uds-migrate-111": "half\n", ".compose.yml.uds-migrate-111.orig": "old\n", ".compose.yml.uds-migrate-222": "recent\n"})
	old := time.Now().Add(-time.Hour)
	for _, n := range []string{".compose.yml.uds-migrate-111", ".compose.yml.uds-migrate-111.orig"} {
		if err := os.Chtimes(filepath.Join(dir, n), old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteAll([]File{{filepath.Join(dir, "compose.yml"), []byte("new\n")}}); err != nil {
		t.Fatal(err)
	}
	equal(t, contents(t, dir), map[string]string{"compose.yml": "new\n", ".compose.yml.uds-migrate-222": "recent\n"})
}
