package rewrite

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// r2dbcDialect is r2dbc-postgresql's URL, r2dbc:postgresql://host/db; over
// a socket ?socket= names the socket file (r2dbc-postgresql README, "Unix
// Domain Sockets"). The grammar helpers are in dialects.go.
var r2dbcDialect = dialect{
	name:  DialectR2DBC,
	match: func(val string) bool { return strings.HasPrefix(val, "r2dbc") },
	hosts: func(val string) ([]string, bool, bool) {
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
	toSocket: r2dbcToSocket,
	redact: func(s string) string {
		for _, p := range r2dbcPrefixes {
			if strings.HasPrefix(s, p) {
				return p + strings.TrimPrefix(libpq.Redact("postgresql://"+s[len(p):]), "postgresql://")
			}
		}
		return libpq.Redact(s)
	},
	socketFile: func(_ *validator, at func(code, msg string), _, _, val string) string {
		_, u, ok := r2dbcSplit(val)
		if !ok {
			return ""
		}
		sockFile, ok := u.Param("socket")
		if !ok {
			return ""
		}
		if !socketFileRE.MatchString(path.Base(sockFile)) {
			at("UDS203", fmt.Sprintf("R2DBC socket= must name the socket file (%s/.s.PGSQL.<port>), not %q", strings.TrimSuffix(sockFile, "/"), sockFile))
			return ""
		}
		return sockFile
	},
}
