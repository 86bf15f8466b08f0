package analyze

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/yamledit"
)

// Precise reports (issue #21): every warning names the service and the
// key or file that holds the connection, and the manual step gives the
// form the consumer needs.

// hostFlagRE matches a command-line flag whose value is a host: libpq's
// -h/--host, and an application's --db-host, --database-host.
var hostFlagRE = regexp.MustCompile(`^(?:-h|--host|--[a-z0-9-]*host)$`)

// urlTemplateRE matches a URL a command builds from a variable in its host
// position (postgres://${DB_USER}:${DB_PASSWORD}@${DB_HOST}:5432/app).
var urlTemplateRE = regexp.MustCompile(`^([a-z][a-z0-9+.-]*)://[^@\s]*@\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)

// commandHost finds, in the words of a command, a host flag (-h db,
// --db-host=db) or a URL template whose host is a variable (set in the
// service's environment): what it names, how the report shows it, and the
// index of the word after it (0 when there is none).
func commandHost(words []string, env func(string) string) (host, shown, viaVar string, next int) {
	for i, w := range words {
		flag, val, eq := strings.Cut(w, "=")
		switch {
		case hostFlagRE.MatchString(flag) && eq:
			return val, w, "", i + 1
		case hostFlagRE.MatchString(w) && i+1 < len(words):
			return words[i+1], w + " " + words[i+1], "", i + 2
		case strings.HasPrefix(w, "-h") && !strings.HasPrefix(w, "--") && len(w) > 2 && !strings.Contains(w, "="):
			return w[2:], w, "", i + 1
		}
		if m := urlTemplateRE.FindStringSubmatch(w); m != nil && env(m[2]) != "" {
			_, dn, _ := dialect.Classify(w)
			return env(m[2]), dialect.Redact(dn, w), m[2], i + 1
		}
	}
	return "", "", "", 0
}

// warn reports (UDS127) a command or entrypoint that connects
// to a database by a host flag or a URL built from a host variable,
// naming the key and the argument. It reports whether it warned, and the
// variable a URL template reads the host from (which then needs no
// second, vaguer warning of its own).
// commandHosts reports connections a command makes by a host flag or a
// URL it builds.
type commandHosts struct{ cl *collector }

func (c commandHosts) warn(service, key string, args []string, find func(string) *DB) (warned bool, viaVar string) {
	cl := c.cl
	env := func(k string) string { return cl.p.clientEnv(service, k) }
	var words []string // the arguments, and the words of a shell string among them
	for _, a := range args {
		words = append(words, strings.FieldsFunc(a, func(r rune) bool { return r == ' ' || r == '"' || r == '\'' || r == '\n' })...)
	}
	for len(words) > 0 {
		host, shown, via, next := commandHost(words, env)
		if next == 0 {
			break
		}
		words = words[next:]
		db := find(host)
		if db == nil {
			continue
		}
		src, node := cl.p.ServiceNode(service)
		kn, _ := yamledit.OwnKey(node, key)
		what, form := "connects to "+db.Name+" with "+shown+" (a host flag)", fmt.Sprintf("for a libpq tool (psql, pg_dump, pg_isready) or a flag handed to libpq, pgx or psycopg, write -h %s", cl.opts.MountPath)
		if via != "" {
			what = fmt.Sprintf("builds a connection URL for %s from %s (%s)", db.Name, via, shown)
			form = fmt.Sprintf("write the URL with an empty host and the directory as a parameter, postgres://USER:PASSWORD@/DB?host=%s%s (setting %s to the directory would give @%s:PORT, which no driver reads)", cl.opts.MountPath, portParam(db), via, cl.opts.MountPath)
		}
		cl.commandNote(yamledit.NodePos(src, kn), service, key,
			fmt.Sprintf("%s's %s %s; the tool does not edit commands: %s, and mount %s's socket volume on %s", service, key, what, form, db.Name, service))
		return true, via
	}
	return false, ""
}

func portParam(db *DB) string {
	if db.Port == 5432 {
		return ""
	}
	return fmt.Sprintf("&port=%d", db.Port)
}

// poolerUpstream names a pooler's own connection to PostgreSQL: the
// variables of its environment whose value names one of dbs, as
// service/KEY.
// connTargets names what a value reaches beyond the compose names: a
// pooler's own upstream, a port published on the host.
type connTargets struct{ cl *collector }

func (ct connTargets) poolerUpstream(pooler string) []string {
	cl := ct.cl
	var out []string
	for _, v := range cl.p.ServiceEnv(pooler) {
		hosts, _, _ := dialect.Classify(v.Value)
		if len(hosts) == 0 {
			hosts = []string{strings.TrimSpace(v.Value)}
		}
		for _, h := range hosts {
			if db, code, _ := cl.p.dbFor(cl.dbs, pooler, h); db != nil && code == "" {
				out = append(out, pooler+"/"+v.Key)
				break
			}
		}
	}
	return out
}

// manualForm is the socket form a connection written in file needs, by
// the file's kind: what UDS131's manual step asks for.
func manualForm(file string, db *DB, dir string) string {
	base := strings.ToLower(filepath.Base(file))
	sock := fmt.Sprintf("%s/.s.PGSQL.%d", dir, db.Port)
	switch ext := filepath.Ext(base); {
	case ext == ".exs" || ext == ".ex":
		return fmt.Sprintf("in the Repo's config, socket_dir: %q in place of hostname (Ecto/Postgrex take no socket in a URL's ?host=)", dir)
	case ext == ".properties" || ext == ".java" || ext == ".kt" || strings.HasPrefix(base, "application") || strings.HasPrefix(base, "bootstrap"):
		return fmt.Sprintf("jdbc:postgresql://localhost/DB?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=%s (junixsocket on the classpath)", sock)
	case ext == ".py" || ext == ".rb" || base == "database.yml":
		return fmt.Sprintf("host %s (psycopg, Django and the pg gem take the socket directory as host; the port %d names %s)", dir, db.Port, sock)
	case ext == ".js" || ext == ".mjs" || ext == ".cjs" || ext == ".ts":
		return fmt.Sprintf("host: %q in node-postgres' options, or postgres://USER:PASSWORD@/DB?host=%s", dir, dir)
	case ext == ".go":
		return fmt.Sprintf("host=%s in the DSN (pgx, lib/pq), or postgres://USER:PASSWORD@/DB?host=%s", dir, dir)
	case ext == ".ml" || ext == ".re":
		// Caqti's postgresql driver (caqti-driver-postgresql/lib/
		// caqti_driver_postgresql.ml:182-186, 3.0.0) hands a URI with a
		// host to libpq as a URI, which reads ?host= over the authority;
		// a URI without a host becomes a keyword conninfo of its query
		// parameters alone (user, password and database dropped), so the
		// form keeps localhost in the authority.
		authority := "localhost"
		if db.Port != 5432 {
			authority = fmt.Sprintf("localhost:%d", db.Port)
		}
		return fmt.Sprintf("postgresql://USER:PASSWORD@%s/DB?host=%s (Caqti's postgresql driver hands a URL that has a host to libpq, which takes ?host= over the authority; without a host Caqti keeps only the query parameters, dropping user and database), rebuilding the image, since the URL is compiled into the binary,", authority, dir)
	case ext == ".php":
		return fmt.Sprintf("pgsql:host=%s;dbname=DB (PDO)", dir)
	case ext == ".cs" || strings.HasPrefix(base, "appsettings"):
		return fmt.Sprintf("Host=%s;Port=%d (Npgsql)", dir, db.Port)
	}
	return fmt.Sprintf("the socket directory %s as libpq-family drivers take it (host=%s, or postgres://USER:PASSWORD@/DB?host=%s; JDBC needs junixsocket and socketFactoryArg=%s)", dir, dir, dir, sock)
}

// bareHost returns the quote around host when line holds it as a string
// of its own ('db', "db"): a setting that holds a host only (Shlink's
// EnvVars::DB_HOST->value => 'shlink_db_postgres', a Python HOST: 'db'),
// not a URL, a DSN or a host:port inside a longer string; "" otherwise.
func bareHost(line, host string) string {
	for _, q := range []string{"'", `"`} {
		if strings.Contains(line, q+host+q) {
			return q
		}
	}
	return ""
}

// hostTakers says, by a file's kind, which readers take a socket
// directory where a host goes; "" for a kind whose readers take none
// there (Ecto's hostname: socket_dir instead; JDBC: junixsocket) or whose
// manualForm is a host already (Python, Ruby: host DIR).
func hostTakers(file string) string {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".php":
		return "Doctrine's pdo_pgsql and pgsql drivers, PDO and pg_connect hand host to libpq, which takes the socket directory"
	case ".js", ".mjs", ".cjs", ".ts":
		return "node-postgres takes the socket directory as host"
	case ".cs":
		return "Npgsql takes the socket directory as Host"
	case ".go":
		return "pgx and lib/pq take the socket directory as host"
	}
	return ""
}

// hostNetwork names, for a service under network_mode: host, the value
// that reaches a database through the port it publishes on the host
// (localhost:5432 is the host's port there), or "".
func (ct connTargets) hostNetwork(service string, v compose.EnvVar) (*DB, string) {
	cl := ct.cl
	dbs := cl.dbs
	svc := cl.p.Model.Services[service]
	if svc.NetworkMode != "host" {
		return nil, ""
	}
	hosts, dname, socket := dialect.Classify(v.Value)
	if socket || (dname == "" && !hostvar.IsAppHostKey(v.Key)) {
		return nil, ""
	}
	if dname == "" {
		hosts = []string{strings.TrimSpace(v.Value)}
	}
	port := dialect.URLPort(v.Value, dname)
	if dname == "" {
		port, _ = atoiPort(cl.p.clientEnv(service, hostvar.PortSibling(v.Key)))
	}
	if port == 0 {
		port = 5432
	}
	for _, h := range hosts {
		if h != "localhost" && h != "127.0.0.1" && h != "::1" {
			continue
		}
		for _, db := range dbs {
			for _, p := range cl.p.Model.Services[db.Name].Ports {
				if p.Published == fmt.Sprint(port) && int(p.Target) == db.Port {
					return db, fmt.Sprintf("%s:%d", h, port)
				}
			}
		}
	}
	return nil, ""
}
