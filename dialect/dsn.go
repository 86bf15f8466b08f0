package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// dsnDialect is libpq's keyword/value DSN, "host=db port=5432 dbname=app"
// (PostgreSQL docs §34.1.1.1); over a socket host is the socket directory
// (or an @abstract name).
var dsnDialect = Dialect{
	Name: DSN,
	HostParam: func(val string) (string, bool) {
		d, err := libpq.ParseDSN(val)
		if err != nil {
			return "", false
		}
		return d.Get("host")
	},
	OwnSSLMode: func(val string) bool {
		d, err := libpq.ParseDSN(val)
		if err != nil {
			return false
		}
		_, ok := d.Get("sslmode")
		return ok
	},
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "libpq conninfo",
		Detail: "a keyword/value conninfo is read by libpq and the drivers that copy its grammar (psycopg, pgx, lib/pq), each of which takes host=/DIR as the socket directory",
		Cite:   []string{"https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING-KEYWORD-VALUE"}},
	PGSSLMode: true,
	SSLDisable: func(val string) (string, bool) {
		d, err := libpq.ParseDSN(val)
		if err != nil {
			return val, false
		}
		if _, has := d.Get("sslmode"); has {
			return val, true
		}
		return val + " sslmode=" + libpq.SocketSSLMode, true
	},
	Match: libpq.IsDSN,
	Hosts: func(val string) ([]string, bool, bool) {
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
	Port: func(val string) string {
		p := ""
		if d, err := libpq.ParseDSN(val); err == nil {
			p, _ = d.Get("port")
		}
		return p
	},
	ToSocket: func(val, dir string, port int) (string, []Note, error) {
		out, ns, err := libpq.DSNToSocket(val, dir, port)
		return out, notesOf(ns), err
	},
	SocketDir: dsnSocketDir,
	SocketSSL: func(val string) (string, []Note, error) {
		out, ns, err := libpq.SocketSSLDSN(val)
		return out, notesOf(ns), err
	},
	SocketPath: func(val string) string {
		if d, err := libpq.ParseDSN(val); err == nil {
			s, _ := d.Get("host")
			return s
		}
		return ""
	},
	FromSocket: libpq.DSNFromSocket,
	Redact:     libpq.Redact,
	Check: func(c Checker, val string) string {
		dir, ok := dsnSocketDir(val)
		if !ok {
			return ""
		}
		d, _ := libpq.ParseDSN(val)
		port, _ := d.Get("port")
		return libpqSocket(c, dir, port)
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
