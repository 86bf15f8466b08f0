package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestClassify(t *testing.T) {
	for _, c := range []struct {
		in                     string
		dialect, dir, user, db string
		port                   int
		notSocket              bool
	}{
		{in: "jdbc:postgresql://localhost:5432/app?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/run/pg/.s.PGSQL.5433&user=u",
			dialect: "jdbc", dir: "/run/pg", port: 5433, user: "u", db: "app"},
		{in: "jdbc:postgresql:///app?socketFactory=x&socketFactoryArg=%2Frun%2Fpg%2F.s.PGSQL.5432",
			dialect: "jdbc", dir: "/run/pg", port: 5432, db: "app"},
		{in: "jdbc:postgresql://db:5432/app", notSocket: true},
		{in: "postgres://u:p@/app?host=/run/pg&port=6000", dialect: "uri", dir: "/run/pg", port: 6000, user: "u", db: "app"},
		{in: "postgresql+psycopg2://u@%2Frun%2Fpg:5433/app", dialect: "uri", dir: "/run/pg", port: 5433, user: "u", db: "app"},
		{in: "postgres://u@localhost/app?host=/run/pg", dialect: "uri", dir: "/run/pg", port: 5432, user: "u", db: "app"},
		{in: "postgres://u@db:5432/app", notSocket: true},
		{in: "host=/run/pg port=5434 dbname='my db' user=u", dialect: "dsn", dir: "/run/pg", port: 5434, user: "u", db: "my db"},
		{in: "host=db port=5432 dbname=x", notSocket: true},
		{in: "http://example/", notSocket: true},
	} {
		e, ok := classify(c.in)
		if ok == c.notSocket {
			t.Errorf("%s: socket form = %v; want %v", c.in, ok, !c.notSocket)
			continue
		}
		if ok && (e.dialect != c.dialect || e.dir != c.dir || e.port != c.port || e.user != c.user || e.database != c.db) {
			t.Errorf("%s: got %s dir=%q port=%d user=%q db=%q; want %s dir=%q port=%d user=%q db=%q",
				c.in, e.dialect, e.dir, e.port, e.user, e.database, c.dialect, c.dir, c.port, c.user, c.db)
		}
	}
}

func TestFillDefaults(t *testing.T) {
	env := map[string]string{"SPRING_DATASOURCE_URL": "", "SPRING_DATASOURCE_USERNAME": "spring", "DB_USER": "other", "SPRING_DATASOURCE_PASSWORD": "pw"}
	e := edge{key: "SPRING_DATASOURCE_URL"}
	e.fillDefaults(env)
	if e.user != "spring" || e.password != "pw" || e.database != "spring" || e.userInString {
		t.Errorf("got user=%q password=%q db=%q inString=%v", e.user, e.password, e.database, e.userInString)
	}
	e = edge{key: "X"}
	e.fillDefaults(map[string]string{"X": ""})
	if e.user != "postgres" || e.database != "postgres" {
		t.Errorf("no sibling: user=%q db=%q; want postgres", e.user, e.database)
	}
}

func TestSubstituteDir(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"x?socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432", "x?socketFactoryArg=/T/.s.PGSQL.5432"},
		{"postgres://u@/d?host=/var/run/postgresql&port=5", "postgres://u@/d?host=/T&port=5"},
		{"postgres://u@%2Fvar%2Frun%2Fpostgresql:5/d", "postgres://u@%2FT:5/d"},
		{"host=/var/run/postgresql port=5", "host=/T port=5"},
		// Another directory that merely starts with the same text.
		{"host=/var/run/postgresql2 port=5", "host=/var/run/postgresql2 port=5"},
	} {
		got, _ := substituteDir(c.in, "/var/run/postgresql", "/T")
		if got != c.want {
			t.Errorf("substituteDir(%q) = %q; want %q", c.in, got, c.want)
		}
	}
}

func TestParseKeywords(t *testing.T) {
	kv, err := parseKeywords(`host = /run/pg  password='it\'s a \\ pw' dbname=a\ b`)
	if err != nil || kv["host"] != "/run/pg" || kv["password"] != `it's a \ pw` || kv["dbname"] != "a b" {
		t.Errorf("got %q, %v", kv, err)
	}
	for _, bad := range []string{"host", "password='open", "=x"} {
		if _, err := parseKeywords(bad); err == nil {
			t.Errorf("parseKeywords(%q) accepted", bad)
		}
	}
}

func TestFindDBs(t *testing.T) {
	dir := t.TempDir()
	compose := `services:
  a: {image: "postgres:16", command: postgres -c port=5433}
  b: {image: "docker.io/library/postgres:16-alpine@sha256:0000000000000000000000000000000000000000000000000000000000000000", command: ["postgres", "-p", "6000"]}
  c: {image: "postgis/postgis:15-3.4", environment: {PGPORT: "7000"}}
  d: {image: "timescale/timescaledb:latest-pg16", command: ["-c", "unix_socket_directories=/sock,/tmp"]}
  e: {image: "bitnami/postgresql:16", environment: {POSTGRESQL_PORT_NUMBER: "5555"}}
  f: {image: "postgres-exporter:1"}
  g: {image: "example/app", environment: {X: postgres}}
`
	if err := os.WriteFile(filepath.Join(dir, "compose.yml"), []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := loadProject(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]dbService{}
	for _, db := range findDBs(p) {
		got[db.name] = db
	}
	want := map[string]struct {
		dir  string
		port int
	}{"a": {"/var/run/postgresql", 5433}, "b": {"/var/run/postgresql", 6000}, "c": {"/var/run/postgresql", 7000},
		"d": {"/sock", 5432}, "e": {"/tmp", 5555}}
	if len(got) != len(want) {
		t.Errorf("found %d databases, want %d: %v", len(got), len(want), got)
	}
	for name, w := range want {
		if g := got[name]; g.socketDir != w.dir || g.port != w.port {
			t.Errorf("%s: dir=%q port=%d; want %q %d", name, g.socketDir, g.port, w.dir, w.port)
		}
	}
}
