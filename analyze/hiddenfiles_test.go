package analyze

import (
	"strings"
	"testing"
)

// connectionLine finds a service name only where it stands as a host.
func TestConnectionLine(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       int
	}{
		{"URL host", "url = \"postgres://app:pw@postgres:5432/app\"\n", 1},
		{"URL host without port", "DATABASE_URL=postgres://app@postgres/app\n", 1},
		{"JDBC host", "spring.datasource.url=jdbc:postgresql://postgres/app\n", 1},
		{"host key", "  'HOST': 'postgres',\n", 1},
		{"host default in a call", "  hostname: System.get_env(\"POSTGRES_HOST\", \"postgres\"),\n", 1},
		{"DSN host", "dsn := \"host=postgres user=app\"\n", 1},
		{"host:port", "  - postgres:5432\n", 1},
		{"scheme only", "SHIORI_TEST_PG_URL ?= postgres://shiori:shiori@127.0.0.1:5432/shiori\n", 0},
		{"scheme with a driver", "url: postgres+asyncpg://app@localhost/app\n", 0},
		{"database in a URL path", "DATABASE_URL=postgres://app@localhost/postgres\n", 0},
		{"user in a URL", "DATABASE_URL=//postgres:pw@localhost/app\n", 0},
		{"user beside a host", "dsn = \"user=postgres host=localhost\"\n", 0},
		{"database named like the server", "\"NAME\": \"postgres\",\n\"HOST\": \"pgbouncer\",\n", 0},
		{"driver name", "db, err := sqlx.ConnectContext(ctx, \"postgres\", connString)\n", 0},
		{"a key", "postgres:\n  host: localhost\n", 0},
		{"prose", "- Switch Docker Compose `env_file` to `environment` for `postgres` to avoid needless recreates\n", 0},
		{"comment", "// the server postgres holds the data\n# host postgres\n", 0},
		{"second line", "driver: postgres\nhost: postgres\n", 2},
		{"longer name", "host: postgres-replica\n", 0},
		// Trial 10 B1: image references (Nakama's docker-compose-tests.yml,
		// ente's config/compose.yaml), and tags that are no port.
		{"image key", "services:\n  db:\n    image: postgres:16.8-alpine\n", 0},
		{"image key, tag with a suffix", "    image: postgres:15-trixie\n", 0},
		{"image key, plain tag", "    image: \"postgres:16\"\n", 0},
		{"JSON image", "{\"image\": \"postgres:16\"}\n", 0},
		{"FROM", "FROM postgres:16 AS base\n", 0},
		{"FROM with a platform", "FROM --platform=linux/amd64 postgres:16\n", 0},
		{"a tag elsewhere", "docker pull postgres:15-trixie\n", 0},
		{"host:port still", "addr: postgres:5432\n", 1},
		{"host:port from a variable", "DB_ADDR=postgres:${DB_PORT}\n", 1},
		{"image key beside a host line", "image: postgres:16\nDB_HOST: postgres\n", 2},
	} {
		db := &DB{Name: "postgres", Names: []string{"postgres"}}
		if got := connectionLine([]byte(c.text), nameRE(db)); got != c.want {
			t.Errorf("%s: connectionLine = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestNextSignal: Next.js is shown by its configuration file, a
// package.json dependency or an import, not by the word "next" (trial 10
// B6: a switch's case "next": in kitsune's front-end code).
func TestNextSignal(t *testing.T) {
	for _, c := range []struct {
		base, text string
		line       int // 0: none
	}{
		{"next.config.js", "module.exports = {}\n", 1},
		{"next.config.ts", "export default {}\n", 1},
		{"package.json", "{\n  \"dependencies\": {\n    \"react\": \"18\",\n    \"next\": \"14.2.3\"\n  }\n}\n", 4},
		{"package.json", "{\"devDependencies\": {\"next\": \"^15\"}}", 1},
		{"package.json", "{\"scripts\": {\"next\": \"node step.js\"}}", 0},
		{"package.json", "{\"dependencies\": {\"next-auth\": \"4\"}}", 0},
		{"wizard.js", "switch (a) {\n  case \"next\": {\n    break\n  }\n}\n", 0},
		{"index.tsx", "import Head from 'next/head'\n", 1},
		{"server.js", "const next = require(\"next\")\n", 1},
		{"notes.txt", "import x from \"next\"\n", 0},
	} {
		line, ok := nextSignal(c.base, []byte(c.text))
		if ok != (c.line != 0) || line != c.line {
			t.Errorf("nextSignal(%s, %q) = %d, %v; want line %d", c.base, c.text, line, ok, c.line)
		}
	}
}

// A template's default is no host (trial 11 D3: synapse's
// docker/conf/homeserver.yaml), and templateLine finds it with the
// variables its expression reads.
func TestTemplateLine(t *testing.T) {
	db := &DB{Name: "db", Names: []string{"db"}}
	for _, c := range []struct {
		name, text string
		conn, tmpl int
		vars       string
	}{
		{"Jinja", "database:\n  args:\n    host: \"{{ POSTGRES_HOST or \"db\" }}\"\n", 0, 3, "POSTGRES_HOST"},
		{"Go template", "host: {{ .Env.APP_DB_HOST | default \"db\" }}\n", 0, 1, "APP_DB_HOST"},
		{"Jinja statement", "{% set host = PGHOST or 'db' %}\n", 0, 1, "PGHOST"},
		{"plain host beside", "host: \"{{ DB_HOST or \"db\" }}\"\nhost: db\n", 2, 1, "DB_HOST"},
		{"template elsewhere on the line", "host: db # {{ note }}\n", 1, 0, ""},
		{"no host word", "greeting: \"{{ 'db' }}\"\n", 0, 0, ""},
	} {
		if got := connectionLine([]byte(c.text), nameRE(db)); got != c.conn {
			t.Errorf("%s: connectionLine = %d, want %d", c.name, got, c.conn)
		}
		n, vars := templateLine(strings.Split(c.text, "\n"), nameRE(db))
		if n != c.tmpl || strings.Join(vars, ",") != c.vars {
			t.Errorf("%s: templateLine = %d %v, want %d %s", c.name, n, vars, c.tmpl, c.vars)
		}
	}
}

// In code, a server's name in a string is a connection only on a line
// that assigns a host or in a file that opens a connection (trial 11 D3:
// coolify's form prefill, $server in a call's arguments).
func TestCodeLiteralRules(t *testing.T) {
	for _, c := range []struct {
		line string
		want bool
	}{
		{"  'HOST': 'db',", true},
		{"    host=os.getenv(\"DB_HOST\", \"db\"),", true},
		{"  hostname: System.get_env(\"POSTGRES_HOST\", \"postgres\"),", true},
		{"    'host' => env('DB_HOST', 'coolify-db'),", true},
		{"var cs = \"Server=db;Database=app\";", true},
		{"$out = instant_remote_process(['docker inspect coolify-db'], $server);", false},
		{"$parseDatabaseHosts = function (mixed $hosts, mixed $fallback = 'coolify-db'): array {", false},
		{"$this->existingPostgresqlUrl = 'postgres://coolify:password@coolify-db:5432';", false},
	} {
		if got := hostKeyRE.MatchString(c.line); got != c.want {
			t.Errorf("hostKeyRE(%q) = %v, want %v", c.line, got, c.want)
		}
	}
	for _, c := range []struct {
		code string
		want bool
	}{
		{"return sql.Open(\"postgres\", dsn)", true},
		{"engine = create_engine(url)", true},
		{"DATABASES = {\"default\": {}}", true},
		{"$pdo = new PDO($dsn);", true},
		{"    'connections' => [", true},
		{"const pool = new Pool({ connectionString })", true},
		{"import postgres from 'postgres'", true},
		{"config :app, App.Repo,", true},
		{"let pool = PgPoolOptions::new().connect(&url).await?;", true},
		{"public $existingPostgresqlUrl = '';", false},
		{"<input placeholder=\"postgres://user:password@db:5432/app\" />", false},
		{"HELP = f\"Give the database URL, for example {EXAMPLE_URL}\"", false},
	} {
		if got := dbAPIRE.MatchString(c.code); got != c.want {
			t.Errorf("dbAPIRE(%q) = %v, want %v", c.code, got, c.want)
		}
	}
}
