package rewrite

import (
	"fmt"
	"net"
	"regexp"

	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// appHostRE matches application-specific host variables (DB_HOST,
// DBHOST, POSTGRES_HOST, KC_DB_URL_HOST, GITEA__database__HOST ...).
var appHostRE = regexp.MustCompile(`(?i)(HOST|HOSTNAME|(^|_)(SERVER|ADDR|ADDRESS))$`)

// splitVar handles a connection split into variables. PGHOST naming a
// database becomes an edge (libpq accepts the socket directory there);
// application-specific host variables get a warning with the manual step,
// since only the application knows whether it accepts a directory.
func (cl *collector) splitVar(v compose.EnvVar, find func(host string) *dbService) *edge {
	if cl.cmdVars[v.Service+"/"+v.Key] && !contains(cl.opts.HostVars, v.Service+"/"+v.Key) {
		return nil // a command builds a URL from it: UDS127 says how to write it
	}
	val := strings.TrimSpace(v.Value)
	if val == "" || strings.HasPrefix(val, "/") || strings.ContainsAny(val, " /@?=") {
		return nil
	}
	host, port := val, ""
	if h, p, err := net.SplitHostPort(val); err == nil {
		host, port = h, p
	}
	db := find(host)
	if db == nil {
		return nil
	}
	if v.Key == "PGHOST" && port == "" {
		if _, ok := userHostVar(cl, v); !ok && (socketUses{cl}).tcpHost(v, db) {
			return nil
		}
		pg := dialect.HostVar("PGHOST")
		e := &edge{v: v, dialect: pg.Name, db: db, port: db.port, basis: dialect.ReaderOf(pg.Name)}
		if _, ok := atoiPort(cl.p.clientEnv(v.Service, "PGPORT")); !ok && db.port != 5432 {
			e.adds = append(e.adds, portAdd("PGPORT", db))
		}
		if cl.p.clientEnv(v.Service, "PGHOSTADDR") != "" {
			cl.note("UDS120", v.Pos, v.Service, v.Key, "PGHOSTADDR forces TCP whatever PGHOST says: remove it from "+v.Service)
		}
		return e
	}
	if e, known := cl.knownHostVar(v, db, port); known {
		return e
	}
	what := "names " + db.name + " for the application to build its own connection"
	if !isHostVar(v.Key) {
		if notHostKey(cl.p, v) {
			return nil
		}
		// Any name can hold the host (DBHOST, PGHOST_X): a value that is
		// the database's service name is reported, not passed over.
		what = "is " + db.name + ", the name of a PostgreSQL service, so it may be the host the application connects to"
	}
	extra := ""
	if port != "" {
		extra = fmt.Sprintf(" It holds host and port together (%s): an application that pastes it into a URL must not end up with @/var/run/postgresql:%s/.", dialect.Redact("", val), port)
	}
	cl.note("UDS120", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s %s; the tool cannot know whether the application accepts a socket directory. If it hands the value to libpq, pgx or psycopg as host, set it to %s (port %d picks .s.PGSQL.%d); otherwise build the connection URL in socket form yourself. No evidence in the project shows its consumer (the tool reads the code of images built here and of mounted sources: Django, SQLAlchemy/psycopg, Rails database.yml, node-postgres, pgx, lib/pq); to vouch for it yourself, rerun with --host-var %s/%s.%s",
			v.Service, v.Key, what, cl.opts.MountPath, db.port, db.port, v.Service, v.Key, extra))
	return nil
}

// notHostRoleRE matches variable names that say they hold something other
// than where to connect, whose value often equals a database service's
// name (a service named postgres or db): POSTGRES_USER, DB_NAME, DBNAME,
// KC_DB (Keycloak's vendor), DB_TYPE, DB_DRIVER, DB_CONNECTION (Laravel's
// driver), DB_ADAPTER, SPRING_PROFILES_ACTIVE, and settings a role or
// initdb takes (DB_OWNER, APP_DB_ROLE, POSTGRES_INITDB_ARGS).
var notHostRoleRE = regexp.MustCompile(`(?i)(USER|USERNAME|PASSWORD|PASSWD|PASS|PWD|SECRET|NAME|DB|DBNAME|DATABASE|SCHEMA|PORT|TYPE|DRIVER|ENGINE|DIALECT|VENDOR|KIND|FLAVOR|ADAPTER|PROVIDER|CONNECTION|CLIENT|BACKEND|STORE|STORAGE|PROFILE|PROFILES|PROFILES_ACTIVE|MODE|IMAGE|VERSION|SERVICE|SERVICE_NAME|ROLE|OWNER|LOGIN|ACCOUNT|ARGS|OPTS|OPTIONS|FLAGS|LOCALE|ENCODING|SCHEME|PROTOCOL|FORMAT|CATALOG|TABLESPACE)$`)

// notHostKey reports whether v, whose name is no host variable's, holds
// something other than a host by its name or by what reads it: a libpq
// setting (PGUSER, PGDATABASE), a catalogued variable of another role, or
// a name notHostRoleRE matches.
func notHostKey(p *project, v compose.EnvVar) bool {
	if libpqSetting(v.Key) || notHostRoleRE.MatchString(v.Key) {
		return true
	}
	_, cv := p.catalogueVar(v.Service, v.Key)
	return cv != nil && cv.Role != catalog.RoleHost
}

// clientEnv returns the effective value of a client's variable.
func (p *project) clientEnv(service, key string) string {
	for _, v := range p.ServiceEnv(service) {
		if v.Key == key {
			return v.Value
		}
	}
	return ""
}

// poolerFor returns the pooler service a host name of client reaches, or
// "" (a service named in dbs, --db, is a database, not a pooler).
func poolerFor(p *project, dbs []string, client, host string) string {
	for _, name := range p.Resolve(client, host).Services {
		if pgserver.IsPooler(p.Model.Services[name].Image) && !contains(dbs, name) {
			return name
		}
	}
	return ""
}

// portAdd is key=db's port, written beside a host variable that moves to
// the socket directory: the port names the socket file.
func portAdd(key string, db *dbService) envAdd {
	return envAdd{key: key, value: fmt.Sprint(db.port),
		reason: fmt.Sprintf("%s listens on port %d and the port names the socket file (.s.PGSQL.%d)", db.name, db.port, db.port)}
}

// addEnvAfter adds KEY=value right after the variable v
// (compose.Editor.AddEnvAfter) and records the change: the variables it
// adds (PGPORT, a catalogued port variable, JAVA_TOOL_OPTIONS) are read by
// the client's libpq or JVM.
func (mg *migration) addEnvAfter(v compose.EnvVar, key, value, reason string) {
	if mg.ed.AddEnvAfter(v, key, value, reason) {
		// The variables it adds are read by the client's libpq (PGPORT, a
		// port variable) or JVM: recorded in libpq's environment form.
		env := dialect.HostVar("PGHOST")
		mg.rep.Change(Change{Kind: "value", Pos: v.Pos, Service: v.Service, Key: key, Dialect: env.Name, After: value, Reason: reason, Basis: dialect.ReaderOf(env.Name)})
	}
}
