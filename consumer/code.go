package consumer

import (
	"bytes"
	"path"
	"regexp"
	"strings"
)

// A rule recognises one reader in code.
type rule struct {
	reader string
	// files says whether a project-relative path is code this rule reads.
	files func(rel string) bool
	// re matches a line. For a key rule it is built from the key (see
	// keyRule) and must match a line that mentions the key; a connector
	// rule matches any line of a file.
	re *regexp.Regexp
	// also, when set, must match somewhere in the file (an import).
	also *regexp.Regexp
	// how says what a connector's line shows ("" for "opens the
	// connection").
	how string
}

func ext(exts ...string) func(string) bool {
	return func(rel string) bool {
		for _, e := range exts {
			if strings.HasSuffix(rel, e) {
				return true
			}
		}
		return false
	}
}

var (
	pyFiles   = ext(".py")
	jsFiles   = ext(".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx")
	goFiles   = ext(".go")
	rbFiles   = ext(".rb", ".ru", ".rake")
	exFiles   = ext(".ex", ".exs")
	phpFiles  = ext(".php")
	jvmFiles  = ext(".java", ".kt", ".kts", ".scala", ".groovy", ".clj")
	rsFiles   = ext(".rs")
	yamlFiles = ext(".yml", ".yaml", ".yml.erb")
	anyCode   = func(rel string) bool { return codeFile(rel) }
	// prismaConfigFiles are Prisma 7's configuration (prisma.config.ts,
	// or .config/prisma.ts), whose datasource.url names the variable
	// Prisma's CLI and engines read (https://www.prisma.io/docs/orm/reference/prisma-config-reference).
	prismaConfigFiles = func(rel string) bool {
		b := path.Base(rel)
		stem := strings.TrimSuffix(b, path.Ext(b))
		return jsFiles(rel) && (stem == "prisma.config" || stem == "prisma" && path.Base(path.Dir(rel)) == ".config")
	}
	prismaFiles = func(rel string) bool { return strings.HasSuffix(rel, ".prisma") || prismaConfigFiles(rel) }
	shellFiles  = func(rel string) bool {
		b := path.Base(rel)
		return strings.HasSuffix(b, ".sh") || strings.HasSuffix(b, ".bash") || b == "Dockerfile" ||
			strings.HasPrefix(b, "Dockerfile.") || strings.HasSuffix(b, ".Dockerfile") || strings.Contains(b, "entrypoint") ||
			strings.HasPrefix(b, "docker-") || strings.HasPrefix(b, "wait-for") || strings.HasPrefix(b, "start")
	}
)

// codeFile reports whether rel is a file whose mentions of a variable
// count: code, configuration a framework reads, scripts. Documentation
// and examples (.md, .env.example) do not.
func codeFile(rel string) bool {
	return pyFiles(rel) || jsFiles(rel) || goFiles(rel) || rbFiles(rel) || exFiles(rel) || phpFiles(rel) || jvmFiles(rel) ||
		yamlFiles(rel) || shellFiles(rel) || strings.HasSuffix(rel, ".prisma") || strings.HasSuffix(rel, ".rs") || strings.HasSuffix(rel, ".cs") ||
		strings.HasSuffix(rel, ".toml") || strings.HasSuffix(rel, ".json") && !strings.HasSuffix(rel, "package.json") && !strings.HasSuffix(rel, "composer.json")
}

// keyRules are checked on the lines that mention the key; K in a pattern
// @K@ stands for the key (quoted for the regexp).
var keyRules = []struct {
	reader, pattern string
	files           func(string) bool
}{
	// Uses that break on any socket form come first: they decide alone.
	{"shell-parse", `\$\{?@K@\b[^\n]*\b(?:sed|awk|cut|grep\s+-o)\b|\b(?:sed|awk|cut)\b[^\n]*\$\{?@K@\b|\$\{@K@(?:#|%|/|:[0-9])`, shellFiles},
	{"query-append", `(?i)\{[^{}\n]*\b@K@\b[^{}\n]*\}\?|\$\{?@K@\}?\?|\b@K@\b[^\n]*\+=?\s*["'\x60]\?|\b@K@\b[^\n]*\.=?\s*["']\?[a-z_]+=|["'\x60]%[sv]\?[^\n]*\b@K@\b`, anyCode},
	{"url-parse", `(?i)\b(?:urlparse|urlsplit|parse_url|url\.parse|url\.Parse|URI\.parse|URI\s*\(|urllib\.parse\.urlparse)\s*\([^\n]*\b@K@\b`, anyCode},
	{"jdbc-concat", `(?i)["']jdbc:["']\s*\+[^\n]*\b@K@\b|\b@K@\b[^\n]*["']jdbc:["']|"jdbc:%s"[^\n]*\b@K@\b|jdbc:\$\{?@K@\b|\(str\s+"jdbc:"[^\n]*\b@K@\b`, anyCode},
	{"ecto", `System\.(?:get_env|fetch_env!?)\(\s*"@K@"`, exFiles},
	{"tortoise", `\bdb_url\s*=[^=\n]*\b@K@\b|["']db_url["']\s*:[^\n]*\b@K@\b`, pyFiles},
	// A Rust url::Url that holds the value (flow.go follows
	// Url::parse) and has its query replaced or cleared.
	{"url-set-query", `\b@K@\s*\.\s*set_query\s*\(|\b@K@\s*\.\s*query_pairs_mut\s*\(\s*\)\s*\.\s*clear\s*\(`, rsFiles},
	// Readers and validators.
	{"prisma", `env\(\s*"@K@"\s*\)`, ext(".prisma")},
	{"prisma", `\benv\(\s*["'\x60]@K@["'\x60]\s*\)|process\.env(?:\.@K@\b|\[\s*["']@K@["']\s*\])`, prismaConfigFiles},
	{"pydantic", `(?i)\b@K@\s*:\s*(?:Optional\[|Annotated\[)?\s*(?:pydantic\.)?(?:PostgresDsn|AnyUrl|Url|MultiHostUrl|AnyHttpUrl)\b`, pyFiles},
	{"whatwg-url", `new\s+URL\s*\([^\n]*\b@K@\b`, jsFiles},
	// Url::parse(KEY), KEY.parse::<Url>(), and a read typed Url
	// (let base: Url = required_var_parsed("KEY"), var_parsed::<Url>("KEY"),
	// as crates.io's crates_io_test_db/src/lib.rs:57 reads TEST_DATABASE_URL).
	{"rust-url", `\b(?:Url::parse|Url::from_str)\s*\([^\n]*\b@K@\b|\b@K@\b[^\n]*\.parse::<\s*(?:url::)?Url\s*>|\blet\s+(?:mut\s+)?\w+\s*:\s*(?:url::)?Url\s*=[^\n]*\b@K@\b|::<\s*(?:url::)?Url\s*>\s*\([^\n]*\b@K@\b`, rsFiles},
	{"php-parse-url", `%env\((?:resolve:|string:)?@K@\)%`, ext(".yml", ".yaml", ".php", ".xml")},
	{"php-parse-url", `['"]url['"]\s*=>\s*env\(\s*['"]@K@['"]`, phpFiles},
	{"rails", `^\s*url:\s*<%=[^\n]*ENV[^\n]*\b@K@\b`, ext("database.yml", "database.yml.erb")},
	{"dj-database-url", `dj_database_url\.(?:config|parse)\([^\n]*\b@K@\b`, pyFiles},
	{"django-environ", `\benv\.db(?:_url)?\(\s*['"]@K@['"]|\bEnv\.db_url_config\([^\n]*\b@K@\b`, pyFiles},
	{"pgx", `\bpgx(?:pool)?\.(?:Connect|New|ParseConfig)\([^\n]*\b@K@\b`, goFiles},
}

// connectorRules recognise the call that opens a connection; in a file
// that mentions the key they name its reader, and anywhere in the scope
// they name the readers of a value handed on (a settings module read by
// the code that connects).
var connectorRules = []rule{
	{reader: "psycopg", files: pyFiles, re: regexp.MustCompile(`\bpsycopg2?\.connect\(|\bpsycopg\.(?:Async)?Connection\.connect\(|\bpsycopg_pool\.`)},
	{reader: "asyncpg", files: pyFiles, re: regexp.MustCompile(`\basyncpg\.(?:connect|create_pool)\(`)},
	{reader: "sqlalchemy", files: pyFiles, re: regexp.MustCompile(`\bcreate_(?:async_)?engine\(|\bSQLALCHEMY_DATABASE_URI\b`)},
	{reader: "dj-database-url", files: pyFiles, re: regexp.MustCompile(`\bdj_database_url\.(?:config|parse)\(`)},
	{reader: "django-environ", files: pyFiles, re: regexp.MustCompile(`\benv\.db(?:_url)?\(|\bEnv\.db_url_config\(`)},
	{reader: "tortoise", files: pyFiles, re: regexp.MustCompile(`\bTortoise\.init\(|\bregister_tortoise\(|\bTORTOISE_ORM\b`)},
	{reader: "encode-databases", files: pyFiles, re: regexp.MustCompile(`\bfrom\s+databases\s+import\b|^\s*import\s+databases\b|\bdatabases\.Database\(`)},
	{reader: "node-postgres", files: jsFiles, re: regexp.MustCompile(`new\s+(?:pg\.)?(?:Pool|Client)\s*\(`), also: regexp.MustCompile(`require\(\s*["']pg["']\s*\)|from\s+["']pg["']`)},
	{reader: "knex", files: jsFiles, re: regexp.MustCompile(`\bknex\s*\(|require\(\s*["']knex["']\s*\)\s*\(`)},
	{reader: "prisma", files: jsFiles, re: regexp.MustCompile(`new\s+PrismaClient\s*\(`)},
	{reader: "typeorm", files: jsFiles, re: regexp.MustCompile(`new\s+DataSource\s*\(|\bcreateConnection\s*\(`), also: regexp.MustCompile(`["']typeorm["']`)},
	{reader: "sequelize", files: jsFiles, re: regexp.MustCompile(`new\s+Sequelize\s*\(`)},
	{reader: "postgres.js", files: jsFiles, re: regexp.MustCompile(`\bpostgres\s*\(`), also: regexp.MustCompile(`require\(\s*["']postgres["']\s*\)|from\s+["']postgres["']`)},
	{reader: "pgx", files: goFiles, re: regexp.MustCompile(`\bpgx(?:pool)?\.(?:Connect|ConnectConfig|New|NewWithConfig|ParseConfig)\(|sql\.Open\(\s*"pgx"|\bpostgres\.Open\(`)},
	{reader: "bun-pgdriver", files: goFiles, re: regexp.MustCompile(`\bpgdriver\.(?:NewConnector|WithDSN)\(`)},
	{reader: "lib/pq", files: goFiles, re: regexp.MustCompile(`sql\.Open\(\s*"postgres"|\bpq\.(?:NewConnector|ParseURL)\(`)},
	{reader: "ruby-pg", files: rbFiles, re: regexp.MustCompile(`\bPG(?:::Connection)?\.(?:connect|new|open)\(`)},
	{reader: "ecto", files: exFiles, re: regexp.MustCompile(`\bEcto\.Repo\b|\bPostgrex\b`)},
	// (also: one pass over the file first; most Rust files open nothing)
	{reader: "diesel", files: rsFiles, re: regexp.MustCompile(`\bPgConnection::establish\(`), also: regexp.MustCompile(`PgConnection::establish`)},
	{reader: "tokio-postgres", files: rsFiles, re: regexp.MustCompile(`\btokio_postgres::connect\(|\bAsyncPgConnection::establish\(|\bdeadpool_postgres::|\bAsyncDieselConnectionManager::`),
		also: regexp.MustCompile(`tokio_postgres::connect|AsyncPgConnection::establish|deadpool_postgres::|AsyncDieselConnectionManager::`)},
	// sqlx: a pool or connection opened from a URL, or the URL parsed into
	// PgConnectOptions (docs.rs crates/lib/docs_rs_database/src/pool.rs:83
	// connect_lazy(&config.database_url)).
	{reader: "sqlx", files: rsFiles, re: regexp.MustCompile(`\bPg(?:Pool|Connection)::connect(?:_lazy)?\(|\bPgPoolOptions::new\(\)[^\n;]*\.connect(?:_lazy)?\(|\.connect_lazy\(|\bPgConnectOptions::from_str\(|::<\s*(?:sqlx::postgres::)?PgConnectOptions\s*>`),
		also: regexp.MustCompile(`PgPool|PgConnection::connect|PgConnectOptions`)},
	// A JDBC URL built from a URL: Java's "jdbc:" + url (or
	// String.format("jdbc:%s", url)), Clojure's (str "jdbc:" uri) (Penpot's
	// backend/src/app/db.clj), Kotlin's "jdbc:$url" and Scala's s"jdbc:${url}"
	// templates, Groovy's GString.
	{reader: "jdbc-concat", files: jvmFiles, re: regexp.MustCompile(`"jdbc:(?:postgresql://)?"\s*\+|\(str\s+"jdbc:(?:postgresql://)?"\s|"jdbc:(?:postgresql://)?%s"|"jdbc:(?:postgresql://)?\$\{?[A-Za-z_]`),
		how: `prefixes a URL with "jdbc:" for pgjdbc`},
}

// keyRE matches a mention of key as a whole word; in Python files the
// match ignores case (pydantic settings fields are lower-case names of
// the variables they read).
func keyRE(key string, fold bool) *regexp.Regexp {
	p := `\b` + regexp.QuoteMeta(key) + `\b`
	if fold {
		p = `(?i)` + p
	}
	return regexp.MustCompile(p)
}

// viperFile reports whether rel is Go code that reads settings through
// viper, whose AutomaticEnv looks a key up as the upper-cased variable
// (viper.GetString("db_dsn") reads DB_DSN): there, as in Python, a
// mention ignores case.
func viperFile(rel string, data []byte) bool {
	return goFiles(rel) && bytes.Contains(data, []byte("viper."))
}

// keyRule compiles a keyRules pattern for key.
func keyRule(pattern, key string) *regexp.Regexp {
	return regexp.MustCompile(strings.ReplaceAll(pattern, "@K@", regexp.QuoteMeta(key)))
}
