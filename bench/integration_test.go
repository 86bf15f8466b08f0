package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/templates"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

const itPassword = "pw-s3cret!x"

// existing returns the shared test server as an existing target reached
// by a password-protected role, with its own database per test.
func existing(t *testing.T) (*pgtest.Server, *Endpoints) {
	t.Helper()
	srv := pgtest.Shared(t)
	ctx := context.Background()
	db := "bench_" + strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name()))
	if err := srv.EnsureRole(ctx, "bench_user", itPassword); err != nil {
		t.Fatal(err)
	}
	if err := srv.EnsureDatabase(ctx, db, "bench_user"); err != nil {
		t.Fatal(err)
	}
	ep, err := Existing(srv.TCPDSN("bench_user", db), srv.SocketDir)
	if err != nil {
		t.Fatal(err)
	}
	return srv, ep
}

// selectOne is a workload that needs no tables.
func selectOne(t *testing.T) *Workload {
	s, err := ParseScript("one.sql", "SELECT 1;\n")
	if err != nil {
		t.Fatal(err)
	}
	return &Workload{Name: "one.sql", Script: s}
}

// quick is a plan that proves the mechanics, not a measurement.
var quick = Plan{Rounds: 2, Duration: 150 * time.Millisecond, Warmup: 50 * time.Millisecond}

func tableExists(t *testing.T, cfg *pgx.ConnConfig, table string) bool {
	t.Helper()
	conn, err := pgx.ConnectConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var ok bool
	if err := conn.QueryRow(context.Background(), "SELECT to_regclass($1) IS NOT NULL", table).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestRunExistingServerEveryMode(t *testing.T) {
	_, ep := existing(t)
	w, err := LoadWorkload("lookup-small", 1000)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.GOMAXPROCS(0)
	for _, mode := range []Mode{Simple, Extended, Prepared} {
		t.Run(string(mode), func(t *testing.T) {
			rep, err := Run(context.Background(), ep, Config{Workload: w, Plan: quick, Conns: 2, Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range rep.Clients[0].Transports {
				if st.Queries < 10 || st.Latency == nil || st.Latency.P50 <= 0 || st.Latency.P99 < st.Latency.P50 {
					t.Errorf("%s: %+v", st.Transport, st)
				}
			}
			if c := rep.Clients[0]; len(c.RoundRatios) != 2 || c.Client != "pgx" || rep.Mode != mode || rep.Conns != 2 {
				t.Errorf("report %+v", rep)
			}
			// Two connections: two Ps (one per core at most), and the
			// process's own setting is back after the run.
			if want := min(2, runtime.NumCPU()); os.Getenv("GOMAXPROCS") == "" && rep.Machine.GoMaxProcs != want {
				t.Errorf("goMaxProcs %d during the run, want %d", rep.Machine.GoMaxProcs, want)
			}
			if got := runtime.GOMAXPROCS(0); got != before {
				t.Errorf("GOMAXPROCS %d after the run, %d before", got, before)
			}
			var out bytes.Buffer
			if err := rep.Render(&out, "text"); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out.String(), itPassword) || !strings.Contains(out.String(), ".s.PGSQL.") {
				t.Errorf("report shows the password or lacks the socket path:\n%s", out.String())
			}
		})
	}
	if tableExists(t, ep.Socket, "uds_bench_small_a") {
		t.Error("tables left behind without --keep-data")
	}
}

func TestKeepData(t *testing.T) {
	_, ep := existing(t)
	w, _ := LoadWorkload("lookup-small", 1000)
	if _, err := Run(context.Background(), ep, Config{Workload: w, Plan: quick, Conns: 1, Mode: Prepared, KeepData: true}); err != nil {
		t.Fatal(err)
	}
	if !tableExists(t, ep.TCP, "uds_bench_small_c") {
		t.Error("--keep-data dropped the tables")
	}
}

func TestLargeAndHeavyWorkloadsRun(t *testing.T) {
	_, ep := existing(t)
	for _, name := range []string{"lookup-large", "heavy"} {
		w, err := LoadWorkload(name, 2000)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), ep, Config{Workload: w, Plan: quick, Conns: 1, Mode: Prepared, KeepData: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if rep.SetupNote != "one 2000-row table" || rep.Clients[0].Transports[0].Queries == 0 {
			t.Errorf("%s: %+v", name, rep)
		}
	}
	conn, err := pgx.ConnectConfig(context.Background(), ep.Socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n int
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM uds_bench_large").Scan(&n); err != nil || n != 2000 {
		t.Errorf("uds_bench_large has %d rows (%v), want --rows 2000", n, err)
	}
}

func TestUserScriptFile(t *testing.T) {
	_, ep := existing(t)
	path := filepath.Join(t.TempDir(), "mine.sql")
	if err := os.WriteFile(path, []byte("\\set x random(1, :rows)\nSELECT :x::int + 1 AS y;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := LoadWorkload(path, 500)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), ep, Config{Workload: w, Plan: quick, Conns: 1, Mode: Extended})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Workload != "mine.sql" || rep.SetupNote != "none: the script brings its own data" {
		t.Errorf("report %+v", rep)
	}
}

// A socket directory that holds no socket must fail the run, naming the
// transport, and never fall back to TCP or show the password.
func TestWrongSocketDirFailsLoudly(t *testing.T) {
	srv, _ := existing(t)
	ep, err := Existing(srv.TCPDSN("bench_user", "postgres"), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	// No data set-up can happen without the socket either; a script
	// without data makes the failure come from the socket run itself.
	_, err = Run(context.Background(), ep, Config{Workload: selectOne(t), Plan: quick, Conns: 1, Mode: Prepared})
	if err == nil || !strings.Contains(err.Error(), "connecting over socket") {
		t.Fatalf("error %v, want a socket connection failure", err)
	}
	if strings.Contains(err.Error(), itPassword) {
		t.Errorf("error shows the password: %v", err)
	}
}

// The client checks what the server saw: a "socket" config that really
// goes over TCP is refused.
func TestTransportIsVerified(t *testing.T) {
	_, ep := existing(t)
	ep.Socket = ep.TCP.Copy()
	_, err := Run(context.Background(), ep, Config{Workload: selectOne(t), Plan: quick, Conns: 1, Mode: Prepared})
	if err == nil || !strings.Contains(err.Error(), "asked for socket but the server saw the other transport") {
		t.Fatalf("error %v", err)
	}
}

// The bundled scripts are pgbench's own dialect: pgbench runs each of them
// unchanged, and the pgbench client runs a whole interleaved bench.
func TestBundledScriptsRunInPgbench(t *testing.T) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		if pgtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	srv, ep := existing(t)
	ctx := context.Background()
	w, _ := LoadWorkload("lookup-large", 2000)
	if _, err := w.Setup(ctx, ep.Socket); err != nil {
		t.Fatal(err)
	}
	small, _ := LoadWorkload("lookup-small", 2000)
	if _, err := small.Setup(ctx, ep.Socket); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"lookup-small", "lookup-large", "heavy"} {
		text, _ := templates.PgbenchScript(name)
		path := filepath.Join(dir, name+".sql")
		os.WriteFile(path, []byte(text), 0o644)
		out, err := exec.Command(bin, "-n", "-M", "prepared", "-t", "5", "-D", "rows=2000", "-f", path,
			"-h", srv.SocketDir, "-p", strconv.Itoa(srv.Port), "-U", "bench_user", ep.Socket.Database).CombinedOutput()
		if err != nil {
			t.Fatalf("pgbench %s: %v\n%s", name, err, out)
		}
		if r, err := ParsePgbench(out); err != nil || r.Transactions != 5 {
			t.Errorf("pgbench %s: %+v %v\n%s", name, r, err, out)
		}
	}
	rep, err := Run(ctx, ep, Config{Workload: small, Plan: Plan{Rounds: 2, Duration: time.Second}, Conns: 1, Mode: Prepared, Clients: []string{"pgbench"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Clients[0]; c.Client != "pgbench" || c.Transports[0].Latency != nil || c.Transports[1].QPS <= 0 {
		t.Errorf("pgbench report %+v", rep)
	}
}

// A URL without sslmode means libpq's prefer: TLS if the server offers it,
// else plain. The test server has no SSL, so the run must go through in
// plain text instead of failing with "server refused TLS connection".
func TestTCPWithoutSSLModeBehavesLikePrefer(t *testing.T) {
	srv, _ := existing(t)
	db := "bench_" + strings.ToLower(strings.NewReplacer("/", "_", "-", "_").Replace(t.Name()))
	url := fmt.Sprintf("postgres://bench_user:%s@%s:%d/%s", itPassword, srv.Host, srv.Port, db)
	ep, err := Existing(url, srv.SocketDir)
	if err != nil {
		t.Fatal(err)
	}
	if ep.TCP.TLSConfig == nil || len(ep.TCP.Fallbacks) != 1 {
		t.Fatalf("parsed without sslmode: TLS %v, %d fallbacks; want prefer's TLS then plain", ep.TCP.TLSConfig != nil, len(ep.TCP.Fallbacks))
	}
	if _, err := Run(context.Background(), ep, Config{Workload: selectOne(t), Plan: quick, Conns: 1, Mode: Prepared}); err != nil {
		t.Fatal(err)
	}
	if ep.TCP.TLSConfig != nil || ep.TCP.Fallbacks != nil {
		t.Errorf("after the run: TLS %v, fallbacks %v; want plain, settled", ep.TCP.TLSConfig != nil, ep.TCP.Fallbacks)
	}
}

// Real pgbench runs what only pgbench understands (random_zipfian,
// \gset, \sleep); the in-process pgx client refuses the same script with
// the reason, before any run.
func TestPgbenchOnlyScriptPassesThrough(t *testing.T) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		if pgtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	_, ep := existing(t)
	path := filepath.Join(t.TempDir(), "zipf.sql")
	text := "\\set id random_zipfian(1, :rows, 1.5)\nSELECT :id AS got \\gset\n\\sleep 1 us\nSELECT :got + 1;\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := LoadWorkload(path, 1000)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), ep, Config{Workload: w, Plan: Plan{Rounds: 2, Duration: time.Second}, Conns: 1, Mode: Prepared, Clients: []string{"pgbench"}})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Clients[0]; rep.QueriesPerTransaction != 2 || c.Transports[0].Queries == 0 || c.Transports[0].Queries%2 != 0 {
		t.Errorf("report %+v", rep)
	}
	_, err = Run(context.Background(), ep, Config{Workload: w, Plan: quick, Conns: 1, Mode: Prepared, Clients: []string{"pgx"}})
	if err == nil || !strings.Contains(err.Error(), "--client pgx: zipf.sql:1: ") || !strings.Contains(err.Error(), "--client pgbench runs any pgbench script") {
		t.Errorf("pgx on a pgbench-only script: %v", err)
	}
}

// pgx and pgbench in one run: interleaved on one server, each with its own
// socket/TCP verdict, and compared round by round.
func TestClientsInterleaveInOneRun(t *testing.T) {
	if _, err := exec.LookPath("pgbench"); err != nil {
		if pgtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	_, ep := existing(t)
	w, _ := LoadWorkload("lookup-small", 1000)
	rep, err := Run(context.Background(), ep, Config{Workload: w, Plan: Plan{Rounds: 2, Duration: time.Second}, Conns: 1, Mode: Prepared, Clients: []string{"pgbench", "pgx"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Clients) != 2 || rep.Clients[0].Client != "pgbench" || rep.Clients[1].Client != "pgx" || len(rep.Comparisons) != 2 {
		t.Fatalf("report %+v", rep)
	}
	for _, c := range rep.Comparisons {
		if c.Client != "pgx" || c.Baseline != "pgbench" || len(c.RoundRatios) != 2 || !(c.Ratio.Estimate > 0) {
			t.Errorf("comparison %+v", c)
		}
	}
	var out bytes.Buffer
	if err := rep.Render(&out, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "pgx ÷ pgbench over tcp: ") || !strings.Contains(out.String(), "machine:  load average ") {
		t.Errorf("text:\n%s", out.String())
	}
}

// The large set-up's expressions hold up to the default 1,000,000 rows:
// the same SQL, run on the top ten rows only (g * 7919 overflowed int4
// from g = 271,182 on and failed every default lookup-large run).
func TestLargeSetupHoldsAtDefaultRows(t *testing.T) {
	_, ep := existing(t)
	w, err := LoadWorkload("lookup-large", DefaultRows)
	if err != nil {
		t.Fatal(err)
	}
	sql, err := w.SetupSQL()
	if err != nil {
		t.Fatal(err)
	}
	top := strings.Replace(sql, "generate_series(1, 1000000)", "generate_series(999991, 1000000)", 1)
	if top == sql {
		t.Fatalf("set-up SQL changed shape:\n%s", sql)
	}
	if err := execScript(context.Background(), ep.Socket, top); err != nil {
		t.Fatal(err)
	}
}
