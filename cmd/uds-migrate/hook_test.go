package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestPreCommitHook runs the hook .pre-commit-hooks.yaml defines the way
// pre-commit does (issue #23 point 7): its entry in the repository root,
// with the changed files as arguments. The repository has no compose file
// at its root; only the projects that own a changed file are checked.
func TestPreCommitHook(t *testing.T) {
	data, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var hooks []struct {
		ID            string `yaml:"id"`
		Entry         string `yaml:"entry"`
		Language      string `yaml:"language"`
		PassFilenames *bool  `yaml:"pass_filenames"`
		Files         string `yaml:"files"`
	}
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 1 || hooks[0].ID != "uds-migrate-check" {
		t.Fatalf("hooks %+v, want uds-migrate-check", hooks)
	}
	h := hooks[0]
	entry := strings.Fields(h.Entry)
	if entry[0] != "uds-migrate" || h.Language != "golang" || (h.PassFilenames != nil && !*h.PassFilenames) {
		t.Fatalf("hook %+v: want entry uds-migrate ..., language golang, the changed files passed", h)
	}
	repo := t.TempDir()
	pending := "services:\n  api:\n    image: example/api:1\n    environment:\n      JDBC_URL: jdbc:postgresql://db:5432/api\n  db:\n    image: postgres:16\n"
	clean := "services:\n  web:\n    image: example/web:1\n"
	for p, s := range map[string]string{
		".git/HEAD": "ref: refs/heads/main\n", "README.md": "x\n",
		"svc/api/compose.yml": pending, "svc/api/config/app.env": "A=1\n",
		"svc/web/compose.yaml": clean, "svc/web/.env": "B=2\n",
	} {
		if err := os.MkdirAll(filepath.Join(repo, filepath.Dir(p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, p), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(repo)
	for _, c := range []struct {
		changed []string
		code    int
		stdout  string
	}{
		{[]string{"README.md", "svc/api/config/app.env"}, exitChanges, "svc/api/compose.yml\n"},
		{[]string{"svc/web/.env", "README.md"}, exitOK, ""},
		{[]string{"README.md"}, exitOK, ""},
		{[]string{"svc/api/compose.yml", "svc/web/compose.yaml"}, exitChanges, "svc/api/compose.yml\n"},
	} {
		var out, errb bytes.Buffer
		code := run(append(append([]string{"uds-migrate"}, entry[1:]...), c.changed...), &out, &errb)
		if code != c.code || out.String() != c.stdout {
			t.Errorf("pre-commit with %v: exit %d, stdout %q; want exit %d, stdout %q (stderr %q)", c.changed, code, out.String(), c.code, c.stdout, errb.String())
		}
	}
}
