package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/uds-migrate/uds-migrate/templates"
)

// Names the override gives the bench sidecar; the profile keeps `docker
// compose up` from ever starting it.
const (
	SidecarName = "uds-bench"
	// JDBCSidecarName runs --client jdbc: a JVM from the Java service's
	// image (ComposeTarget.JavaImage) or --client-image.
	JDBCSidecarName = "uds-bench-jdbc"
	SidecarProf     = "uds-bench"
	ScriptsMount    = "/uds-bench"
	// OfficialSocketDir is the official image family's socket directory
	// (FACTS.md).
	OfficialSocketDir = "/var/run/postgresql"
)

// ComposeTarget is the database service of a migrated compose project, as
// the bench sidecar needs it.
type ComposeTarget struct {
	// Files are the compose files, in -f order.
	Files []string
	// Service is the database service's name, which is also its TCP host.
	Service string
	// Image is the database service's image; the sidecar runs the same one.
	Image string
	// Volume is the named volume the database mounts at SocketDir, or
	// with VolumeType "bind" the host directory it bind-mounts there.
	Volume     string
	VolumeType string // "volume" or "bind" (compose's mount types)
	SocketDir  string
	Port       int
	// User, Database and Password come from the service's POSTGRES_USER,
	// POSTGRES_DB and POSTGRES_PASSWORD (interpolated), with the official
	// image's defaults.
	User, Database, Password string
	// Networks the database joins; the sidecar joins the same ones so the
	// service name resolves. Empty means the default network.
	Networks []string
	// JavaImage is the image of the first service (by name) that reads a
	// jdbc:postgresql: URL, the migrated Java application: --client jdbc
	// runs its JVM from it unless --client-image names another. "" when
	// no service with an image has one.
	JavaImage string
	// ProjectDir, when set, is docker compose's --project-directory, where
	// relative paths and .env resolve: the smoke run keeps its copies of
	// migrated files outside the project (LoadComposeIn).
	ProjectDir string
	// Project, when set, is docker compose's -p: the run's containers,
	// networks and volumes are its own, not the project's, RunCompose
	// takes them down at the end (down -v), and the database's Scratch
	// mounts are replaced by a tmpfs.
	Project string
	// Scratch are the targets of the database's writable data mounts that
	// a second server must not open while the project's own may run on
	// them: a host directory (bind) and an external volume. A project
	// volume is the run's own under Project.
	Scratch []string
}

var postgresImageRE = regexp.MustCompile(`(^|/)(postgres|postgis|timescaledb[a-z0-9-]*)(:|@|$)`)

// LoadCompose reads a migrated compose project with compose-go (the same
// interpolation, .env and merge rules docker compose applies) and finds the
// database: service, or the only service whose image is postgres, postgis
// or timescaledb. The database must mount a named volume at its socket
// directory (/var/run/postgresql for those images; uds-migrate adds it).
func LoadCompose(ctx context.Context, files []string, service string) (*ComposeTarget, error) {
	return loadCompose(ctx, files, "", service, OfficialSocketDir, 0)
}

// LoadComposeAt is LoadCompose for a database whose socket directory and
// port are known, as uds-migrate's plan determines them for the image
// (/tmp for bitnami/postgresql, a unix_socket_directories or port set on
// the command line); port 0 means "read it as LoadCompose does". The
// socket directory may be a named volume or a host bind mount (a
// half-migrated project keeps the user's bind mount).
func LoadComposeAt(ctx context.Context, files []string, service, socketDir string, port int) (*ComposeTarget, error) {
	return loadCompose(ctx, files, "", service, socketDir, port)
}

// LoadComposeIn is LoadComposeAt with docker compose's project directory
// (--project-directory: relative paths and .env resolve there, whatever
// folder the files are in); the target keeps it as ProjectDir.
func LoadComposeIn(ctx context.Context, files []string, projectDir, service, socketDir string, port int) (*ComposeTarget, error) {
	return loadCompose(ctx, files, projectDir, service, socketDir, port)
}

// LoadProject reads compose files with compose-go, as docker compose
// would: the same interpolation, .env and merge rules, every profile.
func LoadProject(ctx context.Context, files []string) (*types.Project, error) {
	return loadProject(ctx, files, "")
}

func loadProject(ctx context.Context, files []string, projectDir string) (*types.Project, error) {
	opts, err := cli.NewProjectOptions(files,
		cli.WithWorkingDirectory(projectDir),
		cli.WithOsEnv, cli.WithDotEnv, cli.WithProfiles([]string{"*"}),
		cli.WithName("uds-bench"))
	if err != nil {
		return nil, err
	}
	proj, err := opts.LoadProject(ctx)
	if err != nil {
		return nil, fmt.Errorf("loading %s: %w", strings.Join(files, ", "), err)
	}
	return proj, nil
}

func loadCompose(ctx context.Context, files []string, projectDir, service, socketDir string, port int) (*ComposeTarget, error) {
	proj, err := loadProject(ctx, files, projectDir)
	if err != nil {
		return nil, err
	}
	svc, err := pickDatabase(proj, service)
	if err != nil {
		return nil, err
	}
	ct := &ComposeTarget{Files: files, Service: svc.Name, Image: svc.Image, SocketDir: path.Clean(socketDir), Port: 5432, ProjectDir: projectDir}
	for _, v := range svc.Volumes {
		if (v.Type == types.VolumeTypeVolume || v.Type == types.VolumeTypeBind) && path.Clean(v.Target) == ct.SocketDir {
			ct.Volume, ct.VolumeType = v.Source, v.Type
			continue
		}
		if v.ReadOnly || v.Target == "" {
			continue
		}
		switch v.Type {
		case types.VolumeTypeBind:
			// A directory (or one compose would create); a file mounted
			// writable is configuration, not data.
			if fi, err := os.Stat(v.Source); err != nil || fi.IsDir() {
				ct.Scratch = append(ct.Scratch, v.Target)
			}
		case types.VolumeTypeVolume:
			if vol, ok := proj.Volumes[v.Source]; ok && bool(vol.External) {
				ct.Scratch = append(ct.Scratch, v.Target)
			}
		}
	}
	if ct.Volume == "" {
		return nil, fmt.Errorf("service %s mounts no named volume at %s: migrate the file first (uds-migrate -w %s)", svc.Name, ct.SocketDir, files[0])
	}
	ct.credentials(svc)
	env := func(k, def string) string {
		if v := svc.Environment[k]; v != nil && *v != "" {
			return *v
		}
		return def
	}
	if p, err := strconv.Atoi(env("PGPORT", "")); err == nil {
		ct.Port = p
	}
	if m := regexp.MustCompile(`\bport=(\d+)`).FindStringSubmatch(strings.Join(svc.Command, " ")); m != nil {
		ct.Port, _ = strconv.Atoi(m[1])
	}
	if port > 0 {
		ct.Port = port
	}
	for n := range svc.Networks {
		ct.Networks = append(ct.Networks, n)
	}
	sort.Strings(ct.Networks)
	ct.JavaImage = javaImage(proj)
	return ct, nil
}

// javaImage is the image of the first service, by name, whose environment
// holds a jdbc:postgresql: URL.
func javaImage(proj *types.Project) string {
	names := make([]string, 0, len(proj.Services))
	for n := range proj.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		svc := proj.Services[n]
		if svc.Image == "" {
			continue
		}
		for _, v := range svc.Environment {
			if v != nil && strings.HasPrefix(*v, "jdbc:postgresql:") {
				return svc.Image
			}
		}
	}
	return ""
}

func pickDatabase(proj *types.Project, name string) (types.ServiceConfig, error) {
	if name != "" {
		svc, err := proj.GetService(name)
		if err != nil {
			return svc, fmt.Errorf("--service %s: %w", name, err)
		}
		return svc, nil
	}
	var found []types.ServiceConfig
	for _, svc := range proj.Services {
		if postgresImageRE.MatchString(strings.ToLower(svc.Image)) {
			found = append(found, svc)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return types.ServiceConfig{}, fmt.Errorf("no postgres, postgis or timescaledb service found: name it with --service")
	}
	var names []string
	for _, s := range found {
		names = append(names, s.Name)
	}
	return types.ServiceConfig{}, fmt.Errorf("several database services (%s): choose one with --service", strings.Join(names, ", "))
}

// RenderOverride returns the compose override adding the bench sidecar
// (templates compose/bench-override.yaml.tmpl): the database's image, the
// socket volume read-only at the database's socket directory, the scripts
// in scriptsDir (absolute) at /uds-bench; with jdbcImage, a second sidecar
// running the JVM of --client jdbc from that image, mounting the same.
func (ct *ComposeTarget) RenderOverride(scriptsDir string) ([]byte, error) {
	return ct.renderOverride(scriptsDir, "")
}

func (ct *ComposeTarget) renderOverride(scriptsDir, jdbcImage string) ([]byte, error) {
	layout, err := templates.Compose("bench-override.yaml")
	if err != nil {
		return nil, err
	}
	t, err := template.New("override").Funcs(template.FuncMap{"q": yamlQuote}).Parse(layout)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, map[string]any{
		"Sidecar": SidecarName, "Profile": SidecarProf, "Image": ct.Image, "Service": ct.Service,
		"Networks": ct.Networks, "Volume": ct.Volume, "VolumeType": ct.volumeType(), "SocketDir": ct.SocketDir,
		"ScriptsDir": scriptsDir, "ScriptsMount": ScriptsMount,
		"JDBCSidecar": JDBCSidecarName, "JDBCImage": jdbcImage, "JDBCStart": ScriptsMount + "/" + jdbcStartScript,
		"Scratch": ct.scratch(),
	})
	return b.Bytes(), err
}

// scratch are the mounts the override replaces with a tmpfs: Scratch,
// for a run under a project of its own only.
func (ct *ComposeTarget) scratch() []string {
	if ct.Project == "" {
		return nil
	}
	return ct.Scratch
}

func (ct *ComposeTarget) volumeType() string {
	if ct.VolumeType == "" {
		return types.VolumeTypeVolume
	}
	return ct.VolumeType
}

// yamlQuote writes s as a double-quoted YAML scalar with $ doubled, so
// compose neither reinterprets nor interpolates it.
func yamlQuote(s string) string {
	return strconv.Quote(strings.ReplaceAll(s, "$", "$$"))
}

// ComposeRun is a bench against a compose project through the sidecar.
type ComposeRun struct {
	Target *ComposeTarget
	// Dir receives the override (compose.uds-bench.yaml) and scripts/.
	Dir string
	// Docker is the docker binary; "" means "docker" on PATH.
	Docker string
	// JDBCImage, when set, adds the JDBC sidecar (JDBCSidecarName) from
	// this image: it needs java 11 or later (the source launcher) and
	// pgjdbc with junixsocket, at Debian's paths or on
	// $UDS_BENCH_CLASSPATH inside the image (jdbcStartScript).
	JDBCImage string

	jdbcName string // the JDBC sidecar's container, once started
}

// Override is the absolute path of the rendered override file (docker
// compose would read a relative -f against its own working directory).
func (r *ComposeRun) Override() string {
	dir, err := filepath.Abs(r.Dir)
	if err != nil {
		dir = r.Dir
	}
	return filepath.Join(dir, "compose.uds-bench.yaml")
}

// Prepare writes the override and the scripts (workload and set-up SQL)
// into Dir.
func (r *ComposeRun) Prepare(w *Workload) error {
	scripts := filepath.Join(r.Dir, "scripts")
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		return err
	}
	abs, err := filepath.Abs(scripts)
	if err != nil {
		return err
	}
	files := map[string]string{scriptFile(w): w.Script.Text}
	if r.JDBCImage != "" {
		files["BenchJdbc.java"] = string(benchJdbcJava)
		files[jdbcStartScript] = jdbcStart
	}
	for _, name := range []string{"setup-" + w.Dataset, "teardown"} {
		if name == "setup-" {
			continue
		}
		if files[name+".sql"], err = templates.PgbenchScript(name); err != nil {
			return err
		}
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(scripts, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	ov, err := r.Target.renderOverride(abs, r.JDBCImage)
	if err != nil {
		return err
	}
	return os.WriteFile(r.Override(), ov, 0o644)
}

func scriptFile(w *Workload) string {
	return "workload-" + strings.TrimSuffix(w.Script.Name, ".sql") + ".sql"
}

// Command returns the docker command line running argv in the sidecar:
// docker compose -f FILE... -f OVERRIDE --profile uds-bench run --rm -T
// -e PGPASSWORD uds-bench ARGV. The password travels in the environment
// (-e NAME without a value), never on the command line.
func (r *ComposeRun) Command(argv ...string) []string {
	return append(r.compose("run", "--rm", "-T", "-e", "PGPASSWORD", SidecarName), argv...)
}

// compose is docker compose -f FILE... -f OVERRIDE --profile uds-bench
// ARGS.
func (r *ComposeRun) compose(args ...string) []string {
	cmd := []string{"compose"}
	if r.Target.Project != "" {
		cmd = append(cmd, "-p", r.Target.Project)
	}
	if r.Target.ProjectDir != "" {
		cmd = append(cmd, "--project-directory", r.Target.ProjectDir)
	}
	for _, f := range r.Target.Files {
		cmd = append(cmd, "-f", f)
	}
	cmd = append(cmd, "-f", r.Override(), "--profile", SidecarProf)
	return append(cmd, args...)
}

func (r *ComposeRun) dockerBin() string {
	if r.Docker == "" {
		return "docker"
	}
	return r.Docker
}

// docker runs the sidecar command and returns its stdout.
func (r *ComposeRun) docker(ctx context.Context, argv ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, r.dockerBin(), r.Command(argv...)...)
	cmd.Env = append(os.Environ(), "PGPASSWORD="+r.Target.Password)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if composeMissing(stderr.Bytes()) {
			return out, ErrNoCompose
		}
		return out, fmt.Errorf("docker compose run %s: %w: %s", argv[0], err, tail(stderr.Bytes(), 5))
	}
	return out, nil
}

// ErrNoCompose says the docker CLI has no compose plugin.
var ErrNoCompose = errors.New("docker compose is not installed: the docker CLI has no compose plugin (Debian/Ubuntu: apt-get install docker-compose-plugin; https://docs.docker.com/compose/install/)")

// composeMissing recognises the docker CLI's answer to `docker compose -f
// ...` without the compose plugin: it reads -f as its own flag ("unknown
// shorthand flag: 'f' in -f"), or names the command ("docker: 'compose' is
// not a docker command."). Seen in docker/for-linux#1330,
// docker/for-mac#6876 and hyperledger-cello/cello#473.
func composeMissing(stderr []byte) bool {
	return bytes.Contains(stderr, []byte("unknown shorthand flag: 'f' in -f")) ||
		bytes.Contains(stderr, []byte("'compose' is not a docker command"))
}

// conn returns libpq connection options for t: the service name over TCP,
// the socket directory over the socket.
func (r *ComposeRun) conn(t Transport) []string {
	host := r.Target.Service
	if t == Socket {
		host = r.Target.SocketDir
	}
	return []string{"-h", host, "-p", strconv.Itoa(r.Target.Port), "-U", r.Target.User}
}

// ReadyTimeout bounds the wait for a database that `docker compose run`
// has just started.
var ReadyTimeout = 2 * time.Minute

// ready waits until the server answers over TCP, then over the socket.
// TCP first: the official entrypoint's initialisation runs a temporary
// server on the socket only (listen_addresses empty), so only the final
// server answers there. pg_isready fails at once while the socket file
// does not exist yet (seen on a real engine), hence the retries.
func (r *ComposeRun) ready(ctx context.Context) error {
	deadline := time.Now().Add(ReadyTimeout)
	for _, t := range []Transport{TCP, Socket} {
		for {
			_, err := r.docker(ctx, append([]string{"pg_isready", "-t", "60"}, r.conn(t)...)...)
			if err == nil {
				break
			}
			if errors.Is(err, ErrNoCompose) {
				return err
			}
			if time.Now().After(deadline) {
				if t == Socket {
					return fmt.Errorf("the socket %s/.s.PGSQL.%d does not answer: %w", r.Target.SocketDir, r.Target.Port, err)
				}
				return fmt.Errorf("%s:%d does not answer over TCP: %w", r.Target.Service, r.Target.Port, err)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(2 * time.Second):
			}
		}
	}
	return nil
}

// down removes the containers, networks and volumes of the run's own
// project (docker compose -p PROJECT ... down -v --remove-orphans), with a
// context of its own: an interrupted run is cleaned up too.
func (r *ComposeRun) down() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, r.dockerBin(), r.compose("down", "-v", "--remove-orphans", "-t", "5")...)
	cmd.Env = os.Environ()
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "uds-migrate: taking down compose project %s: %v: %s\n", r.Target.Project, err, tail(out, 3))
	}
}

// psql runs an SQL file from the scripts mount over the socket.
func (r *ComposeRun) psql(ctx context.Context, file string, w *Workload) error {
	argv := append([]string{"psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-v", fmt.Sprintf("rows=%d", w.Defines["rows"])}, r.conn(Socket)...)
	argv = append(argv, "-d", r.Target.Database, "-f", ScriptsMount+"/"+file)
	_, err := r.docker(ctx, argv...)
	return err
}

// RunCompose benchmarks the compose project's database with clients in
// containers: Prepare, wait for the server on the socket (pg_isready,
// 60 s), set up data (timed, not counted), interleaved rounds, tear-down
// unless cfg.KeepData. cfg.Clients: "pgbench" (default; the database
// image's pgbench in the uds-bench sidecar, a container per run) and
// "jdbc" (pgjdbc + junixsocket in one JVM in the uds-bench-jdbc sidecar
// from r.JDBCImage, for the whole bench); "pgx" runs in this process and
// cannot reach the socket volume.
//
// Under a project of its own (Target.Project), everything the run started
// is taken down at the end, after an error or an interruption too.
func RunCompose(ctx context.Context, r *ComposeRun, cfg Config) (*Report, error) {
	if r.Target.Project != "" {
		defer r.down()
	}
	rep, err := runCompose(ctx, r, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s", Redact(err.Error(), r.Target.Password))
	}
	return rep, nil
}

// ComposeClients lists the --client values --compose takes.
var ComposeClients = []string{"pgbench", "jdbc"}

func runCompose(ctx context.Context, r *ComposeRun, cfg Config) (*Report, error) {
	w := cfg.Workload
	names := cfg.Clients
	if len(names) == 0 {
		names = []string{"pgbench"}
	}
	for _, n := range names {
		if !slices.Contains(ComposeClients, n) {
			return nil, fmt.Errorf("--client %s with --compose: the clients run in containers there (%s); pgx runs in this process, which cannot reach the socket volume", n, strings.Join(ComposeClients, ", "))
		}
		if n == "jdbc" && r.JDBCImage == "" {
			return nil, fmt.Errorf("--client jdbc with --compose: no service of %s reads a jdbc:postgresql: URL to take a JVM image from; name one with --client-image (java 11+, pgjdbc and junixsocket)", strings.Join(r.Target.Files, ", "))
		}
		if n == "jdbc" {
			if err := interpretable(n, w); err != nil {
				return nil, err
			}
		}
	}
	if err := r.Prepare(w); err != nil {
		return nil, err
	}
	if err := r.ready(ctx); err != nil {
		return nil, err
	}
	var setup time.Duration
	if w.Dataset != "" {
		start := time.Now()
		if err := r.psql(ctx, "setup-"+w.Dataset+".sql", w); err != nil {
			return nil, fmt.Errorf("data set-up: %w", err)
		}
		setup = time.Since(start)
		if !cfg.KeepData {
			defer r.psql(context.Background(), "teardown.sql", w)
		}
	}
	var clients []Client
	var who []string
	for _, n := range names {
		switch n {
		case "pgbench":
			clients = append(clients, &PgbenchClient{
				ScriptPath: ScriptsMount + "/" + scriptFile(w), Script: w.Script, Defines: w.Defines,
				Conns: cfg.Conns, Mode: cfg.Mode,
				Conn: func(t Transport) []string { return append(r.conn(t), r.Target.Database) },
				Exec: func(ctx context.Context, _ Transport, args []string) ([]byte, error) {
					return r.docker(ctx, append([]string{"pgbench"}, args...)...)
				},
			})
			who = append(who, "pgbench from "+r.Target.Image)
		case "jdbc":
			c, err := r.startJDBC(ctx, w, cfg)
			if err != nil {
				return nil, err
			}
			defer c.Close()
			clients = append(clients, c)
			who = append(who, "jdbc from "+r.JDBCImage)
		}
	}
	m := StartMachine()
	// The server's and the JVM's processes are visible here when the
	// engine runs on this machine; a pgbench container per run is not (it
	// is gone before the rounds end), so with pgbench other work is not
	// measured.
	var cpu *CPUWatch
	if roots := r.processes(ctx, names); roots != nil {
		cpu = WatchCPU(roots...)
	}
	rounds, err := InterleaveClients(ctx, clients, cfg.Plan, cfg.Step)
	if err != nil {
		return nil, err
	}
	m.LoadAfter = LoadAverage()
	if cpu != nil {
		m.OtherCores = cpu.OtherCores()
	}
	rep, err := analyzeClients(clients, rounds, m, w.Script.Queries())
	if err != nil {
		return nil, err
	}
	describe(rep, cfg, setup)
	rep.Target = fmt.Sprintf("compose service %s (%s) from %s; clients in containers: %s", r.Target.Service, r.Target.Image, strings.Join(r.Target.Files, ", "), strings.Join(who, ", "))
	rep.TCP = fmt.Sprintf("host=%s port=%d user=%s dbname=%s", r.Target.Service, r.Target.Port, r.Target.User, r.Target.Database)
	rep.Socket = fmt.Sprintf("%s/.s.PGSQL.%d (volume %s) user=%s dbname=%s", r.Target.SocketDir, r.Target.Port, r.Target.Volume, r.Target.User, r.Target.Database)
	for i := range rep.Clients {
		ts := rep.Clients[i].Transports
		ts[0].Endpoint, ts[1].Endpoint = rep.TCP, rep.Socket
	}
	return rep, nil
}

// jdbcStartScript starts BenchJdbc.java in the JDBC sidecar, with pgjdbc
// and junixsocket where Debian's libpostgresql-jdbc-java,
// libjunixsocket-java and libjunixsocket-jni put them (as internal/probe
// looks for them) or on $UDS_BENCH_CLASSPATH, which then brings
// junixsocket's native library too (junixsocket-native-common).
const jdbcStartScript = "jdbc.sh"

const jdbcStart = `#!/bin/sh
# Written by uds-migrate bench --compose --client jdbc (bench/compose.go).
set -e
if [ -n "$UDS_BENCH_CLASSPATH" ]; then
	exec java -cp "$UDS_BENCH_CLASSPATH" ` + ScriptsMount + `/BenchJdbc.java
fi
for lib in /usr/lib/*/jni/libjunixsocket-native*.so; do
	[ -e "$lib" ] || { echo "uds-bench: no junixsocket native library (/usr/lib/*/jni/libjunixsocket-native*.so) in this image; set UDS_BENCH_CLASSPATH" >&2; exit 2; }
	exec java -Dorg.newsclub.net.unix.library.override="$lib" \
		-cp /usr/share/java/postgresql.jar:/usr/share/java/junixsocket-common.jar ` + ScriptsMount + `/BenchJdbc.java
done
`

// ComposeJDBCURLs are the URLs of the JDBC sidecar: over TCP the service
// name, as the application's URL before the migration
// (jdbc:postgresql://postgres:5432/appdb), over the socket the form
// uds-migrate writes; neither sets sslmode (pgjdbc's default, prefer, as
// the application has it), both set -M's parameters (JDBCModeParams).
func ComposeJDBCURLs(ct *ComposeTarget, m Mode) map[Transport]string {
	params := JDBCModeParams[m]
	file := path.Join(ct.SocketDir, ".s.PGSQL."+strconv.Itoa(ct.Port))
	return map[Transport]string{
		TCP: fmt.Sprintf("jdbc:postgresql://%s:%d/%s?%s", ct.Service, ct.Port, ct.Database, params),
		Socket: fmt.Sprintf("jdbc:postgresql://localhost:%d/%s?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=%s&%s",
			ct.Port, ct.Database, file, params),
	}
}

// startJDBC starts the JDBC sidecar with docker compose run (stdin and
// stdout are the JVM's, the password travels on stdin) under a container
// name of its own, so that processes can find it.
func (r *ComposeRun) startJDBC(ctx context.Context, w *Workload, cfg Config) (*JDBCClient, error) {
	r.jdbcName = fmt.Sprintf("%s-%d-%d", JDBCSidecarName, os.Getpid(), time.Now().UnixNano()%1e9)
	cmd := exec.Command(r.dockerBin(), r.compose("run", "--rm", "-T", "--name", r.jdbcName, JDBCSidecarName)...)
	c, err := startJDBC(cmd, ComposeJDBCURLs(r.Target, cfg.Mode), r.Target.User, r.Target.Password, cfg.Conns, w)
	if err != nil {
		return nil, fmt.Errorf("--client jdbc in %s: %w", JDBCSidecarName, err)
	}
	name, bin := r.jdbcName, r.dockerBin()
	c.onClose = func() { // a killed docker CLI may leave its container behind
		exec.Command(bin, "rm", "-f", name).Run()
	}
	return c, nil
}

// processes returns the process ids whose CPU is the bench's own: the
// database container's first process (the postmaster) and, with the JDBC
// client, its container's JVM; nil when a client runs a container per run
// (pgbench) or the engine's processes are not visible here (a remote
// engine, a VM).
func (r *ComposeRun) processes(ctx context.Context, clients []string) []int {
	if slices.Contains(clients, "pgbench") {
		return nil
	}
	out, err := exec.CommandContext(ctx, r.dockerBin(), r.compose("ps", "-q", r.Target.Service)...).Output()
	if err != nil {
		return nil
	}
	db := r.containerPID(ctx, strings.TrimSpace(string(out)))
	if db <= 0 || !isPostgres(db) {
		return nil
	}
	roots := []int{db}
	if r.jdbcName != "" {
		// docker compose run creates the container a moment after it starts.
		for i := 0; i < 60; i++ {
			if pid := r.containerPID(ctx, r.jdbcName); pid > 0 {
				if Visible(pid) {
					return append(roots, pid)
				}
				return nil
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(500 * time.Millisecond):
			}
		}
		return nil
	}
	return roots
}

// containerPID is ContainerPID with r's docker.
func (r *ComposeRun) containerPID(ctx context.Context, container string) int {
	return ContainerPID(ctx, r.dockerBin(), container)
}

// ContainerPID is the host process id of a running container's first
// process (docker inspect's .State.Pid), 0 when it is not running or
// unknown.
func ContainerPID(ctx context.Context, docker, container string) int {
	if container == "" {
		return 0
	}
	out, err := exec.CommandContext(ctx, docker, "inspect", "-f", "{{.State.Pid}}", container).Output()
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return pid
}

// Visible reports whether process pid can be read here (/proc/PID/stat):
// the engine runs on this machine, in this process namespace.
func Visible(pid int) bool {
	_, ok := readProcStat(pid)
	return pid > 0 && ok
}
