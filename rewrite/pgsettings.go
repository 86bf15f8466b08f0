package rewrite

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/yamledit"
	"gopkg.in/yaml.v3"

	"github.com/uds-migrate/uds-migrate/catalog"
)

// commandSettings reads the server settings a postgres command line sets,
// the way postgres parses it (src/backend/postmaster/postmaster.c getopt
// loop and guc.c ParseLongOption): `-c name=value`, `-cname=value`,
// `--name=value`, and the short options `-p PORT` and `-k DIR` (also
// glued: `-p5433`). Names are case-insensitive and `-` stands for `_`
// (ParseLongOption), so `--unix-socket-directories=/s` and
// `-c UNIX_SOCKET_DIRECTORIES=/s` both set unix_socket_directories. The
// last setting of a name wins. Keys are normalised names (settingName);
// values lose one level of surrounding quotes a shell would strip.
// Checked with `postgres -C` (PostgreSQL 15; see TestCommandSettingsPostgres).
func commandSettings(words []string) map[string]string {
	out := map[string]string{}
	set := func(nv string) {
		if k, v, ok := strings.Cut(unquoteWord(nv), "="); ok {
			out[settingName(k)] = unquoteWord(v)
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "-c" || w == "--set":
			set(next)
			i++
		case strings.HasPrefix(w, "--"):
			set(w[2:])
		case w == "-p" || w == "-k":
			out[shortOptions[w[1]]] = unquoteWord(next)
			i++
		case strings.HasPrefix(w, "-c"):
			set(w[2:])
		case len(w) > 2 && (w[1] == 'p' || w[1] == 'k') && w[0] == '-':
			out[shortOptions[w[1]]] = unquoteWord(w[2:])
		}
	}
	return out
}

// shortOptions are the postgres short options that set a setting this
// tool reads (postgres --help: -p PORT, -k DIRECTORY).
var shortOptions = map[byte]string{'p': "port", 'k': "unix_socket_directories"}

// settingName normalises a setting name as postgres looks it up:
// case-insensitive, `-` read as `_`.
func settingName(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}

func unquoteWord(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `'"`))
}

// socketDirList splits a unix_socket_directories value into its absolute
// directories, in order: postgres splits at commas, trims blanks and
// double quotes around each element (SplitDirectoriesString), and creates
// a socket in each. Relative and empty elements are left out.
func socketDirList(v string) []string {
	var dirs []string
	for _, d := range strings.Split(v, ",") {
		d = strings.Trim(strings.TrimSpace(d), `"`)
		if strings.HasPrefix(d, "/") {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// listensIn reports whether the server creates its socket in dir: the
// directory it shares, or any other of its unix_socket_directories.
func (db *dbService) listensIn(dir string) bool {
	if dir == path.Clean(db.socketDir) {
		return true
	}
	for _, d := range db.socketDirs {
		if dir == path.Clean(d) {
			return true
		}
	}
	return false
}

// initSocketProblem returns a finding message when an official-family
// server's unix_socket_directories leaves out /var/run/postgresql: the
// image's first start runs psql without a host (docker-entrypoint.sh,
// docker_process_sql), which looks there only, so initialising a new data
// directory fails (docker-library/postgres#935). "" when all is well.
func initSocketProblem(db *dbService) string {
	if db.family != catalog.EntrypointOfficial || db.server == nil || db.socketDirs == nil {
		return ""
	}
	// The init's psql uses the built-in default, the catalogue's socket_dir
	// (/var/run/postgresql in the official image, /tmp in a plain source
	// build such as cimg/postgres).
	def := db.server.Server.SocketDir
	for _, d := range db.socketDirs {
		if path.Clean(d) == def {
			return ""
		}
	}
	list := strings.Join(db.socketDirs, ",")
	return fmt.Sprintf("%s sets unix_socket_directories to %s, so its socket is in %s (the socket volume is mounted there); but the image's first-start init runs psql over %s only, so initialising a new data directory fails (docker-library/postgres#935): list %s first (unix_socket_directories=%s,%s)",
		db.name, list, db.socketDir, def, def, def, list)
}

// settingsNode returns the key a finding about the server's settings points
// at: the service's command:, else entrypoint:, else its name.
func (p *project) settingsNode(service string) (*Source, *yaml.Node) {
	src, node := p.serviceNode(service)
	for _, k := range []string{"command", "entrypoint"} {
		if kn, _ := yamledit.MapGet(node, k); kn != nil {
			return src, kn
		}
	}
	_, svcs := yamledit.OwnKey(src.Root, "services")
	kn, _ := yamledit.OwnKey(yamledit.Deref(svcs), service)
	return src, kn
}
