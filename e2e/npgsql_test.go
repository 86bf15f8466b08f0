package e2e

import (
	"path"
	"strconv"
	"strings"
)

// parseNpgsql reads an Npgsql connection string whose Host is a socket
// directory, and returns the socket Npgsql opens. There is no .NET runtime
// here, so the string is read by the documented rules and the probe
// connects to that socket with libpq and pgx:
//   - grammar: .NET's DbConnectionStringBuilder (dotnet/SqlClient
//     DbConnectionOptions.Common.cs GetKeyValuePair, the System.Data.Common
//     parser): pairs split on ';', keywords case-insensitive, a value in
//     '...' or "..." with the quote doubled inside, else trimmed to ';';
//   - keywords: Host/Server, Port, Database/DB, Username/User Name/UserId/
//     User Id/UID, Password/PSW/PWD (npgsql/npgsql
//     src/Npgsql/NpgsqlConnectionStringBuilder.cs);
//   - a Host starting with / is a socket directory and the socket file is
//     Path.Combine(Host, ".s.PGSQL." + Port) (IsUnixSocket, same file);
//     Port defaults to 5432.
func parseNpgsql(v string) (edge, bool) {
	kv, ok := adoPairs(v)
	if !ok || !strings.Contains(v, ";") {
		return edge{}, false
	}
	host := first(kv, "host", "server")
	if !strings.HasPrefix(host, "/") {
		return edge{}, false
	}
	e := edge{dialect: "npgsql", value: v, dir: path.Clean(host), port: 5432,
		user: first(kv, "username", "user name", "userid", "user id", "uid"), password: first(kv, "password", "psw", "pwd"),
		database: first(kv, "database", "db")}
	if p := first(kv, "port"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			return edge{}, false
		}
		e.port = n
	}
	return e, true
}

func first(kv map[string]string, keys ...string) string {
	for _, k := range keys {
		if v, ok := kv[k]; ok {
			return v
		}
	}
	return ""
}

// adoPairs splits an ADO.NET connection string; the last of a repeated
// keyword wins. ok is false on an unbalanced quote.
func adoPairs(s string) (map[string]string, bool) {
	out := map[string]string{}
	for i := 0; ; {
		for i < len(s) && (s[i] == ';' || s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return out, true
		}
		eq := strings.IndexByte(s[i:], '=')
		if eq < 0 {
			return nil, false
		}
		key := strings.ToLower(strings.TrimRight(s[i:i+eq], " \t"))
		i += eq + 1
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		var val string
		if i < len(s) && (s[i] == '\'' || s[i] == '"') {
			q := s[i]
			var b strings.Builder
			for i++; ; i++ {
				if i == len(s) {
					return nil, false
				}
				if s[i] == q && i+1 < len(s) && s[i+1] == q {
					b.WriteByte(q)
					i++
				} else if s[i] == q {
					i++
					break
				} else {
					b.WriteByte(s[i])
				}
			}
			val = b.String()
		} else {
			end := strings.IndexByte(s[i:], ';')
			if end < 0 {
				end = len(s) - i
			}
			val = strings.TrimSpace(s[i : i+end])
			i += end
		}
		out[key] = val
	}
}
