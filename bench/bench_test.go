package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// BenchmarkLookupSmall measures the in-process pgx client and pgbench on
// the same server, over both transports, one connection, -M prepared, on
// the lookup-small script. Each sub-benchmark reports queries/s and what
// the client itself spent per query: CPU (client-cpu-µs/query: the whole
// process, user and system) and voluntary context switches
// (client-vcsw/query: how often the client's process slept, every thread;
// pgx also gives its querying thread's alone, thread-vcsw/query: the rest
// is the Go runtime's own wake-ups, yieldEvery). The sub-benchmarks run one
// after another, so on a shared machine their queries/s move with the load
// between them; the per-query CPU and sleeps are what to compare here, and
// `uds-migrate bench --client pgbench,pgx` compares throughput interleaved.
//
//	go test -run '^$' -bench LookupSmall -benchtime 20000x ./bench
//
// With $UDS_BENCH_TCP (a libpq DSN reaching a running server over TCP)
// and $UDS_BENCH_SOCKET_DIR (its socket directory), as bench --tcp and
// --socket-dir take them, it measures that server instead of a throwaway
// one, so that valgrind, perf or strace -f see the client alone
// (scripts/bench-headlines.sh client).
func BenchmarkLookupSmall(b *testing.B) {
	ep, w := lookupSmallTarget(b)
	for _, t := range []Transport{TCP, Socket} {
		b.Run("pgx/"+string(t), func(b *testing.B) { benchPgx(b, ep.config(t), t, w) })
	}
	pgbench, err := exec.LookPath("pgbench")
	if err != nil {
		b.Log("no pgbench on PATH: pgx only")
		return
	}
	script := filepath.Join(b.TempDir(), "lookup-small.sql")
	if err := os.WriteFile(script, []byte(w.Script.Text), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, t := range []Transport{TCP, Socket} {
		b.Run("pgbench/"+string(t), func(b *testing.B) {
			cfg := ep.config(t)
			// b.N queries, rounded up to whole script passes.
			tx := (b.N + w.Script.Queries() - 1) / w.Script.Queries()
			cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "1", "-j", "1", "-t", strconv.Itoa(tx),
				"-D", "rows=1000", "-f", script, "-h", cfg.Host, "-p", strconv.Itoa(int(cfg.Port)), "-U", cfg.User, cfg.Database)
			cmd.Env = append(os.Environ(), "PGPASSWORD="+cfg.Password, "PGSSLMODE=disable")
			b.ResetTimer()
			out, err := cmd.CombinedOutput()
			b.StopTimer()
			if err != nil {
				b.Fatalf("%v\n%s", err, out)
			}
			r, err := ParsePgbench(out)
			if err != nil {
				b.Fatal(err)
			}
			q := float64(tx * w.Script.Queries())
			b.ReportMetric(r.TPS*float64(w.Script.Queries()), "queries/s")
			b.ReportMetric(float64((cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()).Microseconds())/q, "client-cpu-µs/query")
			if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
				b.ReportMetric(float64(ru.Nvcsw)/q, "client-vcsw/query")
			}
		})
	}
}

// lookupSmallTarget returns the server the benchmarks measure, with
// lookup-small's tables set up: $UDS_BENCH_TCP and $UDS_BENCH_SOCKET_DIR
// when set, else the test binary's shared throwaway server.
func lookupSmallTarget(b *testing.B) (benchEndpoints, *Workload) {
	b.Helper()
	ctx := context.Background()
	var ep *Endpoints
	var err error
	if dsn := os.Getenv("UDS_BENCH_TCP"); dsn != "" {
		ep, err = Existing(dsn, os.Getenv("UDS_BENCH_SOCKET_DIR"))
	} else {
		srv := pgtest.Shared(b)
		if err := srv.EnsureDatabase(ctx, "bench_go", ""); err != nil {
			b.Fatal(err)
		}
		ep, err = Existing(srv.TCPDSN(srv.SuperUser, "bench_go"), srv.SocketDir)
	}
	if err != nil {
		b.Fatal(err)
	}
	if err := settleTLS(ctx, ep); err != nil {
		b.Fatal(err)
	}
	w, err := LoadWorkload("lookup-small", 1000)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := w.Setup(ctx, ep.Socket); err != nil {
		b.Fatal(err)
	}
	return benchEndpoints{ep}, w
}

type benchEndpoints struct{ *Endpoints }

func (e benchEndpoints) config(t Transport) *pgx.ConnConfig {
	if t == Socket {
		return e.Socket
	}
	return e.TCP
}

func benchPgx(b *testing.B, cfg *pgx.ConnConfig, t Transport, w *Workload) {
	ctx := context.Background()
	conn, err := connect(ctx, cfg, t, Prepared)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	c := &PgxClient{Mode: Prepared}
	pc := &pgxConn{conn: conn, runner: w.Script.NewRunner(w.Defines, 1), stmts: map[string]*pgconn.StatementDescription{}}
	for range w.Script.Queries() { // prepare every statement before timing
		if _, err := c.query(pc); err != nil {
			b.Fatal(err)
		}
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cpu0, sleeps0, psleeps0 := processCPU(), threadSleeps(), processSleeps()
	start := time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.query(pc); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "queries/s")
	b.ReportMetric(float64((processCPU()-cpu0).Microseconds())/float64(b.N), "client-cpu-µs/query")
	if sleeps0 >= 0 {
		b.ReportMetric(float64(processSleeps()-psleeps0)/float64(b.N), "client-vcsw/query")
		b.ReportMetric(float64(threadSleeps()-sleeps0)/float64(b.N), "thread-vcsw/query")
	}
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMedianCI times the bootstrap for a default run's 14 rounds.
func BenchmarkMedianCI(b *testing.B) {
	xs := make([]float64, 14)
	for i := range xs {
		xs[i] = 1 + float64(i%5-2)/100
	}
	for i := 0; i < b.N; i++ {
		if _, err := MedianCI(xs, 0.95, BootstrapSeed); err != nil {
			b.Fatal(fmt.Sprint(err))
		}
	}
}
