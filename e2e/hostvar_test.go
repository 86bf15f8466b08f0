package e2e

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// hostVarRE matches an application's own host variable by name
// (POSTGRES_HOST, DB_HOST, FORGEJO__database__HOST).
var hostVarRE = regexp.MustCompile(`(^|_)HOST$`)

// hostVarEdge turns an application's host variable holding a socket
// directory into an edge, probed as libpq's host= with the port, user,
// password and database of its sibling variables: that is what the
// drivers the catalogue, evidence or --host-var vouch for do with it.
// The variable is one when its name says host (X_HOST), or when its
// directory is the socket volume the service shares with a database
// (PAPERLESS_DBHOST, DB_HOSTNAME). Gitea and Forgejo write DIR:port in
// one variable (catalog/images/gitea.yaml, forgejo.yaml); the port then
// names the socket file. PGHOST is pgenvEdge's.
func hostVarEdge(key, value string, env map[string]string, shared func(dir string) bool) (edge, bool) {
	if key == "PGHOST" || !strings.HasPrefix(value, "/") {
		return edge{}, false
	}
	dir, port := value, ""
	if i := strings.LastIndexByte(value, ':'); i > 0 {
		if _, err := strconv.Atoi(value[i+1:]); err == nil {
			dir, port = value[:i], value[i+1:]
		}
	}
	if !hostVarRE.MatchString(key) && !shared(dir) {
		return edge{}, false
	}
	if port == "" {
		port = sibling(env, key, "PORT")
	}
	e := edge{dialect: "hostdir", key: key, value: key + "=" + value, dir: dir, port: 5432}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil {
			return edge{}, false
		}
		e.port = n
	}
	e.database = sibling(env, key, "_DB", "_NAME", "_DATABASE")
	return e, true
}

func TestHostVarEdge(t *testing.T) {
	shared := func(dir string) bool { return dir == "/var/run/postgresql" }
	for _, c := range []struct {
		key, value string
		env        map[string]string
		ok         bool
		dir        string
		port       int
		database   string
	}{
		{"DB_HOST", "/var/run/postgresql", map[string]string{"DB_PORT": "5433", "DB_NAME": "wiki"}, true, "/var/run/postgresql", 5433, "wiki"},
		{"GITEA__database__HOST", "/var/run/postgresql:5434", nil, true, "/var/run/postgresql", 5434, ""},
		{"DB_HOSTNAME", "/var/run/postgresql", map[string]string{"DB_DATABASE_NAME": "immich"}, true, "/var/run/postgresql", 5432, "immich"},
		{"PAPERLESS_DBHOST", "/var/run/postgresql:5432", nil, true, "/var/run/postgresql", 5432, ""},
		// Not named host, not the shared socket volume: some other path.
		{"UPLOAD_DIR", "/data/uploads", nil, false, "", 0, ""},
		// Named host: probed even where nothing is mounted, so a missing
		// mount is reported rather than skipped.
		{"DB_HOST", "/nowhere", nil, true, "/nowhere", 5432, ""},
		{"PGHOST", "/var/run/postgresql", nil, false, "", 0, ""},
		{"DB_HOST", "db", nil, false, "", 0, ""},
		{"DB_HOST", "/var/run/postgresql", map[string]string{"DB_PORT": "five"}, false, "", 0, ""},
	} {
		env := map[string]string{c.key: c.value}
		for k, v := range c.env {
			env[k] = v
		}
		e, ok := hostVarEdge(c.key, c.value, env, shared)
		if ok != c.ok || ok && (e.dir != c.dir || e.port != c.port || e.database != c.database) {
			t.Errorf("hostVarEdge(%s=%s) = %+v, %v; want dir %q port %d database %q, %v", c.key, c.value, e, ok, c.dir, c.port, c.database, c.ok)
		}
	}
}
