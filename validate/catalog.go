package validate

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// checkCatalogued reports (UDS221) a socket value in a variable whose
// catalogued image takes none, and whether it did: the other checks of
// the value's shape would advise a socket form the image rejects too.
func (v *validator) checkCatalogued(at func(code, msg string), service, key, val string, ms []compose.Mount) bool {
	e, cv, refused := hostvar.RefusesSocket(v.p.Project, service, key, val)
	if !refused {
		return false
	}
	db := "the database's service name"
	for _, m := range ms {
		p := path.Clean(val)
		if m.Source != "" && (p == m.Target || strings.HasPrefix(p, m.Target+"/")) {
			if d, ok := v.dbMount[v.sourceKey(m)]; ok {
				db = d.Name
			}
		}
	}
	what, fix := "the socket path "+val, "set it to "+db
	if cv.Role == catalog.RoleURL {
		_, dname, _ := dialect.Classify(val)
		what, fix = "the socket-form URL "+dialect.Redact(dname, val), "name "+db+" as its host"
	}
	b := hostvar.CatalogueBasis(e, cv.Reason)
	at("UDS221", fmt.Sprintf("%s/%s is %s, but %s takes no socket there: %s (%s); %s and keep %s on TCP",
		service, key, what, e.Family, cv.Reason, b.Citation(), fix, service))
	return true
}
