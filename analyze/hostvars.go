package analyze

import (
	"fmt"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/consumer"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// decisions act on what package hostvar decides about a value: edges,
// notes.
type decisions struct{ cl *collector }

// query asks package hostvar about v, whose value names db.
func (d decisions) query(v compose.EnvVar, db *DB) hostvar.Query {
	cl := d.cl
	return hostvar.Query{Project: cl.p.Project, Scopes: cl.scopes, Var: v, DB: db.Name, DBPort: db.Port,
		MountPath: cl.opts.MountPath, HostVars: cl.opts.HostVars, Consumers: cl.opts.Consumers}
}

// stay notes why v stays on TCP.
func (d decisions) stay(v compose.EnvVar, s *hostvar.Stay) {
	d.cl.note(s.Code, v.Pos, v.Service, v.Key, s.Msg).Basis = s.Basis
}

// knownHostVar acts on what the sources of knowledge say about host
// variable v (hostvar.Query.HostVar). known reports that a source decided
// v: e is its edge, or nil when it left v on TCP with a finding of its own.
func (d decisions) knownHostVar(v compose.EnvVar, db *DB, port string) (e *Edge, known bool) {
	hv, ok := d.query(v, db).HostVar(port)
	switch {
	case !ok:
		return nil, false
	case hv.Stay != nil:
		d.stay(v, hv.Stay)
		return nil, true
	case hv.Basis.Kind == finding.BasisEvidence:
		// Once the value is rewritten, UDS170 says which evidence it
		// rests on.
		return &Edge{Var: v, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, Basis: &hv.Basis}, true
	}
	return d.applyHostVerdict(v, db, port, hv), true
}

// applyHostVerdict acts on the user's or the catalogue's verdict for v,
// whose value names db (port is the port written beside the host, if
// any). It returns the edge to rewrite, or nil when the value stays.
func (d decisions) applyHostVerdict(v compose.EnvVar, db *DB, port string, hv hostvar.Verdict) *Edge {
	cl := d.cl
	who := v.Service + "/" + v.Key
	if !hv.TakesDir {
		cl.note("UDS151", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s names %s, but %s (%s); left on TCP", who, db.Name, hv.Basis.Detail, hv.Basis.Citation()))
		return nil
	}
	if hv.SocketVar != "" {
		return d.socketVarEdge(v, db, hv)
	}
	if port != "" && !hv.HostPort {
		cl.note("UDS120", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s holds host and port together (%s); %s takes a socket directory there only without the port: set it to %s and put the port %d in its own variable", who, dialect.Redact("", v.Value), v.Key, cl.opts.MountPath, db.Port))
		return nil
	}
	e := &Edge{Var: v, Dialect: dialect.AppHostVar(port != "").Name, DB: db, Port: db.Port, Basis: &hv.Basis}
	if hv.PortKey != "" && cl.p.clientEnv(v.Service, hv.PortKey) == "" && db.Port != 5432 {
		e.Adds = append(e.Adds, portAdd(hv.PortKey, db))
	}
	for _, a := range hv.Also {
		if cl.p.clientEnv(v.Service, a.Key) != a.Value {
			e.Adds = append(e.Adds, EnvAdd{Key: a.Key, Value: a.Value, Reason: a.Reason})
		}
	}
	code, msg := "UDS150", fmt.Sprintf("%s set to the socket directory %s: %s (%s)", who, cl.opts.MountPath, hv.Basis.Detail, hv.Basis.Citation())
	if hv.Basis.Kind == finding.BasisUser {
		code, msg = "UDS152", fmt.Sprintf("%s set to the socket directory %s on the user's word: --host-var %s vouches that the application hands it to a driver that takes a socket directory as host; the tool has no evidence of its own", who, cl.opts.MountPath, who)
	}
	cl.decision(e, code, v.Pos, v.Service, v.Key, msg).Basis = &hv.Basis
	return e
}

// socketVarEdge moves a client whose image reads its socket directory from
// another variable than host variable v (hv.SocketVar, TeslaMate's
// DATABASE_SOCKET_DIR): the edge keeps v as written, since the image
// still dials it over TCP, and adds the socket variable set to the mount
// path. A client whose socket variable already holds a directory is on
// the socket: no edge, no note.
func (d decisions) socketVarEdge(v compose.EnvVar, db *DB, hv hostvar.Verdict) *Edge {
	cl := d.cl
	if strings.HasPrefix(cl.p.clientEnv(v.Service, hv.SocketVar), "/") {
		return nil
	}
	e := &Edge{Var: v, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, Basis: &hv.Basis, KeepValue: true}
	e.Adds = append(e.Adds, EnvAdd{Key: hv.SocketVar, Value: cl.opts.MountPath,
		Reason: fmt.Sprintf("the image reads the socket directory from %s; %s stays for its TCP wait", hv.SocketVar, v.Key)})
	if hv.PortKey != "" && cl.p.clientEnv(v.Service, hv.PortKey) == "" && db.Port != 5432 {
		e.Adds = append(e.Adds, portAdd(hv.PortKey, db))
	}
	who := v.Service + "/" + v.Key
	cl.decision(e, "UDS150", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s stays as written and %s/%s is set to the socket directory %s: %s (%s)", who, v.Service, hv.SocketVar, cl.opts.MountPath, hv.Basis.Detail, hv.Basis.Citation())).Basis = &hv.Basis
	return e
}

// reader decides the socket form of connection URI v, which reaches db,
// by its reader (hostvar.Query.Reader); ok is false when the value stays
// on TCP, with a note that says why.
func (d decisions) reader(v compose.EnvVar, db *DB) (form consumer.Form, basis *finding.Basis, ok bool) {
	form, basis, s := d.query(v, db).Reader()
	if s != nil {
		d.stay(v, s)
		return "", nil, false
	}
	return form, basis, true
}
