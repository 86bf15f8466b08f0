package rewrite

import "strings"

// pghostDialect is libpq's PGHOST variable: libpq (and pgx, psycopg,
// node-postgres) take a directory there as the socket directory, and
// PGPORT names its socket file (PostgreSQL docs §34.15 "Environment
// Variables"). The variable's name selects it, not its value.
var pghostDialect = dialect{
	name:     DialectPGHOST,
	toSocket: func(_, dir string, _ int) (string, []note, error) { return dir, nil, nil },
	socketFile: func(v *validator, at func(code, msg string), service, _, val string) string {
		if !strings.HasPrefix(val, "/") {
			return ""
		}
		port := ""
		for _, o := range v.p.ServiceEnv(service) {
			if o.Key == "PGPORT" {
				port = o.Value
			}
		}
		return v.libpqSocket(at, val, port)
	},
}
