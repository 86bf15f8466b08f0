package rewrite

import (
	"fmt"
	"path"
	"strings"
)

// socketVolumeName returns the default socket volume name for db:
// "<db>-socket", or "<db>-socket-N" (the smallest N ≥ 2) when the project
// already has a volume of that name for something else. Reusing such a
// volume (a PGDATA volume, say) would mount the database's files into every
// client read-only, and the entrypoint would chmod them. renamed reports a
// fresh name was picked.
func (pl *planner) socketVolumeName(base string) (name string, renamed bool) {
	taken := pl.volumesInUse()
	name = base
	for n := 2; taken[name]; n++ {
		name, renamed = fmt.Sprintf("%s-%d", base, n), true
	}
	pl.compose.reserved[name] = true
	return name, renamed
}

// volumesInUse is every volume name the project declares (top-level
// volumes: of every file, included and override files too, as compose-go
// merges them) or mounts, except volumes mounted only where a socket
// volume goes (a database image's socket directory, a client's
// --mount-path): those are a socket volume already, and reusing them keeps
// a second run a no-op.
func (pl *planner) volumesInUse() map[string]bool {
	taken := map[string]bool{}
	for name := range pl.compose.reserved {
		taken[name] = true
	}
	for name := range pl.p.Model.Volumes {
		taken[name] = true
	}
	socketOnly := map[string]bool{}
	for _, svc := range pl.p.Model.Services {
		for _, v := range svc.Volumes {
			if v.Type != "volume" || v.Source == "" {
				continue
			}
			if _, seen := socketOnly[v.Source]; !seen {
				socketOnly[v.Source] = true
			}
			if !pl.socketTarget(svc.Image, v.Target) {
				socketOnly[v.Source] = false
			}
			taken[v.Source] = true
		}
	}
	for name, only := range socketOnly {
		if only && !pl.compose.reserved[name] {
			delete(taken, name)
		}
	}
	return taken
}

// socketTarget reports whether a mount at target is where a socket volume
// goes: the socket directory of a PostgreSQL image, or the clients' mount
// path.
func (pl *planner) socketTarget(image, target string) bool {
	target = path.Clean(target)
	if fam, ok := familyOf(image); ok && target == path.Clean(fam.SocketDir) {
		return true
	}
	mp := path.Clean(pl.opts.MountPath)
	return target == mp || strings.HasPrefix(target, mp+"/")
}
