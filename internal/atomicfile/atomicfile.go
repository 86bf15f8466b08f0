// Package atomicfile replaces several files all or nothing: each new
// content goes to a temporary file beside its target (same directory, so the
// rename cannot cross file systems), is synced, and only when every
// temporary file is written are they renamed over their targets.
//
// Why not github.com/google/renameio/v2: it replaces ONE file atomically
// (WriteFile, PendingFile.CloseAtomicallyReplace) and, by its README, "concerns
// itself only with atomicity", not durability. A migration changes a compose
// file and its .env or env_file together; what this package adds, and the
// only reason it exists, is the step across files: every target is checked
// and every temporary file written and synced before the first rename, and
// a rename that fails half-way puts back the files already replaced (hard
// links taken before the first rename). It also writes through symlinks and
// keeps each target's mode and owner, which migrate -w needs.
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
	fi          os.FileInfo // the target's, before it is replaced
}

// WriteAll replaces every file or none. Each keeps its permission bits (and
// owner, where the process may set it). Errors name the file (as given in
// Path) and come in three stages, so the first failure leaves every target
// untouched: a missing, non-regular or read-only (no w bit, even for root)
// target is reported before any temporary file is made; a temporary file
// that cannot be created, written or synced (full disk, a directory no one
// may write) before any target is replaced; a rename that fails half-way
// (a vanished directory, a racing writer) puts the files already replaced
// back from hard links taken before the first rename.
func WriteAll(files []File) error {
	st := make([]staged, 0, len(files))
	for _, f := range files {
		target, fi, err := check(f.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		st = append(st, staged{target: target, fi: fi})
	}
	cleanup := func() {
		for _, s := range st {
			if s.tmp != "" {
				os.Remove(s.tmp)
			}
		}
	}
	for i, f := range files {
		tmp, err := stage(st[i].target, st[i].fi, f.Data)
		if err != nil {
			cleanup()
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		st[i].tmp = tmp
	}
	// Keep a hard link to each original beside it, so a rename that fails
	// half-way can put back the files already replaced (a file that cannot
	// be linked, such as an immutable one, is refused here, before any
	// change).
	backups := make([]string, len(st))
	dropBackups := func() {
		for _, b := range backups {
			if b != "" {
				os.Remove(b)
			}
		}
	}
	for i, s := range st {
		b := s.tmp + ".orig"
		if err := os.Link(s.target, b); err != nil {
			cleanup()
			dropBackups()
			return fmt.Errorf("%s: %w", files[i].Path, err)
		}
		backups[i] = b
	}
	for i, s := range st {
		if err := os.Rename(s.tmp, s.target); err != nil {
			for _, rest := range st[i:] {
				os.Remove(rest.tmp)
			}
			for j := i - 1; j >= 0; j-- {
				if rerr := os.Rename(backups[j], st[j].target); rerr == nil {
					backups[j] = ""
				}
			}
			dropBackups()
			return fmt.Errorf("%s: %w (the %d file(s) already replaced were restored)", s.target, err, i)
		}
	}
	dropBackups()
	// The renames are durable once their directories are synced; a failure
	// here changes nothing that was written, so it is not reported.
	synced := map[string]bool{}
	for _, s := range st {
		if dir := filepath.Dir(s.target); !synced[dir] {
			synced[dir] = true
			syncDir(dir)
		}
	}
	return nil
}

// check resolves path through symlinks (the link stays, its target is
// replaced) and refuses a target that is not a writable regular file.
func check(path string) (string, os.FileInfo, error) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", nil, err
	}
	fi, err := os.Stat(target)
	if err != nil {
		return "", nil, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, fmt.Errorf("not a regular file (%v)", fi.Mode().Type())
	}
	if fi.Mode().Perm()&0o222 == 0 {
		return "", nil, errors.New("file is read-only")
	}
	return target, fi, nil
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// stage writes data to a temporary file next to target with the mode and
// owner of fi (target's), and syncs it.
func stage(target string, fi os.FileInfo, data []byte) (string, error) {
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
