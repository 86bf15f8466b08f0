package rewrite

import (
	"fmt"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/jdbc"
)

// jdbcDialect is pgjdbc's URL, jdbc:postgresql://host:port/db?params. Over
// a socket it names junixsocket's factory and the socket file
// (socketFactoryArg, or the file: URI or JVM property of the other
// factory styles); the host must then be localhost (FACTS.md).
var jdbcDialect = dialect{
	name:  DialectJDBC,
	match: jdbc.IsJDBC,
	hosts: func(val string) ([]string, bool, bool) {
		u, err := jdbc.Parse(val)
		if err != nil {
			return nil, false, false
		}
		var hosts []string
		for _, h := range u.Hosts {
			hosts = append(hosts, h.Name)
		}
		if !u.HasAuthority {
			hosts = []string{"localhost"}
		}
		return hosts, u.IsUnixSocket(), true
	},
	port: func(val string) string {
		if u, err := jdbc.Parse(val); err == nil && len(u.Hosts) == 1 {
			return u.Hosts[0].Port
		}
		return ""
	},
	toSocket: func(val, dir string, port int) (string, []note, error) {
		out, ns, err := jdbc.ToSocket(val, dir+"/.s.PGSQL."+strconv.Itoa(port))
		return out, notesOf(ns), err
	},
	socketPath: func(val string) string {
		if u, err := jdbc.Parse(val); err == nil {
			if s, ok := u.Param("socketFactoryArg"); ok {
				return s
			}
			return uriSchemePath(u)
		}
		return ""
	},
	fromSocket: func(val, host string, dbPort int) (string, error) {
		// Keep the port as written (the migration kept it on localhost).
		port := ""
		if u, err := jdbc.Parse(val); err == nil && len(u.Hosts) == 1 {
			port = u.Hosts[0].Port
			if uriSchemePath(u) != "" && dbPort != 5432 {
				port = strconv.Itoa(dbPort) // the host was the socket's file: URI
			}
		}
		return jdbc.FromSocket(val, host, port)
	},
	redact:     jdbc.Redact,
	socketFile: (*validator).jdbcSocketFile,
}

// jdbcSocketFile checks a pgjdbc URL that uses junixsocket (UDS202, UDS203,
// UDS211) and returns its socket file.
func (v *validator) jdbcSocketFile(at func(code, msg string), service, _, val string) string {
	u, err := jdbc.Parse(val)
	if err != nil || !u.IsUnixSocket() {
		return ""
	}
	factory, _ := u.Param("socketFactory")
	for _, h := range u.Hosts {
		if h.Name != "localhost" && !strings.HasSuffix(factory, "$URIScheme") {
			at("UDS202",
				fmt.Sprintf("junixsocket only connects to host localhost, not %q (\"Can only connect to endpoints of type AFUNIXSocketAddress\"); write jdbc:postgresql://localhost/...", h.Name))
		}
	}
	javaOpts := ""
	for _, o := range v.p.ServiceEnv(service) {
		if o.Key == "JAVA_TOOL_OPTIONS" {
			javaOpts = o.Value
		}
	}
	sockFile, _ := jdbcSocketFile(u, javaOpts)
	if !socketFileRE.MatchString(path.Base(sockFile)) {
		at("UDS203",
			fmt.Sprintf("socketFactoryArg must name the socket file (%s/.s.PGSQL.<port>), not %q", strings.TrimSuffix(sockFile, "/"), sockFile))
		return ""
	}
	for _, k := range []string{"sslmode", "ssl"} {
		if s, ok := u.Param(k); ok && (s == "require" || s == "verify-ca" || s == "verify-full" || (k == "ssl" && s == "true")) {
			at("UDS211",
				fmt.Sprintf("%s=%s fails over a Unix socket with pgjdbc (\"The server does not support SSL.\"); drop it", k, s))
		}
	}
	return sockFile
}

// uriSchemePath returns the socket file of junixsocket's $URIScheme form,
// whose host is the URL-encoded file:///DIR/.s.PGSQL.PORT, or "".
func uriSchemePath(u *jdbc.URL) string {
	if len(u.Hosts) != 1 {
		return ""
	}
	h, err := url.PathUnescape(u.Hosts[0].Name)
	if err != nil {
		return ""
	}
	if p, ok := strings.CutPrefix(h, "file://"); ok && strings.HasPrefix(p, "/") {
		return p
	}
	return ""
}
