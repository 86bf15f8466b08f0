package rewrite

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// dsnDialect is libpq's keyword/value DSN, "host=db port=5432 dbname=app"
// (PostgreSQL docs §34.1.1.1); over a socket host is the socket directory
// (or an @abstract name).
var dsnDialect = dialect{
	name:  DialectDSN,
	match: libpq.IsDSN,
	hosts: func(val string) ([]string, bool, bool) {
		d, err := libpq.ParseDSN(val)
		if err != nil {
			return nil, false, false
		}
		h, _ := d.Get("host")
		if strings.HasPrefix(h, "/") || strings.HasPrefix(h, "@") {
			return nil, true, true
		}
		var hosts []string
		for _, x := range strings.Split(h, ",") {
			hosts = append(hosts, strings.TrimSpace(x))
		}
		return hosts, false, true
	},
	port: func(val string) string {
		p := ""
		if d, err := libpq.ParseDSN(val); err == nil {
			p, _ = d.Get("port")
		}
		return p
	},
	toSocket: func(val, dir string, port int) (string, []note, error) {
		out, ns, err := libpq.DSNToSocket(val, dir, port)
		return out, notesOf(ns), err
	},
	socketDir: dsnSocketDir,
	socketSSL: func(val string) (string, []note, error) {
		out, ns, err := libpq.SocketSSLDSN(val)
		return out, notesOf(ns), err
	},
	redact: libpq.Redact,
	socketFile: func(v *validator, at func(code, msg string), _, _, val string) string {
		dir, ok := dsnSocketDir(val)
		if !ok {
			return ""
		}
		d, _ := libpq.ParseDSN(val)
		port, _ := d.Get("port")
		return v.libpqSocket(at, dir, port)
	},
}

// dsnSocketDir returns the host of a DSN when it is a socket directory.
func dsnSocketDir(val string) (string, bool) {
	d, err := libpq.ParseDSN(val)
	if err != nil {
		return "", false
	}
	h, _ := d.Get("host")
	return h, strings.HasPrefix(h, "/")
}
