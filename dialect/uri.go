package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// uriDialect is libpq's connection URI, postgresql://user@host:port/db
// (PostgreSQL docs §34.1.1.2); over a socket the host is empty and
// ?host=/dir names the socket directory.
var uriDialect = Dialect{
	Name: URI,
	HostParam: func(val string) (string, bool) {
		u, err := libpq.ParseURI(val)
		if err != nil {
			return "", false
		}
		return u.Param("host")
	},
	OwnSSLMode: func(val string) bool {
		u, err := libpq.ParseURI(val)
		if err != nil {
			return false
		}
		_, ok := u.Param("sslmode")
		return ok
	},
	// Its readers differ on the socket form (package consumer decides).
	ByReader:    true,
	HostInQuery: true,
	PGSSLMode:   true,
	SSLDisable:  uriSSLDisable,
	Match:       libpq.IsURI,
	Hosts: func(val string) ([]string, bool, bool) {
		u, err := libpq.ParseURI(val)
		if err != nil {
			return nil, false, false
		}
		if _, ok := u.SocketDir(); ok {
			return nil, true, true
		}
		var hosts []string
		for _, h := range u.Hosts {
			if h.Name != "" {
				hosts = append(hosts, h.Name)
			}
		}
		if h, ok := u.Param("host"); ok && len(hosts) == 0 {
			hosts = strings.Split(h, ",") // postgres:///app?host=db
		}
		return hosts, false, true
	},
	Port: func(val string) string {
		p := ""
		if u, err := libpq.ParseURI(val); err == nil {
			if len(u.Hosts) == 1 {
				p = u.Hosts[0].Port
			}
			if q, ok := u.Param("port"); ok {
				p = q
			}
		}
		return p
	},
	ToSocket: func(val, dir string, port int) (string, []Note, error) {
		out, ns, err := libpq.URIToSocket(val, dir, port)
		return out, notesOf(ns), err
	},
	SocketDir: func(val string) (string, bool) {
		u, err := libpq.ParseURI(val)
		if err != nil {
			return "", false
		}
		return u.SocketDir()
	},
	SocketSSL: func(val string) (string, []Note, error) {
		out, ns, err := libpq.SocketSSLURI(val)
		return out, notesOf(ns), err
	},
	SocketPath: func(val string) string {
		if u, err := libpq.ParseURI(val); err == nil {
			s, _ := u.SocketDir()
			return s
		}
		return ""
	},
	FromSocket: libpq.URIFromSocket,
	Redact:     libpq.Redact,
	Check:      uriCheck,
}

// uriSocketFile returns the socket file of a libpq URI with a socket
// directory. A postgresql+asyncpg:// URL with a host and ?host=/DIR is not
// flagged (it was UDS213): SQLAlchemy, not asyncpg, parses it, and its
// create_connect_args takes host= from the query over the authority.
func uriCheck(c Checker, val string) string {
	u, err := libpq.ParseURI(val)
	if err != nil {
		return ""
	}
	dir, ok := u.SocketDir()
	if !ok {
		return ""
	}
	port, ok := u.Param("port")
	if !ok && len(u.Hosts) == 1 {
		port = u.Hosts[0].Port // @localhost:5433/db?host=/dir
	}
	return libpqSocket(c, dir, port)
}

// uriSSLDisable adds sslmode=disable to a libpq URI that sets no sslmode
// of its own (one it sets is already disable: the socket rule).
func uriSSLDisable(val string) (string, bool) {
	u, err := libpq.ParseURI(val)
	if err != nil {
		return val, false
	}
	if _, has := u.Param("sslmode"); has {
		return val, true
	}
	if strings.Contains(val, "?") {
		return val + "&sslmode=" + libpq.SocketSSLMode, true
	}
	return val + "?sslmode=" + libpq.SocketSSLMode, true
}
