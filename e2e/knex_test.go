package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestKnexHostDirectory proves the fact behind evidence/knex.go with the
// real libraries (knex 3.3.0, pg 8.23.1, pinned in testdata/readers):
// testdata/readers/knex-host.js builds config.pg and the knexfile as
// nickjj/docker-node-example does. A socket directory in POSTGRES_HOST
// reaches this server over its socket; a DATABASE_URL that is set replaces
// the object (so the shape needs it unset); ssl on the object makes
// node-postgres ask the socket for SSL, which the server refuses. A TCP
// control proves the probe connects and tells TCP apart.
func TestKnexHostDirectory(t *testing.T) {
	t.Parallel()
	srv := pgtest.Shared(t)
	if _, err := nodeVersions("knex")(); err != nil {
		if pgtest.Required() {
			t.Fatalf("Node.js reader libraries missing under CI: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	port := strconv.Itoa(srv.Port)
	base := map[string]string{"POSTGRES_PORT": port, "POSTGRES_USER": "postgres", "POSTGRES_PASSWORD": srv.SuperPassword, "POSTGRES_DB": "postgres"}
	dir := overEnv(base, "POSTGRES_HOST", srv.SocketDir)
	if r := nodeScriptRun(t, dir, "knex-host.js"); !r.OK || !r.Socket || r.Dir != srv.SocketDir {
		t.Errorf("host directory: %s; want a socket session in %s", r, srv.SocketDir)
	} else {
		t.Logf("host directory: %s", r)
	}
	tcpURL := "postgresql://postgres:" + srv.SuperPassword + "@127.0.0.1:" + port + "/postgres"
	if r := nodeScriptRun(t, overEnv(dir, "DATABASE_URL", tcpURL), "knex-host.js"); !r.OK || r.Socket {
		t.Errorf("host directory with DATABASE_URL set: %s; want TCP (the URL replaces config.pg)", r)
	}
	const refusal = "The server does not support SSL connections"
	if r := nodeScriptRun(t, overEnv(dir, "KNEX_SSL", "true"), "knex-host.js"); r.OK || !strings.Contains(r.Error, refusal) {
		t.Errorf("host directory with ssl: %s; want node-postgres's %q", r, refusal)
	}
	if r := nodeScriptRun(t, overEnv(base, "POSTGRES_HOST", "127.0.0.1"), "knex-host.js"); !r.OK || r.Socket {
		t.Errorf("TCP control: %s; want a TCP session", r)
	}
}
