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
// the lookup-small script; each sub-benchmark reports queries/s (pgbench's
// figure excludes its connection time, as pgx's does). The sub-benchmarks
// run one after another, so on a shared machine their ratios move with
// the load between them: compare clients with one interleaved run,
// `uds-migrate bench --client pgbench,pgx` (docs/benchmarks.md), not with
// these figures.
//
//	go test -run '^$' -bench LookupSmall -benchtime 5s -count 3 ./bench
func BenchmarkLookupSmall(b *testing.B) {
	srv := pgtest.Shared(b)
	ctx := context.Background()
	if err := srv.EnsureDatabase(ctx, "bench_go", ""); err != nil {
		b.Fatal(err)
	}
	w, err := LoadWorkload("lookup-small", 1000)
	if err != nil {
		b.Fatal(err)
	}
	cfgs := map[Transport]string{
		TCP:    srv.TCPDSN(srv.SuperUser, "bench_go"),
		Socket: srv.SocketDSN(srv.SuperUser, "bench_go"),
	}
	sock, _ := pgx.ParseConfig(cfgs[Socket])
	if _, err := w.Setup(ctx, sock); err != nil {
		b.Fatal(err)
	}
	for _, t := range []Transport{TCP, Socket} {
		b.Run("pgx/"+string(t), func(b *testing.B) { benchPgx(b, cfgs[t], t, w) })
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
	hosts := map[Transport]string{TCP: srv.Host, Socket: srv.SocketDir}
	for _, t := range []Transport{TCP, Socket} {
		b.Run("pgbench/"+string(t), func(b *testing.B) {
			// b.N queries, rounded up to whole script passes.
			tx := (b.N + w.Script.Queries() - 1) / w.Script.Queries()
			cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", "1", "-t", strconv.Itoa(tx),
				"-D", "rows=1000", "-f", script, "-h", hosts[t], "-p", strconv.Itoa(srv.Port), "-U", srv.SuperUser, "bench_go")
			cmd.Env = append(os.Environ(), "PGPASSWORD="+srv.SuperPassword, "PGSSLMODE=disable")
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
			b.ReportMetric(r.TPS*float64(w.Script.Queries()), "queries/s")
		})
	}
}

func benchPgx(b *testing.B, dsn string, t Transport, w *Workload) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
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
	cpu0 := processCPU()
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
