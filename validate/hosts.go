package validate

import (
	"fmt"
	"path"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// relativeHost returns the host of a connection value when it is a
// relative path ("./run", "var/run/postgresql"): libpq reads a host without
// a leading '/' as a TCP host name ("could not translate host name"), and
// pgx resolves a relative path its own way (jackc/pgx#661). "" otherwise.
func relativeHost(key, val string) string {
	looksRelative := func(h string) bool {
		h = strings.TrimSpace(h)
		return h != "" && !strings.HasPrefix(h, "/") && (strings.Contains(h, "/") || h == "." || h == "..") &&
			!strings.ContainsAny(h, " =@?;") && !strings.Contains(h, "://")
	}
	if d := dialect.Recognise(val); d != nil {
		// The form's own host parameter, whatever wraps it (Celery's db+
		// URL is a libpq URI to libpq).
		if d.HostParam == nil {
			return ""
		}
		if h, ok := d.HostParam(val); ok && looksRelative(h) {
			return h
		}
		return ""
	}
	switch {
	case key == "PGHOST" && looksRelative(val):
		return val
	case hostvar.IsHostKey(key) && looksRelative(val) && socketLike(val):
		return val
	}
	return ""
}

// socketLike tells a relative socket directory in an application host
// variable from other values with a slash (a CIDR range in *_ADDRESS).
func socketLike(h string) bool {
	return strings.HasPrefix(h, "./") || strings.HasPrefix(h, "../") || strings.Contains(strings.ToLower(h), "postgres") || strings.Contains(h, "run/")
}

// checkHostShape reports host values that look like a socket directory but
// are not one: a relative path (UDS215) and, in a host variable, the socket
// FILE (UDS204). It reports whether it found one.
func (v *validator) checkHostShape(at func(code, msg string), service, key, val string, ms []compose.Mount) bool {
	if rel := relativeHost(key, val); rel != "" {
		want := "the absolute directory where " + service + " mounts the socket volume"
		for _, m := range ms {
			if m.Source != "" && strings.HasSuffix(m.Target, "/"+path.Clean(rel)) {
				want = m.Target
			}
		}
		at("UDS215", fmt.Sprintf("%s/%s: host %s is a relative path: libpq reads a host without a leading / as a TCP host name (\"could not translate host name\") and pgx resolves relative paths its own way (jackc/pgx#661); a socket directory must be absolute: write %s", service, key, rel, want))
		return true
	}
	if key != "PGHOST" && hostvar.IsHostKey(key) && strings.HasPrefix(val, "/") && dialect.SocketFileRE.MatchString(path.Base(val)) {
		at("UDS204", fmt.Sprintf("%s/%s names the socket file %s; a host takes its directory (%s): libpq fails with \"Not a directory\", and so do pgbouncer and other drivers that take a host", service, key, val, path.Dir(val)))
		return true
	}
	return false
}

// checkSSLMode reports a socket value that keeps an sslmode some driver
// fails on (libpq.SocketSSLMode): URI and DSN parameters here; PGSSLMODE
// in checkPGSSLMode.
func checkSSLMode(at func(code, msg string), service, key, val string) {
	if dialect.NpgsqlSSLProblem(val) {
		at("UDS216", service+"/"+key+": over a Unix socket Npgsql's SSL Mode must be Disable, Allow or Prefer: with Require, VerifyCA or VerifyFull it throws \"SSL connection requested. No SSL enabled connection from this host is configured.\" (PostgreSQL offers no TLS on a socket)")
		return
	}
	d := dialect.Recognise(val)
	if d == nil || d.SocketSSL == nil {
		return
	}
	out, _, err := d.SocketSSL(val)
	if err == nil && out != val {
		at("UDS216", service+"/"+key+": over a Unix socket sslmode must be disable: node pg fails on every other sslmode (and on sslcert/sslkey/sslrootcert without sslmode=disable), pgjdbc and sqlx on require and verify-*; TLS does not apply on a socket, whose peer is the local server")
	}
}

// checkPGSSLMode reports PGSSLMODE with a mode some driver fails on in a
// service that reaches PostgreSQL through a libpq socket value relying on
// it. A URI or DSN with its own sslmode does not rely on it (its own wins;
// checkSSLMode judges that one). A service that also connects over TCP
// keeps PGSSLMODE for those values (UDS114): its socket PGHOST is then
// left to migrate's warning, since lowering PGSSLMODE would turn TLS off
// on the TCP connections.
func (v *validator) checkPGSSLMode(service string) {
	relies := false
	var mode *compose.EnvVar
	for _, e := range v.p.ServiceEnv(service) {
		if e.Key == "PGSSLMODE" {
			e := e
			mode = &e
		}
		if _, _, _, s := dialect.SocketRepair(e.Key, hostvar.IsHostKey(e.Key), e.Value); s && !ownSSLMode(e.Value) {
			relies = true
		}
	}
	if !relies || mode == nil {
		return
	}
	if len(v.p.TCPValues(service, nil)) > 0 {
		return
	}
	if fails, _ := libpq.SSLModeFailsOnSocket(mode.Value); fails {
		v.findings.Add("UDS216", mode.Pos, service, "PGSSLMODE",
			fmt.Sprintf("%s/PGSSLMODE=%s applies to its socket connections: node pg fails on every sslmode but disable, pgjdbc and sqlx on require and verify-*; write PGSSLMODE=disable (TLS does not apply on a socket)", service, mode.Value))
	}
}

// ownSSLMode reports whether a value sets sslmode itself (a URI, a
// Celery URL, a DSN): then PGSSLMODE does not apply to it.
func ownSSLMode(val string) bool {
	d := dialect.Recognise(val)
	return d != nil && d.OwnSSLMode != nil && d.OwnSSLMode(val)
}
