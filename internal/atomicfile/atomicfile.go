// Package atomicfile replaces several files all or nothing: each new
// content goes to a temporary file beside its target (same directory, so the
// rename cannot cross file systems), is synced, and only when every
// temporary file is written are they renamed over their targets.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is one replacement: Path (a symlink is written through to its
// target) gets Data.
type File struct {
	Path string
	Data []byte
}

type staged struct {
	target, tmp string
}

// WriteAll replaces every file or none. Each keeps its permission bits (and
// owner, where the process may set it). An unwritable target is reported
// before anything is written.
func WriteAll(files []File) error {
	var st []staged
	cleanup := func() {
		for _, s := range st {
			os.Remove(s.tmp)
		}
	}
	for _, f := range files {
		target, err := filepath.EvalSymlinks(f.Path)
		if err != nil {
			cleanup()
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		tmp, err := stage(target, f.Data)
		if err != nil {
			cleanup()
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		st = append(st, staged{target, tmp})
	}
	for i, s := range st {
		if err := os.Rename(s.tmp, s.target); err != nil {
			// Renames within one directory fail only on a vanished
			// directory or a racing writer; nothing earlier can be undone
			// atomically, so say exactly what happened.
			for _, rest := range st[i:] {
				os.Remove(rest.tmp)
			}
			return fmt.Errorf("%s: %w (%d of %d files were already replaced)", s.target, err, i, len(st))
		}
	}
	return nil
}

// stage writes data to a temporary file next to target with target's mode
// and owner, and syncs it.
func stage(target string, data []byte) (string, error) {
	fi, err := os.Stat(target)
	if err != nil {
		return "", err
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return "", errors.New("file is read-only")
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".uds-migrate-*")
	if err != nil {
		return "", err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", err
	}
	if err := f.Chmod(fi.Mode().Perm()); err != nil {
		return "", err
	}
	chown(f, fi)
	if err := f.Sync(); err != nil {
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	ok = true
	return f.Name(), nil
}
