package evidence

import (
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/confine"
)

// Scan bounds: a project's own code is small; a vendored tree is not
// evidence of anything and must not make a migration slow.
const (
	MaxFiles    = 5000
	MaxFileSize = 512 << 10
)

// skipDirs are dependency and tool directories: code there is not the
// application's own.
var skipDirs = map[string]bool{"node_modules": true, ".git": true, "vendor": true, "third_party": true, "third-party": true, ".venv": true, "venv": true, "__pycache__": true, "target": true, ".bundle": true}

// notRunDirs hold files that reach a container (COPY . ., a bind mount of
// the source tree) but that the running application never reads:
// documentation, CI definitions, editor and git-hook settings, tests and
// their fixtures. A "postgres" in them (a CI job's postgres://...@localhost,
// a changelog line) says nothing about where the service connects.
var notRunDirs = map[string]bool{
	"docs": true, "doc": true, // documentation
	".github": true, ".gitlab": true, ".circleci": true, ".buildkite": true, ".woodpecker": true, ".azure-pipelines": true, // CI
	".husky": true, ".vscode": true, ".idea": true, // git hooks, editors
	"test": true, "tests": true, "e2e": true, "spec": true, "__tests__": true, "testdata": true, "fixtures": true, "__fixtures__": true, "__mocks__": true, "mocks": true, "stub": true, "stubs": true, // tests and their stand-ins
}

// notRunFiles are the CI definitions that live at a repository's top.
var notRunFiles = map[string]bool{
	".gitlab-ci.yml": true, ".travis.yml": true, ".drone.yml": true, ".woodpecker.yml": true, ".cirrus.yml": true,
	"appveyor.yml": true, ".appveyor.yml": true, "azure-pipelines.yml": true, "bitbucket-pipelines.yml": true, "Jenkinsfile": true,
}

// docExts are documentation formats; docNames are the documents named
// without one.
var (
	docExts  = []string{".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".txt"}
	docNames = []string{"README", "CHANGELOG", "CHANGES", "HISTORY", "NEWS", "LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS", "CONTRIBUTORS", "CONTRIBUTING"}
)

// testFileRE matches test files kept beside the code (Go, Python, JS/TS,
// Ruby conventions).
var testFileRE = regexp.MustCompile(`(_test\.(go|py)|^test_.*\.py|^conftest\.py|\.(test|spec)\.[cm]?[jt]sx?|_spec\.rb)$`)

// NotRun reports whether a file found under a directory that reaches a
// container (rel: its path below that directory, slash-separated) is one
// the running application does not read: documentation (*.md, *.rst,
// *.txt but requirements*.txt and constraints*.txt, README, LICENSE ...,
// docs/), CI definitions (.github/, .gitlab-ci.yml, .circleci/ ...), or a
// test or test fixture (tests/, testdata/, *_test.go, *.spec.ts ...).
func NotRun(rel string) bool {
	parts := strings.Split(rel, "/")
	for _, d := range parts[:len(parts)-1] {
		if notRunDirs[d] {
			return true
		}
	}
	base := parts[len(parts)-1]
	if notRunFiles[base] || testFileRE.MatchString(base) {
		return true
	}
	ext := strings.ToLower(path.Ext(base))
	if ext == ".txt" && (strings.HasPrefix(base, "requirements") || strings.HasPrefix(base, "constraints")) {
		return false // pip manifests
	}
	if slices.Contains(docExts, ext) {
		return true
	}
	stem := strings.ToUpper(strings.TrimSuffix(base, path.Ext(base)))
	return slices.Contains(docNames, stem)
}

// Files lists the regular files under the roots, inside the project, in
// lexical order, at most MaxFiles; a root above the project counts for
// the project's part of it. A root counts where it leads once every
// symbolic link in its path is resolved (./linkdir/cfg with linkdir ->
// ../outside is outside, and Refused hears of it). Symbolic links met in
// the walk are resolved and kept only when they stay inside the project;
// directories behind links are not entered. Below a directory root, what
// the running application does not read is left out (NotRun: documents,
// CI definitions, tests), as are dependency directories (skipDirs).
func (s Scope) Files() []string {
	if s.List != nil {
		return s.List
	}
	seen := map[string]bool{}
	var out []string
	for _, root := range s.Roots {
		root = filepath.Clean(root)
		if root != filepath.Clean(s.ProjectDir) && confine.Within(root, filepath.Clean(s.ProjectDir)) {
			// A mount of a folder above the project (a devcontainer's
			// ../..) brings the project in: its part is read, no more.
			root = filepath.Clean(s.ProjectDir)
		}
		if !s.inside(root) {
			continue
		}
		if err := confine.Check(s.ProjectDir, root); err != nil {
			if s.Refused != nil {
				s.Refused(root, err)
			}
			continue
		}
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || len(out) >= MaxFiles {
				return filepath.SkipDir
			}
			if d.IsDir() {
				if p != root && (skipDirs[d.Name()] || notRunDirs[d.Name()]) {
					return filepath.SkipDir
				}
				return nil
			}
			if p != root {
				if rel, err := filepath.Rel(root, p); err == nil && NotRun(filepath.ToSlash(rel)) {
					return nil
				}
			}
			if d.Type()&fs.ModeSymlink != 0 {
				real, err := filepath.EvalSymlinks(p)
				if err != nil || confine.Check(s.ProjectDir, real) != nil {
					return nil
				}
				if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
					return nil
				}
			} else if !d.Type().IsRegular() {
				return nil
			}
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// inside reports whether p is the project directory or below it.
func (s Scope) inside(p string) bool {
	rel, err := filepath.Rel(s.ProjectDir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ReadFile reads one of the scope's files as Find does: through Read
// when set, else a regular-file read bounded by MaxFileSize.
func (s Scope) ReadFile(p string) ([]byte, error) { return s.read(p) }

func (s Scope) read(p string) ([]byte, error) {
	if err := confine.Check(s.ProjectDir, p); err != nil {
		return nil, err
	}
	if s.Read != nil {
		return s.Read(p)
	}
	// Stat before opening: opening a FIFO blocks until a writer comes.
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
		return nil, fs.ErrInvalid
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && len(b) > MaxFileSize {
		return nil, fs.ErrInvalid
	}
	return b, err
}
