package evidence

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestNotRun(t *testing.T) {
	for rel, want := range map[string]bool{
		"CHANGELOG.md": true, "docs/setup.yml": true, "doc/index.html": true, "README": true, "LICENSE": true, "notes.txt": true, "guide.rst": true,
		".github/workflows/_test.yml": true, ".gitlab-ci.yml": true, ".circleci/config.yml": true, "Jenkinsfile": true, ".travis.yml": true,
		"test/app.e2e-spec.ts": true, "tests/conftest.py": true, "app/testdata/x.json": true, "spec/models/user_spec.rb": true,
		"pg_test.go": true, "test_settings.py": true, "src/db.spec.ts": true, "src/App.test.jsx": true, "src/test/resources/application.yml": true,
		"e2e/e2eutil/containers.go": true,
		"config/runtime.exs":        false, "app/settings.py": false, "requirements.txt": false, "requirements-prod.txt": false,
		"src/app.module.ts": false, "internal/database/pg.go": false, "config/database.yml": false, "package.json": false,
		"latest.go": false, "contest.py": false, "testing/helpers.py": false, "src/main/resources/application.yml": false,
	} {
		if got := NotRun(rel); got != want {
			t.Errorf("NotRun(%q) = %v, want %v", rel, got, want)
		}
	}
}

// Files leaves out what the running program does not read below a
// directory root, but keeps a root that names such a file or directory
// itself (a bind mount of ./docs is read by whatever mounts it).
func TestFilesLeaveOutNotRun(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"app/settings.py", "CHANGELOG.md", ".github/workflows/ci.yml", "tests/conftest.py", "docs/conf.yml"} {
		write(t, dir, f, "x\n")
	}
	s := Scope{ProjectDir: dir, Roots: []string{dir, filepath.Join(dir, "docs"), filepath.Join(dir, "CHANGELOG.md")}}
	var got []string
	for _, f := range s.Files() {
		rel, _ := filepath.Rel(dir, f)
		got = append(got, filepath.ToSlash(rel))
	}
	if want := []string{"CHANGELOG.md", "app/settings.py", "docs/conf.yml"}; !slices.Equal(got, want) {
		t.Errorf("Files = %v, want %v", got, want)
	}
}
