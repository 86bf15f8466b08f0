package dialect

import (
	"errors"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// npgsqlDialect is the .NET Npgsql connection string,
// "Host=db;Port=5432;Database=app"; Npgsql takes a Host starting with / as
// the socket directory (Npgsql docs, "Connection String Parameters"). The
// grammar (.NET's connection-string rules) is in npgsqlconn.go, the host,
// port and socket form in dialects.go.
var npgsqlDialect = Dialect{
	Name:      Npgsql,
	HostParam: NpgsqlHost,
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "Npgsql",
		Detail: "a Host=...;Port=... connection string is read by Npgsql, which takes a Host starting with / as the socket directory",
		Cite:   []string{"https://www.npgsql.org/doc/connection-string-parameters.html"}},
	Match: func(val string) bool {
		_, ok := NpgsqlHost(val)
		return ok
	},
	Hosts: func(val string) ([]string, bool, bool) {
		h, ok := NpgsqlHost(val)
		if !ok {
			return nil, false, false
		}
		if strings.HasPrefix(h, "/") {
			return nil, true, true
		}
		return strings.Split(h, ","), false, true
	},
	Port:       NpgsqlPort,
	ToSocket:   npgsqlToSocketSSL,
	Redact:     npgsqlRedact,
	SocketPath: npgsqlSocketDir,
	FromSocket: npgsqlFromSocket,
	Check:      npgsqlCheck,
}

// npgsqlSocketFile returns the socket file of an Npgsql connection string
// with a directory as Host, or of a PHP PDO DSN (the same grammar behind
// "pgsql:"), "" for any other value.
func npgsqlCheck(c Checker, val string) string {
	s := strings.TrimPrefix(val, "pgsql:")
	h, ok := NpgsqlHost(s)
	if !ok || !strings.HasPrefix(h, "/") {
		return ""
	}
	return libpqSocket(c, h, NpgsqlPort(s))
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

// NpgsqlHost returns the host an Npgsql connection string names, each
// host of a list without the ":port" Npgsql splits off (npgsqlSplitHostPort).
func NpgsqlHost(s string) (string, bool) {
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

// NpgsqlPort returns the port an Npgsql connection string reaches: the one
// written in Host ("db:5433", which wins over Port=), else Port=, else "".
func NpgsqlPort(s string) string {
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
func npgsqlToSocket(s, dir string, port int) (string, []Note, error) {
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
	h, _ := NpgsqlHost(strings.TrimPrefix(s, "pgsql:"))
	return h
}
