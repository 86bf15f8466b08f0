package analyze

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
	"github.com/uds-migrate/uds-migrate/yamledit"
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
		if has[name] || (assetBuilds{cl}).only(name) {
			continue // an asset build reads no default of the app's code
		}
		es := (codeDefaults{cl}).of(name)
		if len(es) == 0 {
			es = (codeDefaults{cl}).catalogued(name)
		}
		out = append(out, es...)
	}
	return out
}

// catalogued returns the edge of a catalogued image's host variable that
// the service leaves unset while the image's own default (catalog.Var's
// Default: Immich connects to database) names one of the project's
// databases, on the port it listens on: the image connects there over TCP,
// and setting the variable to the socket directory moves it to the socket.
// The catalogue must say the variable takes a directory, no variable that
// overrides it (unless:) may be set, and it may ask for no other variable
// beside it (also:), which an unset edge does not write.
func (cd codeDefaults) catalogued(name string) []*Edge {
	cl := cd.cl
	svc := cl.p.Model.Services[name]
	e := catalog.Lookup(svc.Image)
	if e == nil || svc.Build != nil {
		return nil
	}
	for i := range e.Vars {
		cv := &e.Vars[i]
		// Set at all, even to "" (DB_HOST=${dbHost} with dbHost unset):
		// the image then reads "", not its default, and a second entry
		// for the key would be a duplicate.
		set := slices.ContainsFunc(cl.p.ServiceEnv(name), func(v compose.EnvVar) bool { return v.Key == cv.Key })
		if cv.Role != catalog.RoleHost || !cv.Directory || cv.Default == "" || len(cv.Also) > 0 ||
			set || (hiddenClients{cl}).anySet(name, cv.Unless) {
			continue
		}
		home := cl.p.ImageHome(name)
		if home.Src == nil {
			continue
		}
		kn, _ := yamledit.OwnKey(compose.ServicesMapping(home.Src), name)
		v := compose.EnvVar{Service: name, Key: cv.Key, Raw: cv.Default, Value: cv.Default, Pos: yamledit.NodePos(home.Src, kn)}
		db := cl.dbAt(v, cv.Default)
		if db == nil || db.NoSocket {
			continue
		}
		// The default connects only on the port the image then uses: its
		// port variable's, else 5432.
		port := 5432
		if cv.Port != "" {
			if set := cl.p.clientEnv(name, cv.Port); set != "" {
				port, _ = atoiPort(set)
			}
		}
		if port != db.Port {
			continue
		}
		b := hostvar.CatalogueBasis(e, cv.Reason)
		return []*Edge{{Var: v, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port,
			Unset: &evidence.Default{Key: cv.Key, Value: cv.Default}, Basis: &b}}
	}
	return nil
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
		basis, ok := (codeDefaults{cl}).basis(name, d.Key)
		if !ok {
			continue
		}
		if db.Port != 5432 {
			if p, _ := atoiPort(cl.p.clientEnv(name, hostvar.PortSibling(d.Key))); p != db.Port {
				cl.note("UDS120", v.Pos, name, d.Key,
					fmt.Sprintf("%s/%s is unset, so %s falls back to %s over TCP; %s listens on port %d and %s/%s does not say %d, so the driver would open .s.PGSQL.5432 or the code's default port: set %s=%s and %s=%d in %s's environment by hand",
						name, d.Key, fmt.Sprintf("%s:%d", v.Pos.File, v.Pos.Line), d.Value, db.Name, db.Port, name, hostvar.PortSibling(d.Key), db.Port, d.Key, cl.opts.MountPath, hostvar.PortSibling(d.Key), db.Port, name))
				continue
			}
		}
		out = append(out, &Edge{Var: v, Dialect: dialect.AppHostVar(false).Name, DB: db, Port: db.Port, Unset: &d, Basis: basis})
	}
	return out
}

// basis is why an unset host variable of service may be set to the
// socket directory: the user's --host-var (unless the code pastes the
// variable into a URL, which no directory survives), else evidence that
// it reaches a driver taking a directory. ok is false for neither.
func (cd codeDefaults) basis(service, key string) (*finding.Basis, bool) {
	scope := cd.cl.scopes.Of(service)
	if slices.Contains(cd.cl.opts.HostVars, service+"/"+key) {
		if _, pasted := evidence.FindPasted(scope, key); pasted {
			return nil, false
		}
		return &finding.Basis{Kind: finding.BasisUser, Name: "--host-var",
			Detail: "the user vouched (--host-var " + service + "/" + key + ") that the application hands " + key + " to a driver that takes a socket directory as host"}, true
	}
	verdict, ok := evidence.Find(scope, key)
	if !ok || !verdict.Directory {
		return nil, false
	}
	return hostvar.EvidenceBasis(verdict.File, verdict.Line, verdict.Driver, verdict.Reason), true
}

// imageEnvKeys lists the variables the Dockerfile of a service built here
// (or of the service that builds the image it runs: compose.ImageBuild)
// sets with ENV: inside the image they are not unset.
func (cd codeDefaults) imageEnvKeys(service string) []string {
	return imageEnvKeys(cd.cl.p, cd.cl.readFile, service)
}

func imageEnvKeys(p *Project, read func(string) ([]byte, error), service string) []string {
	b, _ := compose.ImageBuild(p.Project, service)
	if b == nil || b.Context == "" {
		return nil
	}
	data, err := read(p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile)))
	if err != nil {
		return nil
	}
	return evidence.EnvKeys(data)
}

// Fallback returns the host a service connects to when v, one of its
// compose environment entries, is removed: the default of its catalogued
// image (catalog.Var.Default), else the code default its own code reads
// (evidence.Defaults), which is what a migration sets the variable beside
// (codeDefaults). ok is false when something else would set the variable
// then: another compose file's or an extended service's environment:, an
// env_file, the Dockerfile's ENV. Revert removes such a variable instead of
// writing the server's name into it, when the fallback reaches the server.
func Fallback(p *Project, sc *hostvar.Scopes, v compose.EnvVar) (host string, ok bool) {
	svc := p.Model.Services[v.Service]
	if len(svc.EnvFiles) > 0 && slices.ContainsFunc(svc.EnvFiles, func(ef types.EnvFile) bool {
		return compose.EnvLookup(p.EnvFileVars(v.Service, ef.Path), v.Key) != ""
	}) {
		return "", false
	}
	sets := 0
	for _, d := range p.ServiceDefs(v.Service) {
		if kn, _ := yamledit.MapGet(d.Node, "extends"); kn != nil {
			return "", false
		}
		if slices.ContainsFunc(compose.EnvEntries(d.Node), func(e compose.EnvEntry) bool { return e.Key == v.Key }) {
			sets++
		}
	}
	if sets != 1 || slices.Contains(imageEnvKeys(p, p.ReadFile, v.Service), v.Key) {
		return "", false
	}
	if _, cv := hostvar.CatalogueVar(p.Project, v.Service, v.Key); cv != nil && cv.Role == catalog.RoleHost && cv.Default != "" && svc.Build == nil {
		return cv.Default, true
	}
	for _, d := range evidence.Defaults(sc.Of(v.Service)) {
		if d.Key == v.Key {
			return d.Value, true
		}
	}
	return "", false
}
