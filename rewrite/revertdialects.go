package rewrite

import (
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// The inverses of the Npgsql, PDO and R2DBC socket forms (dialects.go):
// the host goes back to the database service and the port to its server
// port, every other part as written.

// npgsqlFromSocket points an Npgsql (or, with the pgsql: prefix, PDO)
// connection string at host:port over TCP.
func npgsqlFromSocket(s, host string, port int) (string, error) {
	prefix := ""
	if rest, ok := strings.CutPrefix(s, "pgsql:"); ok {
		prefix, s = "pgsql:", rest
	}
	pairs, ok := npgsqlParse(s)
	if !ok {
		return "", errors.New("not an Npgsql connection string")
	}
	out, hasPort := s, false
	for i := len(pairs) - 1; i >= 0; i-- {
		p := pairs[i]
		switch p.key {
		case "host", "server":
			out = out[:p.start] + host + out[p.end:]
		case "port":
			hasPort = true
			out = out[:p.start] + strconv.Itoa(port) + out[p.end:]
		}
	}
	if !hasPort && port != 5432 {
		sep := ";"
		if strings.HasSuffix(out, ";") {
			sep = ""
		}
		out += sep + "Port=" + strconv.Itoa(port)
	}
	return prefix + out, nil
}

// npgsqlSocketDir returns the directory an Npgsql or PDO socket value names.
func npgsqlSocketDir(s string) string {
	h, _ := npgsqlHost(strings.TrimPrefix(s, "pgsql:"))
	return h
}

// r2dbcFromSocket drops socket= and points an r2dbc-postgresql URL at
// host:port.
func r2dbcFromSocket(s, host string, port int) (string, error) {
	prefix, u, ok := r2dbcSplit(s)
	if !ok {
		return "", errors.New("not an r2dbc:postgresql URL")
	}
	u.Hosts = []libpq.Host{{Name: host, Port: strconv.Itoa(port)}}
	var params []libpq.Param
	for _, p := range u.Params {
		if p.Key != "socket" {
			params = append(params, p)
		}
	}
	u.Params = params
	u.HasQuery = len(params) > 0
	return prefix + strings.TrimPrefix(u.String(), "postgresql://"), nil
}

// r2dbcSocketDir returns the directory of the socket file an R2DBC value
// names.
func r2dbcSocketDir(s string) string {
	if _, u, ok := r2dbcSplit(s); ok {
		if f, ok := u.Param("socket"); ok {
			return path.Dir(f)
		}
	}
	return ""
}
