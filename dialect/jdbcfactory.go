package dialect

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/uds-migrate/uds-migrate/jdbc"
)

// JDBC socket factory styles (junixsocket 2.1.2+, checked here with pgjdbc
// 42.5.5 and junixsocket 2.6.1):
//   - factoryarg: ...AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/dir/.s.PGSQL.N
//   - uri:        jdbc:postgresql://file%3A%2F%2F%2Fdir%2F.s.PGSQL.N/db?socketFactory=...$URIScheme
//   - sysprop:    ...$SystemProperty, the path in the JVM property
//     org.newsclub.net.unix.socket.default (set through JAVA_TOOL_OPTIONS)
const (
	JDBCFactoryArg     = "factoryarg"
	JDBCFactoryURI     = "uri"
	JDBCFactorySysprop = "sysprop"
)

// JDBCSocketProperty is the JVM property $SystemProperty reads.
const JDBCSocketProperty = "org.newsclub.net.unix.socket.default"

// JDBCStyle turns a $FactoryArg socket URL (jdbc.ToSocket's output) into the
// requested factory style.
func JDBCStyle(s, style string) (string, error) {
	if style == "" || style == JDBCFactoryArg {
		return s, nil
	}
	u, err := jdbc.Parse(s)
	if err != nil {
		return "", err
	}
	file, _ := u.Param("socketFactoryArg")
	var params []jdbc.Param
	for _, p := range u.Params {
		if p.Key != "socketFactoryArg" && p.Key != "socketFactory" {
			params = append(params, p)
		}
	}
	switch style {
	case JDBCFactoryURI:
		u.Hosts = []jdbc.Host{{Name: url.QueryEscape("file://" + file)}}
		u.Params = append(params, jdbc.Param{Key: "socketFactory", Value: jdbc.FactoryURIScheme})
	case JDBCFactorySysprop:
		u.Params = append(params, jdbc.Param{Key: "socketFactory", Value: jdbc.FactorySystemProperty})
	default:
		return "", fmt.Errorf("--jdbc-factory %q: want factoryarg, uri or sysprop", style)
	}
	u.HasQuery = len(u.Params) > 0
	return u.String(), nil
}

// JDBCSocketFile returns the socket file a junixsocket JDBC URL reaches:
// socketFactoryArg, the file:// host of $URIScheme, or the JVM property of
// $SystemProperty found in javaOpts (JAVA_TOOL_OPTIONS).
func JDBCSocketFile(u *jdbc.URL, javaOpts string) (string, bool) {
	f, _ := u.Param("socketFactory")
	switch {
	case strings.HasSuffix(f, "$URIScheme") && len(u.Hosts) == 1:
		h, err := url.QueryUnescape(strings.Trim(u.Hosts[0].Name, "[]"))
		if err != nil {
			return "", false
		}
		p, ok := strings.CutPrefix(h, "file://")
		return p, ok
	case strings.HasSuffix(f, "$SystemProperty"):
		for _, w := range strings.Fields(javaOpts) {
			if v, ok := strings.CutPrefix(w, "-D"+JDBCSocketProperty+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	return u.Param("socketFactoryArg")
}
