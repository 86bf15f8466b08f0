package rewrite

import (
	"errors"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// Grammar helpers of the R2DBC and Npgsql dialects (dialect_r2dbc.go,
// dialect_npgsql.go, dialect_pdo.go).

var r2dbcPrefixes = []string{"r2dbc:postgresql://", "r2dbc:pool:postgresql://", "r2dbcs:postgresql://"}

// r2dbcSplit returns the R2DBC prefix and the URL rewritten as a libpq URI
// (same authority, path and query grammar), or ok false.
func r2dbcSplit(s string) (prefix string, u *libpq.URI, ok bool) {
	for _, p := range r2dbcPrefixes {
		if strings.HasPrefix(s, p) {
			u, err := libpq.ParseURI("postgresql://" + s[len(p):])
			if err != nil {
				return "", nil, false
			}
			return p, u, true
		}
	}
	return "", nil, false
}

// r2dbcToSocket points an r2dbc-postgresql URL at a socket file: host
// localhost (the driver ignores it once socket= is set) and
// socket=<dir>/.s.PGSQL.<port>, every other part kept (r2dbc-postgresql
// README, "Unix Domain Sockets").
func r2dbcToSocket(s, dir string, port int) (string, []note, error) {
	prefix, u, ok := r2dbcSplit(s)
	if !ok {
		return "", nil, errors.New("not an r2dbc:postgresql URL")
	}
	if len(u.Hosts) > 1 {
		return "", nil, libpq.ErrMultiHost
	}
	file := dir + "/.s.PGSQL." + strconv.Itoa(port)
	if v, ok := u.Param("socket"); ok && v == file {
		return s, nil, nil
	}
	u.Hosts = []libpq.Host{{Name: "localhost"}}
	var params []libpq.Param
	for _, p := range u.Params {
		if p.Key != "socket" {
			params = append(params, p)
		}
	}
	u.Params = append(params, libpq.Param{Key: "socket", Value: file})
	u.HasQuery = true
	out := prefix + strings.TrimPrefix(u.String(), "postgresql://")
	return out, []note{{Code: "UDS124", Message: "r2dbc-postgresql reaches a Unix socket only with netty's native epoll transport on the classpath (io.netty:netty-transport-native-epoll, classifier linux-x86_64 or linux-aarch_64)"}}, nil
}

// npgsqlParse splits "Host=db;Port=5432;Database=app" into pairs
// (npgsqlPairs). ok is false unless it parses and names a host (Host or
// Server) and a database, user or password.
func npgsqlParse(s string) ([]npgsqlPair, bool) {
	pairs, err := npgsqlPairs(s)
	if err != nil || !strings.Contains(s, ";") {
		return nil, false
	}
	host, other := false, false
	for _, p := range pairs {
		switch p.key {
		case "host", "server":
			host = true
		case "database", "db", "dbname", "username", "user name", "user id", "userid", "uid", "user", "password", "psw", "pwd":
			other = true
		}
	}
	return pairs, host && other
}

// npgsqlHost returns the host an Npgsql connection string names, each
// host of a list without the ":port" Npgsql splits off (npgsqlSplitHostPort).
func npgsqlHost(s string) (string, bool) {
	pairs, ok := npgsqlParse(s)
	if !ok {
		return "", false
	}
	h := ""
	for _, p := range pairs {
		if p.key == "host" || p.key == "server" {
			h = strings.TrimSpace(p.value) // the last one wins, as in .NET
		}
	}
	hosts := strings.Split(h, ",")
	for i, x := range hosts {
		hosts[i], _ = npgsqlSplitHostPort(strings.TrimSpace(x))
	}
	return strings.Join(hosts, ","), true
}

// npgsqlPort returns the port an Npgsql connection string reaches: the one
// written in Host ("db:5433", which wins over Port=), else Port=, else "".
func npgsqlPort(s string) string {
	pairs, ok := npgsqlParse(s)
	if !ok {
		return ""
	}
	port := ""
	for _, p := range pairs {
		switch p.key {
		case "port":
			port = strings.TrimSpace(p.value)
		}
	}
	for _, p := range pairs {
		if p.key == "host" || p.key == "server" {
			if _, hp := npgsqlSplitHostPort(strings.TrimSpace(p.value)); hp != "" && !strings.Contains(p.value, ",") {
				port = hp
			}
		}
	}
	return port
}

// npgsqlToSocket sets Host to the socket directory (Npgsql treats a Host
// starting with / as a Unix socket directory; Npgsql docs, "Connection
// String Parameters") and Port to the server port, changing nothing else.
// A ":port" written in Host goes with the host; Port= then carries it.
func npgsqlToSocket(s, dir string, port int) (string, []note, error) {
	pairs, ok := npgsqlParse(s)
	if !ok {
		if err := npgsqlSyntax(s); err != nil {
			return "", nil, err
		}
		return "", nil, errors.New("not an Npgsql connection string")
	}
	out := s
	hasPort := false
	// Replace from the end so earlier offsets stay valid.
	for i := len(pairs) - 1; i >= 0; i-- {
		p := pairs[i]
		switch p.key {
		case "host", "server":
			if strings.Contains(p.value, ",") {
				return "", nil, libpq.ErrMultiHost
			}
			if p.value != dir {
				out = out[:p.start] + npgsqlQuote(dir) + out[p.end:]
			}
		case "port":
			hasPort = true
			if strings.TrimSpace(p.value) != strconv.Itoa(port) {
				out = out[:p.start] + strconv.Itoa(port) + out[p.end:]
			}
		}
	}
	if !hasPort && port != 5432 {
		sep := ";"
		if strings.HasSuffix(out, ";") {
			sep = ""
		}
		out += sep + "Port=" + strconv.Itoa(port)
	}
	return out, nil, nil
}
