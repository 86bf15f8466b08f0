package rewrite

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
)

// refusesSocket reports whether cv, a variable of a catalogued image that
// takes no socket (directory: false), holds one anyway: a host variable
// an absolute path (a directory or the socket file), a URL variable a
// socket-form URL. The image never starts with it (bitnami/pgbouncer
// resolves POSTGRESQL_HOST as a network host name first), so no repair of
// the path helps either.
func refusesSocket(cv *catalog.Var, val string) bool {
	if cv == nil || cv.Directory {
		return false
	}
	switch cv.Role {
	case catalog.RoleHost:
		return strings.HasPrefix(strings.TrimSpace(val), "/")
	case catalog.RoleURL:
		_, _, socket := dialect.Classify(val)
		return socket
	}
	return false
}

// checkCatalogued reports (UDS221) a socket value in a variable whose
// catalogued image takes none, and whether it did: the other checks of
// the value's shape would advise a socket form the image rejects too.
func (v *validator) checkCatalogued(at func(code, msg string), service, key, val string, ms []compose.Mount) bool {
	e, cv := v.p.catalogueVar(service, key)
	if !refusesSocket(cv, val) {
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
	b := catalogueBasis(e, cv.Reason)
	at("UDS221", fmt.Sprintf("%s/%s is the socket path %s, but %s takes no socket there: %s (%s); set it to %s and keep %s on TCP",
		service, key, dialect.Redact("", val), e.Family, cv.Reason, b.Citation(), db, service))
	return true
}
