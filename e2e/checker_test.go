package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
)

// brokenLibpq is an expected output with four mistakes the checker must
// catch without any JVM: a client that mounts nothing at its socket
// directory, one whose port names a socket file the server does not create,
// one that mounts a volume no database serves, and a database that mounts
// its socket volume read-only.
const brokenLibpq = `
-- compose.yml --
-- want/compose.yml --
services:
  nomount:
    image: example/a
    environment:
      DATABASE_URL: postgres://a@/a?host=/var/run/postgresql
  wrongport:
    image: example/b
    environment:
      DATABASE_URL: postgres://b@/b?host=/var/run/postgresql&port=5433
    volumes:
      - db-socket:/var/run/postgresql:ro
  othervolume:
    image: example/c
    environment:
      DSN: host=/sock dbname=c user=c
    volumes:
      - elsewhere:/sock:ro
  rodb-client:
    image: example/d
    environment:
      PGHOST: /var/run/postgresql
    volumes:
      - rodb-socket:/var/run/postgresql:ro
  db:
    image: postgres:16
    volumes:
      - db-socket:/var/run/postgresql
  rodb:
    image: postgres:16
    volumes:
      - rodb-socket:/var/run/postgresql:ro
volumes:
  db-socket:
  rodb-socket:
  elsewhere:
`

// brokenJDBC has the two JDBC mistakes FACTS.md warns about: a single `$`
// before FactoryArg (compose interpolates it away) and a host other than
// localhost.
const brokenJDBC = `
-- compose.yml --
-- want/compose.yml --
services:
  dollar:
    image: example/e
    environment:
      URL: jdbc:postgresql://localhost:5432/e?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432
    volumes:
      - db-socket:/var/run/postgresql:ro
  tcphost:
    image: example/f
    environment:
      URL: jdbc:postgresql://127.0.0.1:5432/f?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432
    volumes:
      - db-socket:/var/run/postgresql:ro
  db:
    image: postgres:16
    volumes:
      - db-socket:/var/run/postgresql
volumes:
  db-socket:
`

// brokenBaseAlone has its socket value in the base file and the client's
// mount only in the override: `docker compose up` (both files) connects,
// `docker compose -f compose.yml up` does not.
const brokenBaseAlone = `
-- compose.yml --
-- want/compose.yml --
services:
  web:
    image: example/g
    environment:
      DATABASE_URL: postgres://g@/g?host=/var/run/postgresql
  db:
    image: postgres:16
    volumes:
      - db-socket:/var/run/postgresql
volumes:
  db-socket:
-- want/compose.override.yml --
services:
  web:
    volumes:
      - db-socket:/var/run/postgresql:ro
`

// TestCheckerCatchesBrokenOutputs proves that checkArchive fails on wrong
// outputs, each for the right reason, and on nothing else.
func TestCheckerCatchesBrokenOutputs(t *testing.T) {
	cases := []struct {
		name    string
		archive string
		jdbc    bool
		// want maps a service to substrings one of its problems must
		// contain; every problem must belong to a listed service.
		want map[string][]string
	}{
		{name: "libpq", archive: brokenLibpq, want: map[string][]string{
			"nomount":     {"mounts nothing at the socket directory /var/run/postgresql"},
			"wrongport":   {"pgx could not connect", "psql could not connect"},
			"othervolume": {`volume "elsewhere" mounted at /sock is not mounted by any PostgreSQL service`},
			"rodb-client": {"rodb mounts rodb-socket read-only"},
		}},
		{name: "base alone", archive: brokenBaseAlone, want: map[string][]string{
			"web": {"mounts nothing at the socket directory /var/run/postgresql [compose.yml]"},
		}},
		{name: "jdbc", archive: brokenJDBC, jdbc: true, want: map[string][]string{
			"dollar":  {"jdbc could not connect", noSuchFactoryCtor},
			"tcphost": {"Can only connect to endpoints of type org.newsclub.net.unix.AFUNIXSocketAddress"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jdbcErr := probe.JDBCAvailable()
			if c.jdbc && jdbcErr != nil && !pgtest.Required() {
				t.Skip(jdbcErr)
			}
			out := checkArchive(context.Background(), pgtest.Shared(t), txtar.Parse([]byte(c.archive)), jdbcErr)
			if out.skip != "" {
				t.Fatalf("skipped: %s", out.skip)
			}
			for svc, subs := range c.want {
				for _, sub := range subs {
					if !hasProblem(out.problems, svc+"/", sub) {
						t.Errorf("no problem for %s containing %q; problems:\n%s", svc, sub, strings.Join(out.problems, "\n"))
					}
				}
			}
			for _, p := range out.problems {
				t.Log("caught: ", p)
				svc, _, _ := strings.Cut(p, "/")
				if _, ok := c.want[svc]; !ok {
					t.Errorf("unexpected problem: %s", p)
				}
			}
		})
	}
}

func hasProblem(problems []string, prefix, sub string) bool {
	for _, p := range problems {
		if strings.HasPrefix(p, prefix) && strings.Contains(p, sub) {
			return true
		}
	}
	return false
}

// TestCheckerSkips: archives with nothing to prove are skipped, with the
// reason.
func TestCheckerSkips(t *testing.T) {
	for _, c := range []struct{ archive, reason string }{
		{"-- compose.yml --\nservices: {a: {image: x}}\n", "no want/compose.yml"},
		{"-- want/compose.yml --\nservices: {a: {image: x, environment: {U: 'postgres://u@/d?host=/s'}}}\n", "no PostgreSQL service"},
		{"-- want/compose.yml --\nservices: {db: {image: 'postgres:16'}, a: {image: x, environment: {U: 'postgres://u@db/d'}}}\n", "no client value in socket form"},
	} {
		out := checkArchive(context.Background(), nil, txtar.Parse([]byte(c.archive)), nil)
		if !strings.Contains(out.skip, c.reason) || len(out.problems) > 0 {
			t.Errorf("archive %q: skip %q, problems %v; want a skip for %q", c.archive, out.skip, out.problems, c.reason)
		}
	}
}
