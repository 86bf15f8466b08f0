package rewrite

import (
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/pgserver"
)

// socketTarget reports whether a mount at target is where a socket volume
// goes: the socket directory of a PostgreSQL image, or the clients' mount
// path.
func (pl *planner) socketTarget(image, target string) bool {
	target = path.Clean(target)
	if fam, ok := pgserver.FamilyOf(image); ok && target == path.Clean(fam.SocketDir) {
		return true
	}
	mp := path.Clean(pl.opts.MountPath)
	return target == mp || strings.HasPrefix(target, mp+"/")
}
