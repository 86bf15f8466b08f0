package rewrite

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
)

// refusesSocket returns the catalogue entry and variable of service's
// key when the image takes no socket there at all (no_socket: its
// entrypoint resolves the value as a network host name and exits) and the
// value holds one anyway: a host variable an absolute path (the socket
// directory or file), a URL variable a socket-form URL. No repair of the
// path helps there either. A variable the image ignores because another
// is set (unless:) refuses nothing.
func refusesSocket(p *project, service, key, val string) (*catalog.Entry, *catalog.Var, bool) {
	e, cv := p.catalogueVar(service, key)
	if cv == nil || !cv.NoSocket {
		return nil, nil, false
	}
	for _, k := range cv.Unless {
		if p.clientEnv(service, k) != "" {
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

// checkCatalogued reports (UDS221) a socket value in a variable whose
// catalogued image takes none, and whether it did: the other checks of
// the value's shape would advise a socket form the image rejects too.
func (v *validator) checkCatalogued(at func(code, msg string), service, key, val string, ms []compose.Mount) bool {
	e, cv, refused := refusesSocket(v.p, service, key, val)
	if !refused {
		return false
	}
	db := "the database's service name"
	for _, m := range ms {
		p := path.Clean(val)
		if m.Source != "" && (p == m.Target || strings.HasPrefix(p, m.Target+"/")) {
			if d, ok := v.dbMount[v.sourceKey(m)]; ok {
				db = d.name
			}
		}
	}
	what, fix := "the socket path "+val, "set it to "+db
	if cv.Role == catalog.RoleURL {
		_, dname, _ := dialect.Classify(val)
		what, fix = "the socket-form URL "+dialect.Redact(dname, val), "name "+db+" as its host"
	}
	b := catalogueBasis(e, cv.Reason)
	at("UDS221", fmt.Sprintf("%s/%s is %s, but %s takes no socket there: %s (%s); %s and keep %s on TCP",
		service, key, what, e.Family, cv.Reason, b.Citation(), fix, service))
	return true
}
