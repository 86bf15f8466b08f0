package pgserver

import (
	"path"
	"strings"
)

// In the PostgreSQL server images (Debian and Alpine based alike) /var/run
// is a symbolic link to /run (checked on the engine here with the
// bookworm rootfs the e2e images use: ls -ld /var/run), so a tmpfs at
// /run/postgresql and a socket volume at /var/run/postgresql land on one
// directory, and docker mounts the deeper path last, over the other
// (issue #21).

// Dir is a directory of a server container as the kernel sees it:
// /var/run/X is /run/X.
func Dir(dir string) string {
	dir = path.Clean(dir)
	if dir == "/var/run" || strings.HasPrefix(dir, "/var/run/") {
		return "/run" + strings.TrimPrefix(dir, "/var/run")
	}
	return dir
}
