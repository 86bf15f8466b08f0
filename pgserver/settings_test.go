package pgserver

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// settingsCases are server command lines, PGPORT values and mounted
// postgresql.conf files; confPath stands for the mounted file's path.
var settingsCases = []struct {
	args   []string
	pgport string
	conf   string
}{
	{args: []string{"--unix-socket-directories=/s1,/s2"}},
	{args: []string{"-c", "unix-socket-directories=/s"}},
	{args: []string{"-c", "UNIX_SOCKET_DIRECTORIES=/u, /v"}},
	{args: []string{"-cunix-socket-directories=/x", "-k", "/k"}},
	{args: []string{"-k/kk", "-p5436"}},
	{args: []string{"--unix_socket_directories=/a", "-c", "max-connections=200"}},
	{args: []string{"-p", "5433", "--port=5434"}},
	{args: []string{"-c", "port=1", "-p", "5437"}},
	{args: []string{"--port=5438", "-c", "port=5439"}},
	{pgport: "6000"},
	{pgport: "6000", args: []string{"-c", "config_file=confPath"}, conf: "Port = 6001\nunix_socket_directories = '/c1,/c2'  # two\n"},
	{pgport: "6000", args: []string{"--config-file=confPath", "-p", "6002"}, conf: "port=6001\n"},
	{args: []string{"--config_file=confPath", "-k", "/k2"}, conf: "unix_socket_directories '/c3'\n"},
}

// TestServerSettingsPostgres checks the tool's reading of port and
// unix_socket_directories against the real postgres binary (postgres -C)
// for the same command line, PGPORT and postgresql.conf.
func TestServerSettingsPostgres(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	for i, c := range settingsCases {
		name := strings.Join(c.args, " ") + " PGPORT=" + c.pgport
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			dir := t.TempDir()
			hostConf, err := srv.WriteFile("case"+strconv.Itoa(i)+".conf", []byte(c.conf))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "pg.conf"), []byte(c.conf), 0o644); err != nil {
				t.Fatal(err)
			}
			var pgArgs, yamlArgs []string
			for _, a := range c.args {
				pgArgs = append(pgArgs, strings.ReplaceAll(a, "confPath", hostConf))
				yamlArgs = append(yamlArgs, strconv.Quote(strings.ReplaceAll(a, "confPath", "/etc/pg/postgresql.conf")))
			}
			doc := "services:\n  db:\n    image: postgres:16\n    command: [\"postgres\"" + prefixEach(", ", yamlArgs) + "]\n    volumes: [\"./pg.conf:/etc/pg/postgresql.conf:ro\"]\n"
			var env []string
			if c.pgport != "" {
				doc += "    environment: {PGPORT: \"" + c.pgport + "\"}\n"
				env = []string{"PGPORT=" + c.pgport}
			}
			p, err := compose.Load(ctx, []compose.Input{{Path: filepath.Join(dir, "compose.yml"), Data: []byte(doc)}}, compose.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			svc := p.Model.Services["db"]
			fam, ok := FamilyOf(svc.Image)
			if !ok || !RunsServer(svc) {
				t.Fatalf("%s: not a server", svc.Image)
			}
			gotPort, gotDirs := Settings(p, svc)
			port, err := srv.ShowSetting(ctx, "port", env, pgArgs...)
			if err != nil {
				t.Fatal(err)
			}
			if strconv.Itoa(gotPort) != port {
				t.Errorf("%s: port %d, postgres -C port says %s", name, gotPort, port)
			}
			dirs, err := srv.ShowSetting(ctx, "unix_socket_directories", env, pgArgs...)
			if err != nil {
				t.Fatal(err)
			}
			want := SocketDirList(dirs)
			got := gotDirs
			if got == nil {
				got = []string{fam.SocketDir} // the image default
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s: socket directories %q, postgres -C says %q", name, got, dirs)
			}
		})
	}
}

func prefixEach(sep string, xs []string) string {
	var b strings.Builder
	for _, x := range xs {
		b.WriteString(sep + x)
	}
	return b.String()
}

func TestCommandSettings(t *testing.T) {
	got := CommandSettings(strings.Fields(`sh -c 'postgres -p 5433 --unix-socket-directories="/a,/b" -c Max-Connections=9'`))
	want := map[string]string{"port": "5433", "unix_socket_directories": "/a,/b", "max_connections": "9"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
}
