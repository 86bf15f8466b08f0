package rewrite

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/libpq"
)

// DialectCelery is Celery's database result backend: a SQLAlchemy URL
// behind a "db+" prefix (CELERY_RESULT_BACKEND=db+postgresql://...). Celery
// strips the prefix and hands the rest to SQLAlchemy, whose psycopg
// dialects take ?host=/dir as the socket directory (Celery docs,
// "Database backend settings": result_backend = 'db+postgresql://...').
const DialectCelery = "celery-db"

const celeryPrefix = "db+"

// celeryURL returns the SQLAlchemy URL behind a Celery db+ prefix.
func celeryURL(val string) (string, bool) {
	rest, ok := strings.CutPrefix(val, celeryPrefix)
	if !ok || !libpq.IsURI(rest) {
		return "", false
	}
	return rest, true
}

// classifyCelery is classify for a db+ URL: the hosts and socket state of
// the SQLAlchemy URL inside it.
func classifyCelery(rest string) (hosts []string, dialect string, socket bool) {
	hosts, d, socket := classify(rest)
	if d != DialectURI {
		return nil, "", false
	}
	return hosts, DialectCelery, socket
}

// celeryToSocket rewrites the URL behind the prefix like a libpq URI.
func celeryToSocket(value, dir string, port int) (string, []note, error) {
	out, notes, err := toSocket(DialectURI, strings.TrimPrefix(value, celeryPrefix), dir, port)
	return celeryPrefix + out, notes, err
}
