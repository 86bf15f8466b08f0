package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uds-migrate/uds-migrate/catalog"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// TestUnleashDatabaseSSL proves the catalogue's condition on Unleash
// (catalog/images/unleash.yaml, requires DATABASE_SSL=false) with the real
// libraries: testdata/readers/unleash.js builds the database options as
// Unleash's createConfig does (pg-connection-string, deepmerge) and
// connects through knex and node-postgres. With DATABASE_SSL=false the
// socket directory in DATABASE_HOST and the socket URL the tool writes in
// DATABASE_URL reach this server over its socket; without it the default
// ssl options make node-postgres ask the socket for SSL, which the server
// refuses there, so the application cannot start, unless the URL itself
// says sslmode=disable. A TCP control proves the probe connects and tells
// TCP apart.
func TestUnleashDatabaseSSL(t *testing.T) {
	srv := pgtest.Shared(t)
	if _, err := nodeVersions("deepmerge")(); err != nil {
		if pgtest.Required() {
			t.Fatalf("Node.js reader libraries missing under CI: %v", err)
		}
		t.Skipf("skipping: %v", err)
	}
	e := catalog.Lookup("unleashorg/unleash-server:latest")
	if e == nil {
		t.Fatal("unleashorg/unleash-server is not catalogued")
	}
	for _, key := range []string{"DATABASE_HOST", "DATABASE_URL"} {
		v := e.Var(key)
		if v == nil || !v.Directory || len(v.Requires) != 1 || v.Requires[0].Key != "DATABASE_SSL" || v.Requires[0].Value != "false" {
			t.Fatalf("catalogue unleash %s: %+v; this test proves directory: true with requires DATABASE_SSL=false", key, v)
		}
	}
	sockURL, _, err := libpq.URIToSocket("postgres://postgres:"+srv.SuperPassword+"@db:5432/postgres", srv.SocketDir, srv.Port)
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(srv.Port)
	host := map[string]string{"DATABASE_HOST": srv.SocketDir, "DATABASE_PORT": port, "DATABASE_USERNAME": "postgres", "DATABASE_NAME": "postgres"}
	url := map[string]string{"DATABASE_URL": sockURL}
	tcp := map[string]string{"DATABASE_URL": "postgres://postgres:" + srv.SuperPassword + "@127.0.0.1:" + port + "/postgres"}
	const refusal = "The server does not support SSL connections"
	for _, c := range []struct {
		name   string
		env    map[string]string
		ssl    bool // DATABASE_SSL=false is set
		socket bool // want a socket session; else want the SSL refusal
	}{
		{"host directory, DATABASE_SSL=false", host, true, true},
		{"host directory, DATABASE_SSL unset", host, false, false},
		{"socket URL, DATABASE_SSL=false", url, true, true},
		{"socket URL, DATABASE_SSL unset", url, false, false},
		// The reason's other way out: the URL's own sslmode=disable gives
		// ssl: false, merged over the defaults.
		{"socket URL with sslmode=disable, DATABASE_SSL unset", map[string]string{"DATABASE_URL": sockURL + "&sslmode=disable"}, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := c.env
			if c.ssl {
				env = withEnv(env, "DATABASE_SSL", "false")
			}
			r := unleashRun(t, env)
			switch {
			case c.socket && !(r.OK && r.Socket && r.Dir == srv.SocketDir):
				t.Errorf("%s; want a socket session in %s", r, srv.SocketDir)
			case !c.socket && (r.OK || !strings.Contains(r.Error, refusal)):
				t.Errorf("%s; want node-postgres's %q", r, refusal)
			default:
				t.Logf("%s", r)
			}
		})
	}
	if r := unleashRun(t, withEnv(tcp, "DATABASE_SSL", "false")); !r.OK || r.Socket {
		t.Errorf("TCP control: %s; want a TCP session (the probe must connect and tell TCP apart)", r)
	}
}

func withEnv(env map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for ek, ev := range env {
		out[ek] = ev
	}
	return out
}

// unleashRun runs testdata/readers/unleash.js with env (and no PG* or
// DATABASE_* variable of this process) and reads its result.
func unleashRun(t *testing.T, env map[string]string) readerResult {
	t.Helper()
	return nodeScriptRun(t, env, "unleash.js")
}

// nodeScriptRun runs node with args in testdata/readers, with env (and no
// PG* or DATABASE_* variable of this process), and reads its one JSON
// result line.
func nodeScriptRun(t *testing.T, env map[string]string, args ...string) readerResult {
	t.Helper()
	bin, err := interpreter("node")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = readersDir
	for _, kv := range cleanEnv() {
		if !strings.HasPrefix(kv, "DATABASE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var r readerResult
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		t.Fatalf("node %s: output %q: %v", strings.Join(args, " "), out, err)
	}
	return r
}
