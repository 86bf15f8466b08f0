package dialect

import "strings"

// pghostDialect is libpq's PGHOST variable: libpq (and pgx, psycopg,
// node-postgres) take a directory there as the socket directory, and
// PGPORT names its socket file (PostgreSQL docs §34.15 "Environment
// Variables"). The variable's name selects it, not its value.
var pghostDialect = Dialect{
	Name:     PGHost,
	ToSocket: func(_, dir string, _ int) (string, []Note, error) { return dir, nil, nil },
	Check: func(c Checker, val string) string {
		if !strings.HasPrefix(val, "/") {
			return ""
		}
		return libpqSocket(c, val, c.Env("PGPORT"))
	},
}
