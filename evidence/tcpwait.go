package evidence

import (
	"path"
	"regexp"
	"strings"
)

// tcpWaitReader: a script hands the variable to a program that dials it as
// a TCP host name: wait-for-it "${POSTGRES_HOST}:${POSTGRES_PORT}"
// (cookiecutter-django's entrypoint, under errexit), wait-for, dockerize
// -wait tcp://, nc/netcat, bash's /dev/tcp, curl/wget, or a HOST:PORT
// pair pasted together. A socket directory there gives it a name no
// resolver knows, and the wait fails (the container stops under set -e, or
// waits out its timeout). pg_isready and psql are not among them: they are
// libpq, which takes the directory.
var tcpWaitReader = reader{
	match: scriptFile,
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		q := regexp.QuoteMeta(key)
		ref := `\$\{?` + q + `\b[^}\s"']*\}?`
		line, ok := firstLine(data, `(?:\bwait-for-it\b|\bwait-for\b|\bdockerize\b|\bnc\b|\bnetcat\b|\btelnet\b|\bcurl\b|\bwget\b)[^\n]*`+ref+
			`|/dev/tcp/`+ref+`|`+ref+`["']?:["']?(?:\$\{?[A-Za-z_][A-Za-z0-9_]*|[0-9]{2,5}\b)`)
		if !ok {
			return Verdict{}, false
		}
		return Verdict{Directory: false, Driver: "a TCP wait", Line: line,
			Reason: key + " is dialled as a TCP host name by a script (a wait for the server, or HOST:PORT pasted together), where a socket directory names no host and the wait fails",
			Advice: "make the script wait with pg_isready -h \"$" + key + "\" (libpq takes the directory) or drop the wait, then set " + key + " to the socket directory by hand"}, true
	},
}

// scriptFile reports whether rel is a shell script or a Dockerfile: by
// extension, or by the names entrypoints and start scripts take without
// one (entrypoint, docker-entrypoint.sh, start, wait-for-postgres).
func scriptFile(rel string) bool {
	b := path.Base(rel)
	return strings.HasSuffix(b, ".sh") || strings.HasSuffix(b, ".bash") || b == "Dockerfile" ||
		strings.HasPrefix(b, "Dockerfile.") || strings.HasSuffix(b, ".Dockerfile") || strings.Contains(b, "entrypoint") ||
		strings.HasPrefix(b, "docker-") || strings.HasPrefix(b, "wait-for") || strings.HasPrefix(b, "start")
}

// FindInCommand returns the verdict of a service's own compose command,
// entrypoint or healthcheck test (text: its words joined with spaces, $$
// as compose leaves it, $): a TCP wait or dial (`until nc -z $PGHOST
// 5432`, `dockerize -wait tcp://${DB_HOST}:5432`) or a pgjdbc URL built
// from the variable. Only consumers that take no directory are reported:
// a command that hands the variable to libpq (pg_isready -h) says nothing
// the readers of the project's files do not. File and Source are the
// caller's.
func FindInCommand(text, key string) (Verdict, bool) {
	for _, r := range []reader{tcpWaitReader, jdbcReader} {
		if v, ok := r.find([]byte(text), key, nil); ok && !v.Directory {
			v.Line = 0
			return v, true
		}
	}
	return Verdict{}, false
}
