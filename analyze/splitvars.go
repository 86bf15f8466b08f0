package analyze

import (
	"fmt"
	"net"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// splitVar handles a connection split into variables. PGHOST naming a
// database becomes an edge (libpq accepts the socket directory there);
// application-specific host variables get a warning with the manual step,
// since only the application knows whether it accepts a directory.
func (cl *collector) splitVar(v compose.EnvVar, find func(host string) *DB) *Edge {
	if cl.cmdVars[v.Service+"/"+v.Key] {
		// A command builds a URL from it: UDS127 says how to write it. A
		// directory there gives @/DIR:PORT, so the user's word does not
		// apply either.
		if who := v.Service + "/" + v.Key; slices.Contains(cl.opts.HostVars, who) {
			cl.note("UDS120", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s: --host-var %s vouches that a driver takes a socket directory there, but %s's own command pastes it into a URL as HOST:PORT (UDS127 names it), where a directory gives @%s:PORT, which no driver reads: left unchanged, flag or not; write that URL in socket form by hand", who, who, v.Service, cl.opts.MountPath))
		}
		return nil
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
		if s := (decisions{cl}).query(v, db).TCPUse(); s != nil {
			(decisions{cl}).stay(v, s)
			return nil
		}
		pg := dialect.HostVar("PGHOST")
		e := &Edge{Var: v, Dialect: pg.Name, DB: db, Port: db.Port, Basis: dialect.ReaderOf(pg.Name)}
		if _, ok := atoiPort(cl.p.clientEnv(v.Service, "PGPORT")); !ok && db.Port != 5432 {
			e.Adds = append(e.Adds, portAdd("PGPORT", db))
		}
		if cl.p.clientEnv(v.Service, "PGHOSTADDR") != "" {
			cl.note("UDS120", v.Pos, v.Service, v.Key, "PGHOSTADDR forces TCP whatever PGHOST says: remove it from "+v.Service)
		}
		return e
	}
	if e, known := (decisions{cl}).knownHostVar(v, db, port); known {
		return e
	}
	what := "names " + db.Name + " for the application to build its own connection"
	if !hostvar.IsHostKey(v.Key) {
		if notHostKey(cl.p, v) {
			return nil
		}
		// Any name can hold the host (DBHOST, PGHOST_X): a value that is
		// the database's service name is reported, not passed over.
		what = "is " + db.Name + ", the name of a PostgreSQL service, so it may be the host the application connects to"
	}
	extra := ""
	if port != "" {
		extra = fmt.Sprintf(" It holds host and port together (%s): an application that pastes it into a URL must not end up with @/var/run/postgresql:%s/.", dialect.Redact("", val), port)
	}
	if svc, ok := cl.p.Model.Services[v.Service]; ok && commandUses(append(append([]string{}, svc.Entrypoint...), svc.Command...), v.Key) {
		// frappe_docker's configurator: bench set-config -g db_host
		// $$DB_HOST writes it into a shared volume that other services
		// read; --host-var on this service alone would mount the socket
		// where no connection is made.
		cl.note("UDS120", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s names %s and %s's own command reads $%s: when the command hands it on (writes it to a file in a volume other services mount, as bench set-config does) the programs that connect are elsewhere, and --host-var %s/%s alone would mount the socket on the wrong service; when the command itself connects (a wait loop), that program must take a socket directory too. The tool cannot tell: migrate by hand, giving every service that reads the value the socket volume and the value %s (port %d picks .s.PGSQL.%d) where each accepts a socket directory",
				v.Service, v.Key, db.Name, v.Service, v.Key, v.Service, v.Key, cl.opts.MountPath, db.Port, db.Port))
		return nil
	}
	cl.note("UDS120", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s %s; the tool cannot know whether the application accepts a socket directory. If it hands the value to libpq, pgx or psycopg as host, set it to %s (port %d picks .s.PGSQL.%d); otherwise build the connection URL in socket form yourself. No evidence in the project shows its consumer (the tool reads the code of images built here and of mounted sources: Django, SQLAlchemy/psycopg, Rails database.yml, node-postgres, pgx, lib/pq); to vouch for it yourself, rerun with --host-var %s/%s.%s",
			v.Service, v.Key, what, cl.opts.MountPath, db.Port, db.Port, v.Service, v.Key, extra))
	return nil
}

// notHostKey reports whether v, whose name is no host variable's, holds
// something other than a host by its name or by what reads it: a libpq
// setting (PGUSER, PGDATABASE), a catalogued variable of another role, or
// a name that says another role (hostvar.NamesOtherRole).
func notHostKey(p *Project, v compose.EnvVar) bool {
	if hostvar.IsLibpqSetting(v.Key) || hostvar.NamesOtherRole(v.Key) {
		return true
	}
	_, cv := hostvar.CatalogueVar(p.Project, v.Service, v.Key)
	return cv != nil && cv.Role != catalog.RoleHost
}

// clientEnv returns the effective value of a client's variable.
func (p *Project) clientEnv(service, key string) string {
	return compose.EnvLookup(p.ServiceEnv(service), key)
}

// poolerFor returns the pooler service a host name of client reaches, or
// "" (a service named in dbs, --db, is a database, not a pooler).
func poolerFor(p *Project, dbs []string, client, host string) string {
	for _, name := range p.Resolve(client, host).Services {
		if pgserver.IsPooler(p.Model.Services[name].Image) && !slices.Contains(dbs, name) {
			return name
		}
	}
	return ""
}

// portAdd is key=db's port, written beside a host variable that moves to
// the socket directory: the port names the socket file.
func portAdd(key string, db *DB) EnvAdd {
	return EnvAdd{Key: key, Value: fmt.Sprint(db.Port),
		Reason: fmt.Sprintf("%s listens on port %d and the port names the socket file (.s.PGSQL.%d)", db.Name, db.Port, db.Port)}
}

// commandUses reports whether a service's entrypoint or command (words as
// compose gives them, after interpolation: $$ is $) reads the variable key
// ($KEY or ${KEY}).
func commandUses(words []string, key string) bool {
	re := regexp.MustCompile(`\$(` + regexp.QuoteMeta(key) + `\b|\{` + regexp.QuoteMeta(key) + `[}:?+=-])`)
	for _, w := range words {
		if re.MatchString(w) {
			return true
		}
	}
	return false
}
