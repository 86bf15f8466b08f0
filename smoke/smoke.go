// Package smoke proves a migrated compose project's socket setup with real
// drivers and a short benchmark, without Docker: it starts a throwaway
// PostgreSQL (internal/pgtest), rebuilds the migrated file's socket layout
// in a temporary directory, connects once with every client value in socket
// form, and runs bench's lookup-small workload TCP against that socket
// path. When a Docker engine answers, the benchmark runs against the compose
// project itself (bench's --compose mode) instead.
//
// The layout: for each database's socket volume, a directory standing for
// the clients' mount path holds .s.PGSQL.<server port from the file>, a
// symlink to the throwaway server's real socket. A client value's socket
// directory is mapped through the client's own mounts, so a value that
// names the wrong directory, volume or port fails here as it would in the
// containers: the driver finds no socket file.
package smoke

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
	"github.com/uds-migrate/uds-migrate/revert"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// DefaultDuration is a smoke benchmark's measuring time: short enough to
// end every migration with, long enough for a confidence interval.
const DefaultDuration = 15 * time.Second

// Targets for Options.Target.
const (
	// TargetAuto uses the compose project when `docker info` succeeds,
	// else the embedded server.
	TargetAuto     = "auto"
	TargetEmbedded = "embedded"
	TargetCompose  = "compose"
)

// Options configures Run. The zero value checks every socket value and
// benchmarks for DefaultDuration against TargetAuto.
type Options struct {
	// Rewrite are the options the migration or validation used (--db,
	// --socket-dir, project directory, env files, profiles, Env); Run
	// finds the databases with them.
	Rewrite rewrite.Options
	// ComposeFiles is how many leading entries of files are compose
	// files, in -f order (Result.Files puts them first); the rest are
	// other files the migration rewrote (env files), read instead of the
	// disk. 0 means every entry is a compose file.
	ComposeFiles int
	// Rewritten are this migration's changes; values among them are
	// marked "rewritten" in the report. nil for an already migrated file.
	Rewritten []rewrite.Change
	// Duration is the benchmark's measuring time, warm-up included
	// (0: DefaultDuration; at least 400 ms).
	Duration time.Duration
	// Target is TargetAuto (""), TargetEmbedded or TargetCompose.
	Target string
	// Log receives one-line progress notes (may be nil).
	Log io.Writer
}

// Status is a connection check's outcome.
type Status string

const (
	OK      Status = "ok"
	Failed  Status = "FAIL"
	Skipped Status = "skip"
)

// Check is one client value's connection attempt.
type Check struct {
	Service, Key string
	// Dialect is rewrite's name: jdbc, libpq-uri, libpq-dsn, pghost,
	// r2dbc, npgsql.
	Dialect string
	// Driver is "pgx" or "pgjdbc+junixsocket"; "" when skipped.
	Driver string
	// Socket is the socket file the value names, as the client container
	// sees it.
	Socket string
	// Rewritten is true when this migration wrote the value.
	Rewritten bool
	Status    Status
	// Detail is what the server saw ("app@appdb via socket") for OK, the
	// driver's error for Failed, the reason for Skipped. Never a password.
	Detail string
}

// Report is what a smoke run found.
type Report struct {
	// Target is TargetEmbedded or TargetCompose: where the benchmark ran.
	Target string
	// Server describes the throwaway server the checks used ("" when the
	// checks did not run).
	Server string
	// Layout lists the reproduced socket files: "volume db-socket:
	// /var/run/postgresql/.s.PGSQL.5432 -> /tmp/uds-smoke-1/0".
	Layout []string
	Checks []Check
	// Bench is the benchmark report; nil when it did not run (BenchNote
	// says why).
	Bench     *bench.Report
	BenchNote string
	// SocketPath is the socket file the benchmark measured, as the
	// migrated file names it.
	SocketPath string
}

// ConnError is Run's error when a client value cannot connect: the
// migrated socket path does not work.
type ConnError struct{ Failed []Check }

func (e *ConnError) Error() string {
	var parts []string
	for _, c := range e.Failed {
		parts = append(parts, fmt.Sprintf("%s/%s (%s) cannot connect to %s: %s", c.Service, c.Key, c.Dialect, c.Socket, c.Detail))
	}
	return "smoke: " + strings.Join(parts, "; ")
}

// DockerAnswers reports whether `docker info` succeeds within 10 s.
func DockerAnswers(ctx context.Context) bool { return EngineError(ctx) == nil }

// EngineError is nil when `docker info` succeeds within 10 s, else what
// it said (the last lines of its stderr): docker missing, no engine at
// DOCKER_HOST, a permission on the socket.
func EngineError(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "docker", "info", "--format", "{{.ServerVersion}}")
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if len(lines) > 3 {
			lines = lines[len(lines)-3:]
		}
		if msg := strings.TrimSpace(strings.Join(lines, " ")); msg != "" {
			return fmt.Errorf("docker info: %w: %s", err, msg)
		}
		return fmt.Errorf("docker info: %w", err)
	}
	return nil
}

// Run smoke-checks the migrated project in files (FileResult.After is the
// content checked; Path resolves relative paths). It returns the report so
// far with a *ConnError when a client value cannot connect (the benchmark
// then does not run), or another error when the check itself could not run
// (no PostgreSQL binaries and no Docker, unreadable project, benchmark
// failure). Errors and the report never hold a password.
func Run(ctx context.Context, files []rewrite.FileResult, opts Options) (*Report, error) {
	logf := func(format string, args ...any) {
		if opts.Log != nil {
			fmt.Fprintf(opts.Log, "smoke: "+format+"\n", args...)
		}
	}
	// The compose target asked for needs an engine: say so at once, not
	// after two minutes of a database that never answers (issue 25).
	if opts.Target == TargetCompose {
		if err := EngineError(ctx); err != nil {
			return nil, fmt.Errorf("smoke: --smoke-target compose needs a Docker engine, and none answers (%v); start one, or use --smoke-target embedded", err)
		}
	}
	p, err := loadProject(ctx, files, opts.ComposeFiles, opts.Rewrite)
	if err != nil {
		return nil, err
	}
	// Revert's analysis finds the databases of a project already in
	// socket form (service, socket directory, port, volume) without
	// judging it: Migrate would refuse a broken setup before we test it.
	ro := opts.Rewrite
	ro.ReadFile = compose.Overlay(files, ro.ReadFile)
	rv, err := revert.Revert(ctx, p.inputs, ro)
	if err != nil {
		return nil, fmt.Errorf("smoke: finding the databases: %w", err)
	}
	dbs := p.withVolumes(rv.DBs)
	values := p.socketValues(dbs)

	rep := &Report{Target: opts.Target}
	if rep.Target == "" || rep.Target == TargetAuto {
		rep.Target = TargetEmbedded
		if DockerAnswers(ctx) {
			rep.Target = TargetCompose
		}
	}
	pgErr := pgtest.Available()
	if pgErr != nil && rep.Target == TargetEmbedded {
		return nil, fmt.Errorf("smoke: no Docker engine answers and %w", pgErr)
	}

	var (
		benchDir  string // reproduced socket directory the benchmark uses
		benchPort int
	)
	if pgErr != nil {
		for _, v := range values {
			rep.Checks = append(rep.Checks, newCheck(v, opts.Rewritten, Skipped, "no local PostgreSQL to connect to: "+pgErr.Error()))
		}
	} else {
		logf("starting a throwaway PostgreSQL...")
		srv, err := pgtest.Start(ctx, pgtest.Options{})
		if err != nil {
			return nil, fmt.Errorf("smoke: %w", err)
		}
		defer srv.Stop()
		rep.Server = "throwaway PostgreSQL from " + srv.BinDir
		lay, err := newLayout(dbs, srv.SocketPath())
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(lay.root)
		rep.Layout = lay.describe(dbs)
		var first *value
		rep.Checks, first = checkAll(ctx, srv, p, lay, dbs, values, opts.Rewritten)
		var failed []Check
		for _, c := range rep.Checks {
			if c.Status == Failed {
				failed = append(failed, c)
			}
		}
		if len(failed) > 0 {
			rep.BenchNote = "not run: a client value cannot connect"
			return rep, &ConnError{Failed: failed}
		}
		if first != nil {
			benchDir, benchPort = lay.hostDir(p, dbs, first), first.port
			rep.SocketPath = first.socketFile()
		}
		if rep.Target == TargetEmbedded {
			if first == nil {
				rep.BenchNote = "not run: no client value connected through a socket"
				return rep, nil
			}
			logf("benchmarking lookup-small, TCP against %s...", rep.SocketPath)
			rep.Bench, err = embeddedBench(ctx, srv, benchDir, benchPort, opts)
			if err != nil {
				return rep, err
			}
			// Name the path the file names; the temporary one means
			// nothing once removed.
			rep.Bench.Socket = rep.SocketPath + " (reproduced in " + benchDir + ")"
			rep.Bench.Clients[0].Transports[1].Endpoint = rep.Bench.Socket
			return rep, nil
		}
	}
	if len(dbs) == 0 {
		rep.BenchNote = "not run: no PostgreSQL service found"
		return rep, nil
	}
	logf("benchmarking lookup-small in the compose project (docker compose run)...")
	rep.Bench, err = composeBench(ctx, files, p, dbs[0], opts)
	return rep, err
}

func newCheck(v *value, rewritten []rewrite.Change, st Status, detail string) Check {
	c := Check{Service: v.service, Key: v.key, Dialect: v.dialect, Status: st, Detail: detail}
	if v.dir != "" {
		c.Socket = v.socketFile()
	}
	for _, ch := range rewritten {
		if ch.Kind == "value" && ch.Service == v.service && (ch.Key == v.key || v.dialect == dialect.PGHost && strings.HasPrefix(ch.Key, "PG")) {
			c.Rewritten = true
		}
	}
	return c
}

// Plan divides d into a warm-up run per transport (1/30 of d) and
// bench.MinRounds (6, the fewest a verdict accepts) to 7 rounds of one run
// per transport: more, shorter rounds narrow the interval
// (bench.Interleave), but a run under about 100 ms counts too few queries
// to be steady.
func Plan(d time.Duration) bench.Plan {
	if d <= 0 {
		d = DefaultDuration
	}
	if d < 400*time.Millisecond {
		d = 400 * time.Millisecond
	}
	warm := d / 30
	rounds := int(d / (2 * time.Second))
	rounds = max(bench.MinRounds, min(7, rounds))
	return bench.Plan{Rounds: rounds, Warmup: warm, Duration: (d - 2*warm) / time.Duration(2*rounds)}
}

// benchConfig is the smoke benchmark: lookup-small, one connection,
// prepared statements, bench's defaults otherwise.
func benchConfig(opts Options) (bench.Config, error) {
	w, err := bench.LoadWorkload("lookup-small", bench.DefaultRows)
	if err != nil {
		return bench.Config{}, err
	}
	return bench.Config{Workload: w, Plan: Plan(opts.Duration), Conns: 1, Mode: bench.Prepared, Log: nil}, nil
}

// embeddedBench runs bench's runner against srv: TCP on 127.0.0.1 against
// the socket file in dir named for port (the migrated file's layout).
func embeddedBench(ctx context.Context, srv *pgtest.Server, dir string, port int, opts Options) (*bench.Report, error) {
	cfg, err := benchConfig(opts)
	if err != nil {
		return nil, err
	}
	if err := srv.EnsureDatabase(ctx, bench.EmbeddedDatabase, ""); err != nil {
		return nil, err
	}
	tcp, err := pgx.ParseConfig(srv.TCPDSN(srv.SuperUser, bench.EmbeddedDatabase))
	if err != nil {
		return nil, err
	}
	sock, err := pgx.ParseConfig(srv.SocketDSN(srv.SuperUser, bench.EmbeddedDatabase))
	if err != nil {
		return nil, err
	}
	sock.Host, sock.Port = dir, uint16(port)
	ep := &bench.Endpoints{TCP: tcp, Socket: sock, Target: "throwaway PostgreSQL from " + srv.BinDir, Close: func() error { return nil }}
	return bench.Run(ctx, ep, cfg)
}

// composeBench runs bench's --compose mode on the migrated project. The
// migrated compose files may exist only in memory (no -w), so changed ones
// are written next to their originals under a hidden temporary name, where
// relative paths still resolve, and removed afterwards.
// The bench reaches the database at the socket directory and port the
// plan determined for its image (db), not the official image's default.
func composeBench(ctx context.Context, files []rewrite.FileResult, p *project, db rewrite.DBInfo, opts Options) (*bench.Report, error) {
	cfg, err := benchConfig(opts)
	if err != nil {
		return nil, err
	}
	// The migrated files go to a directory of this run, outside the
	// project (0700, files 0600: they hold the project's passwords);
	// docker compose resolves their relative paths against the project
	// directory (--project-directory), as for the originals.
	dir, err := os.MkdirTemp("", "uds-smoke-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	var paths []string
	for i, in := range p.inputs {
		if !files[i].Changed {
			paths = append(paths, in.Path)
			continue
		}
		f := filepath.Join(dir, strconv.Itoa(i)+"-"+filepath.Base(in.Path))
		if err := os.WriteFile(f, in.Data, 0o600); err != nil {
			return nil, err
		}
		paths = append(paths, f)
	}
	ct, err := bench.LoadComposeIn(ctx, paths, p.dir, db.Service, db.SocketDir, db.Port)
	if err != nil {
		return nil, err
	}
	// A compose project of its own: its containers, networks and volumes
	// are not the project's (whose database may be running), and
	// RunCompose takes them down at the end.
	ct.Project, err = projectName()
	if err != nil {
		return nil, err
	}
	return bench.RunCompose(ctx, &bench.ComposeRun{Target: ct, Dir: filepath.Join(dir, "bench")}, cfg)
}

// projectName is a compose project name for one smoke run: uds-smoke-
// and 8 random hexadecimal digits.
func projectName() (string, error) {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return "uds-smoke-" + hex.EncodeToString(b), nil
}

// VerdictLine is the benchmark's verdict with the ratio and its interval,
// e.g. "socket/TCP queries/s 1.031 (95% CI 0.982 to 1.071): no measurable
// difference (...)"; on a busy machine "figure unreliable (load average
// ...)" instead of "socket faster/slower"; "" when no benchmark ran.
func (r *Report) VerdictLine() string {
	if r.Bench == nil {
		return ""
	}
	c := r.Bench.Clients[0]
	iv := c.Ratio
	return fmt.Sprintf("socket/TCP queries/s %.3f (95%% CI %.3f to %.3f): %s", iv.Estimate, iv.Low, iv.High, c.VerdictLine())
}

// Write prints the report as "smoke: " lines: where it ran, one line per
// connection check, then the verdict (or why there is none).
func (r *Report) Write(w io.Writer) {
	if r.Server != "" {
		fmt.Fprintf(w, "smoke: %s, socket layout of the migrated file:\n", r.Server)
		for _, l := range r.Layout {
			fmt.Fprintf(w, "smoke:   %s\n", l)
		}
	}
	if len(r.Checks) == 0 && r.Server != "" {
		fmt.Fprintln(w, "smoke: no client value connects through a socket: nothing to connect with")
	}
	for _, c := range r.Checks {
		what := c.Dialect
		if c.Driver != "" {
			what += ", " + c.Driver
		}
		if c.Rewritten {
			what += ", rewritten"
		}
		fmt.Fprintf(w, "smoke: %-4s %s/%s (%s) %s: %s\n", c.Status, c.Service, c.Key, what, c.Socket, c.Detail)
	}
	if r.Bench == nil {
		if r.BenchNote != "" {
			fmt.Fprintf(w, "smoke: benchmark %s\n", r.BenchNote)
		}
		return
	}
	b := r.Bench
	c := b.Clients[0]
	fmt.Fprintf(w, "smoke: benchmark %s on %s, %d rounds of %.2f s per transport, %s client, -M %s, %s\n",
		b.Workload, r.Target, b.Rounds, b.RoundSeconds, c.Client, b.Mode, b.Machine)
	fmt.Fprintf(w, "smoke:   tcp    %s: %.0f queries/s\n", b.TCP, c.Transports[0].QPS)
	fmt.Fprintf(w, "smoke:   socket %s: %.0f queries/s\n", b.Socket, c.Transports[1].QPS)
	fmt.Fprintf(w, "smoke: verdict: %s\n", r.VerdictLine())
}

// layout is the reproduced socket directories: one per database socket
// volume, each holding .s.PGSQL.<that database's port> -> the real socket.
type layout struct {
	root string
	dirs map[string]string // DBInfo.Volume -> directory
}

// newLayout creates the directories under a short temporary root (a
// socket path must fit in 107 bytes, and a test's TMPDIR can be long).
func newLayout(dbs []rewrite.DBInfo, realSocket string) (*layout, error) {
	base := os.TempDir()
	if len(base) > 60 {
		base = "/tmp"
	}
	root, err := os.MkdirTemp(base, "uds-smoke-")
	if err != nil {
		return nil, fmt.Errorf("smoke: %w", err)
	}
	l := &layout{root: root, dirs: map[string]string{}}
	for i, db := range dbs {
		if _, ok := l.dirs[db.Volume]; ok || db.Volume == "" {
			continue
		}
		dir := filepath.Join(root, strconv.Itoa(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			os.RemoveAll(root)
			return nil, fmt.Errorf("smoke: %w", err)
		}
		if err := os.Symlink(realSocket, filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(db.Port))); err != nil {
			os.RemoveAll(root)
			return nil, fmt.Errorf("smoke: %w", err)
		}
		l.dirs[db.Volume] = dir
	}
	return l, nil
}

func (l *layout) describe(dbs []rewrite.DBInfo) []string {
	var out []string
	for _, db := range dbs {
		if dir, ok := l.dirs[db.Volume]; ok {
			out = append(out, fmt.Sprintf("%s: volume %s holds .s.PGSQL.%d -> reproduced in %s", db.Service, db.Volume, db.Port, dir))
		}
	}
	return out
}

// resolve maps v's socket directory through its service's mounts to the
// reproduced directory on this machine, or says why the containers could
// not reach any database socket there.
func (l *layout) resolve(p *project, dbs []rewrite.DBInfo, v *value) (string, error) {
	var svc *service
	for i := range p.services {
		if p.services[i].name == v.service {
			svc = &p.services[i]
		}
	}
	dir := filepath.Clean(v.dir)
	var best *mount
	for i, m := range svc.mounts {
		if (dir == m.target || strings.HasPrefix(dir, m.target+"/") || m.target == "/") && (best == nil || len(m.target) > len(best.target)) {
			best = &svc.mounts[i]
		}
	}
	if best == nil {
		return "", fmt.Errorf("%s mounts no volume at %s, so the container has no socket there", v.service, dir)
	}
	for _, db := range dbs {
		if p.sameSource(*best, db.Volume) {
			if host, ok := l.dirs[db.Volume]; ok {
				return filepath.Join(host, strings.TrimPrefix(dir, best.target)), nil
			}
		}
	}
	return "", fmt.Errorf("%s mounts %s at %s, which is no database's socket volume", v.service, best.source, best.target)
}

// hostDir is resolve for a value already known to resolve.
func (l *layout) hostDir(p *project, dbs []rewrite.DBInfo, v *value) string {
	d, _ := l.resolve(p, dbs, v)
	return d
}

// checkAll connects once with every value, creating the role and database
// it names first, and returns the checks in input order and the first
// value that connected (nil if none). JDBC values share one JVM.
func checkAll(ctx context.Context, srv *pgtest.Server, p *project, l *layout, dbs []rewrite.DBInfo, values []*value, rewritten []rewrite.Change) ([]Check, *value) {
	checks := make([]Check, len(values))
	var first *value
	type jdbcJob struct {
		i int
		t probe.JDBCTarget
	}
	var jobs []jdbcJob
	jdbcErr := probe.JDBCAvailable()
	for i, v := range values {
		redact := func(s string) string { return bench.Redact(s, v.password) }
		switch {
		case v.skip != "":
			checks[i] = newCheck(v, rewritten, Skipped, v.skip)
			continue
		case v.parseErr != nil:
			checks[i] = newCheck(v, rewritten, Failed, "pgx refuses the value: "+redact(v.parseErr.Error()))
			checks[i].Driver = "pgx"
			continue
		}
		host, err := l.resolve(p, dbs, v)
		if err != nil {
			checks[i] = newCheck(v, rewritten, Failed, err.Error())
			continue
		}
		if v.user == "" {
			v.user = defaultUser(p, dbs)
		}
		if err := ensure(ctx, srv, v); err != nil {
			checks[i] = newCheck(v, rewritten, Failed, "creating the role or database it names: "+redact(err.Error()))
			continue
		}
		if v.jdbcURL != nil {
			checks[i] = newCheck(v, rewritten, Skipped, "")
			checks[i].Driver = "pgjdbc+junixsocket"
			if jdbcErr != nil {
				checks[i].Detail = "JDBC check skipped: " + jdbcErr.Error()
				continue
			}
			file := filepath.Join(host, ".s.PGSQL."+strconv.Itoa(v.port))
			jobs = append(jobs, jdbcJob{i, probe.JDBCTarget{URL: withSocketFile(v.jdbcURL, file), User: v.user, Password: v.password}})
			continue
		}
		cfg := v.pgx.Copy()
		cfg.Host = host
		checks[i] = newCheck(v, rewritten, Failed, "")
		checks[i].Driver = "pgx"
		res, err := pgxProbe(ctx, cfg)
		if err != nil {
			checks[i].Detail = redact(err.Error())
			continue
		}
		checks[i].Status, checks[i].Detail = outcome(res)
		if checks[i].Status == OK && first == nil {
			first = v
		}
	}
	if len(jobs) > 0 {
		var targets []probe.JDBCTarget
		for _, j := range jobs {
			targets = append(targets, j.t)
		}
		outs, err := probe.JDBCBatch(ctx, targets)
		for k, j := range jobs {
			v := values[j.i]
			c := &checks[j.i]
			switch {
			case err != nil:
				c.Status, c.Detail = Failed, "the JVM did not run: "+bench.Redact(err.Error(), v.password)
			case outs[k].Err != nil:
				c.Status, c.Detail = Failed, bench.Redact(outs[k].Err.Error(), v.password)
			default:
				c.Status, c.Detail = outcome(outs[k].Result)
				if c.Status == OK && first == nil {
					first = v
				}
			}
		}
	}
	return checks, first
}

// outcome judges what the server saw: a connection that arrived over TCP
// would mean the value does not use the socket at all.
func outcome(r probe.Result) (Status, string) {
	if !r.OverSocket || r.One != 1 {
		return Failed, "connected, but not over the socket: " + r.String()
	}
	return OK, r.User + "@" + r.Database + " via socket"
}

// pgxProbe is probe.Pgx for a parsed config (the value's own parse, with
// the directory substituted), bounded to 30 s.
func pgxProbe(ctx context.Context, cfg *pgx.ConnConfig) (probe.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return probe.Result{}, fmt.Errorf("pgx: %w", err)
	}
	defer conn.Close(context.Background())
	var r probe.Result
	if err := conn.QueryRow(ctx, probe.Query).Scan(&r.One, &r.User, &r.Database, &r.OverSocket); err != nil {
		return probe.Result{}, fmt.Errorf("pgx: %w", err)
	}
	return r, nil
}

// ensure creates the value's login role and its database. The role gets no
// password: the checks connect over the trusted socket only, and a
// password from the project would let any local account log in over TCP
// as that role while the server runs (issue 25). The superuser keeps its
// random password: the benchmark's TCP side logs in with it.
func ensure(ctx context.Context, srv *pgtest.Server, v *value) error {
	if v.user != srv.SuperUser {
		if err := srv.EnsureRole(ctx, v.user, ""); err != nil {
			return err
		}
	}
	db := v.database
	if db == "" {
		db = v.user
	}
	return srv.EnsureDatabase(ctx, db, v.user)
}

// defaultUser is the login for a JDBC value that names none: the first
// database service's POSTGRES_USER, else "postgres" (the official image's
// default). pgjdbc itself would use the JVM's user.name, which only the
// container knows.
func defaultUser(p *project, dbs []rewrite.DBInfo) string {
	for _, db := range dbs {
		for _, s := range p.services {
			if s.name == db.Service && s.env["POSTGRES_USER"] != "" {
				return s.env["POSTGRES_USER"]
			}
		}
	}
	return "postgres"
}
