package rewrite

import (
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/pgserver"
)

// socketTarget returns whether a mount at target is where a socket volume
// goes: the socket directory of a PostgreSQL image, or the clients' mount
// path mountPath (or below it).
func socketTarget(mountPath string) func(image, target string) bool {
	mp := path.Clean(mountPath)
	return func(image, target string) bool {
		target = path.Clean(target)
		if fam, ok := pgserver.FamilyOf(image); ok && target == path.Clean(fam.SocketDir) {
			return true
		}
		return target == mp || strings.HasPrefix(target, mp+"/")
	}
}
