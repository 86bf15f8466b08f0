package analyze

import "testing"

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
	} {
		db := &DB{Name: "postgres", Names: []string{"postgres"}}
		if got := connectionLine([]byte(c.text), nameRE(db)); got != c.want {
			t.Errorf("%s: connectionLine = %d, want %d", c.name, got, c.want)
		}
	}
}
