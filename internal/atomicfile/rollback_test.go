package atomicfile

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestImmutableTargetChangesNothing: an immutable second file (chattr +i)
// used to fail at its rename after the first file was replaced; now the
// hard link taken first fails, before any change.
func TestImmutableTargetChangesNothing(t *testing.T) {
	if _, err := exec.LookPath("chattr"); err != nil || os.Geteuid() != 0 {
		t.Skip("needs chattr and root")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yml"), filepath.Join(dir, "b.env")
	os.WriteFile(a, []byte("a\n"), 0o644)
	os.WriteFile(b, []byte("b\n"), 0o644)
	if out, err := exec.Command("chattr", "+i", b).CombinedOutput(); err != nil {
		t.Skipf("chattr +i not supported here: %s", out)
	}
	defer exec.Command("chattr", "-i", b).Run()
	err := WriteAll([]File{{Path: a, Data: []byte("A\n")}, {Path: b, Data: []byte("B\n")}})
	if err == nil {
		t.Fatal("writing an immutable file succeeded")
	}
	if got, _ := os.ReadFile(a); string(got) != "a\n" {
		t.Fatalf("first file changed to %q although the second could not be written", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("left temporary files behind: %v", entries)
	}
}
