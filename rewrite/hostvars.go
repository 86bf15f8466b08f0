package rewrite

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
)

// hostVerdict is what one source of knowledge says about a host variable.
type hostVerdict struct {
	takesDir bool
	basis    Basis
	portKey  string         // the variable holding the port beside it, if known
	hostPort bool           // the value may be DIR:port
	also     []catalog.Also // variables to set with it
}

// knownHostVar asks the sources of knowledge about host variable v in
// the order: the user's word (--host-var), then evidence in the
// project, then the image catalogue, so that a project that shows how it
// reads a catalogued image's variable (a mounted database.yml of its own)
// is judged by that. known reports that a source decided v: e is its edge,
// or nil when it left v on TCP with a finding of its own.
func (cl *collector) knownHostVar(v compose.EnvVar, db *dbService, port string) (e *edge, known bool) {
	if hv, ok := userHostVar(cl, v); ok {
		return cl.applyHostVerdict(v, db, port, hv), true
	}
	// Evidence is the code that hands the variable to a driver's host,
	// whatever the variable is called (DBHOST, PGHOST_X): the readers
	// look for the key in a host position, so a name is no precondition.
	if e, handled := cl.hostVarEvidence(v, db, port); handled {
		return e, true
	}
	if hv, ok := catalogueHostVar(cl, v); ok {
		return cl.applyHostVerdict(v, db, port, hv), true
	}
	return nil, false
}

// userHostVar: --host-var SERVICE/KEY says the variable takes a directory.
func userHostVar(cl *collector, v compose.EnvVar) (hostVerdict, bool) {
	if !contains(cl.opts.HostVars, v.Service+"/"+v.Key) {
		return hostVerdict{}, false
	}
	return hostVerdict{takesDir: true, basis: Basis{Kind: BasisUser, Name: "--host-var",
		Detail: "the user vouched (--host-var " + v.Service + "/" + v.Key + ") that the application hands " + v.Key + " to a driver that takes a socket directory as host"}}, true
}

// catalogueHostVar: the service's image is catalogued with v as its host.
func catalogueHostVar(cl *collector, v compose.EnvVar) (hostVerdict, bool) {
	e, cv := cl.p.catalogueVar(v.Service, v.Key)
	if cv == nil || cv.Role != catalog.RoleHost {
		return hostVerdict{}, false
	}
	hv := hostVerdict{takesDir: cv.Directory, basis: catalogueBasis(e, cv.Reason), portKey: cv.Port, hostPort: cv.HostPort, also: cv.Also}
	for _, k := range cv.Unless {
		if cl.p.clientEnv(v.Service, k) != "" {
			hv.takesDir = false
			hv.basis.Detail = fmt.Sprintf("%s is set, and the image then takes the host from %s, not from %s", k, k, v.Key)
		}
	}
	if c := cv.UnlessConf; c != nil && hv.takesDir {
		if at, ok := cl.scopes.confSets(v.Service, c.File, c.Key); ok {
			hv.takesDir = false
			hv.basis.Detail = fmt.Sprintf("%s sets %s, which the image reads instead of %s: set it there by hand (to the socket directory, if the image takes one there too), or drop it so %s applies", at, c.Key, v.Key, v.Key)
		}
	}
	return hv, true
}

// catalogueVar returns the catalogue entry of a service's image and its
// variable key, or nils.
func (p *project) catalogueVar(service, key string) (*catalog.Entry, *catalog.Var) {
	e := catalog.Lookup(p.Model.Services[service].Image)
	if e == nil {
		return nil, nil
	}
	return e, e.Var(key)
}

func catalogueBasis(e *catalog.Entry, detail string) Basis {
	var cites []string
	for _, s := range e.Sources {
		cites = append(cites, s.Cite())
	}
	return Basis{Kind: BasisCatalogue, Name: e.Family, Cite: cites, Detail: detail}
}

// applyHostVerdict acts on a verdict for v, whose value names db (port is
// the port written beside the host, if any). It returns the edge to
// rewrite, or nil when the value stays.
func (cl *collector) applyHostVerdict(v compose.EnvVar, db *dbService, port string, hv hostVerdict) *edge {
	who := v.Service + "/" + v.Key
	if !hv.takesDir {
		cl.note("UDS151", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s names %s, but %s (%s); left on TCP", who, db.name, hv.basis.Detail, hv.basis.Citation()))
		return nil
	}
	if port != "" && !hv.hostPort {
		cl.note("UDS120", v.Pos, v.Service, v.Key,
			fmt.Sprintf("%s holds host and port together (%s); %s takes a socket directory there only without the port: set it to %s and put the port %d in its own variable", who, dialect.Redact("", v.Value), v.Key, cl.opts.MountPath, db.port))
		return nil
	}
	e := &edge{v: v, dialect: dialect.AppHostVar(port != "").Name, db: db, port: db.port, basis: &hv.basis}
	if hv.portKey != "" && cl.p.clientEnv(v.Service, hv.portKey) == "" && db.port != 5432 {
		e.adds = append(e.adds, portAdd(hv.portKey, db))
	}
	for _, a := range hv.also {
		if cl.p.clientEnv(v.Service, a.Key) != a.Value {
			e.adds = append(e.adds, envAdd{key: a.Key, value: a.Value, reason: a.Reason})
		}
	}
	code, msg := "UDS150", fmt.Sprintf("%s set to the socket directory %s: %s (%s)", who, cl.opts.MountPath, hv.basis.Detail, hv.basis.Citation())
	if hv.basis.Kind == BasisUser {
		code, msg = "UDS152", fmt.Sprintf("%s set to the socket directory %s on the user's word: --host-var %s vouches that the application hands it to a driver that takes a socket directory as host; the tool has no evidence of its own", who, cl.opts.MountPath, who)
	}
	cl.decision(e, code, v.Pos, v.Service, v.Key, msg).Basis = &hv.basis
	return e
}

// checkHostVars rejects --host-var values that name no service or no
// variable of that service.
func (p *project) checkHostVars(hostVars []string, bad func(string, ...any) error) error {
	for _, hv := range hostVars {
		service, key, ok := strings.Cut(hv, "/")
		if !ok || service == "" || key == "" {
			return bad("--host-var %q: want SERVICE/KEY (a service and one of its environment variables)", hv)
		}
		if _, ok := p.Model.Services[service]; !ok {
			return bad("--host-var %s: no such service (services: %s)", hv, strings.Join(slices.Sorted(maps.Keys(p.Model.Services)), ", "))
		}
		var keys []string
		for _, v := range p.ServiceEnv(service) {
			if v.Key == key {
				keys = nil
				break
			}
			keys = append(keys, v.Key)
		}
		if keys != nil || len(p.ServiceEnv(service)) == 0 {
			return bad("--host-var %s: %s has no environment variable %s (it has: %s)", hv, service, key, strings.Join(slices.Sorted(slices.Values(keys)), ", "))
		}
	}
	return nil
}

// dirHostVar reports whether a service's variable is a host variable that
// a migration sets to a socket directory (--host-var, or the catalogue),
// so that revert sets it back to the server's name.
func (p *project) dirHostVar(hostVars []string, service, key string) bool {
	if contains(hostVars, service+"/"+key) {
		return true
	}
	_, cv := p.catalogueVar(service, key)
	return cv != nil && cv.Role == catalog.RoleHost && cv.Directory
}
