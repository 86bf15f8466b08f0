package e2e

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// TestJDBCFactories migrates one JDBC value with each --jdbc-factory style,
// loads the output with compose-go (so $$ becomes $) and connects with
// pgjdbc + junixsocket through the socket path the client would see (only
// the directory substituted: URL-encoded in the host for $URIScheme, in
// JAVA_TOOL_OPTIONS for $SystemProperty).
func TestJDBCFactories(t *testing.T) {
	if err := probe.JDBCAvailable(); err != nil {
		if pgtest.Required() {
			t.Fatalf("JDBC probe unavailable: %v", err)
		}
		t.Skipf("JDBC probe unavailable: %v", err)
	}
	srv := pgtest.Shared(t)
	ctx := context.Background()
	in := []byte("services:\n  app:\n    image: example/app:1\n    environment:\n      JDBC_URL: jdbc:postgresql://db:5432/postgres?ApplicationName=e2e\n  db:\n    image: postgres:16\n")
	for _, style := range []string{"factoryarg", "uri", "sysprop"} {
		t.Run(style, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "compose.yml")
			opts := rewrite.DefaultOptions()
			opts.JDBCFactory = style
			res, err := rewrite.Migrate(ctx, []rewrite.Input{{Path: path, Data: in}}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, res.Files[0].After, 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := loadProject(ctx, dir)
			if err != nil {
				t.Fatal(err)
			}
			app := p.Services["app"]
			u := envValue(app, "JDBC_URL")
			sock, err := socketStandIn(srv, 5432)
			if err != nil {
				t.Fatal(err)
			}
			defer os.RemoveAll(sock)
			switch style {
			case "uri":
				if !strings.Contains(u, "$URIScheme") {
					t.Fatalf("no $URIScheme factory in %s", u)
				}
				u = strings.Replace(u, url.QueryEscape("/var/run/postgresql"), url.QueryEscape(sock), 1)
			case "sysprop":
				opt := envValue(app, "JAVA_TOOL_OPTIONS")
				if !strings.Contains(u, "$SystemProperty") || !strings.Contains(opt, "/var/run/postgresql/.s.PGSQL.5432") {
					t.Fatalf("sysprop form incomplete: %s / JAVA_TOOL_OPTIONS=%q", u, opt)
				}
				t.Setenv("JAVA_TOOL_OPTIONS", strings.Replace(opt, "/var/run/postgresql", sock, 1))
			default:
				u = strings.Replace(u, "/var/run/postgresql", sock, 1)
			}
			r, err := probe.JDBC(ctx, u, srv.SuperUser, srv.SuperPassword)
			if err != nil {
				t.Fatalf("%s does not connect: %v", u, err)
			}
			if r.One != 1 || !r.OverSocket {
				t.Fatalf("%s: got %+v, want SELECT 1 over the socket", u, r)
			}
		})
	}
}
