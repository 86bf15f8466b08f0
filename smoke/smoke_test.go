package smoke

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// needPostgres skips without the server binaries, or fails when
// $PGTEST_REQUIRE or $CI says they must be there (pgtest.Shared's rule).
func needPostgres(t *testing.T) {
	t.Helper()
	if err := pgtest.Available(); err != nil {
		if pgtest.Required() {
			t.Fatalf("PostgreSQL required but unavailable: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
}

func TestPlan(t *testing.T) {
	for _, tc := range []struct {
		d      time.Duration
		rounds int
	}{{DefaultDuration, 7}, {2 * time.Second, 6}, {0, 7}, {time.Millisecond, 6}, {time.Minute, 7}} {
		p := Plan(tc.d)
		if p.Rounds != tc.rounds {
			t.Errorf("Plan(%v).Rounds = %d, want %d", tc.d, p.Rounds, tc.rounds)
		}
		d := tc.d
		if d == 0 {
			d = DefaultDuration
		}
		d = max(d, 400*time.Millisecond)
		total := 2*p.Warmup + time.Duration(2*p.Rounds)*p.Duration
		if total > d || total < d-10*time.Millisecond {
			t.Errorf("Plan(%v) measures %v in all, want about %v", tc.d, total, d)
		}
	}
}

func TestClassify(t *testing.T) {
	env := map[string]string{
		"SPRING_DATASOURCE_URL":      "jdbc:postgresql://localhost/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5433",
		"SPRING_DATASOURCE_USERNAME": "app",
		"SPRING_DATASOURCE_PASSWORD": "pw",
		"QUARKUS_DATASOURCE_JDBC_URL": "jdbc:postgresql://localhost/q?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg" +
			"&socketFactoryArg=/s/.s.PGSQL.5432",
		"QUARKUS_DATASOURCE_USERNAME": "quser",
		"URI":                         "postgres://u:p@/d?host=/sock&port=6000",
		"DSN":                         "host=/sock dbname=d user=u",
		"SQLALCHEMY":                  "postgresql+psycopg2://sa:p@/d?host=/sa&port=5433",
		"TCP_URI":                     "postgres://u:p@db:5432/d",
		"TCP_JDBC":                    "jdbc:postgresql://db/d",
		"PGHOST":                      "/var/run/postgresql",
		"PGUSER":                      "pguser",
		"PGPORT":                      "5434",
		"NPGSQL":                      "Host=/sock;Database=d;Username=u",
		"PDO":                         "pgsql:host=/pdo;port=5435;dbname=d;user=pu",
		"CELERY":                      "db+postgresql://cu:p@/c?host=/cel&port=5436",
		"OTHER":                       "hello",
	}
	s := service{name: "app", env: env}
	got := map[string]*value{}
	for k := range env {
		if v := classify(s, k); v != nil {
			got[k] = v
		}
	}
	want := map[string]struct {
		dialect, file, user string
		skip                bool
	}{
		"SPRING_DATASOURCE_URL":       {dialect.JDBC, "/var/run/postgresql/.s.PGSQL.5433", "app", false},
		"QUARKUS_DATASOURCE_JDBC_URL": {dialect.JDBC, "/s/.s.PGSQL.5432", "quser", false},
		"URI":                         {dialect.URI, "/sock/.s.PGSQL.6000", "u", false},
		"DSN":                         {dialect.DSN, "/sock/.s.PGSQL.5432", "u", false},
		// trial case 12-bitnami: pgx read this as a keyword DSN (user root,
		// port 5432) before the scheme was normalised.
		"SQLALCHEMY": {dialect.URI, "/sa/.s.PGSQL.5433", "sa", false},
		"PGHOST":     {dialect.PGHost, "/var/run/postgresql/.s.PGSQL.5434", "pguser", false},
		"NPGSQL":     {dialect.Npgsql, "", "", true},
		// The registry's recogniser: a PDO DSN is not Npgsql's (pdo_pgsql
		// hands it to libpq), and a Celery URL is libpq's through SQLAlchemy.
		"PDO":    {dialect.PDO, "/pdo/.s.PGSQL.5435", "pu", false},
		"CELERY": {dialect.Celery, "/cel/.s.PGSQL.5436", "cu", false},
	}
	if len(got) != len(want) {
		var keys []string
		for k := range got {
			keys = append(keys, k)
		}
		t.Errorf("socket values %v, want %d of them", keys, len(want))
	}
	for k, w := range want {
		v := got[k]
		if v == nil {
			t.Errorf("%s: not found", k)
			continue
		}
		if v.dialect != w.dialect || (v.skip != "") != w.skip || v.parseErr != nil {
			t.Errorf("%s: dialect %q skip %q err %v, want %q skip=%v", k, v.dialect, v.skip, v.parseErr, w.dialect, w.skip)
		}
		if w.skip {
			continue
		}
		if v.socketFile() != w.file || v.user != w.user {
			t.Errorf("%s: socket %s user %q, want %s %q", k, v.socketFile(), v.user, w.file, w.user)
		}
	}
	if v := got["SPRING_DATASOURCE_URL"]; v != nil {
		if v.password != "pw" {
			t.Errorf("JDBC password not taken from SPRING_DATASOURCE_PASSWORD")
		}
		out := withSocketFile(v.jdbcURL, "/tmp/x/0/.s.PGSQL.5433")
		if !strings.Contains(out, "socketFactoryArg=/tmp/x/0/.s.PGSQL.5433") || strings.Contains(out, "/var/run") {
			t.Errorf("withSocketFile = %s", out)
		}
	}
}

// migrate runs rewrite.Migrate on one compose file written to a temporary
// directory and returns its result.
func migrate(t *testing.T, compose string, extra map[string]string) (*rewrite.Result, rewrite.Options) {
	t.Helper()
	// No code here shows who reads the worker's URL: its reader is named,
	// as a user would with --consumer (issue #20).
	return migrateWith(t, compose, extra, []string{"worker/DATABASE_URL=psycopg"})
}

// migrateWith is migrate with --consumer values of its own.
func migrateWith(t *testing.T, compose string, extra map[string]string, consumers []string) (*rewrite.Result, rewrite.Options) {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "compose.yml")
	if err := os.WriteFile(path, []byte(compose), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, data := range extra {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := rewrite.DefaultOptions()
	opts.Consumers = consumers
	res, err := rewrite.Migrate(context.Background(), []rewrite.Input{{Path: path, Data: []byte(compose)}}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res, opts
}

const twoClients = `services:
  application:
    image: registry.example/app:1
    environment:
      SPRING_DATASOURCE_URL: jdbc:postgresql://postgres:5432/appdb
      SPRING_DATASOURCE_USERNAME: app
      SPRING_DATASOURCE_PASSWORD: s3cret-pw
  worker:
    image: python:3.12
    env_file: worker.env
  postgres:
    image: postgres:16
    environment:
      POSTGRES_DB: appdb
      POSTGRES_USER: app
      POSTGRES_PASSWORD: s3cret-pw
`

// TestRunMigrated smoke-checks a migration held in memory only: the
// rewritten env file is read from the result, not from the disk (which
// still says TCP), so the worker's check proves the overlay.
func TestRunMigrated(t *testing.T) {
	needPostgres(t)
	res, ro := migrate(t, twoClients, map[string]string{"worker.env": "DATABASE_URL=postgres://worker:w0rker-pw@postgres:5432/jobs\n"})
	if len(res.Files) < 2 {
		t.Fatalf("expected the env file among the migrated files, got %d files", len(res.Files))
	}
	var log bytes.Buffer
	rep, err := Run(context.Background(), res.Files, Options{
		Rewrite: ro, ComposeFiles: 1, Rewritten: res.Changes,
		Duration: time.Second, Target: TargetEmbedded, Log: &log,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	var out bytes.Buffer
	rep.Write(&out)
	t.Log("\n" + out.String())
	if len(rep.Checks) != 2 {
		t.Fatalf("%d checks, want 2", len(rep.Checks))
	}
	jdbcWant := OK
	if probe.JDBCAvailable() != nil {
		jdbcWant = Skipped
	}
	for _, c := range rep.Checks {
		want := OK
		if c.Dialect == dialect.JDBC {
			want = jdbcWant
		}
		if c.Status != want || !c.Rewritten || c.Socket != "/var/run/postgresql/.s.PGSQL.5432" {
			t.Errorf("%s/%s: %s %q rewritten=%v socket=%s, want %s", c.Service, c.Key, c.Status, c.Detail, c.Rewritten, c.Socket, want)
		}
	}
	if rep.Bench == nil || rep.Bench.Rounds != 6 || !strings.Contains(out.String(), "smoke: verdict: socket/TCP queries/s ") {
		t.Errorf("no benchmark verdict:\n%s", out.String())
	}
	if s := out.String(); strings.Contains(s, "s3cret") || strings.Contains(s, "w0rker-pw") {
		t.Errorf("a password reached the report:\n%s", s)
	}
}

// TestRunPDOAndCelery: a PHP PDO DSN and a Celery result backend, migrated,
// are connected for real (pgx, as libpq reads them: the PDO DSN with its ';'
// as spaces, the URL behind db+), not skipped or taken for Npgsql.
func TestRunPDOAndCelery(t *testing.T) {
	needPostgres(t)
	const compose = `services:
  shop:
    image: php:8.3-fpm
    environment:
      PDO_DSN: "pgsql:host=postgres;port=5432;dbname=shop;user=app;password=s3cret-pw"
  jobs:
    image: python:3.12
    environment:
      CELERY_RESULT_BACKEND: db+postgresql://app:s3cret-pw@postgres:5432/celery
  postgres:
    image: postgres:16
    environment:
      POSTGRES_USER: app
      POSTGRES_PASSWORD: s3cret-pw
`
	res, ro := migrateWith(t, compose, nil, nil)
	var log bytes.Buffer
	rep, err := Run(context.Background(), res.Files, Options{
		Rewrite: ro, ComposeFiles: 1, Rewritten: res.Changes,
		Duration: time.Second, Target: TargetEmbedded, Log: &log,
	})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if len(rep.Checks) != 2 {
		t.Fatalf("%d checks, want 2:\n%s", len(rep.Checks), log.String())
	}
	for _, c := range rep.Checks {
		if c.Status != OK || c.Driver != "pgx" || c.Socket != "/var/run/postgresql/.s.PGSQL.5432" {
			t.Errorf("%s/%s (%s): %s %q driver %s socket %s, want ok with pgx", c.Service, c.Key, c.Dialect, c.Status, c.Detail, c.Driver, c.Socket)
		}
	}
}

// TestRunWrongPort is the hand-made mistake the smoke check exists for: the
// client names .s.PGSQL.5433, the server's socket is .s.PGSQL.5432.
func TestRunWrongPort(t *testing.T) {
	needPostgres(t)
	const compose = `services:
  app:
    image: python:3.12
    environment:
      DATABASE_URL: postgres://app:s3cret-pw@/appdb?host=/var/run/postgresql&port=5433
      OK_URL: host=/var/run/postgresql port=5432 dbname=appdb user=app
    volumes:
      - db-socket:/var/run/postgresql:ro
  db:
    image: postgres:16
    volumes:
      - db-socket:/var/run/postgresql
volumes:
  db-socket:
`
	path := filepath.Join(t.TempDir(), "compose.yml")
	files := []rewrite.FileResult{{Path: path, Before: []byte(compose), After: []byte(compose)}}
	rep, err := Run(context.Background(), files, Options{Rewrite: rewrite.DefaultOptions(), Duration: time.Second, Target: TargetEmbedded})
	var ce *ConnError
	if !errors.As(err, &ce) {
		t.Fatalf("Run error = %v, want a *ConnError", err)
	}
	if len(ce.Failed) != 1 || ce.Failed[0].Service != "app" || ce.Failed[0].Key != "DATABASE_URL" {
		t.Fatalf("failed checks %+v, want app/DATABASE_URL only", ce.Failed)
	}
	if d := ce.Failed[0].Detail; !strings.Contains(d, ".s.PGSQL.5433") || strings.Contains(d, "s3cret") {
		t.Errorf("detail %q: want the driver's error naming .s.PGSQL.5433, no password", d)
	}
	if rep == nil || rep.Bench != nil || len(rep.Checks) != 2 || rep.Checks[1].Status != OK {
		t.Errorf("report %+v: want both checks, OK_URL ok, and no benchmark", rep)
	}
}

// TestRunWrongPortJDBC is the same mistake in a JDBC URL, caught by pgjdbc
// and junixsocket themselves.
func TestRunWrongPortJDBC(t *testing.T) {
	needPostgres(t)
	if err := probe.JDBCAvailable(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	const compose = `services:
  app:
    image: registry.example/app:1
    environment:
      JDBC_URL: jdbc:postgresql://localhost/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5433
      JDBC_USER: app
    volumes:
      - db-socket:/var/run/postgresql:ro
  db:
    image: postgres:16
    volumes:
      - db-socket:/var/run/postgresql
volumes:
  db-socket:
`
	path := filepath.Join(t.TempDir(), "compose.yml")
	files := []rewrite.FileResult{{Path: path, After: []byte(compose)}}
	_, err := Run(context.Background(), files, Options{Rewrite: rewrite.DefaultOptions(), Duration: time.Second, Target: TargetEmbedded})
	var ce *ConnError
	if !errors.As(err, &ce) || len(ce.Failed) != 1 || ce.Failed[0].Key != "JDBC_URL" || !strings.Contains(ce.Failed[0].Detail, "PSQLException") {
		t.Fatalf("Run error = %v, want app/JDBC_URL failing with pgjdbc's PSQLException", err)
	}
}

// On a busy machine the smoke verdict says the figure is unreliable, not
// "socket faster/slower".
func TestVerdictLineUnreliable(t *testing.T) {
	var rounds []bench.Round
	for i := range 7 {
		tcp := bench.Sample{Transport: bench.TCP, Queries: 1000, Elapsed: time.Second}
		sock := bench.Sample{Transport: bench.Socket, Queries: int64(1200 + i), Elapsed: time.Second}
		rounds = append(rounds, bench.Round{TCP: tcp, Socket: sock})
	}
	c, err := bench.Analyze(rounds, bench.Machine{Cores: 2, LoadBefore: 9.5, LoadAfter: 11}, 3)
	if err != nil {
		t.Fatal(err)
	}
	r := &Report{Bench: &bench.Report{Clients: []bench.ClientResult{*c}}}
	line := r.VerdictLine()
	if !strings.Contains(line, ": figure unreliable (load average 9.50 above 2 cores before the run); the interval alone says: socket faster") {
		t.Errorf("verdict line %q", line)
	}
}
