package validate

import "testing"

func TestRelativeHost(t *testing.T) {
	cases := []struct{ key, val, want string }{
		{"PGHOST", "./run/postgresql", "./run/postgresql"},
		{"PGHOST", "db", ""},
		{"PGHOST", "/var/run/postgresql", ""},
		{"DATABASE_URL", "postgres://cli@/cli?host=var/run/postgresql", "var/run/postgresql"},
		{"DATABASE_URL", "postgres://cli@db/cli", ""},
		{"PG_DSN", "host=./postgresql dbname=cli", "./postgresql"},
		{"PG_DSN", "host=/tmp dbname=cli", ""},
		{"DB_HOST", "var/run/postgresql", "var/run/postgresql"},
		{"PROXY_ADDRESS", "10.0.0.0/8", ""}, // a CIDR range, not a socket directory
		{"API_SERVER", "http://api:8080/v1", ""},
		{"CONN", "Host=run/postgresql;Database=app;Username=app", "run/postgresql"},
		{"CONN", "pgsql:host=./pg;dbname=app", "./pg"},
	}
	for _, c := range cases {
		if got := relativeHost(c.key, c.val); got != c.want {
			t.Errorf("relativeHost(%s, %q) = %q, want %q", c.key, c.val, got, c.want)
		}
	}
}
