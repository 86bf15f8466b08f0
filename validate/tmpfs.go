package validate

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// checkTmpfsOverSocket reports (UDS220) a database whose socket volume at
// dir shares its directory with a tmpfs of the same container (tmpfs: or a
// volumes: entry of type tmpfs), written the same way or through the
// /var/run link: one of them hides the other.
func (v *validator) checkTmpfsOverSocket(db *analyze.DB, sock string) {
	for _, t := range v.p.Model.Services[db.Name].Tmpfs {
		d, _, _ := strings.Cut(t, ":")
		if pgserver.Dir(d) != pgserver.Dir(sock) {
			continue
		}
		src, node := v.p.ServiceNode(db.Name)
		kn, _ := yamledit.OwnKey(node, "tmpfs")
		if kn == nil {
			kn, _ = yamledit.OwnKey(compose.ServicesMapping(src), db.Name)
		}
		v.findings.Add("UDS220", yamledit.NodePos(src, kn), db.Name, "tmpfs", tmpfsOverSocketMsg(db.Name, path.Clean(d), sock))
	}
	for _, m := range v.p.ServiceMounts(db.Name) {
		if m.Source == "" && m.Target != path.Clean(sock) && pgserver.Dir(m.Target) == pgserver.Dir(sock) {
			v.findings.Add("UDS220", yamledit.NodePos(m.Src, yamledit.Deref(m.Node)), db.Name, "volumes", tmpfsOverSocketMsg(db.Name, m.Target, sock))
		}
	}
}

// tmpfsOverSocketMsg says which of the two mounts on one directory wins:
// docker mounts the path with more components last.
func tmpfsOverSocketMsg(service, tmpfs, sock string) string {
	same := "is"
	if tmpfs != path.Clean(sock) {
		same = fmt.Sprintf("and %s are", tmpfs)
	}
	effect := "docker refuses both on one path (\"Duplicate mount point\")"
	switch dt, ds := strings.Count(tmpfs, "/"), strings.Count(path.Clean(sock), "/"); {
	case dt > ds:
		effect = "docker mounts the tmpfs last, over the socket volume: clients see an empty directory"
	case dt < ds:
		effect = "docker mounts the socket volume last, over the tmpfs, which does nothing"
	}
	return fmt.Sprintf("%s has a tmpfs on its socket directory: %s %s one directory in the server's image (/var/run is a symbolic link to /run), and %s; drop the tmpfs", service, sock, same, effect)
}
