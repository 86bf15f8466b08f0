package validate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
)

// dialectCases are, per dialect of the registry, the golden that migrates
// a value of it (and a piece of the socket form it expects), and a value
// that validate rejects (a socket directory the client does not mount) and
// one it accepts, under key.
var dialectCases = map[string]struct {
	golden, form string
	key          string
	fail, pass   string
	noValidate   string // why validate has no check of its own for the dialect
}{
	dialect.Celery: {golden: "22-known-images.txtar", form: "db+postgresql://odoo:odoo@/celery?host=/var/run/postgresql",
		key: "CELERY_RESULT_BACKEND", fail: "db+postgresql://app@/app?host=/wrong/dir", pass: "db+postgresql://app@/app?host=/var/run/postgresql"},
	dialect.JDBC: {golden: "01-seed-jdbc.txtar", form: "AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432",
		key:  "JDBC_URL",
		fail: "jdbc:postgresql://localhost:5432/app?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/wrong/dir/.s.PGSQL.5432",
		pass: "jdbc:postgresql://localhost:5432/app?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432"},
	dialect.URI: {golden: "09-two-databases.txtar", form: "@/users?host=/var/run/postgresql",
		key: "DATABASE_URL", fail: "postgres://app@/app?host=/wrong/dir", pass: "postgres://app@/app?host=/var/run/postgresql"},
	dialect.R2DBC: {golden: "dialects.txtar", form: "socket=/var/run/postgresql/.s.PGSQL.",
		key: "R2DBC_URL", fail: "r2dbc:postgresql://localhost/app?socket=/wrong/dir/.s.PGSQL.5432", pass: "r2dbc:postgresql://localhost/app?socket=/var/run/postgresql/.s.PGSQL.5432"},
	dialect.DSN: {golden: "03-keyword-dsn.txtar", form: "host=/var/run/postgresql port",
		key: "PG_DSN", fail: "host=/wrong/dir port=5432 dbname=app user=app", pass: "host=/var/run/postgresql port=5432 dbname=app user=app"},
	dialect.PDO: {golden: "trial-fixes.txtar", form: "PDO_DSN=pgsql:host=/var/run/postgresql;port=5432;dbname=shop",
		key: "DB_DSN", fail: "pgsql:host=/wrong/dir;port=5432;dbname=app", pass: "pgsql:host=/var/run/postgresql;port=5432;dbname=app"},
	dialect.Npgsql: {golden: "dialects.txtar", form: "Host=/var/run/postgresql;Port=5433",
		key: "ConnectionStrings__Default", fail: "Host=/wrong/dir;Port=5432;Database=app;Username=app", pass: "Host=/var/run/postgresql;Port=5432;Database=app;Username=app"},
	dialect.PGHost: {golden: "15-socket-dir-spellings.txtar", form: "PGHOST: /var/run/postgresql",
		key: "PGHOST", fail: "/wrong/dir", pass: "/var/run/postgresql"},
	dialect.HostDir: {golden: "22-known-images.txtar", form: "DB_HOST: /var/run/postgresql",
		noValidate: "only the application knows that DB_HOST is a host; validate checks its shape (UDS204, UDS215), not where it points"},
	dialect.HostDirPort: {golden: "rw-gitea.txtar", form: "/var/run/postgresql:5432",
		noValidate: "only the application knows that HOST is a host; validate checks its shape (UDS204, UDS215), not where it points"},
}

// TestDialectRegistry: every dialect has a migrate golden, a validate
// failing case and a validate passing case (or says why it has no check),
// and every case names a dialect of the registry.
func TestDialectRegistry(t *testing.T) {
	known := map[string]bool{}
	for _, d := range dialect.All() {
		known[d.Name] = true
		c, ok := dialectCases[d.Name]
		if !ok {
			t.Errorf("dialect %s has no case in dialectCases: add its golden and validate values", d.Name)
			continue
		}
		found, _ := filepath.Glob("../testdata/script/*/" + c.golden)
		if len(found) != 1 {
			t.Errorf("%s: golden %s: found %v", d.Name, c.golden, found)
			continue
		}
		data, err := os.ReadFile(found[0])
		if err != nil || !strings.Contains(string(data), c.form) {
			t.Errorf("%s: golden %s does not hold %q (%v)", d.Name, c.golden, c.form, err)
		}
		if d.ToSocket == nil {
			t.Errorf("%s: no socket form", d.Name)
		}
		if d.Match != nil && d.Hosts == nil {
			t.Errorf("%s: recognised but names no hosts", d.Name)
		}
		if d.Check == nil {
			if c.noValidate == "" {
				t.Errorf("%s: validate has no check and the case says not why", d.Name)
			}
			continue
		}
		if got := validateOne(t, c.key, c.fail); !strings.Contains(got, "ERROR UDS") {
			t.Errorf("%s: validate passes %s=%s (client mounts the socket at /var/run/postgresql):\n%s", d.Name, c.key, c.fail, got)
		}
		if got := validateOne(t, c.key, c.pass); got != "" {
			t.Errorf("%s: validate rejects %s=%s:\n%s", d.Name, c.key, c.pass, got)
		}
	}
	for name := range dialectCases {
		if !known[name] {
			t.Errorf("dialectCases has %s, which is not in the registry", name)
		}
	}
}

// validateOne validates a client with one socket value and the database's
// socket volume mounted at /var/run/postgresql, and returns the findings
// about that value.
func validateOne(t *testing.T, key, val string) string {
	t.Helper()
	doc := "services:\n  app:\n    image: example/app:1\n    environment:\n      " + key + ": \"" + val + "\"\n" +
		"    volumes:\n      - db-socket:/var/run/postgresql:ro\n  db:\n    image: postgres:16\n    volumes:\n      - db-socket:/var/run/postgresql\nvolumes:\n  db-socket:\n"
	fs, err := Validate(context.Background(), []compose.Input{{Path: "compose.yml", Data: []byte(doc)}}, analyze.DefaultOptions())
	if err != nil {
		t.Fatalf("%s=%s: %v", key, val, err)
	}
	var b strings.Builder
	for _, f := range fs {
		if f.Key == key {
			b.WriteString(f.String() + "\n")
		}
	}
	return b.String()
}
