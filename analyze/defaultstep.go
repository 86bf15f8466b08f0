package analyze

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
)

// A hidden connection's line may be a code default (os.getenv("POSTGRES_HOST",
// "postgres"), process.env.POSTGRES_HOST || 'postgres') of a variable the
// service leaves unset. Its manual step then names the variable: setting it
// in the service's environment is the smaller change, unless the code
// pastes the variable into a URL, where a socket directory breaks the URL
// (trial 14, nickjj/docker-flask-example: f"...@{pg_host}:{pg_port}/..."),
// and the step must say so and give the URL form, naming the variable that
// overrides the built URL when the code reads one (os.getenv("DATABASE_URL", db)).

// defaultStep returns the manual step for a hidden connection at file:line
// (a display path, 1-based) of service when that line is a code default of
// a variable; "" when it is none. db is the server the line names. hostStep is the step for the line as it
// stands (write the directory in place of the host).
func (hc hiddenClients) defaultStep(service, file string, line int, db *DB, hostStep string) string {
	cl := hc.cl
	scope := cl.scopes.Of(service)
	for _, d := range evidence.Defaults(scope) {
		if d.Line != line || cl.p.DisplayPath(filepath.Join(scope.ProjectDir, filepath.FromSlash(d.File))) != file {
			continue
		}
		v, ok := evidence.Find(scope, d.Key)
		if ok && v.Pasted {
			at := fmt.Sprintf("%s:%d", cl.p.DisplayPath(filepath.Join(scope.ProjectDir, filepath.FromSlash(v.File))), v.Line)
			step := fmt.Sprintf("the line is the default of %s, which %s pastes into a URL, so a socket directory in %s or in place of %q breaks that URL: leave both, and ", d.Key, at, d.Key, d.Value)
			scheme := "postgresql"
			if m := schemeRE.FindStringSubmatch(hc.lineAt(scope, v.File, v.Line)); m != nil {
				scheme = m[1]
			}
			form := fmt.Sprintf("%s://USER:PASSWORD@/DB?host=%s", scheme, cl.opts.MountPath)
			if k := hc.urlOverride(scope, v.File, v.Line); k != "" {
				return step + fmt.Sprintf("set %s, which the code reads in place of the URL it builds, to %s in %s's environment", k, form, service)
			}
			return step + "build that URL in the socket form its reader takes, " + form
		}
		if strings.Contains(d.Value, "://") {
			// The variable holds the whole URL (os.getenv("DATABASE_URL",
			// "postgresql://app:pw@db:5432/app")): a bare directory there is
			// no URL at all (trial 11 D3 variant). The default itself is not
			// quoted: it may hold a password.
			form := urlDefaultForm(d.Value, cl.opts.MountPath, db.Port)
			return fmt.Sprintf("set %s in %s's environment to its default URL in the socket form its reader takes (%s for a libpq-family reader), or %s", d.Key, service, form, hostStep)
		}
		if strings.Contains(d.Value, "=") {
			// A keyword DSN default (host=db dbname=app): the variable is the DSN.
			return fmt.Sprintf("set %s in %s's environment to its default DSN with host=%s, or %s", d.Key, service, cl.opts.MountPath, hostStep)
		}
		return fmt.Sprintf("set %s=%s in %s's environment (the line reads it before its default %q; rerun with --host-var %s/%s to have the tool set it, if the code hands %s to a driver that takes a socket directory as host), or %s", d.Key, cl.opts.MountPath, service, d.Value, service, d.Key, d.Key, hostStep)
	}
	return ""
}

// schemeRE finds a URL's scheme on a line (postgresql+psycopg).
var schemeRE = regexp.MustCompile(`\b([a-z][a-z0-9+.-]*)://`)

// assignRE is a line that assigns to a name (db = f"...", const url = `...`).
var assignRE = regexp.MustCompile(`^\s*(?:(?:const|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*:?=`)

// urlOverride returns the variable that the code of rel reads with the
// name assigned at line n as its default (SQLALCHEMY_DATABASE_URI =
// os.getenv("DATABASE_URL", db); process.env.DATABASE_URL || url), or "".
func (hc hiddenClients) urlOverride(scope evidence.Scope, rel string, n int) string {
	m := assignRE.FindStringSubmatch(hc.lineAt(scope, rel, n))
	if m == nil {
		return ""
	}
	name := regexp.QuoteMeta(m[1])
	re := regexp.MustCompile(`(?:os\.getenv|os\.environ\.get|environ\.get)\(\s*["']([A-Za-z_][A-Za-z0-9_]*)["']\s*,\s*` + name + `\s*\)` +
		`|process\.env\.([A-Za-z_][A-Za-z0-9_]*)\s*(?:\|\||\?\?)\s*` + name + `\b`)
	data, err := scope.ReadFile(filepath.Join(scope.ProjectDir, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	if k := re.FindSubmatch(data); k != nil {
		return string(k[1]) + string(k[2])
	}
	return ""
}

// lineAt is line n (1-based) of rel, a path relative to the scope's
// project directory; "" when it cannot be read.
func (hc hiddenClients) lineAt(scope evidence.Scope, rel string, n int) string {
	data, err := scope.ReadFile(filepath.Join(scope.ProjectDir, filepath.FromSlash(rel)))
	if err != nil {
		return ""
	}
	return nthLine(data, n)
}

// nthLine is line n (1-based) of data; "" past its end.
func nthLine(data []byte, n int) string {
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	return lines[n-1]
}

// urlDefaultForm returns the libpq socket form of a URL default
// ("postgresql://app:pw@db:5432/app" → "postgresql://app:****@/app?host=DIR"),
// written by its dialect's ToSocket for a server on port, as UDS154 writes
// its forms, the password masked; a template with USER and DB when the
// default is no connection URL the dialects read.
func urlDefaultForm(value, dir string, port int) string {
	if d := dialect.Recognise(value); d != nil {
		if sock, _, err := d.ToSocket(value, dir, port); err == nil {
			return dialect.Redact(d.Name, sock)
		}
	}
	scheme := "postgresql"
	if i := strings.Index(value, "://"); i > 0 {
		scheme = value[:i]
	}
	return fmt.Sprintf("%s://USER:PASSWORD@/DB?host=%s", scheme, dir)
}
