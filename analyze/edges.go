package analyze

import (
	"errors"
	"fmt"
	"net"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/pgserver"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// collectEdges walks the environment of every client service and returns
// the values that reach one of dbs over TCP. Values already in socket form
// are left alone (a second run is a no-op); a single-$ $FactoryArg is
// repaired wherever it appears.
func (cl *collector) collectEdges() []*Edge {
	var out []*Edge
	for _, c := range cl.clients {
		name := c.Name
		if c.Pooler {
			out = append(out, cl.poolerHop(name)...)
			continue
		}
		if (assetBuilds{cl}).only(name) {
			// An asset build (esbuild, tailwindcss) opens no database,
			// whatever it inherits from a shared env_file or anchor: the
			// socket mount would hand it a superuser login (trial 19).
			for _, v := range cl.p.ServiceEnv(name) {
				if (inheritedVars{cl}).reachesDB(v) {
					cl.note("UDS183", v.Pos, name, v.Key,
						fmt.Sprintf("%s gets %s from %s, but its command only runs an asset build (esbuild, tailwindcss and the like): it opens no database connection, so it gets no socket mount (under the official image's trust authentication the mount would be a superuser login)", name, v.Key, v.Pos.File))
				}
			}
			continue
		}
		cl.warnCommand(name)
		for _, v := range cl.p.ServiceEnv(name) {
			if _, bad := cl.p.badConn[v.Pos.String()]; bad {
				continue
			}
			if db, at := (connTargets{cl}).hostNetwork(name, v); db != nil {
				cl.note("UDS142", v.Pos, name, v.Key,
					fmt.Sprintf("%s/%s reaches %s through %s, the port it publishes on the host: network_mode: host puts %s on the host's network, where localhost is the host; left on TCP (a socket needs %s's socket volume mounted on %s and %s in socket form, set up by hand)", name, v.Key, db.Name, at, name, db.Name, name, v.Key))
				continue
			}
			if e, ignores := (inheritedVars{cl}).ignores(name, v.Key); ignores {
				if (inheritedVars{cl}).reachesDB(v) {
					(inheritedVars{cl}).note(v, e)
				}
				continue
			}
			find := func(host string) *DB { return cl.dbAt(v, host) }
			if fixed, dname, how := dialect.RepairOf(v.Raw); fixed != v.Raw {
				cl.repairs = append(cl.repairs, Repair{Var: v, Fixed: fixed, Dialect: dname, How: how})
				continue
			}
			if cl.catalogueKeeps(v, find) || cl.warnUnsetPassthrough(v) {
				continue
			}
			hosts, dname, socket := dialect.Classify(v.Value)
			if socket {
				cl.warnForeignSocket(v, dname)
				if fh, ok := (decisions{cl}).fileHost(v, v.Value); ok {
					cl.fileHosts[v.Pos.String()] = fh
					if fh.Basis == nil {
						cl.noteFileHost(v, fh)
					}
				}
				continue
			}
			if dname == "" {
				if es, doc := (envDocs{cl}).edges(v); doc {
					out = append(out, es...)
					continue
				}
				if e := cl.splitVar(v, find); e != nil {
					out = append(out, e)
				} else if db := unknownURL(v.Value, find); db != nil && isEctoURL(v.Value) {
					cl.note("UDS122", v.Pos, name, v.Key,
						fmt.Sprintf("%s/%s is an Ecto repo URL (ecto://) for %s; left unchanged: Ecto's parse_url takes any scheme and hands ?host= to Postgrex, which ignores it. For the socket, mount %s's socket volume on %s and give the repo socket_dir: %q in its config (or, with ecto_sql 3.4 or later on port 5432, write the URL as ecto://USER:PASSWORD@/DB?socket_dir=%s); a socket_options: [:inet] or [:inet6] in the repo config chooses an IP family for TCP: check that it does not stand in the way",
							name, v.Key, db.Name, db.Name, name, cl.opts.MountPath, cl.opts.MountPath))
				} else if db != nil {
					cl.note("UDS122", v.Pos, name, v.Key,
						fmt.Sprintf("%s/%s looks like a connection URL for %s in a form the tool does not know; left unchanged: point it at %s's socket in %s by hand if its driver supports Unix sockets", name, v.Key, db.Name, db.Name, cl.opts.MountPath))
				}
				continue
			}
			var hit *DB
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
			if hit.NoSocket {
				cl.note("UDS161", v.Pos, name, v.Key,
					fmt.Sprintf("%s/%s reaches %s, whose command sets unix_socket_directories empty: that server creates no Unix socket, so the value is left on TCP; give %s a socket directory to migrate it", name, v.Key, hit.Name, hit.Name))
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
			e := &Edge{Var: v, Dialect: dname, DB: hit, Basis: dialect.ReaderOf(dname)}
			if b := (socketUses{cl}).libraryShipped(v, d); b != nil {
				e.Basis, e.LibraryShipped = b, true
			}
			if d.ByReader {
				form, basis, ok := (decisions{cl}).reader(v, hit)
				if !ok {
					continue
				}
				e.Form, e.Basis = form, basis
			}
			e.Port = cl.edgePort(v, dname, hit)
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
func (cl *collector) unwritable(v compose.EnvVar, db *DB) bool {
	err := compose.Writable(v)
	if err == nil && strings.ContainsAny(v.Value, "\r\n") {
		err = errors.New("its value holds a line break")
	}
	if err == nil {
		return false
	}
	cl.note("UDS111", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s reaches %s over TCP, but %v: left on TCP, and %s gets no socket mount for it; write the value on one line (%s: VALUE) and rerun, or write it in socket form by hand and mount %s's socket volume on %s",
			v.Service, v.Key, db.Name, err, v.Service, v.Key, db.Name, v.Service))
	return true
}

// writableEdges drops the environment edges whose value cannot be edited
// where it is written (unwritable): a decision made for one (UDS150,
// UDS170) goes with it (resolve). Values in configuration files and
// variables the edge adds are written elsewhere and stay.
func (cl *collector) writableEdges(edges []*Edge) []*Edge {
	var out []*Edge
	for _, e := range edges {
		if e.InFile == nil && e.Unset == nil && cl.unwritable(e.Var, e.DB) {
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
func (cl *collector) edgePort(v compose.EnvVar, dname string, db *DB) int {
	p := dialect.URLPort(v.Value, dname)
	if p == 0 || p == db.Port {
		return db.Port
	}
	if !db.PortSet {
		cl.note("UDS128", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s names port %d, and the compose file does not show the port %s listens on (its image is not one the tool knows): the socket form keeps port %d (socket file .s.PGSQL.%d), the port that worked over TCP; check that %s's socket is named after it", v.Service, v.Key, p, db.Name, p, p, db.Name))
		return p
	}
	cl.note("UDS128", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s/%s names port %d, but %s listens on %d as far as the compose file says (command, PGPORT): the socket file is named .s.PGSQL.%d; if the server is configured elsewhere (a mounted postgresql.conf, config_file), rerun with the right setup", v.Service, v.Key, p, db.Name, db.Port, db.Port))
	return db.Port
}

// unknownURL returns the database a URL-shaped value names when no dialect
// rewriter knows its scheme (celery's db+postgresql://, a vendor scheme).
func unknownURL(val string, find func(host string) *DB) *DB {
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

// warnCommand reports connection strings written into command: or
// entrypoint: (often inside a shell script): the tool cannot edit them
// safely, so it says where they are and what to write.
func (cl *collector) warnCommand(service string) {
	svc := cl.p.Model.Services[service]
	find := func(host string) *DB {
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
				shown, what := dialect.Redact(dname, w), ""
				if dname == "" {
					if db := unknownURL(w, find); db != nil {
						hosts = []string{db.Name}
					} else if h, s, ok := dialect.SchemelessAddress(w); ok {
						// Nakama's --database.address USER:PW@HOST:PORT/DB:
						// a form the program reads its own way.
						hosts, shown, what = []string{h}, s, ", an address without a scheme that the program reads its own way"
					} else {
						continue
					}
				}
				for _, h := range hosts {
					if db := find(h); db != nil {
						kn, _ := yamledit.OwnKey(node, key)
						cl.commandNote(yamledit.NodePos(src, kn), service, key,
							fmt.Sprintf("%s's %s holds a connection to %s (%s%s); the tool does not edit commands: point it at the socket in %s by hand, or move it to environment:", service, key, db.Name, shown, what, cl.opts.MountPath))
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

// warnNotDB warns (UDS137) when a connection value names a service of the
// project that is neither a recognised PostgreSQL server nor a pooler: a
// custom image or wrapper the tool cannot tell is a server.
func (cl *collector) warnNotDB(v compose.EnvVar, hosts []string) {
	for _, h := range hosts {
		svc, ok := cl.p.Model.Services[strings.ToLower(h)]
		if !ok || pgserver.IsPooler(svc.Image) || svc.Name == v.Service || slices.ContainsFunc(cl.dbs, func(d *DB) bool { return d.Name == svc.Name }) {
			continue // a database left on TCP for another reason says why itself
		}
		if no, cite := cl.p.serverNo(svc); no != "" {
			// The catalogue's reason is why a socket fails there: no
			// invitation to --db, which would write it anyway.
			cl.note("UDS165", v.Pos, v.Service, v.Key,
				fmt.Sprintf("%s/%s connects to %s, a PostgreSQL server (%s) whose socket the tool does not set up: %s (%s); left on TCP", v.Service, v.Key, svc.Name, cl.p.imageText(svc), no, cite))
			return
		}
		cl.note("UDS165", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s/%s connects to %s, which the tool does not recognise as a PostgreSQL server (%s): left on TCP; if it is one, rerun with --db %s", v.Service, v.Key, svc.Name, cl.p.imageText(svc), svc.Name))
		return
	}
}

func ForeignSocketMsg(what, source, dir string) string {
	return fmt.Sprintf("%s uses the socket in %s, the host directory %s bind-mounted, which no PostgreSQL service of this project serves (a server outside the project, such as the host's): left as it is", what, dir, source)
}

// warnForeignSocket warns (UDS134) about a socket-form value whose directory
// is a client's bind mount of a host directory that no database of the
// project mounts: a server outside the project, left as it is.
func (cl *collector) warnForeignSocket(v compose.EnvVar, dname string) {
	dbs := cl.dbs
	sp := dialect.SocketDirOf(v.Value, dname)
	if !path.IsAbs(sp) {
		return
	}
	for _, m := range cl.p.ServiceMounts(v.Service) {
		if !m.Bind || m.Target != path.Clean(sp) {
			continue
		}
		for _, db := range dbs {
			// The mount that carries db's socket is its last socket mount.
			if n := len(db.SocketMounts); n > 0 && db.SocketMounts[n-1].Bind && db.SocketMounts[n-1].Source == m.Source {
				return
			}
		}
		cl.note("UDS162", v.Pos, v.Service, v.Key, ForeignSocketMsg(v.Service+"/"+v.Key, m.Source, m.Target))
	}
}

// isEctoURL reports whether a value is an Ecto repo URL (ecto://...), as
// Phoenix projects write DATABASE_URL: Ecto.Repo.Supervisor.parse_url
// reads any scheme (github.com/elixir-ecto/ecto lib/ecto/repo/supervisor.ex).
func isEctoURL(s string) bool {
	return len(s) > 7 && strings.EqualFold(s[:7], "ecto://")
}
