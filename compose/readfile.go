package compose

import (
	"fmt"
	"io"
	"os"

	"github.com/uds-migrate/uds-migrate/yamledit"
)

// MaxFileSize is the largest file read, in bytes (yamledit.MaxFileSize).
const MaxFileSize = yamledit.MaxFileSize

// Source is one compose file as read (yamledit.Source).
type Source = yamledit.Source

// ReadLimited reads at most MaxFileSize+1 bytes of path, so that neither a
// huge file nor an endless one (a FIFO, /dev/zero) is read whole; a file
// found longer fails yamledit.NewSource.
func ReadLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

// ReadRegular reads a file the project refers to (env files, nginx and app
// server configuration found through bind mounts) from the disk. It refuses
// what is not a regular file (a FIFO would block, /dev/zero never ends) and
// anything larger than MaxFileSize: a bind mount can name any host path.
func ReadRegular(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file", path, fileKind(fi.Mode()))
	}
	if fi.Size() > MaxFileSize {
		return nil, yamledit.TooLarge(path)
	}
	data, err := ReadLimited(path)
	if err == nil && len(data) > MaxFileSize {
		return nil, yamledit.TooLarge(path)
	}
	return data, err
}
