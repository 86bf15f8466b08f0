package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

// A project whose migration changes both -f files: the database and one
// client in the first, another client in the override.
const (
	baseFile = "services:\n  app:\n    image: a\n    environment:\n      DATABASE_URL: postgres://app:pw@db:5432/app\n  db:\n    image: postgres:16\n"
	overFile = "services:\n  worker:\n    image: w\n    environment:\n      SPRING_DATASOURCE_URL: jdbc:postgresql://db:5432/app\n"
)

// twoFiles writes the project into dir and returns the two paths.
func twoFiles(t *testing.T, dir string) (base, over string) {
	t.Helper()
	base, over = filepath.Join(dir, "compose.yml"), filepath.Join(dir, "override.yml")
	for p, data := range map[string]string{base: baseFile, over: overFile} {
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return base, over
}

// migrated is what -w must write: the migrated bytes of each file, as the
// library computes them (independent of the writer under test).
func migrated(t *testing.T) (base, over []byte) {
	t.Helper()
	b, o := twoFiles(t, t.TempDir())
	in, err := rewrite.ReadInputs([]string{b, o})
	if err != nil {
		t.Fatal(err)
	}
	res, err := rewrite.Migrate(context.Background(), in, rewrite.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return res.Files[0].After, res.Files[1].After
}

func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(append([]string{"uds-migrate"}, args...), &out, &errb); code != exitOK {
		t.Fatalf("uds-migrate %v: exit %d\n%s", shortArgs(args), code, errb.String())
	}
	return errb.String()
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestWriteBothFiles(t *testing.T) {
	wantBase, wantOver := migrated(t)
	if bytes.Equal(wantBase, []byte(baseFile)) || bytes.Equal(wantOver, []byte(overFile)) {
		t.Fatal("the fixture must change both files")
	}
	dir := t.TempDir()
	base, over := twoFiles(t, dir)
	stderr := mustRun(t, "-w", "-f", base, "-f", over)
	if !strings.Contains(stderr, "wrote "+base) || !strings.Contains(stderr, "wrote "+over) {
		t.Errorf("stderr does not name both files:\n%s", stderr)
	}
	unchanged(t, dir, map[string][]byte{"compose.yml": wantBase, "override.yml": wantOver})
}

// TestWriteAllOrNothingReadOnly: the last file is read-only (mode 0444, which
// root could still write: the tool refuses it all the same), so the first,
// writable one is left untouched and no temporary file remains.
func TestWriteAllOrNothingReadOnly(t *testing.T) {
	dir := t.TempDir()
	base, over := twoFiles(t, dir)
	if err := os.Chmod(over, 0o444); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	code := run([]string{"uds-migrate", "-w", "-f", base, "-f", over}, &out, &errb)
	if code != exitError || out.Len() > 0 {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out.String())
	}
	if want := "uds-migrate: nothing written: " + over + ": file is read-only\n"; !strings.HasSuffix(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant it to end with %q", errb.String(), want)
	}
	unchanged(t, dir, map[string][]byte{"compose.yml": []byte(baseFile), "override.yml": []byte(overFile)})
}

// TestWriteAllOrNothingImmutableDir: the override lives in a directory no
// one may create files in (chattr +i holds even for root, where mode bits do
// not), so its temporary file cannot be made: nothing is written anywhere.
func TestWriteAllOrNothingImmutableDir(t *testing.T) {
	root := t.TempDir()
	first, second := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{first, second} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base, over := filepath.Join(first, "compose.yml"), filepath.Join(second, "override.yml")
	os.WriteFile(base, []byte(baseFile), 0o644)
	os.WriteFile(over, []byte(overFile), 0o644)
	chattr, err := exec.LookPath("chattr")
	if err != nil {
		t.Skip("chattr not installed: an unwritable directory cannot be made for root")
	}
	if out, err := exec.Command(chattr, "+i", second).CombinedOutput(); err != nil {
		t.Skipf("chattr +i not supported here (%v: %s); TestWriteAllOrNothingReadOnly covers the refusal", err, out)
	}
	t.Cleanup(func() { exec.Command(chattr, "-i", second).Run() })
	var out, errb bytes.Buffer
	code := run([]string{"uds-migrate", "-w", "-f", base, "-f", over}, &out, &errb)
	if code != exitError || out.Len() > 0 {
		t.Errorf("exit %d, stdout %q; want 2 and nothing", code, out.String())
	}
	if want := "uds-migrate: nothing written: " + over + ": "; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr:\n%s\nwant %q", errb.String(), want)
	}
	unchanged(t, first, map[string][]byte{"compose.yml": []byte(baseFile)})
	unchanged(t, second, map[string][]byte{"override.yml": []byte(overFile)})
}

// TestWriteKeepsModeAndOwner: the replaced files keep their permission bits
// and, where the process may set them (root), their owner and group.
func TestWriteKeepsModeAndOwner(t *testing.T) {
	dir := t.TempDir()
	base, over := twoFiles(t, dir)
	const uid, gid = 4321, 8765
	asRoot := os.Geteuid() == 0
	if err := os.Chmod(base, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(over, 0o600); err != nil {
		t.Fatal(err)
	}
	if asRoot {
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "-w", "-f", base, "-f", over)
	wantBase, wantOver := migrated(t)
	unchanged(t, dir, map[string][]byte{"compose.yml": wantBase, "override.yml": wantOver})
	for p, mode := range map[string]os.FileMode{base: 0o640, over: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", filepath.Base(p), fi.Mode(), mode)
		}
	}
	if !asRoot {
		t.Log("not root: ownership kept only when it is the process's own")
		return
	}
	st := statT(t, base)
	if st.Uid != uid || st.Gid != gid {
		t.Errorf("compose.yml: owner %d:%d, want %d:%d", st.Uid, st.Gid, uid, gid)
	}
}

func statT(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no syscall.Stat_t on this platform")
	}
	return st
}

// TestWriteThroughSymlink: a compose file that is a symlink (a dotfiles
// repository, say) is written through: the target gets the new content and
// the link stays a link to it.
func TestWriteThroughSymlink(t *testing.T) {
	wantBase, wantOver := migrated(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	base, over := twoFiles(t, real)
	link := filepath.Join(dir, "compose.yml")
	if err := os.Symlink(filepath.Join("real", "compose.yml"), link); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "-w", "-f", link, "-f", over)
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("compose.yml is no longer a symlink (mode %v)", fi.Mode())
	}
	if dest, _ := os.Readlink(link); dest != filepath.Join("real", "compose.yml") {
		t.Errorf("link points at %q, want real/compose.yml", dest)
	}
	unchanged(t, real, map[string][]byte{"compose.yml": wantBase, "override.yml": wantOver})
	if got := readFile(t, base); !bytes.Equal(got, wantBase) {
		t.Error("target not migrated")
	}
}
