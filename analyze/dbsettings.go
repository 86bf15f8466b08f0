package analyze

import (
	"fmt"
	"path"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// ListensIn reports whether the server creates its socket in dir: the
// directory it shares (shared), or any other of its
// unix_socket_directories.
func (db *DB) ListensIn(shared, dir string) bool {
	// /var/run is /run in the server images (pgserver.Dir).
	if pgserver.Dir(dir) == pgserver.Dir(shared) {
		return true
	}
	for _, d := range db.SocketDirs {
		if pgserver.Dir(dir) == pgserver.Dir(d) {
			return true
		}
	}
	return false
}

// InitSocketProblem returns a finding message when an official-family
// server's unix_socket_directories leaves out /var/run/postgresql: the
// image's first start runs psql without a host (docker-entrypoint.sh,
// docker_process_sql), which looks there only, so initialising a new data
// directory fails (docker-library/postgres#935). "" when all is well.
func InitSocketProblem(db *DB) string {
	if db.Family != catalog.EntrypointOfficial || db.Server == nil || db.SocketDirs == nil {
		return ""
	}
	// The init's psql uses the built-in default, the catalogue's socket_dir
	// (/var/run/postgresql in the official image, /tmp in a plain source
	// build such as cimg/postgres).
	def := db.Server.Server.SocketDir
	for _, d := range db.SocketDirs {
		if path.Clean(d) == def {
			return ""
		}
	}
	list := strings.Join(db.SocketDirs, ",")
	return fmt.Sprintf("%s sets unix_socket_directories to %s, so its socket is in %s (where its socket volume belongs); but the image's first-start init runs psql over %s only, so initialising a new data directory fails (docker-library/postgres#935): list %s first (unix_socket_directories=%s,%s)",
		db.Name, list, db.ConfigDir, def, def, def, list)
}

// SettingsNode returns the key a finding about the server's settings points
// at: the service's command:, else entrypoint:, else its name.
func (p *Project) SettingsNode(service string) (*compose.Source, *yaml.Node) {
	src, node := p.ServiceNode(service)
	for _, k := range []string{"command", "entrypoint"} {
		if kn, _ := yamledit.MapGet(node, k); kn != nil {
			return src, kn
		}
	}
	_, svcs := yamledit.OwnKey(src.Root, "services")
	kn, _ := yamledit.OwnKey(yamledit.Deref(svcs), service)
	return src, kn
}
