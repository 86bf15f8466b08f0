package evidence

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReaders(t *testing.T) {
	for _, c := range []struct {
		name, file, text, key string
		env                   map[string]string
		line                  int
		driver                string // "" = no verdict
	}{
		{"django", "s.py", "DATABASES = {'default': {\n 'ENGINE': 'django.db.backends.postgresql',\n 'HOST': env('DB_HOST'),\n}}\n", "DB_HOST", nil, 3, "psycopg (libpq)"},
		{"django engine from env", "s.py", "DATABASES = {'default': {\n 'ENGINE': os.environ.get('SQL_ENGINE', 'django.db.backends.sqlite3'),\n 'HOST': os.environ.get('SQL_HOST'),\n}}\n", "SQL_HOST", map[string]string{"SQL_ENGINE": "django.db.backends.postgresql"}, 3, "psycopg (libpq)"},
		{"django engine from env, sqlite", "s.py", "DATABASES = {'default': {\n 'ENGINE': os.environ.get('SQL_ENGINE', 'django.db.backends.sqlite3'),\n 'HOST': os.environ.get('SQL_HOST'),\n}}\n", "SQL_HOST", map[string]string{"SQL_ENGINE": "django.db.backends.sqlite3"}, 0, ""},
		{"django engine env overrides default", "s.py", "DATABASES = {'default': {\n 'ENGINE': os.environ.get('E', 'django.db.backends.postgresql'),\n 'HOST': os.environ.get('SQL_HOST'),\n}}\n", "SQL_HOST", map[string]string{"E": "django.db.backends.mysql"}, 0, ""},
		{"django mysql", "s.py", "DATABASES = {'default': {\n 'ENGINE': 'django.db.backends.mysql',\n 'HOST': env('DB_HOST'),\n}}\n", "DB_HOST", nil, 0, ""},
		{"django other key", "s.py", "X = {'ENGINE': 'django.db.backends.postgresql', 'HOST': os.getenv('OTHER')}\n", "DB_HOST", nil, 0, ""},
		{"psycopg", "db.py", "import os\nimport psycopg\nc = psycopg.connect(host=os.getenv('H'))\n", "H", nil, 3, "psycopg (libpq)"},
		{"asyncpg", "db.py", "import os\nimport sqlalchemy\nimport asyncpg\nc = f(host=os.getenv('H'))\n", "H", nil, 0, ""},
		{"node pg import", "db.mjs", "import pg from 'pg'\nconst c = new pg.Client({\n  host: process.env['H'],\n})\n", "H", nil, 3, "node-postgres (pg)"},
		{"node without pg", "db.js", "const m = require('mysql2')\nnew Pool({ host: process.env.H })\n", "H", nil, 0, ""},
		{"pgx field", "main.go", "import \"github.com/jackc/pgx/v5/pgxpool\"\nfunc f() { cfg.ConnConfig.Host = os.Getenv(\"H\") }\n", "H", nil, 2, "pgx"},
		{"lib/pq sprintf", "main.go", "import _ \"github.com/lib/pq\"\nvar d = fmt.Sprintf(\"port=%d host=%s\", 5432, os.Getenv(\"H\"))\n", "H", nil, 2, "lib/pq"},
		{"lib/pq sprintf other arg", "main.go", "import _ \"github.com/lib/pq\"\nvar d = fmt.Sprintf(\"host=%s user=%s\", x, os.Getenv(\"H\"))\n", "H", nil, 0, ""},
		{"rails production", "config/database.yml", "default: &d\n  adapter: postgresql\n  host: <%= ENV['H'] %>\nproduction:\n  <<: *d\n  host: <%= ENV.fetch(\"H\") { \"db\" } %>\n", "H", map[string]string{"RAILS_ENV": "production"}, 6, "pg gem (libpq)"},
		{"rails merged host", "config/database.yml", "default: &d\n  adapter: postgresql\n  host: <%= ENV['H'] %>\nproduction:\n  <<: *d\n", "H", map[string]string{"RAILS_ENV": "production"}, 3, "pg gem (libpq)"},
		{"jdbc url", "application.yml", "spring:\n  datasource:\n    url: jdbc:postgresql://${H}:5432/x\n", "H", nil, 3, "pgjdbc"},
		{"jdbc in java", "Db.java", "class Db { String u = \"jdbc:postgresql://\" + System.getenv(\"H\") + \"/x\"; }\n", "H", nil, 1, "pgjdbc"},
		{"rails mysql", "config/database.yml", "development:\n  adapter: mysql2\n  host: <%= ENV['H'] %>\n", "H", nil, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.driver == "pgjdbc" {
				dir := t.TempDir()
				write(t, dir, c.file, c.text)
				v, ok := Find(Scope{ProjectDir: dir, Roots: []string{dir}}, c.key)
				if !ok || v.Directory || v.Line != c.line {
					t.Errorf("got %+v, %v; want a no-directory verdict at line %d", v, ok, c.line)
				}
				return
			}
			dir := t.TempDir()
			write(t, dir, c.file, c.text)
			v, ok := Find(Scope{ProjectDir: dir, Roots: []string{dir}, Env: c.env}, c.key)
			if ok != (c.driver != "") || (ok && (v.Driver != c.driver || v.Line != c.line || v.File != c.file || !v.Directory)) {
				t.Errorf("got %+v, %v; want driver %q at %s:%d", v, ok, c.driver, c.file, c.line)
			}
		})
	}
}

func TestScopeStaysInProject(t *testing.T) {
	outside := t.TempDir()
	write(t, outside, "s.py", "X = {'ENGINE': 'django.db.backends.postgresql', 'HOST': os.getenv('H')}\n")
	proj := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "s.py"), filepath.Join(proj, "link.py")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(proj, "dirlink")); err != nil {
		t.Fatal(err)
	}
	write(t, proj, "node_modules/x/s.py", "X = {'ENGINE': 'django.db.backends.postgresql', 'HOST': os.getenv('H')}\n")
	for _, roots := range [][]string{{proj}, {outside}, {filepath.Join(proj, "dirlink")}} {
		if v, ok := Find(Scope{ProjectDir: proj, Roots: roots}, "H"); ok {
			t.Errorf("roots %v: read %s outside the project or in node_modules", roots, v.File)
		}
	}
}

func TestAliases(t *testing.T) {
	for _, c := range []struct {
		name, file, text string
		line             int
	}{
		{"django alias", "s.py", "import os\nDB_HOST = os.environ.get('H', 'db')\nDATABASES = {'default': {\n 'ENGINE': 'django.db.backends.postgresql',\n 'HOST': DB_HOST,\n}}\n", 5},
		{"node shorthand", "db.js", "const { Pool } = require('pg')\nconst host = process.env.H\nmodule.exports = new Pool({ host, port: 5432 })\n", 3},
		{"node alias", "db.js", "const { Client } = require('pg')\nconst dbHost = process.env['H']\nnew Client({\n  host: dbHost,\n})\n", 4},
		{"go alias", "main.go", "import \"github.com/jackc/pgx/v5\"\nfunc f() {\n\th := os.Getenv(\"H\")\n\tdsn := fmt.Sprintf(\"host=%s\", h)\n}\n", 4},
	} {
		dir := t.TempDir()
		write(t, dir, c.file, c.text)
		v, ok := Find(Scope{ProjectDir: dir, Roots: []string{dir}}, "H")
		if !ok || v.Line != c.line {
			t.Errorf("%s: got %+v %v; want line %d", c.name, v, ok, c.line)
		}
	}
}
