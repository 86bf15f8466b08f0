package evidence

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
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
var skipDirs = map[string]bool{"node_modules": true, ".git": true, "vendor": true, ".venv": true, "venv": true, "__pycache__": true, "target": true, ".bundle": true}

// Files lists the regular files under the roots, inside the project, in
// lexical order, at most MaxFiles. A root counts where it leads once every
// symbolic link in its path is resolved (./linkdir/cfg with linkdir ->
// ../outside is outside, and Refused hears of it). Symbolic links met in
// the walk are resolved and kept only when they stay inside the project;
// directories behind links are not entered.
func (s Scope) Files() []string {
	if s.List != nil {
		return s.List
	}
	seen := map[string]bool{}
	var out []string
	for _, root := range s.Roots {
		root = filepath.Clean(root)
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
				if p != root && skipDirs[d.Name()] {
					return filepath.SkipDir
				}
				return nil
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
