package analyze

import (
	"fmt"
	"net"
	"path"
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
	handsOn := cl.commandReads(v)
	if len(handsOn) > 0 && (decisions{cl}).query(v, db).UserVouches() {
		// --host-var on a service whose command writes the value into a
		// volume others read (frappe_docker's configurator): the socket
		// directory would reach them without the socket.
		cl.note("UDS120", v.Pos, v.Service, v.Key,
			fmt.Sprintf("--host-var %s/%s: %s's own command reads $%s and may write it into %s: %s connect with the value from there, while the flag would mount the socket on %s alone; the tool cannot tell which of them connect (a proxy that serves the volume's files must not get the socket: under trust authentication it is a superuser login), so %s/%s is left on TCP. Migrate by hand: set it to %s (port %d picks .s.PGSQL.%d) and mount %s's socket volume read-only on each of them that connects to %s",
				v.Service, v.Key, v.Service, v.Key, sharedText(handsOn), readersText(handsOn), v.Service, v.Service, v.Key, cl.opts.MountPath, db.Port, db.Port, db.Name, db.Name))
		return nil
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
		where := "writes it to a file in a volume other services mount, as bench set-config does"
		if len(handsOn) > 0 {
			where = fmt.Sprintf("writes it to a file in %s, as bench set-config or a redirect does: %s are the likely readers", sharedText(handsOn), readersText(handsOn))
		}
		cl.note("UDS120", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s names %s and %s's own command reads $%s: when the command hands it on (%s) the programs that connect are elsewhere, and --host-var %s/%s alone would mount the socket on the wrong service; when the command itself connects (a wait loop), that program must take a socket directory too. The tool cannot tell: migrate by hand, giving every service that reads the value the socket volume and the value %s (port %d picks .s.PGSQL.%d) where each accepts a socket directory",
				v.Service, v.Key, db.Name, v.Service, v.Key, where, v.Service, v.Key, cl.opts.MountPath, db.Port, db.Port))
		return nil
	}
	noEvidence := "No evidence in the project shows its consumer (the tool reads the code of images built here and of mounted sources: Django, SQLAlchemy/psycopg, Rails database.yml, node-postgres, knex, TypeORM, pgx, lib/pq)"
	if base := cl.scopes.OpaqueBase(v.Service); base != "" {
		noEvidence = fmt.Sprintf("The tool cannot tell which files of the project reach %s's image: its Dockerfile copies none itself, and its base image %s may copy the build context with ONBUILD instructions, which the Dockerfile does not show; if it does, check that nothing there dials %s as a TCP host (a wait with nc or wait-for-it) before you vouch for it", v.Service, base, v.Key)
	}
	cl.note("UDS120", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s %s; the tool cannot know whether the application accepts a socket directory. If it hands the value to libpq, pgx or psycopg as host, set it to %s (port %d picks .s.PGSQL.%d); otherwise build the connection URL in socket form yourself. %s; to vouch for it yourself, rerun with --host-var %s/%s.%s",
			v.Service, v.Key, what, cl.opts.MountPath, db.Port, db.Port, noEvidence, v.Service, v.Key, extra))
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

// A sharedMount is a volume (or a bind-mounted folder) a service mounts
// writable, and the other services that mount it too.
type sharedMount struct {
	Source, Target string
	Bind           bool
	Services       []string
}

// commandReads returns, when v's service's own command reads v
// ($DB_HOST in entrypoint: or command:), the volumes it mounts writable
// that other services mount too, the databases' socket volumes left out:
// where the command may hand the value on to them (frappe_docker's
// configurator: bench set-config -g db_host $$DB_HOST into the sites
// volume that backend and the workers read). A command that redirects
// into a path (> /shared/db.conf, tee) narrows it to the mount that path
// is in.
func (cl *collector) commandReads(v compose.EnvVar) []sharedMount {
	svc, ok := cl.p.Model.Services[v.Service]
	words := append(append([]string{}, svc.Entrypoint...), svc.Command...)
	if !ok || !commandUses(words, v.Key) {
		return nil
	}
	var out []sharedMount
	for _, m := range cl.p.ServiceMounts(v.Service) {
		if m.ReadOnly || m.Source == "" || slices.ContainsFunc(out, func(s sharedMount) bool { return s.Source == m.Source }) {
			continue
		}
		sh := sharedMount{Source: m.Source, Target: m.Target, Bind: m.Bind}
		for _, y := range cl.p.ServiceOrder() {
			if y == v.Service || slices.ContainsFunc(cl.dbs, func(db *DB) bool { return db.Name == y }) {
				continue
			}
			if slices.ContainsFunc(cl.p.ServiceMounts(y), func(o compose.Mount) bool { return o.Source == m.Source && o.Bind == m.Bind }) {
				sh.Services = append(sh.Services, y)
			}
		}
		if len(sh.Services) > 0 {
			out = append(out, sh)
		}
	}
	if into := redirectTargets(strings.Join(words, " ")); len(into) > 0 {
		var hit []sharedMount
		for _, sh := range out {
			if slices.ContainsFunc(into, func(p string) bool { _, in := under(p, sh.Target); return in }) {
				hit = append(hit, sh)
			}
		}
		if len(hit) > 0 {
			return hit
		}
	}
	return out
}

// redirectRE finds the absolute paths a shell command writes: > FILE,
// >> FILE, tee [-a] FILE.
var redirectRE = regexp.MustCompile(`(?:>>?|\btee(?:\s+-a)?)\s*["']?(/[^\s"';|&]+)`)

func redirectTargets(cmd string) []string {
	var out []string
	for _, m := range redirectRE.FindAllStringSubmatch(cmd, -1) {
		out = append(out, path.Clean(m[1]))
	}
	return out
}

// under reports whether p is dir or inside it.
func under(p, dir string) (string, bool) {
	dir = path.Clean(dir)
	if p == dir {
		return ".", true
	}
	rest, ok := strings.CutPrefix(p, dir+"/")
	return rest, ok
}

// sharedText names the shared mounts: "volume sites (at /home/frappe/frappe-bench/sites)".
func sharedText(ms []sharedMount) string {
	var parts []string
	for _, m := range ms {
		kind := "volume"
		if m.Bind {
			kind = "the bind-mounted folder"
		}
		parts = append(parts, fmt.Sprintf("%s %s (at %s)", kind, m.Source, m.Target))
	}
	return strings.Join(parts, " or ")
}

// readersText names the services that share the mounts: "backend and
// queue-short, which mount it too".
func readersText(ms []sharedMount) string {
	var names []string
	for _, m := range ms {
		for _, s := range m.Services {
			if !slices.Contains(names, s) {
				names = append(names, s)
			}
		}
	}
	if len(names) == 1 {
		return names[0] + ", which mounts it too,"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + ", which mount it too,"
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
