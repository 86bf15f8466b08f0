package rewrite

import (
	"bytes"
	"fmt"
	"net"
	"regexp"

	"strings"
)

// appHostRE matches application-specific host variables (DB_HOST,
// POSTGRES_HOST, KC_DB_URL_HOST, GITEA__database__HOST ...).
var appHostRE = regexp.MustCompile(`(?i)(^|_)(HOST|HOSTNAME|SERVER|ADDR|ADDRESS)$`)

// splitVar handles a connection split into variables. PGHOST naming a
// database becomes an edge (libpq accepts the socket directory there);
// application-specific host variables get a warning with the manual step,
// since only the application knows whether it accepts a directory.
func (pl *planner) splitVar(v envVar, find func(host string) *dbService) *edge {
	val := strings.TrimSpace(v.value)
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
	if v.key == "PGHOST" && port == "" {
		if _, ok := atoiPort(pl.clientEnv(v.service, "PGPORT")); !ok && db.port != 5432 {
			pl.addEnvAfter(v, "PGPORT", fmt.Sprint(db.port),
				fmt.Sprintf("%s listens on port %d and the port names the socket file (.s.PGSQL.%d)", db.name, db.port, db.port))
		}
		if pl.clientEnv(v.service, "PGHOSTADDR") != "" {
			pl.findings.add("UDS120", v.pos, v.service, v.key, "PGHOSTADDR forces TCP whatever PGHOST says: remove it from "+v.service)
		}
		return &edge{v: v, dialect: DialectPGHOST, db: db, port: db.port, basis: grammarBasis(DialectPGHOST)}
	}
	if e, known := pl.knownHostVar(v, db, port); known {
		return e
	}
	if !appHostRE.MatchString(v.key) && v.key != "PGHOST" {
		return nil
	}
	extra := ""
	if port != "" {
		extra = fmt.Sprintf(" It holds host and port together (%s): an application that pastes it into a URL must not end up with @/var/run/postgresql:%s/.", redact("", val), port)
	}
	pl.findings.add("UDS120", v.pos, v.service, v.key,
		fmt.Sprintf("%s/%s names %s for the application to build its own connection; the tool cannot know whether the application accepts a socket directory. If it hands the value to libpq, pgx or psycopg as host, set it to %s (port %d picks .s.PGSQL.%d); otherwise build the connection URL in socket form yourself. No evidence in the project shows its consumer (the tool reads the code of images built here and of mounted sources: Django, SQLAlchemy/psycopg, Rails database.yml, node-postgres, pgx, lib/pq); to vouch for it yourself, rerun with --host-var %s/%s.%s",
			v.service, v.key, db.name, pl.opts.MountPath, db.port, db.port, v.service, v.key, extra))
	return nil
}

// clientEnv returns the effective value of a client's variable.
func (pl *planner) clientEnv(service, key string) string {
	for _, v := range pl.p.serviceEnv(service) {
		if v.key == key {
			return v.value
		}
	}
	return ""
}

// poolerFor returns the pooler service a host name reaches, or "".
func (pl *planner) poolerFor(client, host string) string {
	for _, name := range pl.p.resolve(client, host).services {
		if poolerOf(pl.p.model.Services[name].Image) && !contains(pl.opts.DBs, name) {
			return name
		}
	}
	return ""
}

// addEnvAfter adds KEY=value right after the variable v, in v's own form
// (map entry, list item or env file line).
func (pl *planner) addEnvAfter(v envVar, key, value, reason string) {
	switch {
	case v.env != nil:
		end := bytes.IndexByte(v.env.data[v.env.end:], '\n')
		if end < 0 {
			pl.findings.add("UDS111", v.pos, v.service, key, "add "+key+"="+value+" by hand: "+reason)
			return
		}
		at := v.env.end + end + 1
		eol := "\n"
		if at >= 2 && v.env.data[at-2] == '\r' {
			eol = "\r\n"
		}
		pl.editFile(v.env.path, v.env.data, at, at, key+"="+value+eol)
	case v.node != nil && !v.inFlow:
		ind := strings.Repeat(" ", v.src.IndentOf(v.node.Line))
		text := ind + key + ": \"" + value + "\"\n"
		if v.prefix != "" {
			text = ind + "- " + key + "=" + value + "\n"
		}
		pl.insertAfterLine(v.src, v.node.Line, text)
	default:
		pl.findings.add("UDS111", v.pos, v.service, key, "add "+key+"="+value+" by hand: "+reason)
		return
	}
	pl.changes = append(pl.changes, Change{Kind: "value", Pos: v.pos, Service: v.service, Key: key, Dialect: DialectPGHOST, After: value, Reason: reason, Basis: grammarBasis(DialectPGHOST)})
}
