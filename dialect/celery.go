package dialect

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// celeryDialect is Celery's database result backend: a SQLAlchemy URL
// behind a "db+" prefix (CELERY_RESULT_BACKEND=db+postgresql://...).
// Celery strips the prefix and hands the rest to SQLAlchemy, whose
// psycopg dialects take ?host=/dir as the socket directory (Celery docs,
// "Database backend settings": result_backend = 'db+postgresql://...').
var celeryDialect = Dialect{
	Name: Celery,
	// SQLAlchemy's URL behind db+ is a libpq URI to these checks.
	HostParam:  func(val string) (string, bool) { return uriDialect.HostParam(strings.TrimPrefix(val, celeryPrefix)) },
	OwnSSLMode: func(val string) bool { return uriDialect.OwnSSLMode(strings.TrimPrefix(val, celeryPrefix)) },
	Reader: &finding.Basis{Kind: finding.BasisReader, Name: "Celery database backend (SQLAlchemy)",
		Detail: "a db+postgresql:// result backend is handed by Celery to SQLAlchemy's create_engine, whose psycopg2 dialect merges ?host=/DIR over the authority",
		Cite:   []string{"https://docs.celeryq.dev/en/stable/userguide/configuration.html#database-url-examples"}},
	SSLDisable: func(val string) (string, bool) {
		out, ok := uriSSLDisable(strings.TrimPrefix(val, celeryPrefix))
		if !ok {
			return val, false
		}
		return celeryPrefix + out, true
	},
	Match: func(val string) bool {
		_, ok := celeryURL(val)
		return ok
	},
	Hosts: func(val string) ([]string, bool, bool) {
		rest, _ := celeryURL(val)
		if !uriDialect.Match(rest) {
			return nil, false, false
		}
		return uriDialect.Hosts(rest)
	},
	Port: func(val string) string { return uriDialect.Port(strings.TrimPrefix(val, celeryPrefix)) },
	ToSocket: func(val, dir string, port int) (string, []Note, error) {
		out, notes, err := uriDialect.ToSocket(strings.TrimPrefix(val, celeryPrefix), dir, port)
		return celeryPrefix + out, notes, err
	},
	SocketPath: func(val string) string { return uriDialect.SocketPath(strings.TrimPrefix(val, celeryPrefix)) },
	FromSocket: func(val, host string, port int) (string, error) {
		out, err := uriDialect.FromSocket(strings.TrimPrefix(val, celeryPrefix), host, port)
		return celeryPrefix + out, err
	},
	Redact: func(s string) string {
		rest, _ := celeryURL(s)
		return celeryPrefix + libpq.Redact(rest)
	},
	Check: func(c Checker, val string) string {
		rest, _ := celeryURL(val)
		return uriCheck(c, rest)
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
