// Package dialect is the one registry of the written forms of a
// PostgreSQL connection value: pgjdbc URLs, libpq URIs and keyword DSNs,
// Celery's db+ URLs, R2DBC URLs, Npgsql connection strings, PHP PDO DSNs,
// libpq's PGHOST and the host variables of applications. Each form has its
// file (jdbc.go, uri.go, ...) with its entry in the registry: how a value
// is recognised, which hosts and port it names, its socket form and the
// way back to TCP, how its passwords are redacted, and validate's check
// of its socket form (through a Checker). No other package knows a
// dialect's grammar.
package dialect

import (
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
)

// Dialects of connection values: the written forms the tool recognises,
// rewrites, redacts and validates. Each has its file (jdbc.go, uri.go, ...)
// with its entry in dialects.
const (
	Celery      = "celery-db"     // Celery's db+postgresql:// result backend
	JDBC        = "jdbc"          // pgjdbc URL
	URI         = "libpq-uri"     // libpq connection URI
	R2DBC       = "r2dbc"         // r2dbc-postgresql URL
	DSN         = "libpq-dsn"     // libpq keyword/value DSN
	PDO         = "pdo-pgsql"     // PHP PDO_PGSQL DSN
	Npgsql      = "npgsql"        // .NET Npgsql connection string
	PGHost      = "pghost"        // libpq's PGHOST variable
	HostDir     = "host-dir"      // an application's own host variable
	HostDirPort = "host-dir-port" // a host:port variable that takes DIR:port
)

// Library is a library a socket form needs on the client's classpath.
// When the service's own build manifests are visible and none declares it,
// the application cannot load what the socket value names (UDS135).
type Library struct {
	// Coordinates are what to add (Maven group:artifact).
	Coordinates string
	// Manifests are the base names of the files that declare the
	// project's dependencies (pom.xml, build.gradle ...).
	Manifests []string
	// Marker is a word every declaration of it, and its jar's name,
	// contains ("junixsocket").
	Marker string
	// Driver is a word every declaration of the driver that needs it
	// contains (pgjdbc's Maven group "org.postgresql"): a repository
	// whose Java build declares the driver and not the library builds
	// applications that cannot take the socket form.
	Driver string
}

// Dialect is one written form of a PostgreSQL connection value.
type Dialect struct {
	Name string
	// Match reports whether a value is written in this form. A value that
	// matches but does not parse is no connection value: no later dialect
	// is tried. nil for host-variable forms, which the variable's name or a
	// source of knowledge selects, not the value.
	Match func(val string) bool
	// Hosts returns the hosts a matching value names and whether it
	// already uses a Unix socket; ok is false when it does not parse.
	Hosts func(val string) (hosts []string, socket, ok bool)
	// Port returns the port a value names ("" when none).
	Port func(val string) string
	// ToSocket rewrites a (masked) value to reach the socket directory dir
	// of a server listening on port.
	ToSocket func(val, dir string, port int) (string, []Note, error)
	// SocketDir returns the socket directory a libpq-family value names
	// (ok false for none); SocketSSL writes its sslmode the one way every
	// driver accepts over a socket (UDS104). nil for the other forms.
	SocketDir func(val string) (string, bool)
	SocketSSL func(val string) (string, []Note, error)
	// SocketPath returns the socket directory or file a socket-form value
	// names (SocketFile: the file); FromSocket writes it back to TCP (host, port), for revert.
	// nil where revert does not handle the form.
	SocketPath func(val string) string
	SocketFile bool
	FromSocket func(val, host string, port int) (string, error)
	// Redact masks the passwords of a value; nil: libpq.Redact.
	Redact func(s string) string

	// Reader is what a value of the form rests on when its grammar has one
	// family of readers, each of which takes the socket form written for
	// it (pgjdbc for jdbc:postgresql:, libpq for a conninfo); nil when the
	// readers differ (ByReader) or a source of knowledge decides (host
	// variables).
	Reader *finding.Basis
	// ByReader: the socket form depends on the program that reads the
	// value (a libpq URI: empty host, localhost or an encoded host, see
	// package consumer), so its reader must be known first.
	ByReader bool
	// HostInQuery: the socket form names the directory in ?host= of a URL
	// that Rails reads as DATABASE_URL, which Rails before 7.0 ignores.
	HostInQuery bool
	// PGSSLMode: the value is read by libpq or a driver that copies its
	// environment, so PGSSLMODE applies to it over the socket too.
	// SSLDisable writes sslmode=disable into a socket value that sets no
	// sslmode of its own; nil when the form has no place for one (PGHOST).
	PGSSLMode  bool
	SSLDisable func(val string) (string, bool)
	// HostParam returns the host a value names where its drivers take a
	// socket directory (a URI's ?host=, a DSN's host=, Npgsql's and PDO's
	// Host=), for validate's shape checks (UDS215); OwnSSLMode reports
	// whether the value sets sslmode itself (then PGSSLMODE does not
	// apply to it). nil for the forms without one.
	HostParam  func(val string) (string, bool)
	OwnSSLMode func(val string) bool
	// Factory writes a socket value in one of junixsocket's factory styles
	// (--jdbc-factory); nil for the forms without a socket factory.
	// Property is the JVM property the system-property style reads.
	Factory  func(val, style string) (string, error)
	Property string
	// Replaces names what of a value the socket form replaces (pgjdbc's own
	// socketFactory), for the reviewer (UDS129).
	Replaces func(val string) (string, bool)
	// Needs says what a client needs for the socket form to work, once per
	// service (UDS101); inFile is "" for an environment value, or "KEY in
	// FILE" for a value of a configuration file nothing interpolates.
	Needs func(service, inFile string) string
	// Library is the library the socket form needs in the client itself
	// (junixsocket for pgjdbc), as a project's build manifests declare it;
	// nil for the forms that need none.
	Library *Library
	// Repair fixes a raw compose value that compose breaks as written (a
	// single-$ $FactoryArg, interpolated away), and says how; fixed == raw
	// when it needs none.
	Repair func(raw string) (fixed string, how Repaired)
	// Check is validate's check of a value that uses a socket: it
	// reports the form's own mistakes through at and returns the socket
	// file the value selects ("" when none, or when a check failed).
	Check func(c Checker, val string) string
}

// dialects is the registry, in the order values are recognised (a Celery
// db+ URL before the libpq URI inside it; PDO's pgsql: prefix before the
// Npgsql grammar it shares).
var dialects = []*Dialect{
	&celeryDialect, &jdbcDialect, &uriDialect, &r2dbcDialect, &dsnDialect,
	&pdoDialect, &npgsqlDialect, &pghostDialect, &hostDirDialect, &hostDirPortDialect,
}

// All is the registry, in the order values are recognised.
func All() []*Dialect { return slices.Clone(dialects) }

// Lookup returns the registry entry of a dialect name.
func Lookup(name string) (*Dialect, bool) {
	for _, d := range dialects {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// Recognise returns the dialect a value is written in, nil for none.
func Recognise(val string) *Dialect {
	for _, d := range dialects {
		if d.Match != nil && d.Match(val) {
			return d
		}
	}
	return nil
}

// Classify recognises a connection value and returns the hosts it names,
// its dialect ("" when it is not a PostgreSQL connection value) and whether
// it already uses a Unix socket.
func Classify(val string) (hosts []string, dialect string, socket bool) {
	d := Recognise(val)
	if d == nil {
		return nil, "", false
	}
	hosts, socket, ok := d.Hosts(val)
	if !ok {
		return nil, "", false
	}
	return hosts, d.Name, socket
}

// ToSocket rewrites a (masked) value of the given dialect to reach the
// socket directory dir of a server listening on port.
func ToSocket(name, value, dir string, port int) (string, []Note, error) {
	if d, ok := Lookup(name); ok {
		return d.ToSocket(value, dir, port)
	}
	return "", nil, fmt.Errorf("unknown dialect %q", name)
}

// notesOf turns a parser package's notes (jdbc.Note, libpq.Note) into
// findings-to-be.
func notesOf[N ~struct{ Code, Message string }](ns []N) []Note {
	var out []Note
	for _, n := range ns {
		out = append(out, Note(n))
	}
	return out
}

// SocketPathOf returns the socket directory or file a socket-form value
// of the given dialect names, "" when revert does not know the form.
func SocketPathOf(val, name string) string {
	if d, ok := Lookup(name); ok && d.SocketPath != nil {
		return d.SocketPath(val)
	}
	return ""
}

// FromSocket writes a socket-form value back to TCP: host and port.
func FromSocket(name, val, host string, port int) (string, error) {
	if d, ok := Lookup(name); ok && d.FromSocket != nil {
		return d.FromSocket(val, host, port)
	}
	return "", fmt.Errorf("revert does not handle %s values", name)
}

// URLPort returns the port a value of the given dialect names, 0 when it
// names none (or several hosts).
func URLPort(val, name string) int {
	p := ""
	if d, ok := Lookup(name); ok && d.Port != nil {
		p = d.Port(val)
	}
	n, err := strconv.Atoi(strings.TrimSpace(p))
	if err != nil || n < 1 || n > 65535 {
		return 0
	}
	return n
}

// ReaderOf returns a copy of the Reader basis of a dialect, or nil.
func ReaderOf(name string) *finding.Basis {
	d, ok := Lookup(name)
	if !ok || d.Reader == nil {
		return nil
	}
	b := *d.Reader
	return &b
}

// HostVar is the dialect of a host variable by its name: libpq's PGHOST
// (PGSSLMODE and PGPORT are recorded in that form too), any other an
// application's own.
func HostVar(key string) *Dialect {
	if key == "PGHOST" {
		return &pghostDialect
	}
	return &hostDirDialect
}

// AppHostVar is the dialect of an application's own host variable that a
// source of knowledge vouches for (catalogue, evidence, --host-var),
// written DIR:port when its value holds the port (withPort).
func AppHostVar(withPort bool) *Dialect {
	if withPort {
		return &hostDirPortDialect
	}
	return &hostDirDialect
}

// SocketDirOf returns the socket directory a socket-form value of the
// given dialect names ("" when revert and validate do not know the form):
// SocketPath, or its directory when the form names the file.
func SocketDirOf(val, name string) string {
	d, ok := Lookup(name)
	if !ok || d.SocketPath == nil {
		return ""
	}
	if p := d.SocketPath(val); d.SocketFile && p != "" {
		return path.Dir(p)
	} else {
		return p
	}
}

// Repaired says what a Repair fixed: what was written with one $, why that
// breaks, and the text that replaces it.
type Repaired struct{ What, Why, Fix string }

// RepairOf fixes a raw compose value that compose breaks as written (see
// Dialect.Repair), with the dialect whose repair it is; fixed == raw when
// no dialect repairs it.
func RepairOf(raw string) (fixed, name string, how Repaired) {
	for _, d := range dialects {
		if d.Repair == nil {
			continue
		}
		if f, h := d.Repair(raw); f != raw {
			return f, d.Name, h
		}
	}
	return raw, "", Repaired{}
}

// CheckSocket checks a socket value in the form of its dialect and returns
// the socket file it selects, "" when it selects none (or a check failed
// on it). PGHOST is chosen by its name (key).
func CheckSocket(c Checker, key, val string) string {
	d := Recognise(val)
	if d == nil && key == "PGHOST" {
		d = &pghostDialect
	}
	if d == nil || d.Check == nil {
		return ""
	}
	return d.Check(c, val)
}
