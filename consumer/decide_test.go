package consumer

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/evidence"
)

func TestTableWellFormed(t *testing.T) {
	rs, err := parseTable(readersYAML)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, r := range rs {
		names[r.Name] = true
	}
	for _, kr := range keyRules {
		if !names[kr.reader] {
			t.Errorf("key rule names reader %q, which the table lacks", kr.reader)
		}
	}
	for _, c := range connectorRules {
		if !names[c.reader] {
			t.Errorf("connector rule names reader %q, which the table lacks", c.reader)
		}
	}
	if _, err := parseTable([]byte("- name: x\n  forms: [sideways]\n  reason: r\n  sources: [s]\n  proof: p\n")); err == nil {
		t.Error("an unknown form was accepted")
	}
}

// scope lays files out in a temporary project directory.
func scope(t *testing.T, files map[string]string) evidence.Scope {
	t.Helper()
	dir := t.TempDir()
	var list []string
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		list = append(list, p)
	}
	sort.Strings(list)
	return evidence.Scope{ProjectDir: dir, Roots: []string{dir}, List: list}
}

func TestDecide(t *testing.T) {
	for _, c := range []struct {
		name    string
		files   map[string]string
		key     string
		ok      bool
		form    Form
		readers string // the deciding reader first, comma-joined
		at      string // file:line of the deciding use
	}{
		{"prisma schema", map[string]string{"prisma/schema.prisma": "datasource db {\n  provider = \"postgresql\"\n  url      = env(\"DATABASE_URL\")\n}\n",
			"package.json": "{\n  \"dependencies\": {\n    \"@prisma/client\": \"5.0.0\"\n  }\n}\n"},
			"DATABASE_URL", true, Localhost, "prisma", "prisma/schema.prisma:3"},
		// Rust (trial 7 W1): the value followed out of the function that
		// returns it and into the url::Url parsed from it.
		{"rust set_query", map[string]string{
			"src/settings.rs": "use url::Url;\nimpl Settings {\n  pub fn get_database_url(&self) -> String {\n    if let Ok(url) = env::var(\"LEMMY_DATABASE_URL\") {\n      url\n    } else {\n      self.database.connection.clone()\n    }\n  }\n  pub fn with_options(&self) -> LemmyResult<String> {\n    let mut url = Url::parse(&self.get_database_url())?;\n    url.set_query(Some(\"options=x\"));\n    Ok(url.into())\n  }\n}\n",
			"Cargo.toml":      "[dependencies]\ndiesel = \"2.3\"\n"},
			"database.connection", true, "", "url-set-query", "src/settings.rs:12"},
		{"rust env read, query cleared", map[string]string{
			"src/main.rs": "fn main() {\n    let mut u = Url::parse(&std::env::var(\"DATABASE_URL\").unwrap()).unwrap();\n    u.query_pairs_mut().clear().append_pair(\"application_name\", \"x\");\n    tokio_postgres::connect(u.as_str(), NoTls);\n}\n"},
			"DATABASE_URL", true, "", "url-set-query", "src/main.rs:3"},
		{"rust parse::<Url> check, diesel connects", map[string]string{
			"src/db.rs":  "pub fn connect() -> PgConnection {\n    let database_url = env::var(\"DATABASE_URL\").expect(\"set\");\n    let _ = database_url.parse::<Url>().expect(\"a URL\");\n    PgConnection::establish(&database_url).unwrap()\n}\n",
			"Cargo.toml": "[dependencies]\ndiesel = { version = \"2\" }\nurl = \"2\"\n"},
			"DATABASE_URL", true, Localhost, "rust-url,diesel", "src/db.rs:3"},
		{"rust tokio-postgres alone", map[string]string{
			"src/main.rs": "async fn pool() {\n    let url = std::env::var(\"DATABASE_URL\").unwrap();\n    tokio_postgres::connect(&url, NoTls).await;\n}\n"},
			"DATABASE_URL", true, Empty, "tokio-postgres", "src/main.rs:3"},
		// Trial 10 N3 (HackSoftware/Django-Styleguide-Example): env.db()
		// is django-environ, not dj-database-url; it takes only the empty
		// form (a percent-encoded host stays encoded, e2e proves it).
		{"django-environ env.db", map[string]string{
			"config/django/base.py": "import environ\n\nenv = environ.Env()\n\nDATABASES = {\n    \"default\": env.db(\"DATABASE_URL\", default=\"postgres:///styleguide_example\"),\n}\n",
			"requirements/base.txt": "Django==5.2.1\ndjango-environ==0.12.0\npsycopg[binary]==3.2.9\n"},
			"DATABASE_URL", true, Empty, "django-environ", "config/django/base.py:6"},
		{"django-environ default variable", map[string]string{
			"settings.py":      "import environ\nenv = environ.Env()\nDATABASES = {\"default\": env.db()}\n",
			"requirements.txt": "django-environ\n"},
			"DATABASE_URL", true, Empty, "django-environ", "settings.py:3"},
		{"dj-database-url beside django-environ", map[string]string{
			"settings.py":      "import dj_database_url\nDATABASES = {\"default\": dj_database_url.parse(os.environ[\"DATABASE_URL\"])}\n",
			"requirements.txt": "dj-database-url==2.1.0\n"},
			"DATABASE_URL", true, Empty, "dj-database-url", "settings.py:2"},
		{"asyncpg pool", map[string]string{"app/db.py": "import asyncpg, os\n\nasync def pool():\n    return await asyncpg.create_pool(os.environ[\"DATABASE_URL\"])\n"},
			"DATABASE_URL", true, Empty, "asyncpg", "app/db.py:4"},
		{"pydantic then SQLAlchemy", map[string]string{
			"app/settings.py": "from pydantic import PostgresDsn\nfrom pydantic_settings import BaseSettings\n\nclass Settings(BaseSettings):\n    database_url: PostgresDsn\n",
			"app/db.py":       "from sqlalchemy.ext.asyncio import create_async_engine\nengine = create_async_engine(str(settings.database_url))\n"},
			"DATABASE_URL", true, Localhost, "pydantic,sqlalchemy", "app/settings.py:5"},
		{"pydantic then raw asyncpg", map[string]string{
			"app/settings.py": "class Settings(BaseSettings):\n    DATABASE_URL: PostgresDsn\n",
			"app/db.py":       "import asyncpg\npool = await asyncpg.create_pool(str(settings.DATABASE_URL))\n"},
			"DATABASE_URL", true, "", "pydantic,asyncpg", "app/settings.py:2"},
		{"ecto runtime config", map[string]string{"config/runtime.exs": "config :app, App.Repo,\n  url: System.get_env(\"DATABASE_URL\"),\n  pool_size: 10\n"},
			"DATABASE_URL", true, "", "ecto", "config/runtime.exs:2"},
		{"entrypoint splits the URL", map[string]string{"docker-entrypoint.sh": "#!/bin/sh\nset -e\nDB_HOST=$(echo \"$DATABASE_URL\" | sed -e 's|.*@||' -e 's|[:/].*||')\npg_isready -h \"$DB_HOST\"\n",
			"requirements.txt": "psycopg2-binary==2.9.9\n"},
			"DATABASE_URL", true, "", "shell-parse", "docker-entrypoint.sh:3"},
		{"code appends a query", map[string]string{"src/db.js": "const { Pool } = require('pg')\nconst pool = new Pool({ connectionString: process.env.DATABASE_URL + '?sslmode=disable' })\n"},
			"DATABASE_URL", true, "", "query-append", "src/db.js:2"},
		{"f-string appends a query", map[string]string{"db.py": "import psycopg2\nconn = psycopg2.connect(f\"{os.environ['DB_URL']}?sslmode=disable\")\n"},
			"DB_URL", true, "", "query-append", "db.py:2"},
		{"pgx pool", map[string]string{"main.go": "package main\n\nfunc main() {\n\tpool, err := pgxpool.New(ctx, os.Getenv(\"DATABASE_URL\"))\n}\n", "go.mod": "module x\n\nrequire github.com/jackc/pgx/v5 v5.7.1\n"},
			"DATABASE_URL", true, Empty, "pgx", "main.go:4"},
		{"a settings module, the connection elsewhere", map[string]string{
			"app/config.py": "import os\nDATABASE_URL = os.environ[\"DATABASE_URL\"]\n",
			"app/db.py":     "import psycopg2\nfrom app.config import DATABASE_URL\n\ndef conn():\n    return psycopg2.connect(DATABASE_URL)\n"},
			"DATABASE_URL", true, Empty, "psycopg", "app/db.py:5"},
		{"mentioned, only manifests say more", map[string]string{
			"app/config.py":    "import os\nURL = os.getenv(\"PG_URL\")\n",
			"requirements.txt": "SQLAlchemy[asyncio]>=2.0\nasyncpg==0.29.0\n"},
			"PG_URL", true, Empty, "sqlalchemy,asyncpg", "requirements.txt:1"},
		// Trial 7 (nsidnev/fastapi-realworld-example-app): databases is
		// declared but never imported; pydantic and asyncpg read the URL,
		// and share no socket form.
		{"declared databases nobody imports", map[string]string{
			"app/core/settings/app.py": "from pydantic import PostgresDsn\nfrom pydantic import BaseSettings\n\nclass AppSettings(BaseSettings):\n    database_url: PostgresDsn\n",
			"app/db/events.py":         "import asyncpg\n\nasync def connect_to_db(app, settings):\n    app.state.pool = await asyncpg.create_pool(str(settings.database_url))\n",
			"pyproject.toml":           "[tool.poetry.dependencies]\npydantic = \"^1.9\"\ndatabases = \"^0.6.1\"\nasyncpg = \"^0.26.0\"\n"},
			"DATABASE_URL", true, "", "pydantic,asyncpg", "app/core/settings/app.py:5"},
		{"databases imported", map[string]string{
			"app/db.py":      "import databases\nimport os\n\ndatabase = databases.Database(os.environ[\"DATABASE_URL\"])\n",
			"pyproject.toml": "[tool.poetry.dependencies]\ndatabases = \"^0.6.1\"\nasyncpg = \"^0.26.0\"\n"},
			"DATABASE_URL", true, Empty, "encode-databases,asyncpg", "app/db.py:1"},
		// testdrivenio/fastapi-crud-async: databases and SQLAlchemy read
		// the same DATABASE_URL; the empty form suits both.
		{"databases and sqlalchemy", map[string]string{
			"src/app/db.py":        "import os\n\nfrom databases import Database\nfrom sqlalchemy import create_engine\n\nDATABASE_URL = os.getenv(\"DATABASE_URL\")\nengine = create_engine(DATABASE_URL)\ndatabase = Database(DATABASE_URL)\n",
			"src/requirements.txt": "asyncpg==0.25.0\ndatabases[postgresql]==0.5.5\nfastapi==0.73.0\npsycopg2-binary==2.9.3\nSQLAlchemy==1.4.31\n"},
			"DATABASE_URL", true, Empty, "sqlalchemy,encode-databases,asyncpg,psycopg", "src/app/db.py:7"},
		{"databases before 0.5.4", map[string]string{
			"app/db.py":        "import databases\nimport os\n\ndatabase = databases.Database(os.environ[\"DATABASE_URL\"])\n",
			"requirements.txt": "databases[postgresql]==0.5.3\nasyncpg==0.25.0\n"},
			"DATABASE_URL", true, "", "encode-databases,asyncpg", "app/db.py:1"},
		{"databases with no version", map[string]string{
			"app/db.py":        "import databases\nimport os\n\ndatabase = databases.Database(os.environ[\"DATABASE_URL\"])\n",
			"requirements.txt": "databases[postgresql]\nasyncpg\n"},
			"DATABASE_URL", true, "", "encode-databases,asyncpg", "app/db.py:1"},
		{"databases in a poetry table", map[string]string{
			"app/db.py":      "import databases\nimport os\n\ndatabase = databases.Database(os.environ[\"DATABASE_URL\"])\n",
			"pyproject.toml": "[tool.poetry.dependencies]\ndatabases = {extras = [\"postgresql\"], version = \"^0.6.2\"}\n"},
			"DATABASE_URL", true, Empty, "encode-databases", "app/db.py:1"},
		{"library declared, variable never read", map[string]string{"requirements.txt": "psycopg2==2.9\n", "README.md": "Set DATABASE_URL to your database.\n"},
			"DATABASE_URL", false, "", "", ""},
		{"rails reads DATABASE_URL implicitly", map[string]string{"Gemfile": "source \"https://rubygems.org\"\ngem \"rails\", \"~> 7.1\"\ngem \"pg\"\n"},
			"DATABASE_URL", true, Localhost, "rails,ruby-pg", "Gemfile:2"},
		// Rails before 7.0 lets the URL's localhost win over ?host=: the
		// version that runs decides, the lock file's over the Gemfile's.
		{"rails with no requirement resolves the newest", map[string]string{"Gemfile": "gem 'rails'\ngem 'pg'\n"},
			"DATABASE_URL", true, Localhost, "rails,ruby-pg", "Gemfile:1"},
		{"rails 6.1 in the Gemfile", map[string]string{"Gemfile": "gem \"rails\", \"~> 6.1.4\", \">= 6.1.4.1\"\ngem \"pg\"\n"},
			"DATABASE_URL", true, "", "rails,ruby-pg", "Gemfile:1"},
		{"rails 6.1 locked under an open Gemfile", map[string]string{"Gemfile": "gem 'rails'\ngem 'pg'\n",
			"Gemfile.lock": "GEM\n  remote: https://rubygems.org/\n  specs:\n    actionpack (6.1.7.10)\n    pg (1.5.4)\n    rails (6.1.7.10)\n      actionpack (= 6.1.7.10)\n\nDEPENDENCIES\n  pg\n  rails\n"},
			"DATABASE_URL", true, "", "rails,ruby-pg", "Gemfile:1"},
		{"rails 7.1 locked", map[string]string{"Gemfile": "gem 'rails', '>= 6'\ngem 'pg'\n",
			"Gemfile.lock": "GEM\n  specs:\n    pg (1.5.4)\n    rails (7.1.3.2)\n"},
			"DATABASE_URL", true, Localhost, "rails,ruby-pg", "Gemfile.lock:4"}, // the line that shows the version that runs
		{"doctrine", map[string]string{"config/packages/doctrine.yaml": "doctrine:\n    dbal:\n        url: '%env(resolve:DATABASE_URL)%'\n"},
			"DATABASE_URL", true, Localhost, "php-parse-url", "config/packages/doctrine.yaml:3"},
		{"tortoise", map[string]string{"main.py": "register_tortoise(app, db_url=os.environ[\"DATABASE_URL\"], modules={})\n"},
			"DATABASE_URL", true, "", "tortoise", "main.py:1"},
		{"jdbc built from the URI", map[string]string{"src/main/java/App.java": "class App {\n  String url = \"jdbc:\" + System.getenv(\"DATABASE_URL\");\n}\n"},
			"DATABASE_URL", true, "", "jdbc-concat", "src/main/java/App.java:2"},
		// Trial 8 #13, Penpot (backend/src/app/db.clj:120): the variable's
		// name is derived (:database-uri), the URL prefixed in Clojure.
		{"jdbc prefixed in Clojure, variable named nowhere", map[string]string{"backend/src/app/db.clj": "(defn- create-datasource-config\n  [{:keys [::uri] :as cfg}]\n  (doto (HikariConfig.)\n    (.setJdbcUrl (str \"jdbc:\" uri))))\n"},
			"PENPOT_DATABASE_URI", true, "", "jdbc-concat", "backend/src/app/db.clj:4"},
		{"jdbc prefixed in Clojure, variable read there", map[string]string{"src/db.clj": "(def url (System/getenv \"DB_URI\"))\n(def jdbc-url (str \"jdbc:\" url))\n"},
			"DB_URI", true, "", "jdbc-concat", "src/db.clj:2"},
		{"jdbc template in Kotlin", map[string]string{"src/main/kotlin/Db.kt": "val url = System.getenv(\"DATABASE_URL\")\nval ds = HikariDataSource().apply { jdbcUrl = \"jdbc:$url\" }\n"},
			"DATABASE_URL", true, "", "jdbc-concat", "src/main/kotlin/Db.kt:2"},
		{"jdbc template in Scala", map[string]string{"src/main/scala/Db.scala": "object Db {\n  val url = sys.env(\"DATABASE_URL\")\n  val jdbc = s\"jdbc:${url}\"\n}\n"},
			"DATABASE_URL", true, "", "jdbc-concat", "src/main/scala/Db.scala:3"},
		{"jdbc prefixed in Java, variable named nowhere", map[string]string{"src/main/java/Db.java": "class Db {\n  DataSource ds(String uri) {\n    return new HikariDataSource(cfg(\"jdbc:\" + uri));\n  }\n}\n"},
			"APP_DB_URI", true, "", "jdbc-concat", "src/main/java/Db.java:3"},
		{"prisma beside new URL() check", map[string]string{
			"scripts/check-db.js":  "const url = new URL(process.env.DATABASE_URL);\n",
			"prisma/schema.prisma": "datasource db {\n  url = env(\"DATABASE_URL\")\n}\n"},
			"DATABASE_URL", true, Localhost, "prisma,whatwg-url", "prisma/schema.prisma:2"},
		{"new URL() check alone is no reader", map[string]string{"check.js": "new URL(process.env.DATABASE_URL)\n"},
			"DATABASE_URL", false, "", "", ""},
		{"knex takes a string only new URL() parses", map[string]string{"db.js": "const knex = require('knex')({ client: 'pg', connection: process.env.DATABASE_URL })\n"},
			"DATABASE_URL", true, Localhost, "knex", "db.js:1"},
		{"typeorm 0.3 hands url to pg", map[string]string{
			"src/data-source.ts": "import { DataSource } from \"typeorm\"\nexport const ds = new DataSource({ type: \"postgres\", url: process.env.DATABASE_URL })\n",
			"package.json":       `{"dependencies": {"typeorm": "^0.3.20", "pg": "^8.11.0"}}`},
			"DATABASE_URL", true, Empty, "typeorm,node-postgres", "src/data-source.ts:2"},
		{"typeorm before 0.2.29 reads the authority", map[string]string{
			"src/db.ts":    "import { createConnection } from \"typeorm\"\ncreateConnection({ type: \"postgres\", url: process.env.DATABASE_URL })\n",
			"package.json": `{"dependencies": {"typeorm": "~0.2.25", "pg": "^8"}}`},
			"DATABASE_URL", true, "", "typeorm,node-postgres", "src/db.ts:2"},
		{"typeorm of no declared version", map[string]string{
			"src/db.ts": "import { DataSource } from \"typeorm\"\nnew DataSource({ type: \"postgres\", url: process.env.DATABASE_URL })\n"},
			"DATABASE_URL", true, "", "typeorm", "src/db.ts:2"},
		{"sequelize 6", map[string]string{
			"models/index.js": "const { Sequelize } = require('sequelize')\nconst db = new Sequelize(process.env.DATABASE_URL)\n",
			"package.json":    `{"dependencies": {"sequelize": "^6.35.0"}}`},
			"DATABASE_URL", true, Empty, "sequelize", "models/index.js:2"},
		{"sequelize 5", map[string]string{
			"models/index.js": "const Sequelize = require('sequelize')\nconst db = new Sequelize(process.env.DATABASE_URL)\n",
			"package.json":    `{"dependencies": {"sequelize": "5.22.3"}}`},
			"DATABASE_URL", true, "", "sequelize", "models/index.js:2"},
		// The value handed on (flow.go): through a local variable into a
		// helper's parameter, as hoppscotch's PrismaService does.
		{"new URL() in a helper the value is handed to", map[string]string{
			"src/db.ts":    "import pg from 'pg';\nclass S {\n  constructor() {\n    const databaseUrl = process.env.DATABASE_URL;\n    const parsed = S.parse(databaseUrl);\n    new pg.Pool({ connectionString: parsed.cs });\n  }\n  private static parse(raw: string): {\n    cs: string;\n  } {\n    const url = new URL(raw);\n    return { cs: url.toString() };\n  }\n}\n",
			"package.json": `{"dependencies": {"pg": "8.22.0"}}`},
			"DATABASE_URL", true, Localhost, "whatwg-url,node-postgres", "src/db.ts:11"},
		{"a helper in another file, defined once", map[string]string{
			"src/index.js": "const { check } = require('./check')\nconst url = process.env.DATABASE_URL\ncheck(url)\nconst { Pool } = require('pg')\nnew Pool({ connectionString: url })\n",
			"src/check.js": "function check(u) {\n  return new URL(u).protocol\n}\nmodule.exports = { check }\n"},
			"DATABASE_URL", true, Localhost, "whatwg-url,node-postgres", "src/check.js:2"},
		{"a local variable gets a query appended", map[string]string{
			"internal/app/migrate.go":  "package app\n\nfunc init() {\n\tdatabaseURL, ok := os.LookupEnv(\"PG_URL\")\n\tif !ok {\n\t\treturn\n\t}\n\tdatabaseURL += \"?sslmode=disable\"\n\tmigrate.New(\"file://migrations\", databaseURL)\n}\n",
			"pkg/postgres/postgres.go": "package postgres\n\nfunc New(url string) {\n\tpgxpool.ParseConfig(url)\n}\n",
			"go.mod":                   "module x\n\nrequire github.com/jackc/pgx/v5 v5.7.1\n"},
			"PG_URL", true, "", "query-append", "internal/app/migrate.go:8"},
		{"python: a parameter appended to", map[string]string{
			"app/db.py": "import os, psycopg2\n\ndef connect(dsn):\n    return psycopg2.connect(dsn + \"?sslmode=disable\")\n\nDB = os.environ.get(\"DB_URL\", \"\")\nconn = connect(DB)\n"},
			"DB_URL", true, "", "query-append", "app/db.py:4"},
		{"a same-named variable elsewhere is not the value", map[string]string{
			"src/a.js": "const { Pool } = require('pg')\nfunction db() {\n  const url = process.env.DATABASE_URL\n  return new Pool({ connectionString: url })\n}\nfunction page() {\n  const url = 'https://example.com'\n  return url + '?page=2'\n}\n"},
			"DATABASE_URL", true, Empty, "node-postgres", "src/a.js:4"},
		// Prisma 7 names the variable in prisma.config.ts; the manifests'
		// readers count beside the code's (repro: pg's Pool in code).
		{"prisma.config.ts beside a pg pool", map[string]string{
			"prisma.config.ts":     "import { defineConfig, env } from \"prisma/config\";\nexport default defineConfig({\n  schema: \"prisma/schema.prisma\",\n  datasource: { url: env(\"DATABASE_URL\") },\n});\n",
			"prisma/schema.prisma": "datasource db {\n  provider = \"postgresql\"\n}\n",
			"index.js":             "const pg = require(\"pg\");\nconst pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });\n",
			"package.json":         `{ "dependencies": { "@prisma/client": "6.10.1", "pg": "8.11.0" }, "devDependencies": {"prisma": "6.10.1"} }`},
			"DATABASE_URL", true, Localhost, "prisma,node-postgres", "prisma.config.ts:4"},
		{"the manifest's prisma, code's pg, no prisma file", map[string]string{
			"index.js":     "const pg = require(\"pg\");\nnew pg.Pool({ connectionString: process.env.DATABASE_URL });\n",
			"package.json": `{ "dependencies": { "@prisma/client": "6.10.1", "pg": "8.11.0" } }`},
			"DATABASE_URL", true, Localhost, "node-postgres,prisma", "index.js:2"},
		{"prisma's schema reads another variable", map[string]string{
			"prisma/schema.prisma": "datasource db {\n  url = env(\"PRISMA_URL\")\n}\n",
			"index.js":             "const pg = require(\"pg\");\nnew pg.Pool({ connectionString: process.env.DATABASE_URL });\n",
			"package.json":         `{ "dependencies": { "@prisma/client": "6.10.1", "pg": "8.11.0" } }`},
			"DATABASE_URL", true, Empty, "node-postgres", "index.js:2"},
		{"another variable's name inside", map[string]string{"db.py": "import asyncpg\nasyncpg.connect(os.environ['READ_DATABASE_URL'])\n"},
			"DATABASE_URL", false, "", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, ok := Decide(scope(t, c.files), c.key)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v (verdict %+v)", ok, c.ok, v)
			}
			if !ok {
				return
			}
			if v.Form != c.form {
				t.Errorf("form = %q, want %q", v.Form, c.form)
			}
			readers := strings.Join(v.Readers(), ",")
			if readers != c.readers {
				t.Errorf("readers = %s, want %s", readers, c.readers)
			}
			if at := v.Uses[0].File + ":" + itoa(v.Uses[0].Line); at != c.at {
				t.Errorf("deciding use at %s, want %s", at, c.at)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestFromValue(t *testing.T) {
	for _, c := range []struct{ uri, readers string }{
		{"postgres://api:pw@db:5432/api?sslmode=disable&pool_max_conns=10", "pgx"},
		{"postgresql://u:pw@db:5432/app?schema=public", "prisma"},
		{"postgresql://u:pw@db/app?serverVersion=16&charset=utf8", "php-parse-url"},
		{"postgresql+asyncpg://u:pw@db/app", "sqlalchemy"},
		{"postgresql+pg8000://u:pw@db/app", "sqlalchemy,pg8000"},
		{"postgres://u:pw@db/app?sslmode=require&connect_timeout=5", ""},
		{"not a uri", ""},
	} {
		var names []string
		for _, u := range FromValue(c.uri) {
			names = append(names, u.Reader.Name)
		}
		if got := strings.Join(names, ","); got != c.readers {
			t.Errorf("FromValue(%q) = %s, want %s", c.uri, got, c.readers)
		}
	}
	if v := Combine(FromValue("postgresql+pg8000://u:pw@db/app")); v.Form != "" || v.Uses[0].Reader.Name != "pg8000" {
		t.Errorf("pg8000: %+v, want no form, pg8000 deciding", v)
	}
}

func TestAtLeast(t *testing.T) {
	for _, c := range []struct {
		spec, since string
		want        bool
	}{
		{"^0.3.17", "0.2.29", true}, {"0.2.29", "0.2.29", true}, {"~0.2.28", "0.2.29", false}, {">=6", "6.0.0", true},
		{"6.x", "6.0.0", true}, {"5.22.3", "6.0.0", false}, {"v6.1.0", "6.0.0", true}, {"latest", "6.0.0", true},
		{"github:sequelize/sequelize", "6.0.0", false}, {"", "0.2.29", false}, {"^0.10.0", "0.2.29", true},
	} {
		if got := atLeast(c.spec, c.since); got != c.want {
			t.Errorf("atLeast(%q, %q) = %v, want %v", c.spec, c.since, got, c.want)
		}
	}
}

func TestFromFile(t *testing.T) {
	for path, want := range map[string]string{
		"config/database.yml":         "rails",
		"app/config/database.yml.erb": "rails",
		"/src/config/database.yml":    "rails",
		"database.yml":                "",
		"config/database.yaml":        "",
		"config/application.yml":      "",
		"compose.yml":                 "",
	} {
		uses := FromFile(path)
		got := ""
		if len(uses) > 0 {
			got = uses[0].Reader.Name
		}
		if got != want {
			t.Errorf("FromFile(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestJSONManifests(t *testing.T) {
	for _, c := range []struct {
		rel, data string
		want      []string
	}{
		{"package.json", `{"name":"web","dependencies":{"pg":"8.11.0"},"devDependencies":{"prisma":"5"}}`, []string{"npm:pg@1", "npm:prisma@1"}},
		{"app/package.json", "{\n  \"name\": \"web\",\n  \"version\": \"1.0.0\",\n  \"dependencies\": {\n    \"@prisma/client\": \"5\"\n  }\n}\n", []string{"npm:@prisma/client@5"}},
		{"composer.json", "{\"require\": {\"php\": \">=8.2\", \"doctrine/dbal\": \"^3\"}, \"config\": {\"x/y\": \"1\"}}", []string{"composer:doctrine/dbal@1", "composer:php@1"}},
		{"package.json", "{\n  \"dependencies\": {\n    \"pg\": \"8\",\n", []string{"npm:pg@3"}}, // not JSON: the line patterns
	} {
		var got []string
		for _, d := range manifestDeps(c.rel, []byte(c.data)) {
			got = append(got, fmt.Sprintf("%s@%d", d.pkg, d.line))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("manifestDeps(%s, %q) = %v, want %v", c.rel, c.data, got, c.want)
		}
	}
}

// TestChooseAt: on a port other than 5432 the empty form carries it in
// ?port=, which a reader that reads the authority's port only
// (port_ignored: Prisma, Sequelize) does not see; the localhost form
// carries it in the authority.
func TestChooseAt(t *testing.T) {
	for _, c := range []struct {
		readers []string
		port    int
		want    Form
	}{
		{[]string{"sequelize"}, 5432, Empty},
		{[]string{"sequelize"}, 5433, Localhost},
		{[]string{"sequelize", "node-postgres"}, 5433, Localhost},
		{[]string{"sequelize", "asyncpg"}, 5433, ""},
		{[]string{"sequelize", "asyncpg"}, 5432, Empty},
		{[]string{"prisma"}, 6543, Localhost},
		{[]string{"typeorm", "node-postgres"}, 5433, Empty},
		{[]string{"lib/pq"}, 5433, Empty},
	} {
		var rs []*Reader
		for _, n := range c.readers {
			rs = append(rs, ByName(n))
		}
		if got := ChooseAt(rs, c.port); got != c.want {
			t.Errorf("ChooseAt(%v, %d) = %q, want %q", c.readers, c.port, got, c.want)
		}
	}
	if !ByName("prisma").PortIgnored || !ByName("sequelize").PortIgnored {
		t.Error("prisma and sequelize read the port from the authority only (readers.yaml port_ignored)")
	}
}

func TestRustReturns(t *testing.T) {
	for line, want := range map[string]bool{
		"      url":                            true,
		"    self.database.connection.clone()": true,
		`    if let Ok(url) = env::var("X") { url } else { self.database.connection.clone() }`: true,
		`    std::env::var("DATABASE_URL").unwrap()`:                                           true,
		"    return url;": true,
		"    let mut url = Url::parse(&self.get_database_url())?;": false,
		"    connect(&url, NoTls).await?;":                         false,
		"        &url,":                                            false,
		`    if let Ok(url) = env::var("X") {`:                     false,
		"    // url":                                               false,
	} {
		if got := rustReturns(line); got != want {
			t.Errorf("rustReturns(%q) = %v, want %v", line, got, want)
		}
	}
}
