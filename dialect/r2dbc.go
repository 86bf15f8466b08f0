package dialect

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// r2dbcDialect is r2dbc-postgresql's URL, r2dbc:postgresql://host/db; over
// a socket ?socket= names the socket file (r2dbc-postgresql README, "Unix
// Domain Sockets"). The grammar helpers are in dialects.go.
var r2dbcDialect = Dialect{
	Name: R2DBC,
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "r2dbc-postgresql",
		Detail: "an r2dbc:postgresql: URL is read by r2dbc-postgresql, which takes the socket file in ?socket=",
		Cite:   []string{"https://github.com/pgjdbc/r2dbc-postgresql#connection-configuration"}},
	Match: func(val string) bool { return strings.HasPrefix(val, "r2dbc") },
	Hosts: func(val string) ([]string, bool, bool) {
		_, u, ok := r2dbcSplit(val)
		if !ok {
			return nil, false, false
		}
		if _, ok := u.Param("socket"); ok {
			return nil, true, true
		}
		var hosts []string
		for _, h := range u.Hosts {
			hosts = append(hosts, h.Name)
		}
		return hosts, false, true
	},
	ToSocket:   r2dbcToSocket,
	SocketPath: r2dbcSocketDir,
	FromSocket: r2dbcFromSocket,
	Redact: func(s string) string {
		for _, p := range r2dbcPrefixes {
			if strings.HasPrefix(s, p) {
				return p + strings.TrimPrefix(libpq.Redact("postgresql://"+s[len(p):]), "postgresql://")
			}
		}
		return libpq.Redact(s)
	},
	Check: func(c Checker, val string) string {
		_, u, ok := r2dbcSplit(val)
		if !ok {
			return ""
		}
		sockFile, ok := u.Param("socket")
		if !ok {
			return ""
		}
		if !SocketFileRE.MatchString(path.Base(sockFile)) {
			c.Report("UDS203", fmt.Sprintf("R2DBC socket= must name the socket file (%s/.s.PGSQL.<port>), not %q", strings.TrimSuffix(sockFile, "/"), sockFile))
			return ""
		}
		return sockFile
	},
}

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
func r2dbcToSocket(s, dir string, port int) (string, []Note, error) {
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
	return out, []Note{{Code: "UDS124", Message: "r2dbc-postgresql reaches a Unix socket only with netty's native epoll transport on the classpath (io.netty:netty-transport-native-epoll, classifier linux-x86_64 or linux-aarch_64)"}}, nil
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
