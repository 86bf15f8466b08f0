package rewrite

import (
	"fmt"
)

// Dialects of connection values: the written forms the tool recognises,
// rewrites, redacts and validates. Each has its file (dialect_*.go) with
// its entry in dialects.
const (
	DialectCelery      = "celery-db"     // Celery's db+postgresql:// result backend
	DialectJDBC        = "jdbc"          // pgjdbc URL
	DialectURI         = "libpq-uri"     // libpq connection URI
	DialectR2DBC       = "r2dbc"         // r2dbc-postgresql URL
	DialectDSN         = "libpq-dsn"     // libpq keyword/value DSN
	DialectPDO         = "pdo-pgsql"     // PHP PDO_PGSQL DSN
	DialectNpgsql      = "npgsql"        // .NET Npgsql connection string
	DialectPGHOST      = "pghost"        // libpq's PGHOST variable
	DialectHostDir     = "host-dir"      // an application's own host variable
	DialectHostDirPort = "host-dir-port" // a host:port variable that takes DIR:port
)

// dialect is one written form of a PostgreSQL connection value.
type dialect struct {
	name string
	// match reports whether a value is written in this form. A value that
	// matches but does not parse is no connection value: no later dialect
	// is tried. nil for host-variable forms, which the variable's name or a
	// source of knowledge selects, not the value.
	match func(val string) bool
	// hosts returns the hosts a matching value names and whether it
	// already uses a Unix socket; ok is false when it does not parse.
	hosts func(val string) (hosts []string, socket, ok bool)
	// port returns the port a value names ("" when none).
	port func(val string) string
	// toSocket rewrites a (masked) value to reach the socket directory dir
	// of a server listening on port.
	toSocket func(val, dir string, port int) (string, []note, error)
	// socketDir returns the socket directory a libpq-family value names
	// (ok false for none); socketSSL writes its sslmode the one way every
	// driver accepts over a socket (UDS104). nil for the other forms.
	socketDir func(val string) (string, bool)
	socketSSL func(val string) (string, []note, error)
	// socketPath returns the socket directory or file a socket-form value
	// names; fromSocket writes it back to TCP (host, port), for revert.
	// nil where revert does not handle the form.
	socketPath func(val string) string
	fromSocket func(val, host string, port int) (string, error)
	// redact masks the passwords of a value; nil: libpq.Redact.
	redact func(s string) string
	// socketFile is validate's check of a value that uses a socket: it
	// reports the form's own mistakes through at and returns the socket
	// file the value selects ("" when none, or when a check failed).
	socketFile func(v *validator, at func(code, msg string), service, key, val string) string
}

// dialects is the registry, in the order values are recognised (a Celery
// db+ URL before the libpq URI inside it; PDO's pgsql: prefix before the
// Npgsql grammar it shares).
var dialects = []*dialect{
	&celeryDialect, &jdbcDialect, &uriDialect, &r2dbcDialect, &dsnDialect,
	&pdoDialect, &npgsqlDialect, &pghostDialect, &hostDirDialect, &hostDirPortDialect,
}

// lookupDialect returns the registry entry of a dialect name.
func lookupDialect(name string) (*dialect, bool) {
	for _, d := range dialects {
		if d.name == name {
			return d, true
		}
	}
	return nil, false
}

// recognise returns the dialect a value is written in, nil for none.
func recognise(val string) *dialect {
	for _, d := range dialects {
		if d.match != nil && d.match(val) {
			return d
		}
	}
	return nil
}

// classify recognises a connection value and returns the hosts it names,
// its dialect ("" when it is not a PostgreSQL connection value) and whether
// it already uses a Unix socket.
func classify(val string) (hosts []string, dialect string, socket bool) {
	d := recognise(val)
	if d == nil {
		return nil, "", false
	}
	hosts, socket, ok := d.hosts(val)
	if !ok {
		return nil, "", false
	}
	return hosts, d.name, socket
}

// toSocket rewrites a (masked) value of the given dialect to reach the
// socket directory dir of a server listening on port.
func toSocket(name, value, dir string, port int) (string, []note, error) {
	if d, ok := lookupDialect(name); ok {
		return d.toSocket(value, dir, port)
	}
	return "", nil, fmt.Errorf("unknown dialect %q", name)
}

// notesOf turns a parser package's notes (jdbc.Note, libpq.Note) into
// findings-to-be.
func notesOf[N ~struct{ Code, Message string }](ns []N) []note {
	var out []note
	for _, n := range ns {
		out = append(out, note(n))
	}
	return out
}

// socketPathOf returns the socket directory or file a socket-form value
// of the given dialect names, "" when revert does not know the form.
func socketPathOf(val, name string) string {
	if d, ok := lookupDialect(name); ok && d.socketPath != nil {
		return d.socketPath(val)
	}
	return ""
}

// fromSocket writes a socket-form value back to TCP: host and port.
func fromSocket(name, val, host string, port int) (string, error) {
	if d, ok := lookupDialect(name); ok && d.fromSocket != nil {
		return d.fromSocket(val, host, port)
	}
	return "", fmt.Errorf("revert does not handle %s values", name)
}

// urlPort returns the port a value of the given dialect names, 0 when it
// names none (or several hosts).
func urlPort(val, name string) int {
	p := ""
	if d, ok := lookupDialect(name); ok && d.port != nil {
		p = d.port(val)
	}
	n, _ := atoiPort(p)
	return n
}

// socketFile checks a socket value in the form of its dialect and returns
// the socket file it selects, "" when it selects none (or a check failed
// on it). PGHOST is chosen by its name.
func (v *validator) socketFile(at func(code, msg string), service, key, val string) string {
	d := recognise(val)
	if d == nil && key == "PGHOST" {
		d = &pghostDialect
	}
	if d == nil || d.socketFile == nil {
		return ""
	}
	return d.socketFile(v, at, service, key, val)
}
