package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
)

// pghostDialect is libpq's PGHOST variable: libpq (and pgx, psycopg,
// node-postgres) take a directory there as the socket directory, and
// PGPORT names its socket file (PostgreSQL docs §34.15 "Environment
// Variables"). The variable's name selects it, not its value.
var pghostDialect = Dialect{
	Name: PGHost,
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "libpq environment",
		Detail: "PGHOST is read by libpq and the drivers that copy its environment (psycopg, pgx, lib/pq, node-postgres, asyncpg), each of which takes a directory as the socket directory",
		Cite:   []string{"https://www.postgresql.org/docs/current/libpq-envars.html"}},
	// libpq reads PGSSLMODE beside it; the variable has no place for an
	// sslmode of its own (no SSLDisable).
	PGSSLMode: true,
	ToSocket:  func(_, dir string, _ int) (string, []Note, error) { return dir, nil, nil },
	Check: func(c Checker, val string) string {
		if !strings.HasPrefix(val, "/") {
			return ""
		}
		return libpqSocket(c, val, c.Env("PGPORT"))
	},
}
