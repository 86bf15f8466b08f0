package docs

import (
	"bufio"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// readmeSkipped are the README commands TestREADMECommands does not run,
// each with the reason. The test fails when one is no longer in README, so
// the list cannot hide a command silently.
var readmeSkipped = map[string]string{
	"go install github.com/uds-migrate/uds-migrate/cmd/uds-migrate@latest": "needs the network (the module proxy)",
	"bash scripts/test.sh": "is the whole test suite, this test included",
}

// readmeCommands returns the command lines of README's ```sh blocks, with
// trailing comments kept (bash ignores them) and blank or comment-only
// lines dropped.
func readmeCommands(t *testing.T, readme string) []string {
	t.Helper()
	f, err := os.Open(readme)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case !in && (line == "```sh" || line == "```bash"):
			in = true
		case in && line == "```":
			in = false
		case in && strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "#"):
			out = append(out, line)
		}
	}
	return out
}

// freshCopy copies the repository's files (tracked and new, not ignored,
// as a clone would have them after a commit) into a temporary directory.
func freshCopy(t *testing.T, root string) string {
	t.Helper()
	dst := t.TempDir()
	var files []string
	if out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output(); err == nil {
		for _, f := range strings.Split(string(out), "\x00") {
			if f != "" {
				files = append(files, f)
			}
		}
	} else {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.Name() == ".git" {
				return fs.SkipDir
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(root, p)
				files = append(files, rel)
			}
			return nil
		})
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the work tree
		}
		fi, _ := os.Stat(filepath.Join(root, f))
		p := filepath.Join(dst, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestREADMECommands runs every command README shows in a sh block,
// verbatim, with bash in a fresh copy of the repository, and fails when
// one exits non-zero (commands that exit 1 on purpose say `|| echo`).
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command once per README line")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	cmds := readmeCommands(t, "../README.md")
	if len(cmds) < 5 {
		t.Fatalf("found %d commands in README's sh blocks; did the blocks change shape?", len(cmds))
	}
	for skip := range readmeSkipped {
		found := false
		for _, c := range cmds {
			found = found || strings.HasPrefix(c, skip)
		}
		if !found {
			t.Errorf("readmeSkipped lists %q, which README no longer shows: drop it from the list", skip)
		}
	}
	dir := freshCopy(t, "..")
	for _, c := range cmds {
		if reason := skipReason(c); reason != "" {
			t.Logf("skipped: %s (%s)", c, reason)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", c)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("README command failed from a fresh copy: %s\n%v\n%s", c, err, out)
		}
	}
}

func skipReason(c string) string {
	for skip, reason := range readmeSkipped {
		if strings.HasPrefix(c, skip) {
			return reason
		}
	}
	return ""
}
