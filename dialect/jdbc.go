package dialect

import (
	"fmt"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/jdbc"
)

// jdbcDialect is pgjdbc's URL, jdbc:postgresql://host:port/db?params. Over
// a socket it names junixsocket's factory and the socket file
// (socketFactoryArg, or the file: URI or JVM property of the other
// factory styles); the host must then be localhost (FACTS.md).
var jdbcDialect = Dialect{
	Name:  JDBC,
	Match: jdbc.IsJDBC,
	Hosts: func(val string) ([]string, bool, bool) {
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
	Port: func(val string) string {
		if u, err := jdbc.Parse(val); err == nil && len(u.Hosts) == 1 {
			return u.Hosts[0].Port
		}
		return ""
	},
	ToSocket: func(val, dir string, port int) (string, []Note, error) {
		out, ns, err := jdbc.ToSocket(val, dir+"/.s.PGSQL."+strconv.Itoa(port))
		return out, notesOf(ns), err
	},
	SocketPath: func(val string) string {
		if u, err := jdbc.Parse(val); err == nil {
			if s, ok := u.Param("socketFactoryArg"); ok {
				return s
			}
			return uriSchemePath(u)
		}
		return ""
	},
	FromSocket: func(val, host string, dbPort int) (string, error) {
		// Keep the port as written (the migration kept it on localhost).
		port := ""
		if u, err := jdbc.Parse(val); err == nil && len(u.Hosts) == 1 {
			port = u.Hosts[0].Port
			if uriSchemePath(u) != "" {
				// The host was the socket's file: URI; the port is the
				// one its file name says, written as other forms write it.
				port = strconv.Itoa(dbPort)
			}
		}
		return jdbc.FromSocket(val, host, port)
	},
	SocketFile: true,
	Redact:     jdbc.Redact,
	Check:      jdbcCheck,
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "pgjdbc",
		Detail: "a jdbc:postgresql: URL is read by pgjdbc, the driver java.sql.DriverManager hands that subprotocol to; it reaches a socket through junixsocket's socket factory (UDS101)",
		Cite:   []string{"https://jdbc.postgresql.org/documentation/use/#connection-parameters", "https://kohlschutter.github.io/junixsocket/dependency.html"}},
	Factory:  JDBCStyle,
	Property: JDBCSocketProperty,
	Replaces: func(val string) (string, bool) {
		u, err := jdbc.Parse(val)
		if err != nil {
			return "", false
		}
		f, ok := u.Param("socketFactory")
		if !ok {
			return "", false
		}
		return "socketFactory=" + f + ", which the junixsocket factory replaces; if the application relied on it (a proxy or TLS factory)", true
	},
	Needs: func(service, inFile string) string {
		const needs = "the application needs com.kohlschutter.junixsocket:junixsocket-core:2.10.1 (type pom) on its classpath, and a java.io.tmpdir where native code may be unpacked and executed"
		if inFile != "" {
			return service + " connects with pgjdbc through junixsocket (" + inFile + ", written with a single $ in $FactoryArg: nothing interpolates this file): " + needs
		}
		return service + " connects with pgjdbc through junixsocket: " + needs
	},
	// junixsocket's artifacts are com.kohlschutter.junixsocket:* (its
	// dependency page); Gradle's version catalogue names it too.
	Library: &Library{Coordinates: "com.kohlschutter.junixsocket:junixsocket-core", Marker: "junixsocket", Driver: "org.postgresql",
		Manifests: []string{"pom.xml", "build.gradle", "build.gradle.kts", "libs.versions.toml", "build.sbt", "project.clj", "deps.edn"}},
	Repair: func(raw string) (string, Repaired) {
		return fixFactoryArg(raw), Repaired{What: "$FactoryArg", Why: "compose interpolates it to an empty string and pgjdbc fails with NoSuchMethodException", Fix: "$$FactoryArg"}
	},
}

// jdbcSocketFile checks a pgjdbc URL that uses junixsocket (UDS202, UDS203,
// UDS211) and returns its socket file.
func jdbcCheck(c Checker, val string) string {
	u, err := jdbc.Parse(val)
	if err != nil || !u.IsUnixSocket() {
		return ""
	}
	factory, _ := u.Param("socketFactory")
	for _, h := range u.Hosts {
		if h.Name != "localhost" && !strings.HasSuffix(factory, "$URIScheme") {
			c.Report("UDS202",
				fmt.Sprintf("junixsocket only connects to host localhost, not %q (\"Can only connect to endpoints of type AFUNIXSocketAddress\"); write jdbc:postgresql://localhost/...", h.Name))
		}
	}
	sockFile, _ := JDBCSocketFile(u, c.Env("JAVA_TOOL_OPTIONS"))
	if !SocketFileRE.MatchString(path.Base(sockFile)) {
		c.Report("UDS203",
			fmt.Sprintf("socketFactoryArg must name the socket file (%s/.s.PGSQL.<port>), not %q", strings.TrimSuffix(sockFile, "/"), sockFile))
		return ""
	}
	for _, k := range []string{"sslmode", "ssl"} {
		if s, ok := u.Param(k); ok && (s == "require" || s == "verify-ca" || s == "verify-full" || (k == "ssl" && s == "true")) {
			c.Report("UDS211",
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

// factoryArgRE matches junixsocket's factory class followed by an
// interpolation reference: in compose YAML "$FactoryArg" is a variable
// (empty), which leaves pgjdbc with AFUNIXSocketFactory and no usable
// constructor.
var factoryArgRE = regexp.MustCompile(`(AFUNIXSocketFactory)\$(\{(FactoryArg|URIScheme|SystemProperty)\}|(FactoryArg|URIScheme|SystemProperty))`)

// fixFactoryArg escapes a single-$ inner class name as $$.
func fixFactoryArg(raw string) string {
	return factoryArgRE.ReplaceAllStringFunc(raw, func(m string) string {
		i := strings.Index(m, "$")
		return m[:i] + "$$" + strings.Trim(m[i+1:], "{}")
	})
}
