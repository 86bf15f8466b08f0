package analyze

import (
	"fmt"
	"path/filepath"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// A host that is only a code default (issue #21): the program reads
// os.getenv("POSTGRES_HOST", "postgres") and the compose file leaves
// POSTGRES_HOST unset, so the program connects to the default over TCP
// and no compose value shows it. When evidence in the project shows the
// variable reaching a driver that takes a socket directory as host, the
// migration sets the variable in the service's environment:.

// codeDefaultEdges returns an edge for each host variable a client's code
// reads with a fallback that names a database while the service (its
// environment, its env files, its Dockerfile's ENV) leaves it unset.
// Services that already have an edge (connected) are left out: their
// connection is in the compose file. A variable whose consumer the
// project does not show stays as it is (UDS131 names the line).
func (cd codeDefaults) edges(connected []*Edge) []*Edge {
	cl := cd.cl
	has := map[string]bool{}
	for _, e := range connected {
		has[e.Var.Service] = true
	}
	var out []*Edge
	for _, name := range cl.clientServices() {
		if !has[name] {
			out = append(out, (codeDefaults{cl}).of(name)...)
		}
	}
	return out
}

// serviceCodeDefaults is codeDefaultEdges for one service.
func (cd codeDefaults) of(name string) []*Edge {
	cl := cd.cl
	scope := cl.scopes.Of(name)
	set := map[string]bool{}
	for _, v := range cl.p.ServiceEnv(name) {
		set[v.Key] = true
	}
	for _, k := range (codeDefaults{cl}).imageEnvKeys(name) {
		set[k] = true
	}
	var out []*Edge
	for _, d := range evidence.Defaults(scope) {
		if set[d.Key] || !hostvar.IsAppHostKey(d.Key) {
			continue
		}
		set[d.Key] = true // the first default of a key is the one reported
		v := compose.EnvVar{Service: name, Key: d.Key, Raw: d.Value, Value: d.Value,
			Pos: finding.Pos{File: cl.p.DisplayPath(filepath.Join(scope.ProjectDir, filepath.FromSlash(d.File))), Line: d.Line, Col: 1}}
		db := cl.dbAt(v, d.Value)
		if db == nil || db.NoSocket {
			continue
		}
		verdict, ok := evidence.Find(scope, d.Key)
		if !ok || !verdict.Directory {
			continue
		}
		if db.Port != 5432 {
			if p, _ := atoiPort(cl.p.clientEnv(name, hostvar.PortSibling(d.Key))); p != db.Port {
				cl.note("UDS120", v.Pos, name, d.Key,
					fmt.Sprintf("%s/%s is unset, so %s falls back to %s over TCP; %s listens on port %d and %s/%s does not say %d, so the driver would open .s.PGSQL.5432 or the code's default port: set %s=%s and %s=%d in %s's environment by hand",
						name, d.Key, d.At(), d.Value, db.Name, db.Port, name, hostvar.PortSibling(d.Key), db.Port, d.Key, cl.opts.MountPath, hostvar.PortSibling(d.Key), db.Port, name))
				continue
			}
		}
		out = append(out, &Edge{Var: v, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, Unset: &d,
			Basis: hostvar.EvidenceBasis(verdict.File, verdict.Line, verdict.Driver, verdict.Reason)})
	}
	return out
}

// imageEnvKeys lists the variables the Dockerfile of a service built here
// sets with ENV: inside the image they are not unset.
func (cd codeDefaults) imageEnvKeys(service string) []string {
	cl := cd.cl
	b := cl.p.Model.Services[service].Build
	if b == nil || b.Context == "" {
		return nil
	}
	data, err := cl.readFile(cl.p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile)))
	if err != nil {
		return nil
	}
	return evidence.EnvKeys(data)
}
