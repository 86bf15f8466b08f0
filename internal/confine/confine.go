// Package confine keeps the tool's reads and writes inside the project
// directory: a path is judged after every symbolic link in it is resolved
// (its parents too), so "./linkdir/cfg" with linkdir -> ../outside is
// outside, as the kernel would open it.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// EscapeError says why a path is refused: Path as the caller named it,
// Real where it leads once resolved, Link the first symbolic link on the
// way that leaves Root ("" when the path is outside as written).
type EscapeError struct {
	Path, Real, Link, Target, Root string
}

func (e *EscapeError) Error() string {
	if e.Link != "" {
		return fmt.Sprintf("%s leads outside the project directory %s: %s is a symbolic link to %s", e.Path, e.Root, e.Link, e.Target)
	}
	return fmt.Sprintf("%s is outside the project directory %s", e.Path, e.Root)
}

// Check returns nil when path, resolved through every symbolic link, is
// root or below it (root resolved the same way), and an *EscapeError when
// it is not. A path that does not exist yet is judged by its nearest
// existing parent. Errors other than a missing file (a loop, a
// permission) are returned as they are: the caller refuses the path.
func Check(root, path string) error {
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	realRoot, err := resolve(absRoot)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	real, err := resolve(abs)
	if err != nil {
		return err
	}
	if Within(realRoot, real) {
		return nil
	}
	e := &EscapeError{Path: path, Real: real, Root: root}
	e.Link, e.Target = firstEscape(abs, realRoot)
	return e
}

// Within reports whether p is dir or below it (both clean and absolute).
func Within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve is filepath.EvalSymlinks for a path whose tail may not exist:
// the missing components are kept as written below the resolved parent.
func resolve(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err == nil {
		return real, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs, nil
	}
	rp, err := resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(rp, filepath.Base(abs)), nil
}

// firstEscape returns the first component of abs that is a symbolic link
// whose target is outside root, and that target.
func firstEscape(abs, root string) (link, target string) {
	parts := strings.Split(abs, string(filepath.Separator))
	cur := string(filepath.Separator)
	for _, part := range parts {
		if part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			return "", ""
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		if real, err := filepath.EvalSymlinks(cur); err == nil && !Within(root, real) {
			dest, _ := os.Readlink(cur)
			if dest == "" {
				dest = real
			}
			return cur, dest
		}
	}
	return "", ""
}
