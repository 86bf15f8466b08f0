package smoke

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/jdbc"
	"github.com/uds-migrate/uds-migrate/libpq"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// value is one client connection value in socket form, with what the
// check needs to reproduce it. It holds the real value and password: never
// print it.
type value struct {
	service, key, dialect string
	// dir is the socket directory as the client container sees it, port
	// the number in the socket file's name (.s.PGSQL.<port>).
	dir  string
	port int
	// user and password log in; database is created for the check ("" is
	// the server's default: the user's name).
	user, password, database string
	// pgx is the driver's own parse of a libpq value (URI, DSN, PGHOST);
	// nil for JDBC.
	pgx *pgx.ConnConfig
	// jdbcURL is the JDBC URL as written (interpolated).
	jdbcURL *jdbc.URL
	// skip says why no driver runs this value (another dialect).
	skip string
	// parseErr is the driver's refusal of the value itself: a failure.
	parseErr error
}

// socketFile is the socket file's path in the client container.
func (v *value) socketFile() string {
	return strings.TrimSuffix(v.dir, "/") + "/.s.PGSQL." + strconv.Itoa(v.port)
}

// socketValues returns every client value in socket form, by service then
// key. Services in dbs are servers, not clients, and are left out.
func (p *project) socketValues(dbs []rewrite.DBInfo) []*value {
	isDB := map[string]bool{}
	for _, db := range dbs {
		isDB[db.Service] = true
	}
	var out []*value
	for _, s := range p.services {
		if isDB[s.name] {
			continue
		}
		keys := make([]string, 0, len(s.env))
		for k := range s.env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if v := classify(s, k); v != nil {
				out = append(out, v)
			}
		}
	}
	return out
}

// classify returns the socket-form value s.env[k], or nil when it is not a
// PostgreSQL connection value in socket form. The dialect registry says
// what the value is (the migration's own recogniser); this says how the
// check reproduces it: pgjdbc for JDBC, pgx for the libpq family (a URI, a
// Celery URL's SQLAlchemy URL, a DSN, PGHOST, and a PDO DSN, which PHP
// hands to libpq with its ';' as spaces), no driver for Npgsql and R2DBC.
func classify(s service, k string) *value {
	raw := strings.TrimSpace(s.env[k])
	v := &value{service: s.name, key: k}
	d := dialect.Recognise(raw)
	if d == nil {
		if hv := dialect.HostVar(k); hv.Name == dialect.PGHost && strings.HasPrefix(raw, "/") {
			v.dialect = hv.Name
			return pgxValue(v, pgEnvDSN(s.env))
		}
		return nil
	}
	if _, socket, ok := d.Hosts(raw); !ok || !socket {
		return nil
	}
	v.dialect = d.Name
	switch d.Name {
	case dialect.JDBC:
		u, err := jdbc.Parse(raw)
		if err != nil || !u.IsUnixSocket() {
			return nil
		}
		v.jdbcURL = u
		if f, _ := u.Param("socketFactory"); f != jdbc.FactoryArg {
			// $URIScheme and $SystemProperty take the path from elsewhere;
			// only $FactoryArg (what the migration writes) is reproduced.
			v.skip = "socketFactory " + f + " is not reproduced (only $FactoryArg)"
			return v
		}
		file, _ := u.Param("socketFactoryArg")
		v.dir, v.port = path.Dir(file), portOf(path.Base(file))
		v.user, v.password = jdbcUser(s.env, k, u)
		v.database = u.DatabaseName()
		return v
	case dialect.URI:
		return pgxValue(v, pgxScheme(raw))
	case dialect.Celery:
		// Celery hands the URL behind db+ to SQLAlchemy, whose psycopg
		// dialect gives libpq its host and ?host=.
		return pgxValue(v, pgxScheme(strings.TrimPrefix(raw, "db+")))
	case dialect.DSN:
		dsn, _ := libpq.ParseDSN(raw)
		if h, _ := dsn.Get("host"); !strings.HasPrefix(h, "/") {
			return nil
		}
		if a, ok := dsn.Get("hostaddr"); ok && a != "" {
			return nil // hostaddr forces TCP
		}
		return pgxValue(v, raw)
	case dialect.PDO:
		// pdo_pgsql replaces the DSN's ';' by spaces and hands it to
		// PQconnectdb (php-src ext/pdo_pgsql/pgsql_driver.c).
		return pgxValue(v, strings.ReplaceAll(strings.TrimPrefix(raw, "pgsql:"), ";", " "))
	}
	driver := d.Name
	if d.Reader != nil {
		driver = d.Reader.Name
	}
	v.skip = "no " + driver + " driver in the smoke check"
	return v
}

// pgxValue fills v from pgx's own parse of a libpq-family value.
func pgxValue(v *value, raw string) *value {
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		v.parseErr = err
		return v
	}
	if strings.HasPrefix(cfg.Host, "@") {
		v.skip = "abstract-namespace socket " + cfg.Host + " is not reproduced"
		return v
	}
	// One server: a socket cannot fail over, and the check must name the
	// path it tried.
	cfg.Fallbacks = nil
	v.pgx = cfg
	v.dir, v.port = cfg.Host, int(cfg.Port)
	v.user, v.password, v.database = cfg.User, cfg.Password, cfg.Database
	return v
}

// pgxScheme rewrites a SQLAlchemy-style scheme (postgresql+psycopg2://,
// postgres+asyncpg://) to postgresql://: pgx recognises a URL only by
// postgres:// or postgresql:// and reads anything else as a keyword DSN,
// which then falls back to its defaults (user root, port 5432) and fails
// for the wrong reason.
func pgxScheme(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || !strings.Contains(scheme, "+") {
		return raw
	}
	return "postgresql://" + rest
}

// portOf reads N from ".s.PGSQL.N"; 0 when the name is not of that form.
func portOf(base string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(base, ".s.PGSQL."))
	if err != nil || !strings.HasPrefix(base, ".s.PGSQL.") {
		return 0
	}
	return n
}

// jdbcUser finds the user and password for a JDBC URL: its user and
// password parameters, else sibling variables named like the URL's key
// (SPRING_DATASOURCE_URL → SPRING_DATASOURCE_USERNAME/_PASSWORD,
// QUARKUS_DATASOURCE_JDBC_URL → QUARKUS_DATASOURCE_USERNAME,
// spring.datasource.url → spring.datasource.username), dropping one
// trailing segment at a time until a user variable is found.
func jdbcUser(env map[string]string, key string, u *jdbc.URL) (user, password string) {
	user, _ = u.Param("user")
	password, _ = u.Param("password")
	if user != "" {
		return user, password
	}
	prefix := key
	for {
		cut := strings.LastIndexAny(prefix, "_.")
		if cut < 0 {
			return "", password
		}
		prefix = prefix[:cut+1]
		for _, name := range []string{"USERNAME", "USER", "username", "user"} {
			if u, ok := env[prefix+name]; ok && u != "" {
				if password == "" {
					for _, pw := range []string{"PASSWORD", "password"} {
						if p, ok := env[prefix+pw]; ok {
							password = p
						}
					}
				}
				return u, password
			}
		}
		prefix = prefix[:cut]
	}
}

// pgEnvDSN turns a service's libpq variables into a keyword DSN for pgx,
// so the check sees what libpq would read from the container's
// environment (PostgreSQL docs §34.15).
func pgEnvDSN(env map[string]string) string {
	var parts []string
	for _, kv := range [][2]string{
		{"PGHOST", "host"}, {"PGPORT", "port"}, {"PGUSER", "user"}, {"PGDATABASE", "dbname"},
		{"PGPASSWORD", "password"}, {"PGSSLMODE", "sslmode"}, {"PGCONNECT_TIMEOUT", "connect_timeout"},
	} {
		if val, ok := env[kv[0]]; ok && val != "" {
			parts = append(parts, kv[1]+"='"+strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(val)+"'")
		}
	}
	return strings.Join(parts, " ")
}

// withSocketFile returns u with its socketFactoryArg pointing at file; every
// other part is kept as written.
func withSocketFile(u *jdbc.URL, file string) string {
	c := *u
	c.Params = append([]jdbc.Param(nil), u.Params...)
	for i := len(c.Params) - 1; i >= 0; i-- {
		if c.Params[i].Key == "socketFactoryArg" {
			// The reproduced path is made of [A-Za-z0-9/._-] only, so it
			// needs no %-encoding in a query value.
			c.Params[i].Value = file
			break
		}
	}
	return c.String()
}
