package rewrite

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// celeryDialect is Celery's database result backend: a SQLAlchemy URL
// behind a "db+" prefix (CELERY_RESULT_BACKEND=db+postgresql://...).
// Celery strips the prefix and hands the rest to SQLAlchemy, whose
// psycopg dialects take ?host=/dir as the socket directory (Celery docs,
// "Database backend settings": result_backend = 'db+postgresql://...').
var celeryDialect = dialect{
	name: DialectCelery,
	match: func(val string) bool {
		_, ok := celeryURL(val)
		return ok
	},
	hosts: func(val string) ([]string, bool, bool) {
		rest, _ := celeryURL(val)
		if !uriDialect.match(rest) {
			return nil, false, false
		}
		return uriDialect.hosts(rest)
	},
	port: func(val string) string { return uriDialect.port(strings.TrimPrefix(val, celeryPrefix)) },
	toSocket: func(val, dir string, port int) (string, []note, error) {
		out, notes, err := uriDialect.toSocket(strings.TrimPrefix(val, celeryPrefix), dir, port)
		return celeryPrefix + out, notes, err
	},
	redact: func(s string) string {
		rest, _ := celeryURL(s)
		return celeryPrefix + libpq.Redact(rest)
	},
	socketFile: func(v *validator, at func(code, msg string), service, key, val string) string {
		rest, _ := celeryURL(val)
		return v.uriSocketFile(at, service, key, rest)
	},
}

const celeryPrefix = "db+"

// celeryURL returns the SQLAlchemy URL behind a Celery db+ prefix.
func celeryURL(val string) (string, bool) {
	rest, ok := strings.CutPrefix(val, celeryPrefix)
	if !ok || !libpq.IsURI(rest) {
		return "", false
	}
	return rest, true
}
