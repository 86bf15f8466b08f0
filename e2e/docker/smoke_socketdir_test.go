package dockere2e

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSmokeComposeSocketDir runs `migrate --smoke --smoke-target compose`
// where the database's socket directory is not a named volume at
// /var/run/postgresql: shared case 12 (a half-migrated project whose
// official-image database bind-mounts ./socket-postgresql, kept by the
// migration with UDS106; with POSTGRES_PASSWORD added, without which the
// image refuses to initialise: "Database is uninitialized and superuser
// password is not specified") and a Bitnami database (socket in /tmp, Bitnami's
// credential variables). The bench must reach the socket where the plan
// put it; before, it looked for a named volume at /var/run/postgresql and
// exited 2.
func TestSmokeComposeSocketDir(t *testing.T) {
	needEngine(t)
	cases := map[string]string{
		"case12-bind-mount": `services:
  application:
    image: example/measure:1.1.0
    volumes:
      - ./socket-postgresql:/socket-postgresql
    environment:
      JDBC_URL: jdbc:postgresql://localhost:5432/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/socket-postgresql/.s.PGSQL.5432
  postgres:
    image: postgres:13.15
    environment:
      POSTGRES_PASSWORD: Bn9pw
    volumes:
      - ./socket-postgresql:/var/run/postgresql:ro
`,
		"bitnami": `services:
  app:
    image: example/app:1
    environment:
      DATABASE_URL: postgres://app:Bn9pw@db:5432/app
  db:
    image: bitnami/postgresql:16
    environment:
      POSTGRESQL_USERNAME: app
      POSTGRESQL_PASSWORD: Bn9pw
      POSTGRESQL_DATABASE: app
`,
	}
	for name, doc := range cases {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "compose.yml"), []byte(doc))
			p := newProject(t, dir)
			p.tagServices(ctx, t)
			args := []string{"--smoke", "--smoke-target", "compose", "--smoke-duration", "6s", "-w", "compose.yml"}
			if strings.Contains(doc, "DATABASE_URL:") {
				// The app image shows no reader of its URI, and a URI whose
				// reader is unknown is never edited (#20): name it.
				args = append([]string{"--consumer", "DATABASE_URL=pgx"}, args...)
			}
			out, errOut, err := p.tool(ctx, args...)
			t.Logf("uds-migrate %s:\n%s%s", strings.Join(args, " "), out, errOut)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(errOut, "on compose") || !strings.Contains(errOut, "verdict") {
				t.Errorf("no compose benchmark in the smoke report")
			}
			if strings.Contains(out+errOut, "Bn9pw") {
				t.Error("the report shows the password")
			}
		})
	}
}
