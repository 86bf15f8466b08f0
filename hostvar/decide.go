package hostvar

import (
	"fmt"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/pgserver"
)

// Query is one connection variable of a service whose value names a
// PostgreSQL server, with what the sources of knowledge are asked with.
type Query struct {
	Project *compose.Project
	Scopes  *Scopes        // the files that reach each service
	Var     compose.EnvVar // the variable, in its service
	// DB and DBPort are the server the value names and the port it
	// listens on; MountPath is where the client mounts its socket. They
	// are for the messages, and the port for the socket file's name.
	DB        string
	DBPort    int
	MountPath string
	// HostVars are --host-var SERVICE/KEY, Consumers --consumer
	// TARGET=READER|FORM: the user's word.
	HostVars  []string
	Consumers []string
}

// Verdict is what the first source of knowledge that knows a host
// variable says about it.
type Verdict struct {
	// TakesDir: the program hands the variable to a driver that takes a
	// socket directory as host. Basis says who says so (its Kind: the
	// user, evidence in the project, the catalogue) and why.
	TakesDir bool
	Basis    finding.Basis
	PortKey  string         // the variable holding the port beside it, if known
	HostPort bool           // the value may be DIR:port
	Also     []catalog.Also // variables to set with it
	// SocketVar, when set, is the variable that takes the socket
	// directory instead of this one, which stays as written
	// (catalog.Var.SocketVar).
	SocketVar string
	// Stay, when set, keeps the value on TCP: the project shows a use
	// that a socket directory breaks (a TCP dial, the wrong socket file).
	Stay *Stay
}

// A Stay keeps a value on TCP with a finding at the value: its code,
// message and, when it rests on one, basis.
type Stay struct {
	Code, Msg string
	Basis     *finding.Basis
}

// HostVar asks the sources of knowledge about host variable q.Var, whose
// value names q.DB (port is the port written beside the host, "" for
// none), in the order of issue #21: the user's word (--host-var), then
// evidence in the project, then the image catalogue, so that a project
// that shows how it reads a catalogued image's variable (a mounted
// database.yml of its own) is judged by that. ok is false when no source
// knows the variable.
func (q Query) HostVar(port string) (v Verdict, ok bool) {
	if v, ok := q.User(); ok {
		// The user's word does not cover a paste into a URL (TCPUse).
		if s := q.TCPUse(); s != nil && port == "" {
			return Verdict{Stay: s}, true
		}
		return v, true
	}
	// Evidence is the code that hands the variable to a driver's host,
	// whatever the variable is called (DBHOST, PGHOST_X): the readers
	// look for the key in a host position, so a name is no precondition.
	if v, ok := q.evidence(port); ok {
		return v, true
	}
	return q.catalogue()
}

// User is the user's word on the variable: --host-var SERVICE/KEY says it
// takes a directory.
func (q Query) User() (Verdict, bool) {
	v := q.Var
	if !slices.Contains(q.HostVars, v.Service+"/"+v.Key) {
		return Verdict{}, false
	}
	return Verdict{TakesDir: true, Basis: finding.Basis{Kind: finding.BasisUser, Name: "--host-var",
		Detail: "the user vouched (--host-var " + v.Service + "/" + v.Key + ") that the application hands " + v.Key + " to a driver that takes a socket directory as host"}}, true
}

// evidence is what the project's own code says: a libpq-family driver
// reading the variable takes a directory. A host:port value is never a
// directory, so it gets no verdict. ok also when the evidence keeps the
// value on TCP (a TCP dial; the port would name the wrong socket file).
func (q Query) evidence(port string) (Verdict, bool) {
	if port != "" {
		return Verdict{}, false
	}
	if s := q.TCPUse(); s != nil {
		return Verdict{Stay: s}, true
	}
	v := q.Var
	verdict, ok := evidence.Find(q.Scopes.Of(v.Service), v.Key)
	if !ok || !verdict.Directory {
		return Verdict{}, false // a use that takes no directory: TCPUse said so
	}
	if q.DBPort != 5432 {
		// The driver opens .s.PGSQL.<port> with the port the app passes:
		// the default 5432 unless the sibling port variable says otherwise.
		portKey := PortSibling(v.Key)
		if p, _ := pgserver.ParsePort(compose.EnvLookup(q.Project.ServiceEnv(v.Service), portKey)); p != q.DBPort {
			return Verdict{Stay: &Stay{Code: "UDS120", Msg: fmt.Sprintf("%s/%s reaches %s (evidence: %s:%d), but %s listens on port %d and %s/%s does not say %d: the driver would open .s.PGSQL.5432 or the port it is given, so the value is left on TCP; set %s=%d and %s=%s together by hand",
				v.Service, v.Key, verdict.Driver, verdict.File, verdict.Line, q.DB, q.DBPort, v.Service, portKey, q.DBPort, portKey, q.DBPort, v.Key, q.MountPath)}}, true
		}
	}
	return Verdict{TakesDir: true, Basis: *EvidenceBasis(verdict.File, verdict.Line, verdict.Driver, verdict.Reason)}, true
}

// catalogue is what the catalogue says of the service's image, when it
// lists the variable as its host: the directory flag, unless a variable
// or a configuration file the image reads instead is set.
func (q Query) catalogue() (Verdict, bool) {
	v := q.Var
	e, cv := CatalogueVar(q.Project, v.Service, v.Key)
	if cv == nil || cv.Role != catalog.RoleHost {
		return Verdict{}, false
	}
	hv := Verdict{TakesDir: cv.Directory, Basis: CatalogueBasis(e, cv.Reason), PortKey: cv.Port, HostPort: cv.HostPort, Also: cv.Also, SocketVar: cv.SocketVar}
	for _, k := range cv.Unless {
		if compose.EnvLookup(q.Project.ServiceEnv(v.Service), k) != "" {
			hv.TakesDir = false
			hv.Basis.Detail = fmt.Sprintf("%s is set, and the image then takes the host from %s, not from %s", k, k, v.Key)
		}
	}
	if c := cv.UnlessConf; c != nil && hv.TakesDir {
		if at, ok := q.Scopes.confSets(v.Service, c.File, c.Key); ok {
			hv.TakesDir = false
			hv.Basis.Detail = fmt.Sprintf("%s sets %s, which the image reads instead of %s: set it there by hand (to the socket directory, if the image takes one there too), or drop it so %s applies", at, c.Key, v.Key, v.Key)
		}
	}
	return hv, true
}

// CatalogueVar returns the catalogue entry of a service's image and its
// variable key as it holds in that service (catalog.Var.In: a requirement
// on another of its variables it does not meet takes the socket away), or
// nils.
func CatalogueVar(p *compose.Project, service, key string) (*catalog.Entry, *catalog.Var) {
	e := catalog.Lookup(p.Model.Services[service].Image)
	if e == nil {
		return nil, nil
	}
	cv := e.Var(key)
	if cv == nil {
		return e, nil
	}
	return e, cv.In(func(k string) string { return compose.EnvLookup(p.ServiceEnv(service), k) })
}

// CatalogueBasis is the basis of what the catalogue entry e says: its
// family, its sources, and detail.
func CatalogueBasis(e *catalog.Entry, detail string) finding.Basis {
	var cites []string
	for _, s := range e.Sources {
		cites = append(cites, s.Cite())
	}
	return finding.Basis{Kind: finding.BasisCatalogue, Name: e.Family, Cite: cites, Detail: detail}
}

// EvidenceBasis is the basis of a host variable trusted on evidence in
// the project: the file and line, the driver it implies, and why.
func EvidenceBasis(file string, line int, driver, reason string) *finding.Basis {
	return &finding.Basis{Kind: finding.BasisEvidence, Name: driver, At: finding.Pos{File: file, Line: line}, Detail: reason}
}

// SetToDir reports whether a service's variable is one a migration sets to
// a socket directory: a host key (PGHOST, DB_HOST ...), --host-var, or a
// catalogued host that takes a directory. A socket directory there is a
// socket connection (revert sets it back to the server's name).
func SetToDir(p *compose.Project, hostVars []string, service, key string) bool {
	if IsHostKey(key) || slices.Contains(hostVars, service+"/"+key) {
		return true
	}
	_, cv := CatalogueVar(p, service, key)
	return cv != nil && cv.Role == catalog.RoleHost && cv.Directory
}

// IsSocketVar reports whether key is, for a service's catalogued image,
// the variable that takes the socket directory in place of a host
// variable (catalog.Var.SocketVar: TeslaMate's DATABASE_SOCKET_DIR): the
// migration adds it, and revert removes it.
func IsSocketVar(p *compose.Project, service, key string) bool {
	e := catalog.Lookup(p.Model.Services[service].Image)
	if e == nil {
		return false
	}
	for _, v := range e.Vars {
		if v.SocketVar == key {
			return true
		}
	}
	return false
}

// UserVouches reports whether the user vouched for the variable
// (--host-var): then nothing the project shows keeps it on TCP.
func (q Query) UserVouches() bool {
	_, ok := q.User()
	return ok
}

// WrittenAsDir reports whether a migration may have written a socket
// directory into a service's variable: SetToDir, or evidence in the
// project that hands it to a driver's host (PGHOST_X read by
// node-postgres), as HostVar judges it. Revert sets such a variable back
// to the server's name.
func WrittenAsDir(p *compose.Project, sc *Scopes, hostVars []string, service, key string) bool {
	if SetToDir(p, hostVars, service, key) {
		return true
	}
	v, ok := evidence.Find(sc.Of(service), key)
	return ok && v.Directory
}

// RefusesSocket returns the catalogue entry and variable of service's
// key when the image takes no socket there at all (no_socket: its
// entrypoint resolves the value as a network host name and exits) and the
// value holds one anyway: a host variable an absolute path (the socket
// directory or file), a URL variable a socket-form URL. No repair of the
// path helps there either. A variable the image ignores because another
// is set (unless:) refuses nothing.
func RefusesSocket(p *compose.Project, service, key, val string) (*catalog.Entry, *catalog.Var, bool) {
	e, cv := CatalogueVar(p, service, key)
	if cv == nil || !cv.NoSocket {
		return nil, nil, false
	}
	for _, k := range cv.Unless {
		if compose.EnvLookup(p.ServiceEnv(service), k) != "" {
			return nil, nil, false
		}
	}
	switch cv.Role {
	case catalog.RoleHost:
		return e, cv, strings.HasPrefix(strings.TrimSpace(val), "/")
	case catalog.RoleURL:
		_, _, socket := dialect.Classify(val)
		return e, cv, socket
	}
	return nil, nil, false
}
