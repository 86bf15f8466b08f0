package rewrite

import "strings"

// npgsqlDialect is the .NET Npgsql connection string,
// "Host=db;Port=5432;Database=app"; Npgsql takes a Host starting with / as
// the socket directory (Npgsql docs, "Connection String Parameters"). The
// grammar (.NET's connection-string rules) is in npgsqlconn.go, the host,
// port and socket form in dialects.go.
var npgsqlDialect = dialect{
	name: DialectNpgsql,
	match: func(val string) bool {
		_, ok := npgsqlHost(val)
		return ok
	},
	hosts: func(val string) ([]string, bool, bool) {
		h, ok := npgsqlHost(val)
		if !ok {
			return nil, false, false
		}
		if strings.HasPrefix(h, "/") {
			return nil, true, true
		}
		return strings.Split(h, ","), false, true
	},
	port:       npgsqlPort,
	toSocket:   npgsqlToSocket,
	redact:     npgsqlRedact,
	socketFile: (*validator).npgsqlSocketFile,
}

// npgsqlSocketFile returns the socket file of an Npgsql connection string
// with a directory as Host, or of a PHP PDO DSN (the same grammar behind
// "pgsql:"), "" for any other value.
func (v *validator) npgsqlSocketFile(at func(code, msg string), _, _, val string) string {
	s := strings.TrimPrefix(val, "pgsql:")
	h, ok := npgsqlHost(s)
	if !ok || !strings.HasPrefix(h, "/") {
		return ""
	}
	return v.libpqSocket(at, h, npgsqlPort(s))
}
