package dialect

import (
	"fmt"
	"path"
	"regexp"
)

// Note is a finding-to-be a dialect's rewrite or check produces: a code of
// the registry (finding/codes.go) and its message; the caller adds the
// position and the service.
type Note struct{ Code, Message string }

// Checker is what a dialect's check of a socket value needs from the
// caller (validate): the service's other variables, and a place to report.
type Checker interface {
	// Env is the value of another variable of the same service ("" when
	// unset): JAVA_TOOL_OPTIONS for junixsocket's property, PGPORT.
	Env(key string) string
	// Report reports a problem of the value being checked.
	Report(code, msg string)
}

// SocketFileRE matches PostgreSQL's socket file name, .s.PGSQL.<port>.
var SocketFileRE = regexp.MustCompile(`^\.s\.PGSQL\.(\d+)$`)

// libpqSocket returns the socket file a libpq host directory and port name,
// or "" after reporting a host that names the file itself.
func libpqSocket(c Checker, dir, port string) string {
	if SocketFileRE.MatchString(path.Base(dir)) {
		c.Report("UDS204",
			fmt.Sprintf("host must name the socket directory (%s), not the socket file: libpq fails with \"not a directory\"", path.Dir(dir)))
		return ""
	}
	if port == "" {
		port = "5432"
	}
	return path.Join(dir, ".s.PGSQL."+port)
}
