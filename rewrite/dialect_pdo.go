package rewrite

import "strings"

// pdoDialect is PHP's PDO_PGSQL DSN, "pgsql:host=db;port=5432;dbname=app":
// the Npgsql grammar behind a "pgsql:" prefix. PDO hands host to libpq,
// which takes a directory for a socket (PHP manual, PDO_PGSQL DSN).
var pdoDialect = dialect{
	name:  DialectPDO,
	match: func(val string) bool { return strings.HasPrefix(val, "pgsql:") },
	hosts: func(val string) ([]string, bool, bool) {
		h, ok := npgsqlHost(strings.TrimPrefix(val, "pgsql:"))
		if !ok {
			return nil, false, false
		}
		return strings.Split(h, ","), strings.HasPrefix(h, "/"), true
	},
	toSocket: func(val, dir string, port int) (string, []note, error) {
		out, notes, err := npgsqlToSocket(strings.TrimPrefix(val, "pgsql:"), dir, port)
		return "pgsql:" + out, notes, err
	},
	redact:     func(s string) string { return npgsqlPasswordRE.ReplaceAllString(s, "${1}****") },
	socketFile: (*validator).npgsqlSocketFile,
}
