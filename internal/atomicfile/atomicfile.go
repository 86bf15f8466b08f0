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
// keeps each target's mode, owner and hard links, which migrate -w needs.
package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
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
	// inPlace: the target has other hard links, or an owner this process
	// cannot give a new file; renaming over it would cut the links or
	// change the owner, so it is written over, not replaced (not atomic
	// for this file), and orig holds its bytes for a rollback.
	inPlace bool
	orig    []byte
}

// staleAge is how old a temporary file of this package must be for a
// later run to remove it: one left by a run that was killed (SIGKILL,
// power loss) between writing and renaming, not one a concurrent run is
// about to rename.
const staleAge = 10 * time.Minute

// WriteAll replaces every file or none. Each keeps its mode (setuid,
// setgid and sticky bits too), its owner where the process may set it,
// and its hard links: a target with other links, or whose owner a new
// file cannot get (a group-writable file of another user), is written
// over in place instead of renamed over, which is atomic for that file
// only against errors, not against a crash. Errors name the file (as
// given in Path) and come in three stages, so the first failure leaves
// every target untouched: a missing, non-regular or read-only (no w bit,
// even for root) target is reported before any temporary file is made; a
// temporary file that cannot be created, written or synced (full disk, a
// directory no one may write) before any target is replaced; a rename or
// in-place write that fails half-way puts the files already replaced back
// (from hard links taken before the first rename, or the bytes read).
//
// Across files the guarantee is against errors, not against the process
// being killed between two renames (SIGKILL, power loss): then some
// targets are new and some old, and temporary files stay beside them
// (".NAME.uds-migrate-*"); a later WriteAll removes those older than
// staleAge.
func WriteAll(files []File) error {
	st := make([]staged, 0, len(files))
	for _, f := range files {
		target, fi, err := check(f.Path)
		if err != nil {
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		st = append(st, staged{target: target, fi: fi})
	}
	for _, s := range st {
		removeStale(s.target)
	}
	cleanup := func() {
		for _, s := range st {
			if s.tmp != "" {
				os.Remove(s.tmp)
			}
		}
	}
	for i, f := range files {
		tmp, kept, err := stage(st[i].target, st[i].fi, f.Data)
		if err != nil {
			cleanup()
			return fmt.Errorf("%s: %w", f.Path, err)
		}
		st[i].tmp = tmp
		if links(st[i].fi) > 1 || !kept {
			orig, err := os.ReadFile(st[i].target)
			if err != nil {
				cleanup()
				return fmt.Errorf("%s: %w", f.Path, err)
			}
			st[i].inPlace, st[i].orig = true, orig
		}
	}
	// Keep a hard link to each original replaced by a rename beside it,
	// so a rename that fails half-way can put back the files already
	// replaced (a file that cannot be linked, such as an immutable one,
	// is refused here, before any change).
	backups := make([]string, len(st))
	dropBackups := func() {
		for _, b := range backups {
			if b != "" {
				os.Remove(b)
			}
		}
	}
	for i, s := range st {
		if s.inPlace {
			continue
		}
		b := s.tmp + ".orig"
		if err := os.Link(s.target, b); err != nil {
			cleanup()
			dropBackups()
			return fmt.Errorf("%s: %w", files[i].Path, err)
		}
		backups[i] = b
	}
	for i, s := range st {
		var err error
		if s.inPlace {
			err = writeOver(s.target, files[i].Data)
			os.Remove(s.tmp)
		} else {
			err = os.Rename(s.tmp, s.target)
		}
		if err != nil {
			for _, rest := range st[i:] {
				os.Remove(rest.tmp)
			}
			for j := i - 1; j >= 0; j-- {
				if st[j].inPlace {
					_ = writeOver(st[j].target, st[j].orig)
				} else if rerr := os.Rename(backups[j], st[j].target); rerr == nil {
					backups[j] = ""
				}
			}
			if s.inPlace {
				_ = writeOver(s.target, s.orig)
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

// writeOver writes data over the file at path (same inode: its links and
// owner stay) and syncs it.
func writeOver(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	return errors.Join(werr, serr, f.Close())
}

// removeStale removes the temporary files (and their .orig links) a killed
// run left beside target, once older than staleAge.
func removeStale(target string) {
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".uds-migrate-*"))
	for _, m := range matches {
		if fi, err := os.Lstat(m); err == nil && fi.Mode().IsRegular() && time.Since(fi.ModTime()) > staleAge {
			os.Remove(m)
		}
	}
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
// owner of fi (target's), and syncs it. kept reports whether the file got
// target's owner and group.
func stage(target string, fi os.FileInfo, data []byte) (string, bool, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".uds-migrate-*")
	if err != nil {
		return "", false, err
	}
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err := f.Write(data); err != nil {
		return "", false, err
	}
	kept := chown(f, fi)
	// After chown, which clears setuid and setgid.
	if err := f.Chmod(fi.Mode() & (os.ModePerm | os.ModeSetuid | os.ModeSetgid | os.ModeSticky)); err != nil {
		return "", false, err
	}
	if err := f.Sync(); err != nil {
		return "", false, err
	}
	if err := f.Close(); err != nil {
		return "", false, err
	}
	ok = true
	return f.Name(), kept, nil
}
