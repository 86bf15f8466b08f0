package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/hostvar"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestCatalogueFileSettings connects, with the reader the catalogue names,
// the settings the tool wrote into configuration files that catalogued
// images read (catalog.File), as the expected output of each
// testdata/script/knowledge/catalog-file-*.txtar holds them: gatus'
// storage.path with lib/pq (database/sql, as gatus' sql.Open("postgres",
// path)), after ${VAR} expansion with the service's environment as gatus
// does; pretalx's [database] host with psycopg2 beside its user, password,
// name and port settings, as Django's postgresql backend hands them on.
// Each must reach this server over its socket.
func TestCatalogueFileSettings(t *testing.T) {
	srv := pgtest.Shared(t)
	files, err := filepath.Glob("../testdata/script/knowledge/catalog-file-*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no catalog-file goldens: %v", err)
	}
	checked := 0
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := os.MkdirTemp("", "e2f")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		if _, err := extract(ar, dir, nil); err != nil {
			t.Fatal(err)
		}
		var name string
		for _, n := range []string{"compose.yml", "compose.yaml", "docker-compose.yml"} {
			if _, err := os.Stat(filepath.Join(dir, n)); err == nil && name == "" {
				name = n
			}
		}
		proj, err := loadFiles(context.Background(), dir, []string{name})
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, svcName := range proj.ServiceNames() {
			svc := proj.Services[svcName]
			e := catalog.Lookup(svc.Image)
			if e == nil {
				continue
			}
			env := map[string]string{}
			for k, v := range svc.Environment {
				if v != nil {
					env[k] = *v
				}
			}
			for _, f := range e.Files {
				host := hostvar.BindSource(svc.Volumes, f.Path)
				data, err := os.ReadFile(host)
				if host == "" || err != nil {
					continue
				}
				read := configfile.INI
				if f.Format == catalog.FormatYAML {
					read = configfile.YAML
				}
				vals, err := read(data)
				if err != nil {
					t.Fatalf("%s %s: %v", file, host, err)
				}
				setting := map[string]string{}
				for _, v := range vals {
					setting[strings.ToLower(v.Key)] = v.Value
				}
				val := setting[f.Key]
				if !strings.Contains(val, "/var/run/postgresql") {
					continue // not migrated (no PostgreSQL storage, another file read)
				}
				checked++
				t.Run(filepath.Base(file)+"/"+svcName, func(t *testing.T) {
					connectCatalogueSetting(t, srv, f, os.Expand(val, func(k string) string { return env[k] }), setting)
				})
			}
		}
	}
	if checked == 0 {
		t.Fatal("no migrated catalogue file setting found in the goldens")
	}
}

// connectCatalogueSetting connects with the value the tool wrote (the
// socket directory mapped to a stand-in for this server's socket) and
// checks the session is over the socket.
func connectCatalogueSetting(t *testing.T, srv *pgtest.Server, f catalog.File, val string, setting map[string]string) {
	ctx := context.Background()
	tmp, err := socketStandIn(srv, 5432)
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	switch f.Role {
	case catalog.RoleURL:
		e, ok := classify(val)
		if !ok {
			t.Fatalf("%s = %q: not a socket-form value", f.Key, val)
		}
		if err := ensureUser(ctx, srv, e); err != nil {
			t.Fatal(err)
		}
		uri, ok := substituteDir(val, "/var/run/postgresql", tmp)
		if !ok {
			t.Fatalf("%q: no socket directory to map", val)
		}
		db, err := sql.Open("postgres", uri) // lib/pq, as gatus
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		// The stand-in holds only this server's socket: a session over a
		// Unix socket there is one with this server (the role is not
		// allowed to read unix_socket_directories).
		var socket bool
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := db.QueryRowContext(cctx, "SELECT inet_client_addr() IS NULL").Scan(&socket); err != nil || !socket {
			t.Errorf("lib/pq with %s: socket %v, %v; want a socket session", f.Key, socket, err)
		}
	case catalog.RoleHost:
		prefix := f.Key[:strings.LastIndexByte(f.Key, '.')+1]
		e := edge{user: setting[prefix+"user"], password: setting[prefix+"password"], database: setting[prefix+"name"]}
		if err := ensureUser(ctx, srv, e); err != nil {
			t.Fatal(err)
		}
		// probe.py reads unix_socket_directories to tell this server
		// from another: let the role see it.
		if err := srv.Exec(ctx, "postgres", "GRANT pg_read_all_settings TO "+pgxIdent(e.user)); err != nil {
			t.Fatal(err)
		}
		if val != "/var/run/postgresql" {
			t.Fatalf("%s = %q, want the socket directory", f.Key, val)
		}
		port := setting[strings.ToLower(f.Port)]
		if port == "" {
			port = "5432"
		}
		dsn := fmt.Sprintf("host=%s port=%s user=%s password=%s dbname=%s", tmp, port, quoteKeyword(e.user), quoteKeyword(e.password), quoteKeyword(e.database))
		run := scriptRun("python", "probe.py", "psycopg2")
		if _, err := pyVersions("psycopg2", "python3-psycopg2")(); err != nil {
			if pgtest.Required() {
				t.Fatalf("psycopg2 missing under CI: %v", err)
			}
			t.Skipf("skipping: %v", err)
		}
		res, err := run(ctx, []string{dsn})
		if err != nil || len(res) != 1 || !res[0].OK || !res[0].Socket || res[0].Dir != srv.SocketDir {
			t.Errorf("psycopg2 with %s=%s: %v %v; want a socket session in %s", f.Key, val, res, err, srv.SocketDir)
		}
	}
}

// pgxIdent quotes a role name as an SQL identifier.
func pgxIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
