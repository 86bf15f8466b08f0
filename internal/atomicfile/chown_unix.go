//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// chown gives f the original's owner and group and reports whether it has
// them now: a non-root user may give only its own uid and its groups.
func chown(f *os.File, fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	_ = f.Chown(int(st.Uid), int(st.Gid))
	now, err := f.Stat()
	if err != nil {
		return false
	}
	got, ok := now.Sys().(*syscall.Stat_t)
	return ok && got.Uid == st.Uid && got.Gid == st.Gid
}

// links is the number of hard links of the file fi describes.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
