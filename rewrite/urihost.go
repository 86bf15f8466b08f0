package rewrite

import "github.com/uds-migrate/uds-migrate/libpq"

// authorityHost writes the catalogue's uri_host (localhost) into the empty
// authority of a socket-form URI out when the service's image checks its
// URL with WHATWG new URL() (Prisma apps), which rejects
// "postgresql://u:pw@/db?host=/dir"; the ?host= parameter still names the
// socket directory for libpq, pgx, node-postgres and Prisma. The edge then
// carries the catalogue entry as its basis. Other values are returned as
// they are.
func (pl *planner) authorityHost(e *edge, out string) (string, error) {
	ent, cv := pl.catalogueVar(e.v.service, e.v.key)
	if cv == nil || cv.URIHost == "" {
		return out, nil
	}
	if e.basis == nil {
		b := catalogueBasis(ent, cv.Reason)
		e.basis = &b
	}
	return libpq.WithAuthorityHost(out, cv.URIHost)
}
