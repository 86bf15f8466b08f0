package evidence

import "testing"

// TestPasteReader: a host variable pasted into a URL as HOST:PORT, in
// every language's template or format shape, is found at its line; the
// same variable in the socket-friendly place (?host=, host=), in a print,
// in a comment, or another variable of a similar name, is not.
func TestPasteReader(t *testing.T) {
	for _, c := range []struct {
		name, file, text, key string
		line                  int // 0: none
	}{
		// Indico's indico.conf (Python, bind-mounted).
		{"f-string os.environ", "indico.conf", "import os\nSQLALCHEMY_DATABASE_URI = f'postgresql://{os.environ[\"PGUSER\"]}:{os.environ[\"PGPASSWORD\"]}@{os.environ[\"PGHOST\"]}:5432/{os.environ[\"PGDATABASE\"]}'\n", "PGHOST", 2},
		{"f-string other variable", "indico.conf", "URI = f'postgresql://{os.environ[\"PGUSER\"]}:{os.environ[\"PGPASSWORD\"]}@{os.environ[\"PGHOST\"]}:5432/x'\n", "PGUSER", 0},
		// FastAPI-boilerplate: settings fields pasted in the class body.
		{"pydantic field", "src/app/core/config.py", "class PostgresSettings(BaseSettings):\n    POSTGRES_SERVER: str = config(\"POSTGRES_SERVER\", default=\"localhost\")\n    POSTGRES_URI: str = f\"{POSTGRES_USER}:{POSTGRES_PASSWORD}@{POSTGRES_SERVER}:{POSTGRES_PORT}/{POSTGRES_DB}\"\n", "POSTGRES_SERVER", 3},
		{"self attribute, lower case", "settings.py", "class S(BaseSettings):\n    postgres_server: str\n    @property\n    def url(self):\n        return f\"postgresql+asyncpg://{self.postgres_user}@{self.postgres_server}:{self.postgres_port}/{self.db}\"\n", "POSTGRES_SERVER", 5},
		{"settings attribute", "db.py", "url = f\"postgresql://u@{settings.DB_HOST}:{settings.DB_PORT}/app\"\n", "DB_HOST", 1},
		{"alias", "db.py", "import os\nhost = os.getenv('DB_HOST', 'db')\nurl = f'postgresql://u:p@{host}:5432/app'\n", "DB_HOST", 3},
		{"JS template", "src/db.ts", "const url = `postgres://${user}:${pw}@${process.env.DB_HOST}:${process.env.DB_PORT}/app`\n", "DB_HOST", 1},
		{"JS alias template", "db.js", "const host = process.env.DB_HOST\nconst url = `postgres://u@${host}:5432/app`\n", "DB_HOST", 2},
		{"ruby interpolation", "config/initializers/db.rb", "URL = \"postgres://u@#{ENV['DB_HOST']}:#{ENV['DB_PORT']}/app\"\n", "DB_HOST", 1},
		{"ERB", "config/sequel.yml", "url: postgres://u@<%= ENV['DB_HOST'] %>:5432/app\n", "DB_HOST", 1},
		{"jinja", "app.cfg.j2", "url = postgresql://u@{{ DB_HOST }}:{{ DB_PORT }}/app\n", "DB_HOST", 1},
		{"python %", "db.py", "import os\nURL = \"postgresql://%s:%s@%s:%s/%s\" % (user, pw, os.environ['DB_HOST'], port, db)\n", "DB_HOST", 2},
		{"python % user is the variable", "db.py", "URL = \"postgresql://%s:%s@%s:%s/%s\" % (os.environ['DB_USER'], pw, host, port, db)\n", "DB_USER", 0},
		{"python format", "db.py", "URL = 'postgresql://{}:{}@{}:{}/{}'.format(u, p, os.environ[\"DB_HOST\"], 5432, d)\n", "DB_HOST", 1},
		{"python format keywords", "db.py", "URL = 'postgresql://{user}@{host}:{port}/app'.format(user=u, host=os.environ[\"DB_HOST\"], port=5432)\n", "DB_HOST", 1},
		{"go Sprintf over lines", "main.go", "dsn := fmt.Sprintf(\"postgres://%s:%s@%s:%d/%s\",\n\tos.Getenv(\"DB_USER\"), os.Getenv(\"DB_PASS\"),\n\tos.Getenv(\"DB_HOST\"), 5432, \"app\")\n", "DB_HOST", 1},
		{"go Sprintf user", "main.go", "dsn := fmt.Sprintf(\"postgres://%s:%s@%s:%d/%s\", os.Getenv(\"DB_USER\"), p, h, 5432, d)\n", "DB_USER", 0},
		{"go JoinHostPort", "main.go", "addr := net.JoinHostPort(os.Getenv(\"DB_HOST\"), \"5432\")\n", "DB_HOST", 1},
		{"concatenation", "db.js", "const url = 'postgres://u@' + process.env.DB_HOST + ':' + port + '/app'\n", "DB_HOST", 1},
		{"PHP concatenation", "config.php", "$url = 'pgsql://u@' . getenv('DB_HOST') . ':' . $port;\n", "DB_HOST", 1},
		// The host alone, no port (trial 12 W3, ChirpStack's chirpstack.toml).
		{"toml host only", "configuration/chirpstack/chirpstack.toml", "[postgresql]\n  dsn=\"postgres://chirpstack:chirpstack@$POSTGRESQL_HOST/chirpstack?sslmode=disable\"\n", "POSTGRESQL_HOST", 2},
		{"braced host only", "app.toml", "dsn=\"postgres://u:p@${POSTGRESQL_HOST}/db\"\n", "POSTGRESQL_HOST", 1},
		{"host then query", "app.conf", "url = postgres://u:p@$DB_HOST?sslmode=disable\n", "DB_HOST", 1},
		{"host at the end", "app.yml", "url: \"postgres://u:p@${DB_HOST}\"\n", "DB_HOST", 1},
		{"f-string host only", "db.py", "url = f'postgresql://u:p@{os.environ[\"DB_HOST\"]}/app'\n", "DB_HOST", 1},
		{"script host only", "run.sh", "psql \"postgres://u@$DB_HOST/app\"\n", "DB_HOST", 1},
		{"user info, not host", "app.toml", "dsn=\"postgres://$DB_HOST@db/app\"\n", "DB_HOST", 0},
		{"longer name, host only", "app.toml", "dsn=\"postgres://u@$DB_HOST_RO/app\"\n", "DB_HOST", 0},
		// Socket-friendly places and non-connections.
		{"query host", "db.py", "URL = f'postgresql://u:p@/app?host={os.environ[\"PGHOST\"]}'\n", "PGHOST", 0},
		{"keyword DSN", "db.py", "DSN = f'host={os.environ[\"PGHOST\"]} port=5432 dbname=app'\n", "PGHOST", 0},
		{"print", "app.py", "print(f\"connecting to {os.environ['DB_HOST']}:{os.environ['DB_PORT']}\")\n", "DB_HOST", 0},
		{"logger", "app.py", "logger.info(f\"db at {DB_HOST}:{DB_PORT}\")\n", "DB_HOST", 0},
		{"comment", "app.py", "# url = f'postgresql://u@{DB_HOST}:5432/app'\n", "DB_HOST", 0},
		{"longer name", "app.py", "url = f'postgresql://u@{os.environ[\"DB_HOST_RO\"]}:5432/app'\n", "DB_HOST", 0},
		{"ts destructuring", "env.ts", "function f({ DB_HOST }: Env) {}\n", "DB_HOST", 0},
		// Shell: only inside a URL; a wait's argument is the TCP-wait reader's.
		{"script URL", "run.sh", "export URL=\"postgres://u@${DB_HOST}:${DB_PORT}/app\"\n", "DB_HOST", 1},
		{"script wait", "entrypoint.sh", "wait-for-it \"$DB_HOST:$DB_PORT\" -t 30\n", "DB_HOST", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, c.file, c.text)
			v, ok := FindPasted(Scope{ProjectDir: dir, Roots: []string{dir}}, c.key)
			if ok != (c.line != 0) || ok && (v.Line != c.line || v.File != c.file || v.Directory || !v.Pasted) {
				t.Errorf("FindPasted(%s) = %+v, %v; want line %d", c.key, v, ok, c.line)
			}
		})
	}
}

// TestPasteWinsOverDriver: a file that pastes PGHOST into a URL keeps it
// on TCP even where a libpq-family reader of it is in view too (Indico's
// psql in run_indico.sh, a Django HOST in settings).
func TestPasteWinsOverDriver(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a_settings.py", "DATABASES = {'default': {\n 'ENGINE': 'django.db.backends.postgresql',\n 'HOST': os.environ.get('DB_HOST'),\n}}\n")
	write(t, dir, "z_celery.py", "broker = f\"sqla+postgresql://u@{os.environ['DB_HOST']}:5432/app\"\n")
	v, ok := Find(Scope{ProjectDir: dir, Roots: []string{dir}}, "DB_HOST")
	if !ok || v.Directory || !v.Pasted || v.File != "z_celery.py" {
		t.Errorf("Find = %+v, %v; want the paste in z_celery.py", v, ok)
	}
}
