package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestRailsERBCaseHostRubyPG connects with the pg gem the host variables
// the ERB case goldens migrate on a database.yml's evidence
// (testdata/script/knowledge/rails-database-yml-erb-case*.txtar): Rails
// hands host, port, user, password and database to PG.connect, so the
// conninfo the gem gets is the socket directory (mapped to a stand-in for
// this server's socket) with the port 5432 the database.yml leaves unset.
// Each must reach this server over its socket.
func TestRailsERBCaseHostRubyPG(t *testing.T) {
	srv := pgtest.Shared(t)
	if _, err := scriptVersions("ruby", "probe.rb", map[string]string{"pg": "pg"}, "apt-get install ruby-pg")(); err != nil {
		if pgtest.Required() {
			t.Fatalf("ruby-pg missing under CI: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	files, err := filepath.Glob("../testdata/script/knowledge/rails-database-yml-erb-case*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no ERB case goldens: %v", err)
	}
	checked := 0
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dir, err := os.MkdirTemp("", "e2r")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		projects, err := extract(ar, dir, nil)
		if err != nil || len(projects) != 1 {
			t.Fatalf("%s: %v %v", file, projects, err)
		}
		proj, err := loadProject(context.Background(), filepath.Join(dir, projects[0]))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range proj.ServiceNames() {
			for _, key := range []string{"DB_POSTGRES_HOST", "PG_HOST"} {
				v := proj.Services[name].Environment[key]
				if v == nil || *v != "/var/run/postgresql" {
					continue
				}
				checked++
				tmp, err := socketStandIn(srv, 5432)
				if err != nil {
					t.Fatal(err)
				}
				defer os.RemoveAll(tmp)
				conninfo := fmt.Sprintf("host=%s port=5432 user=%s password=%s dbname=postgres", tmp, quoteKeyword(srv.SuperUser), quoteKeyword(srv.SuperPassword))
				res, err := scriptRun("ruby", "probe.rb", "ruby-pg")(context.Background(), []string{conninfo})
				if err != nil || len(res) != 1 || !res[0].OK || !res[0].Socket || res[0].Dir != srv.SocketDir {
					t.Errorf("%s: %s/%s=%s with the pg gem: %v %v; want a socket session in %s", filepath.Base(file), name, key, *v, res, err, srv.SocketDir)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no migrated host variable found in the ERB case goldens")
	}
}
