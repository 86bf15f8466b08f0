package bench

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"
)

const migratedCompose = "testdata/compose.migrated.yml"

func TestLoadComposeFindsDatabase(t *testing.T) {
	ct, err := LoadCompose(context.Background(), []string{migratedCompose}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := &ComposeTarget{
		Files: []string{migratedCompose}, Service: "db", Image: "postgres:16-alpine", Volume: "db-socket", VolumeType: "volume",
		SocketDir: "/var/run/postgresql", Port: 5432, User: "app", Database: "appdb", Password: "s3cret-pw",
		Networks: []string{"backend"},
	}
	if !reflect.DeepEqual(ct, want) {
		t.Errorf("got  %+v\nwant %+v", ct, want)
	}
	if _, err := LoadCompose(context.Background(), []string{migratedCompose}, "nope"); err == nil || !strings.Contains(err.Error(), "--service nope") {
		t.Errorf("unknown service: %v", err)
	}
}

func TestLoadComposeNeedsMigratedFile(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "compose.yml")
	os.WriteFile(f, []byte("services:\n  pg:\n    image: postgis/postgis:16-3.4\n"), 0o644)
	_, err := LoadCompose(context.Background(), []string{f}, "")
	if err == nil || !strings.Contains(err.Error(), "service pg mounts no named volume at /var/run/postgresql: migrate the file first") {
		t.Errorf("error %v", err)
	}
}

// The rendered override loads with compose-go together with the project,
// and its sidecar runs the database's image with the same volume at the
// same directory as the database.
func TestOverrideLoadsAndSharesTheSocketVolume(t *testing.T) {
	ct, err := LoadCompose(context.Background(), []string{migratedCompose}, "")
	if err != nil {
		t.Fatal(err)
	}
	r := &ComposeRun{Target: ct, Dir: t.TempDir()}
	w, _ := LoadWorkload("lookup-small", 1000)
	proj := loadWithOverride(t, r, w, []string{migratedCompose}, "", "t")
	db, _ := proj.GetService("db")
	side, err := proj.GetService(SidecarName)
	if err != nil {
		t.Fatal(err)
	}
	if side.Image != db.Image {
		t.Errorf("sidecar image %q, db image %q", side.Image, db.Image)
	}
	mount := func(s types.ServiceConfig, target string) *types.ServiceVolumeConfig {
		for i, v := range s.Volumes {
			if v.Target == target {
				return &s.Volumes[i]
			}
		}
		return nil
	}
	dbm, sm := mount(db, ct.SocketDir), mount(side, ct.SocketDir)
	if dbm == nil || sm == nil || sm.Type != types.VolumeTypeVolume || sm.Source != dbm.Source || !sm.ReadOnly {
		t.Fatalf("sidecar socket mount %+v, db mount %+v", sm, dbm)
	}
	scripts := mount(side, ScriptsMount)
	if scripts == nil || scripts.Type != types.VolumeTypeBind || scripts.Source != filepath.Join(r.Dir, "scripts") {
		t.Errorf("scripts mount %+v", scripts)
	}
	for _, f := range []string{"workload-lookup-small.sql", "setup-small.sql", "teardown.sql"} {
		if _, err := os.Stat(filepath.Join(r.Dir, "scripts", f)); err != nil {
			t.Error(err)
		}
	}
	if _, ok := side.Networks["backend"]; !ok || !reflect.DeepEqual(side.Profiles, []string{SidecarProf}) {
		t.Errorf("sidecar networks %v profiles %v", side.Networks, side.Profiles)
	}
	if _, ok := side.DependsOn["db"]; !ok {
		t.Errorf("sidecar does not depend on db: %v", side.DependsOn)
	}
	if _, err := proj.GetService(JDBCSidecarName); err == nil {
		t.Error("JDBC sidecar without --client jdbc")
	}
	// Without the profile, `docker compose up` must not see the sidecar.
	plain, _ := cli.NewProjectOptions([]string{migratedCompose, r.Override()}, cli.WithName("t"))
	if p, err := plain.LoadProject(context.Background()); err != nil {
		t.Fatal(err)
	} else if _, err := p.GetService(SidecarName); err == nil {
		t.Error("sidecar active without its profile")
	}
}

// RunCompose also runs on a real Docker engine in e2e/docker
// (TestBenchCompose); this test pins its exact command lines.

// fakeDocker writes a docker stand-in that appends its arguments (one
// per line, then a blank line) and $PGPASSWORD to log, and prints a
// pgbench summary when asked to run pgbench.
func fakeDocker(t *testing.T) (bin, log string) {
	dir := t.TempDir()
	bin, log = filepath.Join(dir, "docker"), filepath.Join(dir, "docker.log")
	script := `#!/bin/sh
for a in "$@"; do printf '%s\n' "$a" >> "` + log + `"; done
printf 'PGPASSWORD=%s\n\n' "$PGPASSWORD" >> "` + log + `"
case " $* " in *" pgbench "*) cat <<'OUT'
` + pgbench15Output + `OUT
;; esac
`
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return bin, log
}

func TestRunComposeCommandLines(t *testing.T) {
	bin, log := fakeDocker(t)
	ct, err := LoadCompose(context.Background(), []string{migratedCompose}, "")
	if err != nil {
		t.Fatal(err)
	}
	r := &ComposeRun{Target: ct, Dir: t.TempDir(), Docker: bin}
	w, _ := LoadWorkload("lookup-small", 1000)
	rep, err := RunCompose(context.Background(), r, Config{Workload: w, Conns: 2, Mode: Prepared,
		Plan: Plan{Rounds: 2, Duration: 1500 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(log)
	calls := strings.Split(strings.TrimSuffix(string(raw), "\n\n"), "\n\n")
	prefix := "compose\n-f\n" + migratedCompose + "\n-f\n" + r.Override() + "\n--profile\nuds-bench\nrun\n--rm\n-T\n-e\nPGPASSWORD\nuds-bench\n"
	sock := "-h\n/var/run/postgresql\n-p\n5432\n-U\napp\n"
	pgbench := "pgbench\n-n\n-M\nprepared\n-c\n2\n-j\n2\n-T\n2\n-D\nrows=1000\n-f\n/uds-bench/workload-lookup-small.sql\n"
	want := []string{
		"pg_isready\n-t\n60\n-h\ndb\n-p\n5432\n-U\napp\n", // the final server listens on TCP
		"pg_isready\n-t\n60\n" + sock,
		"psql\n-X\n-q\n-v\nON_ERROR_STOP=1\n-v\nrows=1000\n" + sock + "-d\nappdb\n-f\n/uds-bench/setup-small.sql\n",
		pgbench + "-h\ndb\n-p\n5432\n-U\napp\nappdb\n", // round 1: TCP first
		pgbench + sock + "appdb\n",
		pgbench + sock + "appdb\n", // round 2: socket first
		pgbench + "-h\ndb\n-p\n5432\n-U\napp\nappdb\n",
		"psql\n-X\n-q\n-v\nON_ERROR_STOP=1\n-v\nrows=1000\n" + sock + "-d\nappdb\n-f\n/uds-bench/teardown.sql\n",
	}
	if len(calls) != len(want) {
		t.Fatalf("%d docker calls, want %d:\n%s", len(calls), len(want), raw)
	}
	for i := range want {
		if calls[i] != prefix+want[i]+"PGPASSWORD=s3cret-pw" {
			t.Errorf("call %d:\n%s\nwant\n%s", i, calls[i], prefix+want[i]+"PGPASSWORD=s3cret-pw")
		}
	}
	if c := rep.Clients[0]; c.Client != "pgbench" || c.Transports[0].Queries != 2*3*4321 || c.Verdict != TooFewRounds {
		t.Errorf("report %+v", rep)
	}
	if strings.Contains(rep.Target+rep.TCP+rep.Socket, "s3cret") {
		t.Errorf("report shows the password: %+v", rep)
	}
}

// TestLoadComposeAtBitnamiBind reads a Bitnami database whose socket
// directory (/tmp, the plan's, not /var/run/postgresql) is a host bind
// mount, with Bitnami's own credential variables; the sidecar mounts the
// same host directory.
func TestLoadComposeAtBitnamiBind(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "compose.yml")
	os.WriteFile(f, []byte(`services:
  pg:
    image: bitnami/postgresql:16
    environment:
      POSTGRESQL_USERNAME: app
      POSTGRESQL_PASSWORD: s3cret-pw
    volumes:
      - ./socket:/tmp
`), 0o644)
	if _, err := LoadCompose(context.Background(), []string{f}, "pg"); err == nil {
		t.Error("LoadCompose found a socket volume at /var/run/postgresql")
	}
	ct, err := LoadComposeAt(context.Background(), []string{f}, "pg", "/tmp", 5433)
	if err != nil {
		t.Fatal(err)
	}
	if ct.SocketDir != "/tmp" || ct.Port != 5433 || ct.VolumeType != "bind" || ct.Volume != filepath.Join(dir, "socket") ||
		ct.User != "app" || ct.Database != "postgres" || ct.Password != "s3cret-pw" {
		t.Errorf("got %+v", ct)
	}
	ov, err := ct.RenderOverride("/s")
	if err != nil || !strings.Contains(string(ov), `type: "bind"`) || !strings.Contains(string(ov), `target: "/tmp"`) {
		t.Errorf("override %s, %v", ov, err)
	}
}

// With --client jdbc the override adds the JVM's sidecar: the Java
// service's image (the first reading a jdbc:postgresql: URL), the same
// socket mount, network and scripts as pgbench's, started by the script
// that finds Debian's jars; BenchJdbc.java lies beside it.
func TestOverrideAddsTheJDBCSidecar(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "compose.yml")
	os.WriteFile(f, []byte(`services:
  worker:
    image: example/worker:2
    environment:
      DATABASE_URL: postgres://app@/appdb?host=/var/run/postgresql
  web:
    image: example/spring:1
    environment:
      SPRING_DATASOURCE_URL: "jdbc:postgresql://localhost:5432/appdb?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432"
    volumes: [db-socket:/var/run/postgresql:ro]
  db:
    image: postgres:16
    networks: [backend]
    environment: {POSTGRES_PASSWORD: pw}
    volumes: [db-socket:/var/run/postgresql]
networks: {backend: {}}
volumes: {db-socket: {}}
`), 0o644)
	ct, err := LoadCompose(context.Background(), []string{f}, "")
	if err != nil {
		t.Fatal(err)
	}
	if ct.JavaImage != "example/spring:1" {
		t.Errorf("JavaImage %q, want the Spring service's", ct.JavaImage)
	}
	r := &ComposeRun{Target: ct, Dir: t.TempDir(), JDBCImage: ct.JavaImage}
	w, _ := LoadWorkload("lookup-small", 1000)
	if err := r.Prepare(w); err != nil {
		t.Fatal(err)
	}
	opts, _ := cli.NewProjectOptions([]string{f, r.Override()}, cli.WithProfiles([]string{SidecarProf}), cli.WithName("t"))
	proj, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("override does not load: %v", err)
	}
	side, err := proj.GetService(JDBCSidecarName)
	if err != nil {
		t.Fatal(err)
	}
	if side.Image != "example/spring:1" || !reflect.DeepEqual([]string(side.Entrypoint), []string{"sh", ScriptsMount + "/" + jdbcStartScript}) {
		t.Errorf("JDBC sidecar image %q entrypoint %q", side.Image, side.Entrypoint)
	}
	var sock bool
	for _, v := range side.Volumes {
		sock = sock || v.Source == "db-socket" && v.Target == "/var/run/postgresql" && v.ReadOnly
	}
	if _, ok := side.Networks["backend"]; !ok || !sock {
		t.Errorf("JDBC sidecar networks %v volumes %+v", side.Networks, side.Volumes)
	}
	for _, name := range []string{"BenchJdbc.java", jdbcStartScript} {
		if _, err := os.Stat(filepath.Join(r.Dir, "scripts", name)); err != nil {
			t.Error(err)
		}
	}
	urls := ComposeJDBCURLs(ct, Prepared)
	if urls[TCP] != "jdbc:postgresql://db:5432/postgres?prepareThreshold=1" ||
		urls[Socket] != "jdbc:postgresql://localhost:5432/postgres?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5432&prepareThreshold=1" {
		t.Errorf("URLs %q", urls)
	}
}

// --compose runs its clients in containers: pgx is refused, and jdbc
// needs an image, before anything starts.
func TestRunComposeRefusesClientsItCannotRun(t *testing.T) {
	bin, log := fakeDocker(t)
	ct, err := LoadCompose(context.Background(), []string{migratedCompose}, "")
	if err != nil {
		t.Fatal(err)
	}
	w, _ := LoadWorkload("lookup-small", 1000)
	for client, want := range map[string]string{
		"pgx":  "pgx runs in this process, which cannot reach the socket volume",
		"jdbc": "name one with --client-image",
	} {
		r := &ComposeRun{Target: ct, Dir: t.TempDir(), Docker: bin}
		_, err := RunCompose(context.Background(), r, Config{Workload: w, Conns: 1, Mode: Prepared, Clients: []string{client},
			Plan: Plan{Rounds: 2, Duration: time.Second}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--client %s: %v, want %q", client, err, want)
		}
	}
	if raw, _ := os.ReadFile(log); len(raw) > 0 {
		t.Errorf("docker ran:\n%s", raw)
	}
}

// TestOwnProjectIsolatesData: a run under a project of its own (the smoke
// run) replaces the database's writable host directories and external
// volumes with a tmpfs in the override (compose merges mounts by target),
// keeps read-only mounts and the socket volume, and names the project and
// its directory on every docker compose command line.
func TestOwnProjectIsolatesData(t *testing.T) {
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "pgdata"), 0o755)
	os.WriteFile(filepath.Join(dir, "init.sql"), []byte("select 1;\n"), 0o644)
	f := filepath.Join(dir, "compose.yml")
	os.WriteFile(f, []byte(`services:
  db:
    image: postgres:16
    volumes:
      - ./pgdata:/var/lib/postgresql/data
      - ./init.sql:/docker-entrypoint-initdb.d/init.sql:ro
      - shared:/backup
      - db-socket:/var/run/postgresql
volumes:
  db-socket:
  shared:
    external: true
`), 0o644)
	ct, err := LoadComposeIn(context.Background(), []string{f}, dir, "", OfficialSocketDir, 0)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"/var/lib/postgresql/data", "/backup"}; !reflect.DeepEqual(ct.Scratch, want) {
		t.Errorf("Scratch %q, want %q", ct.Scratch, want)
	}
	ct.Project = "uds-smoke-test"
	r := &ComposeRun{Target: ct, Dir: t.TempDir()}
	w, _ := LoadWorkload("lookup-small", 1000)
	proj := loadWithOverride(t, r, w, []string{f}, dir, ct.Project)
	db, _ := proj.GetService("db")
	got := map[string]string{}
	for _, v := range db.Volumes {
		got[v.Target] = v.Type
	}
	want := map[string]string{"/var/lib/postgresql/data": "tmpfs", "/backup": "tmpfs", "/docker-entrypoint-initdb.d/init.sql": "bind", "/var/run/postgresql": "volume"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("db mounts %v, want %v", got, want)
	}
	cmd := strings.Join(r.Command("true"), " ")
	if !strings.HasPrefix(cmd, "compose -p uds-smoke-test --project-directory "+dir+" -f "+f+" -f ") {
		t.Errorf("command %q", cmd)
	}
	// bench --compose (no project of its own) leaves the mounts alone.
	ct.Project = ""
	if ov, _ := ct.RenderOverride("/s"); strings.Contains(string(ov), "tmpfs") {
		t.Errorf("override without a project of its own:\n%s", ov)
	}
}

// loadWithOverride prepares r (override and scripts for w) and loads files
// with the override, the sidecar's profile on, as docker compose would
// (working directory dir, "" for compose's default; project name).
func loadWithOverride(t *testing.T, r *ComposeRun, w *Workload, files []string, dir, name string) *types.Project {
	t.Helper()
	if err := r.Prepare(w); err != nil {
		t.Fatal(err)
	}
	opts, err := cli.NewProjectOptions(append(files, r.Override()), cli.WithWorkingDirectory(dir),
		cli.WithProfiles([]string{SidecarProf}), cli.WithName(name))
	if err != nil {
		t.Fatal(err)
	}
	proj, err := opts.LoadProject(context.Background())
	if err != nil {
		t.Fatalf("override does not load: %v", err)
	}
	return proj
}
