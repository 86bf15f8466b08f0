package rewrite

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/interp"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// Dialects of connection values.
const (
	DialectJDBC = "jdbc"
	DialectURI  = "libpq-uri"
	DialectDSN  = "libpq-dsn"
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
		src, node := pl.p.serviceNode(name)
		links := linkAliases(pl.p.model.Services[name])
		for _, ent := range envEntries(node) {
			raw := strings.TrimPrefix(ent.node.Value, ent.prefix)
			if fixed := fixFactoryArg(raw); fixed != raw {
				if pl.replaceScalar(src, ent.node, ent.prefix, fixed, ent.inFlow) {
					pl.changes = append(pl.changes, Change{Kind: "repair", File: src.Path, Line: ent.node.Line, Col: ent.node.Column,
						Service: name, Key: ent.key, Dialect: DialectJDBC, Before: redact(DialectJDBC, raw), After: redact(DialectJDBC, fixed),
						Reason: "write $$FactoryArg so compose does not interpolate it away"})
					pl.warnAt(src, ent.node, "UDS105", name, ent.key,
						"$FactoryArg was written with one $: compose interpolates it to an empty string and pgjdbc fails with NoSuchMethodException; written $$FactoryArg")
				}
				continue
			}
			val, err := pl.p.interpolate(raw)
			if err != nil {
				continue
			}
			e := &edge{service: name, key: ent.key, src: src, node: ent.node, prefix: ent.prefix, raw: raw, value: val, inFlow: ent.inFlow}
			hosts, dialect, socket := classify(val)
			if dialect == "" || socket {
				continue
			}
			e.dialect = dialect
			var hit *dbService
			for _, h := range hosts {
				if db := dbForHost(dbs, h, links); db != nil {
					hit = db
				}
			}
			if hit == nil {
				continue
			}
			if len(hosts) > 1 {
				pl.warnAt(src, ent.node, "UDS110", name, ent.key,
					fmt.Sprintf("%s lists several hosts for failover; a Unix socket reaches one server on this host and cannot fail over, so the value is left on TCP", ent.key))
				continue
			}
			e.db = hit
			out = append(out, e)
		}
	}
	return out
}

// classify recognises a connection value and returns the hosts it names,
// its dialect ("" when it is not a PostgreSQL connection value) and whether
// it already uses a Unix socket.
func classify(val string) (hosts []string, dialect string, socket bool) {
	switch {
	case jdbc.IsJDBC(val):
		u, err := jdbc.Parse(val)
		if err != nil {
			return nil, "", false
		}
		for _, h := range u.Hosts {
			hosts = append(hosts, h.Name)
		}
		if !u.HasAuthority {
			hosts = []string{"localhost"}
		}
		return hosts, DialectJDBC, u.IsUnixSocket()
	case libpq.IsURI(val):
		u, err := libpq.ParseURI(val)
		if err != nil {
			return nil, "", false
		}
		if _, ok := u.SocketDir(); ok {
			return nil, DialectURI, true
		}
		for _, h := range u.Hosts {
			hosts = append(hosts, h.Name)
		}
		return hosts, DialectURI, false
	case libpq.IsDSN(val):
		d, err := libpq.ParseDSN(val)
		if err != nil {
			return nil, "", false
		}
		h, _ := d.Get("host")
		if strings.HasPrefix(h, "/") || strings.HasPrefix(h, "@") {
			return nil, DialectDSN, true
		}
		for _, x := range strings.Split(h, ",") {
			hosts = append(hosts, strings.TrimSpace(x))
		}
		return hosts, DialectDSN, false
	}
	return nil, "", false
}

// rewriteEdge rewrites one value to reach the database's socket through the
// client's mount directory mp. Interpolation references in the value are
// kept as written; literal $ is written $$.
func (pl *planner) rewriteEdge(e *edge, mp string) {
	m, err := interp.Mask(e.raw)
	if err != nil {
		pl.warnAt(e.src, e.node, "UDS111", e.service, e.key, err.Error())
		return
	}
	var out string
	var notes []note
	switch e.dialect {
	case DialectJDBC:
		var ns []jdbc.Note
		out, ns, err = jdbc.ToSocket(m.Value, mp+"/.s.PGSQL."+strconv.Itoa(e.db.port))
		for _, n := range ns {
			notes = append(notes, note(n))
		}
	case DialectURI:
		var ns []libpq.Note
		out, ns, err = libpq.URIToSocket(m.Value, mp, e.db.port)
		for _, n := range ns {
			notes = append(notes, note(n))
		}
	case DialectDSN:
		var ns []libpq.Note
		out, ns, err = libpq.DSNToSocket(m.Value, mp, e.db.port)
		for _, n := range ns {
			notes = append(notes, note(n))
		}
	}
	if err != nil {
		code := "UDS111"
		if errors.Is(err, jdbc.ErrMultiHost) || errors.Is(err, libpq.ErrMultiHost) {
			code = "UDS110"
		}
		pl.warnAt(e.src, e.node, code, e.service, e.key, fmt.Sprintf("%s cannot be rewritten as written (%v); set it to the socket form by hand", e.key, redactErr(err)))
		return
	}
	newRaw := m.Unmask(out)
	if newRaw == e.raw {
		return
	}
	if !pl.replaceScalar(e.src, e.node, e.prefix, newRaw, e.inFlow) {
		return
	}
	for _, n := range notes {
		pl.warnAt(e.src, e.node, n.Code, e.service, e.key, e.service+"/"+e.key+": "+n.Message)
	}
	if e.dialect == DialectJDBC && !pl.javaWarn[e.service] {
		pl.javaWarn[e.service] = true
		pl.warnAt(e.src, e.node, "UDS101", e.service, e.key,
			e.service+" connects with pgjdbc through junixsocket: the application needs com.kohlschutter.junixsocket:junixsocket-core:2.10.1 (type pom) on its classpath, and a java.io.tmpdir where native code may be unpacked and executed")
	}
	pl.changes = append(pl.changes, Change{Kind: "value", File: e.src.Path, Line: e.node.Line, Col: e.node.Column,
		Service: e.service, Key: e.key, Dialect: e.dialect, Before: redact(e.dialect, e.raw), After: redact(e.dialect, newRaw),
		Reason: fmt.Sprintf("reach %s through its socket in %s", e.db.name, mp)})
}

type note struct{ Code, Message string }

// redact masks passwords for reports and messages.
func redact(dialect, s string) string {
	if dialect == DialectJDBC {
		return jdbc.Redact(s)
	}
	return libpq.Redact(s)
}

// redactErr keeps parser errors from echoing a password back.
func redactErr(err error) string {
	return libpq.Redact(jdbc.Redact(err.Error()))
}
