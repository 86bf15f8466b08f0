package e2e

import (
	"strconv"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestTypeORMHostDirectory proves the fact behind evidence/typeorm.go with
// the real libraries (typeorm 0.3.31 and 1.1.1, pg 8.23.1, pinned in
// testdata/readers): testdata/readers/typeorm-host.js builds the options as
// a NestJS configuration namespace and a TypeOrmOptionsFactory do and
// hands them to new DataSource, as @nestjs/typeorm does. A socket
// directory in DATABASE_HOST reaches this server over its socket; with
// DATABASE_SSL_ENABLED=true (ssl options set) node-postgres asks the
// socket for SSL, which the server refuses, so the evidence shape gives no
// verdict there. A TCP control
// proves the probe connects and tells TCP apart.
func TestTypeORMHostDirectory(t *testing.T) {
	t.Parallel() // node loads TypeORM for each run: overlap with the other tests
	srv := pgtest.Shared(t)
	for _, lib := range []string{"typeorm", "typeorm1"} {
		if _, err := nodeVersions(lib)(); err != nil {
			if pgtest.Required() {
				t.Fatalf("Node.js reader libraries missing under CI: %v", err)
			}
			t.Skipf("skipping: %v", err)
		}
	}
	port := strconv.Itoa(srv.Port)
	base := map[string]string{"DATABASE_TYPE": "postgres", "DATABASE_PORT": port, "DATABASE_USERNAME": "postgres",
		"DATABASE_PASSWORD": srv.SuperPassword, "DATABASE_NAME": "postgres", "DATABASE_SSL_ENABLED": "false", "DATABASE_REJECT_UNAUTHORIZED": "false", "DATABASE_CA": ""}
	dir := overEnv(base, "DATABASE_HOST", srv.SocketDir)
	const refusal = "The server does not support SSL connections"
	for _, lib := range []string{"typeorm", "typeorm1"} {
		t.Run(lib, func(t *testing.T) {
			r := nodeScriptRun(t, dir, "typeorm-host.js", lib)
			if !r.OK || !r.Socket || r.Dir != srv.SocketDir {
				t.Errorf("host directory: %s; want a socket session in %s", r, srv.SocketDir)
			}
			t.Logf("host directory: %s", r)
			if r := nodeScriptRun(t, overEnv(dir, "DATABASE_SSL_ENABLED", "true"), "typeorm-host.js", lib); r.OK || !strings.Contains(r.Error, refusal) {
				t.Errorf("host directory with DATABASE_SSL_ENABLED=true: %s; want node-postgres's %q", r, refusal)
			}
			if r := nodeScriptRun(t, overEnv(base, "DATABASE_HOST", "127.0.0.1"), "typeorm-host.js", lib); !r.OK || r.Socket {
				t.Errorf("TCP control: %s; want a TCP session (the probe must connect and tell TCP apart)", r)
			}
		})
	}
}

// overEnv is env with k set to v (withEnv keeps a key env already has).
func overEnv(env map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for ek, ev := range env {
		if ek != k {
			out[ek] = ev
		}
	}
	return out
}
