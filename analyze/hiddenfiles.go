package analyze

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/uds-migrate/uds-migrate/compose"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// nameRE matches one of db's host names as a word of a line (group 2):
// not inside a longer name (db in db-replica, db.example.com, mydb).
func nameRE(db *DB) *regexp.Regexp {
	var names []string
	for _, n := range db.Names {
		names = append(names, regexp.QuoteMeta(n))
	}
	return regexp.MustCompile(`(^|[^\w.-])(` + strings.Join(names, "|") + `)([^\w.-]|$)`)
}

// connection finds the first line in the project files reaching a
// service's container that names one of db's host names where a
// connection is configured (a format the tool does not edit, such as
// Python settings with a literal host). It returns the file as reports
// use it and the line, or "" when no such line is found. Lines that name
// the server but are not what the service reads are passed over, and the
// first of them is returned as aside (trial 11 D3): a string in code whose
// file opens no connection and that sets no host (coolify's form prefill
// existingPostgresqlUrl = 'postgres://...@coolify-db:5432' in a Livewire
// component), and a template's value (host: "{{ POSTGRES_HOST or "db" }}"
// in the file synapse's image renders its configuration from).
func (hc hiddenClients) connection(service string, db *DB) (string, int, *asideLine) {
	cl := hc.cl
	skip := map[string]bool{}
	for _, src := range cl.p.Sources {
		if abs, err := filepath.Abs(src.Path); err == nil {
			skip[abs] = true
		}
	}
	nameRE := nameRE(db)
	var aside *asideLine
	for _, abs := range cl.scopes.Of(service).Files() {
		base := filepath.Base(abs)
		if skip[abs] || strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".env") || base == "Dockerfile" {
			continue
		}
		path := cl.p.DisplayPath(abs)
		data, err := cl.readFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || configfile.IsSchema(path, data) {
			// a schema's examples are documentation (trial 11 D2)
			continue
		}
		literal := isCode(abs) && !dbAPIRE.Match(data)
		lines := strings.Split(string(data), "\n")
		// The line that assigns the host, where one does, is the one to
		// edit ('host' => env('DB_HOST', 'coolify-db'), not a helper's
		// $fallback = 'coolify-db' above it); in code, only that line or
		// one beside code that opens a connection.
		found := connectionLines(data, nameRE)
		for _, n := range found {
			if hostKeyRE.MatchString(lines[n-1]) {
				return path, n, aside
			}
		}
		if len(found) > 0 && !literal {
			return path, found[0], aside
		}
		if len(found) > 0 && aside == nil {
			aside = &asideLine{File: path, Line: found[0]}
		}
		if aside == nil {
			if n, vars := templateLine(lines, nameRE); n > 0 {
				aside = &asideLine{File: path, Line: n, Template: true, Vars: vars}
			}
		}
	}
	return "", 0, aside
}

// envDefaultRE matches a read of a variable with a default in code
// (env('DB_HOST', 'coolify-db'), os.getenv("DB_HOST", "db"),
// System.get_env("PGHOST", "db"), ENV.fetch("DB_HOST", "db")): group 1 is
// the variable.
var envDefaultRE = regexp.MustCompile(`(?:getenv|get_env|env|fetch|environ\.get)\s*\(\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*,`)

// dotenvSetting finds, for a line of code (file:n) that reads a variable
// with a default, the .env file among those reaching a service that sets that
// variable (a Laravel or dotenv application's .env in a mounted source
// tree, coolify's DB_HOST=host.docker.internal): what the application
// reads in place of the default. It returns "" when there is none.
func (hc hiddenClients) dotenvSetting(service, file string, n int) string {
	code, err := hc.cl.readFile(file)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(code), "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	m := envDefaultRE.FindStringSubmatch(lines[n-1])
	if m == nil {
		return ""
	}
	setRE := regexp.MustCompile(`^\s*(?:export\s+)?` + regexp.QuoteMeta(m[1]) + `\s*=\s*(.*?)\s*$`)
	for _, abs := range hc.cl.scopes.Of(service).Files() {
		if filepath.Base(abs) != ".env" {
			continue
		}
		path := hc.cl.p.DisplayPath(abs)
		data, err := hc.cl.readFile(path)
		if err != nil {
			continue
		}
		for i, l := range strings.Split(string(data), "\n") {
			if v := setRE.FindStringSubmatch(l); v != nil {
				return fmt.Sprintf("; %s:%d sets %s=%s, which replaces that default where the application loads %s: that is the value to change", path, i+1, m[1], strings.Trim(v[1], `"'`), path)
			}
		}
	}
	return ""
}

// asideLine is a line that names a database server but is not the
// connection a service reads: a string in code that opens no connection,
// or a template's value (Template, with the variables its expression
// reads, Vars).
type asideLine struct {
	File     string
	Line     int
	Template bool
	Vars     []string
}

// viewExts are markup and UI component files (React, Vue, Svelte, HTML,
// Twig): a URL there is a placeholder or an example shown to users.
var viewExts = []string{".jsx", ".tsx", ".vue", ".svelte", ".html", ".htm", ".twig"}

// hostKeyRE marks a line of code that assigns a host ('HOST': 'db',
// host=os.getenv("DB_HOST", "db"), hostname: "db", Server=db): in code,
// the word alone is no such line ($server in a call's arguments,
// $parseDatabaseHosts = function (..., $fallback = 'coolify-db')). A PHP
// enum case's value as the key counts (Shlink: EnvVars::DB_HOST->value =>
// 'shlink_db_postgres').
var hostKeyRE = regexp.MustCompile(`(?i)(?:^|[^a-z])(?:host(?:name)?|server|addr(?:ess)?)(?:->value)?['"]?\]?\s*(?:=>|:=|=|:)`)

// isCode reports whether a file is program code or markup, where a
// server's name in a string is a connection only beside code that opens
// one (dbAPIRE) or on a line that assigns a host (hostKeyRE).
func isCode(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return slices.Contains(programExts, ext) || slices.Contains(viewExts, ext)
}

// dbAPIRE marks a file whose code opens or configures a database
// connection: a driver's import or connect call, an ORM's engine or data
// source, a framework's database settings (Go database/sql, pgx, lib/pq,
// GORM, sqlx; psycopg, asyncpg, SQLAlchemy, Django's DATABASES, Tortoise;
// PDO, pg_connect, Laravel's connections; node-postgres, Sequelize,
// TypeORM, knex, Prisma, postgres.js; the pg gem, ActiveRecord, Sequel;
// Ecto, Postgrex; JDBC; Rust's sqlx, tokio-postgres, diesel; Npgsql;
// crystal-db; OCaml's Caqti, and Dream's sql_pool over it).
var dbAPIRE = regexp.MustCompile(`\bDream\.sql_pool\b|\bCaqti_\w+\.(?:connect|connect_pool|Pool)\b|\bsql\.Open\(|\bpgx(?:pool)?\.(?:Connect|New|ParseConfig)|"github\.com/(?:lib/pq|jackc/pgx)|\bgorm\.Open\(|\bsqlx\.(?:Open|Connect)|` +
	`\bpsycopg2?\.connect\(|\basyncpg\.(?:connect|create_pool)\(|\bcreate_(?:async_)?engine\(|\bDATABASES\s*=|SQLALCHEMY_DATABASE_UR[IL]|\bTortoise\.init\(|\bregister_tortoise\(|\bdj_database_url\b|` +
	`\bnew\s+\\?PDO\s*\(|\bpg_p?connect\(|'connections'\s*=>|\bDB::connection\(|` +
	`\bnew\s+(?:pg\.)?(?:Pool|Client|Sequelize|DataSource)\s*\(|\bknex\s*\(|\bPrismaClient\b|\brequire\(\s*['"]pg['"]\s*\)|\bfrom\s+['"](?:pg|postgres)['"]|` +
	`\bPG\.connect\b|\bestablish_connection\b|\bSequel\.connect\b|` +
	`\bEcto\.Repo\b|\.Repo\s*,|\bPostgrex\.start_link\b|` +
	`\bDriverManager\.getConnection\(|\bjdbc:postgresql:|` +
	`\bPgPool(?:Options)?\b|\bPgConnection\b|\btokio_postgres::connect\b|` +
	`\bNpgsqlConnection\b|\bUseNpgsql\(|\bDB\.open\(`)

// templateExprRE matches a template expression ({{ ... }}, {% ... %}:
// Jinja, Go templates, Mustache), where a value is the default a renderer
// writes, not a value any reader sees.
var templateExprRE = regexp.MustCompile(`\{\{.*?\}\}|\{%.*?%\}`)

// envNameInRE matches a variable's name in a template expression
// (POSTGRES_HOST, .Env.DB_HOST, env "PGHOST").
var envNameInRE = regexp.MustCompile(`\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\bPG[A-Z]+\b`)

// templateLine finds the first line on a host setting where one of
// nameRE's names stands inside a template expression (host: "{{
// POSTGRES_HOST or "db" }}"), and the variables that expression reads
// (POSTGRES_HOST). It returns 0 when there is none.
func templateLine(lines []string, nameRE *regexp.Regexp) (int, []string) {
	for i, line := range lines {
		if commentRE.MatchString(line) || !hostWordRE.MatchString(line) {
			continue
		}
		for _, m := range templateExprRE.FindAllStringIndex(line, -1) {
			expr := line[m[0]:m[1]]
			if !nameRE.MatchString(strings.NewReplacer(`"`, " ", "'", " ").Replace(expr)) {
				continue
			}
			var vars []string
			for _, v := range envNameInRE.FindAllString(expr, -1) {
				if !slices.Contains(vars, v) {
					vars = append(vars, v)
				}
			}
			return i + 1, vars
		}
	}
	return 0, nil
}

// programExts are the source files of the languages whose code the
// evidence readers know: where one reaches a container, the program that
// would open a connection is in view.
var programExts = []string{".go", ".py", ".rb", ".js", ".mjs", ".cjs", ".ts", ".ex", ".exs", ".php", ".java", ".kt", ".scala", ".rs", ".cs", ".cr", ".ml", ".re"}

// codeInView returns, for a service whose project files name none of db's
// host names, the first program file (as reports show it) among the files
// that reach its container, and how many do: its code is in view and
// opens no connection to db as configured. It is "" when no program file
// reaches it, or when its Dockerfile bakes a connection to db into the
// image (ENV DB_HOST=db).
func (hc hiddenClients) codeInView(service string, db *DB) (string, int) {
	cl := hc.cl
	if b, _ := compose.ImageBuild(cl.p.Project, service); b != nil && b.Context != "" {
		if data, err := cl.readFile(cl.p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile))); err == nil {
			var env []string
			for _, ins := range dockerfile.Instructions(data) {
				if f := strings.Fields(ins); len(f) > 1 && (strings.EqualFold(f[0], "ENV") || strings.EqualFold(f[0], "ARG")) {
					env = append(env, ins)
				}
			}
			if connectionLine([]byte(strings.Join(env, "\n")), nameRE(db)) > 0 {
				return "", 0
			}
		}
	}
	first, n := "", 0
	for _, abs := range cl.scopes.Of(service).Files() {
		if slices.Contains(programExts, filepath.Ext(abs)) {
			if n++; first == "" {
				first = cl.p.DisplayPath(abs)
			}
		}
	}
	return first, n
}

// hostWordRE marks a line that configures a host: a host, server or
// address key (HOST, hostname:, Server=, POSTGRES_HOST).
var hostWordRE = regexp.MustCompile(`(?i)host|server|addr`)

// Around a name's occurrence: a URL scheme or a key after it
// (postgres://, postgres+asyncpg://, jdbc:postgresql:, "postgres": {), a
// URL authority before it (//db, @db), a URL path before it (/postgres,
// the database), or a key of another setting before it (user=postgres,
// "NAME": "postgres").
//
// An image reference is never a host: a name after an image key or FROM
// (image: postgres:16.8-alpine in another compose file that a bind mount
// or a build context brings into view) is the image's repository, and
// its :TAG no port. A port after a name is a whole token (:5432,
// :${DB_PORT}, :{port}), not the start of a tag (:15-trixie, :16.8).
var (
	imageBeforeRE      = regexp.MustCompile(`(?i)(?:^|[^\w.-])image["']?\s*[:=]\s*["']?$|^\s*FROM\s+(?:--\S+\s+)*$`)
	portAfterRE        = regexp.MustCompile(`^:(?:[0-9]{1,5}|\$\{?\w+\}?|\{\{?[^{}\n]*\}\}?|<%=[^%\n]*%>|%[sd])(?:[^\w.-]|$)`)
	schemeOrKeyAfterRE = regexp.MustCompile(`^(\+[\w.+-]*)?://|^["']?:(\D|$)`)
	authorityBeforeRE  = regexp.MustCompile(`(//|@)$`)
	otherKeyBeforeRE   = regexp.MustCompile(`(?i)(^|[^a-z])(user|username|name|database|dbname|db|password|schema)["']?\s*[:=]>?\s*["']?$`)
)

// commentRE matches a whole-line comment (//, #, /* and its * lines, ;):
// prose, even beside code.
var commentRE = regexp.MustCompile(`^\s*(//|#|/\*|\*|;)`)

// connectionLine returns the first line of data that names one of
// nameRE's host names (group 2 of nameRE) as a host: the host of a URL
// (postgres://u@db/x, //db:5432), host:port, or a value on a line that
// configures a host ('HOST': 'db', hostname: System.get_env("PGHOST",
// "db"), host=db). A name in any other place is no connection: a URL
// scheme (postgres:// with a service named postgres), a URL's database,
// a user or database setting, a driver name (sql.Open("postgres", ...)),
// a comment, a template expression's default ({{ DB_HOST or "db" }}: what
// a renderer writes when a variable is unset, not what a reader sees).
// It returns 0 when no line names one as a host.
func connectionLine(data []byte, nameRE *regexp.Regexp) int {
	if lines := connectionLines(data, nameRE); len(lines) > 0 {
		return lines[0]
	}
	return 0
}

// connectionLines returns every line connectionLine accepts, in order.
func connectionLines(data []byte, nameRE *regexp.Regexp) []int {
	var out []int
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		if line := sc.Text(); !commentRE.MatchString(line) && hostOnLine(line, nameRE) {
			out = append(out, n)
		}
	}
	return out
}

// hostOnLine is connectionLine's test of one line.
func hostOnLine(line string, nameRE *regexp.Regexp) bool {
	templates := templateExprRE.FindAllStringIndex(line, -1)
	for _, m := range nameRE.FindAllStringSubmatchIndex(line, -1) {
		if slices.ContainsFunc(templates, func(t []int) bool { return t[0] <= m[4] && m[5] <= t[1] }) {
			continue // a template's default
		}
		before, after := line[:m[4]], line[m[5]:]
		switch {
		case imageBeforeRE.MatchString(before):
			continue
		case portAfterRE.MatchString(after) && !strings.HasSuffix(before, "/") && !otherKeyBeforeRE.MatchString(before):
			return true // host:port
		case schemeOrKeyAfterRE.MatchString(after):
			continue
		case authorityBeforeRE.MatchString(before):
			return true
		case strings.HasSuffix(before, "/"), otherKeyBeforeRE.MatchString(before):
			continue
		case strings.HasPrefix(after, ":"):
			continue // name:tag, a tag or a key's colon, not a port
		case hostWordRE.MatchString(line):
			return true // a host setting
		}
	}
	return false
}

// lineText is line n (1-based) of file as the collector reads it; "" when
// it cannot be read.
func (hc hiddenClients) lineText(file string, n int) string {
	data, err := hc.cl.readFile(file)
	if err != nil {
		return ""
	}
	return nthLine(data, n)
}
