package main

import "testing"

// TestRedactLine: the source line quoted under a finding on a terminal
// shows no password, in the line forms of every file the tool reads, and
// keeps the rest of the line as written.
func TestRedactLine(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// case 16 (trial 5, D4): defaults inside references
		{"      DATABASE_URL: ${DATABASE_URL:-postgres://web:Tr0ub4dor@db:5432/web}", "      DATABASE_URL: ${DATABASE_URL:-postgres://web:****@db:5432/web}"},
		{"      JDBC_URL: ${JDBC_URL:-jdbc:postgresql://db:5432/web?user=web&password=Tr0ub4dor}", "      JDBC_URL: ${JDBC_URL:-jdbc:postgresql://db:5432/web?user=web&password=****}"},
		{"      DATABASE_URL: 'postgres://app:s3cret@db/app?sslmode=disable'", "      DATABASE_URL: 'postgres://app:****@db/app?sslmode=disable'"},
		{`      - "DATABASE_URL=postgres://app:s3cret@db/app"`, `      - "DATABASE_URL=postgres://app:****@db/app"`},
		{"      PG_DSN: host=db user=app password='a b' dbname=app", "      PG_DSN: host=db user=app password='****' dbname=app"},
		{"      NPGSQL: Host=db;Username=app;Password=s3cret;Database=app", "      NPGSQL: Host=db;Username=app;Password=****;Database=app"},
		// a key that names a secret: the whole value
		{"      POSTGRES_PASSWORD: pw", "      POSTGRES_PASSWORD: ****"},
		{"      - POSTGRES_PASSWORD=pw", "      - POSTGRES_PASSWORD=****"},
		{"export PGPASSWORD='Q7 x'", "export PGPASSWORD='****'"},
		{"spring.datasource.password = hunter2", "spring.datasource.password = ****"},
		{"    password: hunter2", "    password: ****"},
		{"        'PASSWORD': 'hunter2',", "        'PASSWORD': '****',"},
		{"      DB_PASSWORD: ${DB_PASSWORD}", "      DB_PASSWORD: ${DB_PASSWORD}"},
		{"      DB_PASSWORD: ${DB_PASSWORD:-devpass}", "      DB_PASSWORD: ****"},
		// no key: a block scalar's line, a command
		{"        postgres://web:Tr0ub4dor@db:5432/web", "        postgres://web:****@db:5432/web"},
		{"    command: psql postgres://app:s3cret@db/app -c 'select 1'", "    command: psql postgres://app:****@db/app -c 'select 1'"},
		// nothing to mask
		{"      PGHOST: db", "      PGHOST: db"},
		{"      PWD: /srv", "      PWD: /srv"},
		{"      - db-socket:/var/run/postgresql:ro", "      - db-socket:/var/run/postgresql:ro"},
	} {
		if got := redactLine(c.in); got != c.want {
			t.Errorf("redactLine(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}
