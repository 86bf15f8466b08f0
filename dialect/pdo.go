package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
)

// pdoDialect is PHP's PDO_PGSQL DSN, "pgsql:host=db;port=5432;dbname=app":
// the Npgsql grammar behind a "pgsql:" prefix. PDO hands host to libpq,
// which takes a directory for a socket (PHP manual, PDO_PGSQL DSN).
var pdoDialect = Dialect{
	Name:      PDO,
	HostParam: func(val string) (string, bool) { return NpgsqlHost(strings.TrimPrefix(val, "pgsql:")) },
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "pdo_pgsql",
		Detail: "a pgsql: DSN is read by PHP's pdo_pgsql, which hands host=/DIR to libpq",
		Cite:   []string{"https://www.php.net/manual/en/ref.pdo-pgsql.connection.php"}},
	Match: func(val string) bool { return strings.HasPrefix(val, "pgsql:") },
	Hosts: func(val string) ([]string, bool, bool) {
		h, ok := NpgsqlHost(strings.TrimPrefix(val, "pgsql:"))
		if !ok {
			return nil, false, false
		}
		return strings.Split(h, ","), strings.HasPrefix(h, "/"), true
	},
	ToSocket: func(val, dir string, port int) (string, []Note, error) {
		out, notes, err := npgsqlToSocket(strings.TrimPrefix(val, "pgsql:"), dir, port)
		return "pgsql:" + out, notes, err
	},
	Port:       func(val string) string { return NpgsqlPort(strings.TrimPrefix(val, "pgsql:")) },
	Redact:     pdoRedact,
	SocketPath: npgsqlSocketDir,
	FromSocket: npgsqlFromSocket,
	Check:      npgsqlCheck,
}

// pdoRedact masks the passwords of a PDO DSN with the Npgsql grammar's
// redactor (quoted values whole).
func pdoRedact(s string) string {
	if rest, ok := strings.CutPrefix(s, "pgsql:"); ok {
		return "pgsql:" + npgsqlRedact(rest)
	}
	return npgsqlRedact(s)
}
