package rewrite

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// collectEdges walks the environment of every client service and returns
// the values that reach one of dbs over TCP. Values already in socket form
// are left alone (a second run is a no-op); a single-$ $FactoryArg is
// repaired wherever it appears.
func (pl *planner) collectEdges(dbs []*dbService) []*edge {
	var out []*edge
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.name] = true
	}
	for _, name := range pl.p.serviceOrder() {
		if isDB[name] || (len(pl.opts.Only) > 0 && !contains(pl.opts.Only, name)) || contains(pl.opts.Exclude, name) {
			continue
		}
		if poolerOf(pl.p.model.Services[name].Image) {
			out = append(out, pl.poolerHop(name, dbs)...)
			continue
		}
		pl.warnCommand(name, dbs)
		for _, v := range pl.p.serviceEnv(name) {
			if _, bad := pl.p.badConn[v.pos.String()]; bad {
				continue
			}
			find := func(host string) *dbService { return pl.dbAt(dbs, v, host) }
			if fixed := fixFactoryArg(v.raw); fixed != v.raw {
				m, err := interp.Mask(fixed)
				if err == nil && pl.setValue(v, m, m.Value) {
					pl.changes = append(pl.changes, Change{Kind: "repair", Pos: v.pos,
						Service: name, Key: v.key, Dialect: DialectJDBC, Before: redact(DialectJDBC, v.raw), After: redact(DialectJDBC, fixed),
						Reason: "write $$FactoryArg so compose does not interpolate it away"})
					pl.findings.add("UDS105", v.pos, name, v.key,
						"$FactoryArg was written with one $: compose interpolates it to an empty string and pgjdbc fails with NoSuchMethodException; written $$FactoryArg")
				}
				continue
			}
			if pl.catalogueKeeps(v, find) || pl.warnUnsetPassthrough(v, dbs) {
				continue
			}
			hosts, dialect, socket := classify(v.value)
			if socket {
				pl.warnForeignSocket(v, dialect, dbs)
				continue
			}
			if dialect == "" {
				if e := pl.splitVar(v, find); e != nil {
					out = append(out, e)
				} else if db := unknownURL(v.value, find); db != nil {
					pl.findings.add("UDS122", v.pos, name, v.key,
						fmt.Sprintf("%s/%s looks like a connection URL for %s in a form the tool does not know; left unchanged: point it at %s's socket in %s by hand if its driver supports Unix sockets", name, v.key, db.name, db.name, pl.opts.MountPath))
				}
				continue
			}
			var hit *dbService
			for _, h := range hosts {
				if db := find(h); db != nil {
					hit = db
				}
				if pooler := pl.poolerFor(name, h); pooler != "" {
					pl.findings.add("UDS121", v.pos, name, v.key,
						fmt.Sprintf("%s/%s reaches the pooler %s, not PostgreSQL: left on TCP; to move that hop to a socket, name the pooler with --db %s --socket-dir DIR (its unix_socket_dir)", name, v.key, pooler, pooler))
				}
			}
			if hit == nil {
				pl.warnNotDB(v, hosts)
				continue
			}
			if hit.noSocket {
				pl.findings.add("UDS161", v.pos, name, v.key,
					fmt.Sprintf("%s/%s reaches %s, whose command sets unix_socket_directories empty: that server creates no Unix socket, so the value is left on TCP; give %s a socket directory to migrate it", name, v.key, hit.name, hit.name))
				continue
			}
			if len(hosts) > 1 {
				pl.findings.add("UDS110", v.pos, name, v.key,
					fmt.Sprintf("%s/%s lists several hosts for failover; a Unix socket reaches one server on this host and cannot fail over, so the value is left on TCP", name, v.key))
				continue
			}
			if dialect == DialectJDBC {
				if u, err := jdbc.Parse(v.value); err == nil {
					if f, ok := u.Param("socketFactory"); ok {
						pl.findings.add("UDS129", v.pos, name, v.key,
							fmt.Sprintf("%s/%s had socketFactory=%s, which the junixsocket factory replaces; if the application relied on it (a proxy or TLS factory), keep it on TCP with --exclude %s", name, v.key, f, name))
					}
				}
			}
			e := &edge{v: v, dialect: dialect, db: hit, basis: grammarBasis(dialect)}
			if dialect == DialectURI {
				form, basis, ok := pl.uriConsumer(v, hit)
				if !ok {
					continue
				}
				e.form, e.basis = form, basis
			}
			e.port = pl.edgePort(v, dialect, hit)
			out = append(out, e)
		}
	}
	return out
}

// edgePort returns the port whose socket file value v reaches on db, and
// warns (UDS128) when the value names another port than the server's. A
// port the compose file does not confirm (an image the tool does not know,
// such as pgbouncer, whose socket is .s.PGSQL.<listen_port>) is the
// client's: it is the one that worked over TCP.
func (pl *planner) edgePort(v envVar, dialect string, db *dbService) int {
	p := urlPort(v.value, dialect)
	if p == 0 || p == db.port {
		return db.port
	}
	if !db.portSet {
		pl.findings.add("UDS128", v.pos, v.service, v.key,
			fmt.Sprintf("%s/%s names port %d, and the compose file does not show the port %s listens on (its image is not one the tool knows): the socket form keeps port %d (socket file .s.PGSQL.%d), the port that worked over TCP; check that %s's socket is named after it", v.service, v.key, p, db.name, p, p, db.name))
		return p
	}
	pl.findings.add("UDS128", v.pos, v.service, v.key,
		fmt.Sprintf("%s/%s names port %d, but %s listens on %d as far as the compose file says (command, PGPORT): the socket file is named .s.PGSQL.%d; if the server is configured elsewhere (a mounted postgresql.conf, config_file), rerun with the right setup", v.service, v.key, p, db.name, db.port, db.port))
	return db.port
}

// rewriteEdge rewrites one value to reach the database's socket through the
// client's mount directory mp. Interpolation references in the value are
// kept as written; literal $ is written $$.
func (pl *planner) rewriteEdge(e *edge, mp string) {
	if e.cfg != nil {
		pl.rewriteConfigEdge(e, mp)
		return
	}
	if e.unset != nil {
		pl.setUnsetVar(e, mp)
		return
	}
	v := e.v
	m, enclose, err := pl.maskValue(v)
	if err != nil {
		pl.findings.add("UDS111", v.pos, v.service, v.key, err.Error())
		return
	}
	out, notes, err := toSocket(e.dialect, m.Value, mp, e.port)
	if err == nil && e.form == consumer.Localhost {
		out, err = libpq.WithAuthorityHost(out, "localhost")
	}
	sysprop := ""
	if err == nil && e.dialect == DialectJDBC {
		style := pl.opts.JDBCFactory
		file := mp + "/.s.PGSQL." + strconv.Itoa(e.port)
		if style == JDBCFactorySysprop {
			// One JVM property per process: a second socket file in the
			// same service keeps the $FactoryArg form.
			if prev, ok := pl.clients.sysprop[v.service]; ok && prev != file {
				pl.findings.add("UDS130", v.pos, v.service, v.key,
					fmt.Sprintf("%s already reaches %s through the JVM property; %s keeps the $FactoryArg form for %s", v.service, prev, v.key, file))
				style = JDBCFactoryArg
			} else {
				sysprop = file
			}
		}
		out, err = jdbcStyle(out, style)
	}
	if err != nil {
		code := "UDS111"
		if errors.Is(err, jdbc.ErrMultiHost) || errors.Is(err, libpq.ErrMultiHost) {
			code = "UDS110"
		}
		msg := fmt.Sprintf("%s/%s cannot be rewritten as written (%v); set it to the socket form by hand", v.service, v.key, redactErr(err))
		if want, _, err2 := toSocket(e.dialect, v.value, mp, e.port); err2 == nil && code == "UDS111" {
			// The text is made of references set outside the project files
			// (the shell environment): say what the variable must hold.
			msg = fmt.Sprintf("%s/%s is %s, set outside the project files; set it to %s", v.service, v.key, redact(e.dialect, v.raw), redact(e.dialect, want))
		}
		pl.findings.add(code, v.pos, v.service, v.key, msg)
		return
	}
	if pl.clients.keepPGSSLMode[v.service] && e.cfg == nil {
		out, _ = withSSLDisable(e.dialect, out)
		if e.dialect == DialectPGHOST {
			pl.clients.pghostOnSocket[v.service] = true
		}
	}
	if enclose != nil {
		m, out = enclose(m, out)
	}
	newRaw := m.Unmask(out)
	if newRaw == v.raw {
		return
	}
	if !pl.setValue(v, m, out) {
		return
	}
	pl.clients.migratedPos[v.pos.String()] = true
	pl.warnDroppedRefs(v, m, out, e.db.name)
	pl.warnDefault(v)
	switch e.dialect {
	case DialectURI, DialectDSN, DialectPGHOST:
		pl.clients.sslClients[v.service] = true
	}
	if sysprop != "" && pl.clients.sysprop[v.service] == "" {
		pl.clients.sysprop[v.service] = sysprop
		pl.setJavaOpt(v, "-D"+sockdefaultProp+"="+sysprop)
	}
	for _, n := range notes {
		pl.findings.add(n.Code, v.pos, v.service, v.key, v.service+"/"+v.key+": "+n.Message)
	}
	if e.dialect == DialectURI && mentionsRails(pl.p.model.Services[v.service]) {
		pl.findings.add("UDS123", v.pos, v.service, v.key,
			fmt.Sprintf("%s looks like a Rails app: Rails 7.0 and later read ?host= from DATABASE_URL; before 7.0 it is ignored and the app stays on TCP, so write the host percent-encoded instead (postgres://USER:PASSWORD@%s/DB)", v.service, strings.ReplaceAll(mp, "/", "%2F")))
	}
	if e.dialect == DialectJDBC && !pl.clients.javaWarn[v.service] {
		pl.clients.javaWarn[v.service] = true
		pl.findings.add("UDS101", v.pos, v.service, v.key,
			v.service+" connects with pgjdbc through junixsocket: the application needs com.kohlschutter.junixsocket:junixsocket-core:2.10.1 (type pom) on its classpath, and a java.io.tmpdir where native code may be unpacked and executed")
	}
	pl.changes = append(pl.changes, Change{Kind: "value", Pos: v.pos,
		Service: v.service, Key: v.key, Dialect: e.dialect, Before: pl.redactValue(e.dialect, v.raw), After: pl.redactValue(e.dialect, newRaw),
		Reason: edgeReason(e, mp), Basis: e.basis})
	pl.noteEvidence(e, mp)
}

type note struct{ Code, Message string }

// edgeReason says why a value changed, and on whose knowledge when a
// host variable was migrated (plan's text form shows it).
func edgeReason(e *edge, mp string) string {
	r := fmt.Sprintf("reach %s through its socket in %s", e.db.name, mp)
	if e.basis != nil && e.basis.Kind != BasisEvidence { // evidence: UDS170 and the plan's evidence say it
		r += " (" + e.basis.Citation() + ")"
	}
	return r
}

// redactErr keeps parser errors from echoing a password back.
func redactErr(err error) string {
	return libpq.Redact(jdbc.Redact(err.Error()))
}

// unknownURL returns the database a URL-shaped value names when no dialect
// rewriter knows its scheme (celery's db+postgresql://, a vendor scheme).
func unknownURL(val string, find func(host string) *dbService) *dbService {
	i := strings.Index(val, "://")
	if i <= 0 || strings.ContainsAny(val[:i], " /") {
		return nil
	}
	rest := val[i+3:]
	if j := strings.IndexAny(rest, "/?#"); j >= 0 {
		rest = rest[:j]
	}
	if j := strings.LastIndex(rest, "@"); j >= 0 {
		rest = rest[j+1:]
	}
	for _, hp := range strings.Split(rest, ",") {
		host := hp
		if h, _, err := net.SplitHostPort(hp); err == nil {
			host = h
		}
		if db := find(host); db != nil {
			return db
		}
	}
	return nil
}

// mentionsRails guesses a Rails app from its image or command.
func mentionsRails(svc types.ServiceConfig) bool {
	text := strings.ToLower(svc.Image + " " + strings.Join(svc.Command, " ") + " " + strings.Join(svc.Entrypoint, " "))
	if strings.Contains(text, "rails") {
		return true
	}
	for _, k := range []string{"RAILS_ENV", "RAILS_MASTER_KEY", "RAILS_LOG_TO_STDOUT"} {
		if _, ok := svc.Environment[k]; ok {
			return true
		}
	}
	return false
}

// warnCommand reports connection strings written into command: or
// entrypoint: (often inside a shell script): the tool cannot edit them
// safely, so it says where they are and what to write.
func (pl *planner) warnCommand(service string, dbs []*dbService) {
	svc := pl.p.model.Services[service]
	find := func(host string) *dbService {
		db, _, _ := pl.p.dbFor(dbs, service, host)
		return db
	}
	src, node := pl.p.serviceNode(service)
	for _, key := range []string{"command", "entrypoint"} {
		args := svc.Command
		if key == "entrypoint" {
			args = svc.Entrypoint
		}
		for _, a := range args {
			words := strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == '"' || r == '\'' || r == '\n' })
			dsns := commandDSNs(words)
			for i, w := range append(dsns, words...) {
				if k, v, ok := strings.Cut(w, "="); ok && i >= len(dsns) && (strings.HasPrefix(k, "-") || envNameRE.MatchString(k)) {
					w = v // --db=postgres://..., DATABASE_URL=postgres://... ./run
				}
				hosts, dialect, socket := classify(w)
				if socket {
					continue
				}
				if dialect == "" {
					db := unknownURL(w, find)
					if db == nil {
						continue
					}
					hosts = []string{db.name}
				}
				for _, h := range hosts {
					if db := find(h); db != nil {
						kn, _ := yamledit.OwnKey(node, key)
						pl.findings.add("UDS127", yamledit.NodePos(src, kn), service, key,
							fmt.Sprintf("%s's %s holds a connection to %s (%s); the tool does not edit commands: point it at the socket in %s by hand, or move it to environment:", service, key, db.name, redact(dialect, w), pl.opts.MountPath))
						return
					}
				}
			}
		}
	}
}

// envNameRE matches a shell variable assignment's name (NAME=value).
var envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// setJavaOpt adds a JVM option to the service's JAVA_TOOL_OPTIONS (the JVM
// reads it at start), creating the variable next to v when absent.
func (pl *planner) setJavaOpt(v envVar, opt string) {
	for _, o := range pl.p.serviceEnv(v.service) {
		if o.key != "JAVA_TOOL_OPTIONS" {
			continue
		}
		if strings.Contains(o.value, opt) {
			return
		}
		m, err := interp.Mask(o.raw)
		if err == nil && pl.setValue(o, m, strings.TrimSpace(m.Value+" "+opt)) {
			return
		}
		pl.findings.add("UDS111", o.pos, v.service, "JAVA_TOOL_OPTIONS", "add "+opt+" to JAVA_TOOL_OPTIONS by hand")
		return
	}
	pl.addEnvAfter(v, "JAVA_TOOL_OPTIONS", opt, "junixsocket's $SystemProperty factory reads the socket path from this JVM property")
}

// warnDroppedRefs warns (UDS136) about each ${VAR} of the value that the
// socket form no longer holds (it stood for the host or the port): a
// deployment that sets VAR elsewhere (--env-file prod.env, the shell) no
// longer changes where the client connects.
func (pl *planner) warnDroppedRefs(v envVar, m interp.Masked, out, db string) {
	for _, r := range m.Value {
		ref, ok := m.Ref(r)
		if !ok || ref == "$" || strings.ContainsRune(out, r) || !hostOrPortAt(m.Value, r) {
			continue
		}
		name := ref
		if sub := refNameRE.FindStringSubmatch(ref); sub != nil {
			name = sub[1]
		}
		pl.findings.add("UDS164", v.pos, v.service, v.key,
			fmt.Sprintf("%s/%s: %s stood for the host or port and is gone from the socket form, which always reaches %s's socket: setting %s elsewhere (--env-file prod.env, the shell) no longer changes where %s connects", v.service, v.key, ref, db, name, v.service))
	}
}

// warnNotDB warns (UDS137) when a connection value names a service of the
// project that is neither a recognised PostgreSQL server nor a pooler: a
// custom image or wrapper the tool cannot tell is a server.
func (pl *planner) warnNotDB(v envVar, hosts []string) {
	for _, h := range hosts {
		svc, ok := pl.p.model.Services[strings.ToLower(h)]
		if !ok || poolerOf(svc.Image) || svc.Name == v.service || slices.ContainsFunc(pl.dbs, func(d *dbService) bool { return d.name == svc.Name }) {
			continue // a database left on TCP for another reason says why itself
		}
		if no, fam := pl.p.serverNo(svc); no != "" {
			pl.findings.add("UDS165", v.pos, v.service, v.key,
				fmt.Sprintf("%s/%s connects to %s, a PostgreSQL server (%s, catalogue family %s) whose socket the tool does not set up: %s; left on TCP; to migrate it anyway, rerun with --db %s --socket-dir %s=DIR", v.service, v.key, svc.Name, pl.p.imageText(svc), fam, no, svc.Name, svc.Name))
			return
		}
		pl.findings.add("UDS165", v.pos, v.service, v.key,
			fmt.Sprintf("%s/%s connects to %s, which the tool does not recognise as a PostgreSQL server (%s): left on TCP; if it is one, rerun with --db %s", v.service, v.key, svc.Name, pl.p.imageText(svc), svc.Name))
		return
	}
}

// hostOrPortAt reports whether placeholder r of masked value v stands
// where a host or port is written: after "//", "@", "," or ":" in a URL, or
// as the value of host/port (Host/Server/Port in Npgsql) in a keyword
// string.
func hostOrPortAt(v string, r rune) bool {
	i := strings.IndexRune(v, r)
	if i < 0 {
		return false
	}
	before := strings.ToLower(v[:i])
	if q := strings.IndexByte(before, '?'); q >= 0 && strings.Contains(before[:q], "://") {
		return false // a URL query parameter
	}
	for _, suffix := range []string{"//", "@", ":", ",", "host=", "port=", "server=", "hostaddr="} {
		if strings.HasSuffix(before, suffix) {
			return true
		}
	}
	return false
}
