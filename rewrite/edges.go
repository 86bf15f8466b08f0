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

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// collectEdges walks the environment of every client service and returns
// the values that reach one of dbs over TCP. Values already in socket form
// are left alone (a second run is a no-op); a single-$ $FactoryArg is
// repaired wherever it appears.
func (cl *collector) collectEdges() []*edge {
	var out []*edge
	for _, c := range cl.clients {
		name := c.name
		if c.pooler {
			out = append(out, cl.poolerHop(name)...)
			continue
		}
		cl.warnCommand(name)
		for _, v := range cl.p.ServiceEnv(name) {
			if _, bad := cl.p.badConn[v.Pos.String()]; bad {
				continue
			}
			if db, at := (connTargets{cl}).hostNetwork(name, v); db != nil {
				cl.note("UDS142", v.Pos, name, v.Key,
					fmt.Sprintf("%s/%s reaches %s through %s, the port it publishes on the host: network_mode: host puts %s on the host's network, where localhost is the host; left on TCP (a socket needs %s's socket volume mounted on %s and %s in socket form, set up by hand)", name, v.Key, db.name, at, name, db.name, name, v.Key))
				continue
			}
			if e, ignores := (inheritedVars{cl}).ignores(name, v.Key); ignores {
				if _, dname, _ := dialect.Classify(v.Value); dname != "" || appHostRE.MatchString(v.Key) {
					(inheritedVars{cl}).note(v, e)
				}
				continue
			}
			find := func(host string) *dbService { return cl.dbAt(v, host) }
			if fixed, dname, how := dialect.RepairOf(v.Raw); fixed != v.Raw {
				cl.repairs = append(cl.repairs, repair{v: v, fixed: fixed, dname: dname, how: how})
				continue
			}
			if cl.catalogueKeeps(v, find) || cl.warnUnsetPassthrough(v) {
				continue
			}
			hosts, dname, socket := dialect.Classify(v.Value)
			if socket {
				cl.warnForeignSocket(v, dname)
				continue
			}
			if dname == "" {
				if es, doc := (envDocs{cl}).edges(v); doc {
					out = append(out, es...)
					continue
				}
				if e := cl.splitVar(v, find); e != nil {
					out = append(out, e)
				} else if db := unknownURL(v.Value, find); db != nil {
					cl.note("UDS122", v.Pos, name, v.Key,
						fmt.Sprintf("%s/%s looks like a connection URL for %s in a form the tool does not know; left unchanged: point it at %s's socket in %s by hand if its driver supports Unix sockets", name, v.Key, db.name, db.name, cl.opts.MountPath))
				}
				continue
			}
			var hit *dbService
			for _, h := range hosts {
				if db := find(h); db != nil {
					hit = db
				}
				if pooler := poolerFor(cl.p, cl.opts.DBs, name, h); pooler != "" {
					hop := ""
					if up := (connTargets{cl}).poolerUpstream(pooler); len(up) > 0 {
						hop = " (its own connection to PostgreSQL is " + strings.Join(up, ", ") + ")"
					}
					cl.note("UDS121", v.Pos, name, v.Key,
						fmt.Sprintf("%s/%s reaches the pooler %s%s, not PostgreSQL: left on TCP; to move that hop to a socket, name the pooler with --db %s --socket-dir DIR (its unix_socket_dir)", name, v.Key, pooler, hop, pooler))
				}
			}
			if hit == nil {
				cl.warnNotDB(v, hosts)
				continue
			}
			if hit.noSocket {
				cl.note("UDS161", v.Pos, name, v.Key,
					fmt.Sprintf("%s/%s reaches %s, whose command sets unix_socket_directories empty: that server creates no Unix socket, so the value is left on TCP; give %s a socket directory to migrate it", name, v.Key, hit.name, hit.name))
				continue
			}
			if len(hosts) > 1 {
				cl.note("UDS110", v.Pos, name, v.Key,
					fmt.Sprintf("%s/%s lists several hosts for failover; a Unix socket reaches one server on this host and cannot fail over, so the value is left on TCP", name, v.Key))
				continue
			}
			if cl.unwritable(v, hit) {
				continue
			}
			d, _ := dialect.Lookup(dname)
			if d.Replaces != nil {
				if what, ok := d.Replaces(v.Value); ok {
					cl.note("UDS129", v.Pos, name, v.Key,
						fmt.Sprintf("%s/%s had %s, keep it on TCP with --exclude %s", name, v.Key, what, name))
				}
			}
			if (socketUses{cl}).libraryMissing(v, d, hit, v.Key) {
				continue
			}
			e := &edge{v: v, dialect: dname, db: hit, basis: dialect.ReaderOf(dname)}
			if d.ByReader {
				form, basis, ok := (uriReaders{cl}).decide(v, hit)
				if !ok {
					continue
				}
				e.form, e.basis = form, basis
			}
			e.port = cl.edgePort(v, dname, hit)
			out = append(out, e)
		}
	}
	return out
}

// unwritable reports (UDS111, naming the service and key) a value that
// reaches db but cannot be edited where it is written (compose.Writable: a
// block scalar, a value over several lines), or that holds a line break
// ("...\n" in double quotes): where a socket form would put it depends on
// whether the application trims the value, which the tool cannot see. It
// stays on TCP, and its service gets no socket mount for it: a mount
// without the edit is half a migration, a superuser's socket handed to a
// client that does not use it.
func (cl *collector) unwritable(v compose.EnvVar, db *dbService) bool {
	err := compose.Writable(v)
	if err == nil && strings.ContainsAny(v.Value, "\r\n") {
		err = errors.New("its value holds a line break")
	}
	if err == nil {
		return false
	}
	cl.note("UDS111", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s reaches %s over TCP, but %v: left on TCP, and %s gets no socket mount for it; write the value on one line (%s: VALUE) and rerun, or write it in socket form by hand and mount %s's socket volume on %s",
			v.Service, v.Key, db.name, err, v.Service, v.Key, db.name, v.Service))
	return true
}

// writableEdges drops the environment edges whose value cannot be edited
// where it is written (unwritable): a decision made for one (UDS150,
// UDS170) goes with it (resolve). Values in configuration files and
// variables the edge adds are written elsewhere and stay.
func (cl *collector) writableEdges(edges []*edge) []*edge {
	var out []*edge
	for _, e := range edges {
		if e.cfg == nil && e.unset == nil && cl.unwritable(e.v, e.db) {
			continue
		}
		out = append(out, e)
	}
	return out
}

// edgePort returns the port whose socket file value v reaches on db, and
// warns (UDS128) when the value names another port than the server's. A
// port the compose file does not confirm (an image the tool does not know,
// such as pgbouncer, whose socket is .s.PGSQL.<listen_port>) is the
// client's: it is the one that worked over TCP.
func (cl *collector) edgePort(v compose.EnvVar, dname string, db *dbService) int {
	p := dialect.URLPort(v.Value, dname)
	if p == 0 || p == db.port {
		return db.port
	}
	if !db.portSet {
		cl.note("UDS128", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s names port %d, and the compose file does not show the port %s listens on (its image is not one the tool knows): the socket form keeps port %d (socket file .s.PGSQL.%d), the port that worked over TCP; check that %s's socket is named after it", v.Service, v.Key, p, db.name, p, p, db.name))
		return p
	}
	cl.note("UDS128", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s names port %d, but %s listens on %d as far as the compose file says (command, PGPORT): the socket file is named .s.PGSQL.%d; if the server is configured elsewhere (a mounted postgresql.conf, config_file), rerun with the right setup", v.Service, v.Key, p, db.name, db.port, db.port))
	return db.port
}

// rewriteEdge rewrites one value to reach the database's socket through the
// client's mount directory mp; mount adds the client's socket mount, and
// is called once the value is written (a value left as it was gets none).
// Interpolation references in the value are kept as written; literal $ is
// written $$.
func (mg *migration) rewriteEdge(e *edge, mp string, mount func()) {
	if e.cfg != nil {
		mount()
		mg.rewriteConfigEdge(e, mp)
		return
	}
	if e.unset != nil {
		mount()
		mg.setUnsetVar(e, mp)
		return
	}
	v := e.v
	m, enclose, err := maskValue(mg.p, v)
	if err != nil {
		mg.rep.Add("UDS111", v.Pos, v.Service, v.Key, err.Error())
		return
	}
	d, _ := dialect.Lookup(e.dialect)
	out, notes, err := dialect.ToSocket(e.dialect, m.Value, mp, e.port)
	if err == nil && e.form == consumer.Localhost {
		out, err = libpq.WithAuthorityHost(out, "localhost")
	}
	sysprop := ""
	if err == nil && d.Factory != nil {
		style := mg.opts.JDBCFactory
		file := mp + "/.s.PGSQL." + strconv.Itoa(e.port)
		if style == JDBCFactorySysprop {
			// One JVM property per process: a second socket file in the
			// same service keeps the $FactoryArg form.
			if prev, ok := mg.sysprop[v.Service]; ok && prev != file {
				mg.rep.Add("UDS130", v.Pos, v.Service, v.Key,
					fmt.Sprintf("%s already reaches %s through the JVM property; %s keeps the $FactoryArg form for %s", v.Service, prev, v.Key, file))
				style = JDBCFactoryArg
			} else {
				sysprop = file
			}
		}
		out, err = d.Factory(out, style)
	}
	if err != nil {
		code := "UDS111"
		if errors.Is(err, jdbc.ErrMultiHost) || errors.Is(err, libpq.ErrMultiHost) {
			code = "UDS110"
		}
		msg := fmt.Sprintf("%s/%s cannot be rewritten as written (%v); set it to the socket form by hand", v.Service, v.Key, redactErr(err))
		if want, _, err2 := dialect.ToSocket(e.dialect, v.Value, mp, e.port); err2 == nil && code == "UDS111" {
			// The text is made of references set outside the project files
			// (the shell environment): say what the variable must hold. The
			// project's half is the mount, which the service gets.
			msg = fmt.Sprintf("%s/%s is %s, set outside the project files; set it to %s", v.Service, v.Key, dialect.Redact(e.dialect, v.Raw), dialect.Redact(e.dialect, want))
			mount()
		}
		mg.rep.Add(code, v.Pos, v.Service, v.Key, msg)
		return
	}
	if mg.top.keepPGSSLMode[v.Service] && e.cfg == nil {
		if d.SSLDisable != nil {
			out, _ = d.SSLDisable(out)
		} else if d.PGSSLMode {
			// PGHOST: no place for an sslmode of its own.
			mg.out.pghostOnSocket[v.Service] = true
		}
	}
	if enclose != nil {
		m, out = enclose(m, out)
	}
	newRaw := m.Unmask(out)
	if newRaw == v.Raw {
		mount()
		return
	}
	if !mg.ed.SetValue(v, m, out) {
		return
	}
	mount()
	mg.out.migratedPos[v.Pos.String()] = true
	mg.warnDroppedRefs(v, m, out, e.db.name)
	mg.warnDefault(v)
	if d.PGSSLMode {
		mg.out.sslClients[v.Service] = true
	}
	if sysprop != "" && mg.sysprop[v.Service] == "" {
		mg.sysprop[v.Service] = sysprop
		mg.setJavaOpt(v, "-D"+d.Property+"="+sysprop)
	}
	for _, a := range e.adds {
		mg.addEnvAfter(v, a.key, a.value, a.reason)
	}
	for _, n := range notes {
		mg.rep.Add(n.Code, v.Pos, v.Service, v.Key, v.Service+"/"+v.Key+": "+n.Message)
	}
	if d.HostInQuery && mentionsRails(mg.p.Model.Services[v.Service]) {
		mg.rep.Add("UDS123", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s looks like a Rails app: Rails 7.0 and later read ?host= from DATABASE_URL; before 7.0 it is ignored and the app stays on TCP, so write the host percent-encoded instead (postgres://USER:PASSWORD@%s/DB)", v.Service, strings.ReplaceAll(mp, "/", "%2F")))
	}
	if d.Needs != nil && !mg.javaWarn[v.Service] {
		mg.javaWarn[v.Service] = true
		mg.rep.Add("UDS101", v.Pos, v.Service, v.Key, d.Needs(v.Service, ""))
	}
	mg.rep.Change(Change{Kind: "value", Pos: v.Pos,
		Service: v.Service, Key: v.Key, Dialect: e.dialect, Before: redactValue(mg.p, e.dialect, v.Raw), After: redactValue(mg.p, e.dialect, newRaw),
		Reason: edgeReason(e, mp), Basis: e.basis})
	mg.noteEvidence(e, mp)
}

// edgeReason says why a value changed, and on whose knowledge when a
// host variable was migrated (plan's text form shows it).
func edgeReason(e *edge, mp string) string {
	r := fmt.Sprintf("reach %s through its socket in %s", e.db.name, mp)
	if len(e.hostGiven) > 0 {
		r = fmt.Sprintf("reach %s through its socket in %s for the connections that name no host (psql, pg_dump without -h): libpq reads PGHOST only then, and %s name%s a host and stay%s on TCP", e.db.name, mp,
			strings.Join(e.hostGiven, ", "), map[bool]string{true: "s", false: ""}[len(e.hostGiven) == 1], map[bool]string{true: "s", false: ""}[len(e.hostGiven) == 1])
	}
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
func (cl *collector) warnCommand(service string) {
	svc := cl.p.Model.Services[service]
	find := func(host string) *dbService {
		db, _, _ := cl.p.dbFor(cl.dbs, service, host)
		return db
	}
	src, node := cl.p.ServiceNode(service)
	reported := false // a connection string in the command: no host flag asked for
	defer func() {
		for _, key := range []string{"command", "entrypoint"} {
			args := svc.Command
			if key == "entrypoint" {
				args = svc.Entrypoint
			}
			if reported {
				return
			}
			if warned, via := (commandHosts{cl}).warn(service, key, args, find); warned {
				if via != "" {
					cl.cmdVars[service+"/"+via] = true
				}
				return
			}
		}
	}()
	for _, key := range []string{"command", "entrypoint"} {
		args := svc.Command
		if key == "entrypoint" {
			args = svc.Entrypoint
		}
		for _, a := range args {
			words := strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == '"' || r == '\'' || r == '\n' })
			dsns := dialect.CommandDSNs(words)
			for i, w := range append(dsns, words...) {
				if k, v, ok := strings.Cut(w, "="); ok && i >= len(dsns) && (strings.HasPrefix(k, "-") || envNameRE.MatchString(k)) {
					w = v // --db=postgres://..., DATABASE_URL=postgres://... ./run
				}
				hosts, dname, socket := dialect.Classify(w)
				if socket {
					continue
				}
				if dname == "" {
					db := unknownURL(w, find)
					if db == nil {
						continue
					}
					hosts = []string{db.name}
				}
				for _, h := range hosts {
					if db := find(h); db != nil {
						kn, _ := yamledit.OwnKey(node, key)
						cl.commandNote(yamledit.NodePos(src, kn), service, key,
							fmt.Sprintf("%s's %s holds a connection to %s (%s); the tool does not edit commands: point it at the socket in %s by hand, or move it to environment:", service, key, db.name, dialect.Redact(dname, w), cl.opts.MountPath))
						reported = true
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
func (mg *migration) setJavaOpt(v compose.EnvVar, opt string) {
	for _, o := range mg.p.ServiceEnv(v.Service) {
		if o.Key != "JAVA_TOOL_OPTIONS" {
			continue
		}
		if strings.Contains(o.Value, opt) {
			return
		}
		m, err := interp.Mask(o.Raw)
		if err == nil && mg.ed.SetValue(o, m, strings.TrimSpace(m.Value+" "+opt)) {
			return
		}
		mg.rep.Add("UDS111", o.Pos, v.Service, "JAVA_TOOL_OPTIONS", "add "+opt+" to JAVA_TOOL_OPTIONS by hand")
		return
	}
	mg.addEnvAfter(v, "JAVA_TOOL_OPTIONS", opt, "junixsocket's $SystemProperty factory reads the socket path from this JVM property")
}

// warnDroppedRefs warns (UDS136) about each ${VAR} of the value that the
// socket form no longer holds (it stood for the host or the port): a
// deployment that sets VAR elsewhere (--env-file prod.env, the shell) no
// longer changes where the client connects.
func (mg *migration) warnDroppedRefs(v compose.EnvVar, m interp.Masked, out, db string) {
	for _, r := range m.Value {
		ref, ok := m.Ref(r)
		if !ok || ref == "$" || strings.ContainsRune(out, r) || !hostOrPortAt(m.Value, r) {
			continue
		}
		name := ref
		if n := compose.RefName(ref); n != "" {
			name = n
		}
		mg.rep.Add("UDS164", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s: %s stood for the host or port and is gone from the socket form, which always reaches %s's socket: setting %s elsewhere (--env-file prod.env, the shell) no longer changes where %s connects", v.Service, v.Key, ref, db, name, v.Service))
	}
}

// warnNotDB warns (UDS137) when a connection value names a service of the
// project that is neither a recognised PostgreSQL server nor a pooler: a
// custom image or wrapper the tool cannot tell is a server.
func (cl *collector) warnNotDB(v compose.EnvVar, hosts []string) {
	for _, h := range hosts {
		svc, ok := cl.p.Model.Services[strings.ToLower(h)]
		if !ok || pgserver.IsPooler(svc.Image) || svc.Name == v.Service || slices.ContainsFunc(cl.dbs, func(d *dbService) bool { return d.name == svc.Name }) {
			continue // a database left on TCP for another reason says why itself
		}
		if no, fam := cl.p.serverNo(svc); no != "" {
			cl.note("UDS165", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s connects to %s, a PostgreSQL server (%s, catalogue family %s) whose socket the tool does not set up: %s; left on TCP; to migrate it anyway, rerun with --db %s --socket-dir %s=DIR", v.Service, v.Key, svc.Name, cl.p.imageText(svc), fam, no, svc.Name, svc.Name))
			return
		}
		cl.note("UDS165", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s connects to %s, which the tool does not recognise as a PostgreSQL server (%s): left on TCP; if it is one, rerun with --db %s", v.Service, v.Key, svc.Name, cl.p.imageText(svc), svc.Name))
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
