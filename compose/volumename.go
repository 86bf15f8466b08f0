package compose

import (
	"fmt"
)

// SocketVolumeName returns a socket volume name: base ("<db>-socket"), or
// "<base>-N" (the smallest N ≥ 2) when the project
// already has a volume of that name for something else. Reusing such a
// volume (a PGDATA volume, say) would mount the database's files into every
// client read-only, and the entrypoint would chmod them. socketTarget says
// where a socket volume goes (a server image's socket directory, the
// clients' mount path): a volume mounted only there is one already.
// renamed reports a fresh name was picked.
func (e *Editor) SocketVolumeName(base string, socketTarget func(image, target string) bool) (name string, renamed bool) {
	taken := e.VolumesInUse(socketTarget)
	name = base
	for n := 2; taken[name]; n++ {
		name, renamed = fmt.Sprintf("%s-%d", base, n), true
	}
	e.reserved[name] = true
	return name, renamed
}

// VolumesInUse is every volume name the project declares (top-level
// volumes: of every file, included and override files too, as compose-go
// merges them) or mounts, except volumes mounted only where a socket
// volume goes (socketTarget): those are a socket volume already, and reusing them keeps
// a second run a no-op.
func (e *Editor) VolumesInUse(socketTarget func(image, target string) bool) map[string]bool {
	taken := map[string]bool{}
	for name := range e.reserved {
		taken[name] = true
	}
	for name := range e.p.Model.Volumes {
		taken[name] = true
	}
	socketOnly := map[string]bool{}
	for _, svc := range e.p.Model.Services {
		for _, v := range svc.Volumes {
			if v.Type != "volume" || v.Source == "" {
				continue
			}
			if _, seen := socketOnly[v.Source]; !seen {
				socketOnly[v.Source] = true
			}
			if !socketTarget(svc.Image, v.Target) {
				socketOnly[v.Source] = false
			}
			taken[v.Source] = true
		}
	}
	for name, only := range socketOnly {
		if only && !e.reserved[name] {
			delete(taken, name)
		}
	}
	return taken
}
