//go:build unix

package atomicfile

import (
	"os"
	"syscall"
)

// chown keeps the original owner; it may fail for a non-root user, in which
// case the new file belongs to that user, as with any editor's save.
func chown(f *os.File, fi os.FileInfo) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		_ = f.Chown(int(st.Uid), int(st.Gid))
	}
}
