package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Config is one bench run's settings, independent of the target.
type Config struct {
	Workload *Workload
	Plan     Plan
	Conns    int
	Mode     Mode
	// Clients are the clients whose runs interleave, each over both
	// transports: "pgx" (default: in process, exact latency quantiles),
	// "pgbench" (the pgbench on PATH; throughput and mean latency only),
	// "jdbc" (pgjdbc + junixsocket in a JVM, exact latency quantiles).
	Clients []string
	// KeepData leaves the workload's tables in place after the run.
	KeepData bool
	// Step reports progress (may be nil).
	Step Step
	// Log receives one-line notes on set-up and tear-down (may be nil).
	Log io.Writer
	// TempDir is where the pgbench client's script directory goes; ""
	// means os.TempDir().
	TempDir string
}

// Run measures cfg.Workload on ep: data set-up (timed, not counted),
// interleaved rounds, tear-down unless cfg.KeepData, analysis. The
// returned Report is complete but for nothing; errors never hold ep's
// password.
func Run(ctx context.Context, ep *Endpoints, cfg Config) (*Report, error) {
	rep, err := run(ctx, ep, cfg)
	if err != nil {
		return nil, errors.New(Redact(err.Error(), ep.TCP.Password))
	}
	return rep, nil
}

func run(ctx context.Context, ep *Endpoints, cfg Config) (*Report, error) {
	if cfg.Conns < 1 {
		return nil, fmt.Errorf("--conns %d: need at least 1", cfg.Conns)
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	if err := settleTLS(ctx, ep); err != nil {
		return nil, err
	}
	w := cfg.Workload
	logf("setting up %s data (%s)...", w.Name, w.SetupNote())
	setup, err := w.Setup(ctx, ep.Socket)
	if err != nil {
		return nil, err
	}
	if !cfg.KeepData && w.Dataset != "" {
		defer func() {
			if err := Teardown(context.Background(), ep.Socket); err != nil {
				logf("tear-down: %v", err)
			}
		}()
	}

	clients, cleanup, err := newClients(ep, cfg)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	var roots []int
	if pm := localPostmaster(ctx, ep.Socket); pm > 0 {
		roots = append(roots, pm)
	}
	m := StartMachine()
	m.GoMaxProcs = SchedulerPs(cfg.Conns)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(m.GoMaxProcs))
	cpu := WatchCPU(roots...)
	rounds, err := InterleaveClients(ctx, clients, cfg.Plan, cfg.Step)
	if err != nil {
		return nil, err
	}
	// The round-trip floor of each transport, on the same server right
	// after the rounds: what the workload could gain at most.
	var floor *Floor
	// The workload's own statements too, where the in-process runner can
	// bind them (a pgbench-only script gets the empty query's floor).
	var fw *FloorWorkload
	if w.Script.InProcess() == nil {
		fw = &FloorWorkload{Script: w.Script, Defines: w.Defines}
	}
	if f, err := MeasureFloor(ctx, ep, fw); err != nil {
		logf("round-trip floor not measured: %v", err)
	} else {
		if fw == nil {
			f.WorkloadSkipped = "the script uses what only pgbench runs"
		}
		floor = &f
	}
	m.LoadAfter = LoadAverage()
	if len(roots) > 0 { // else the server's own CPU would count as other work
		m.OtherCores = cpu.OtherCores()
	}
	rep, err := analyzeClients(clients, rounds, m, w.Script.Queries())
	if err != nil {
		return nil, err
	}
	rep.Floor = floor
	for i := range rep.Clients {
		rep.Clients[i].Limit = limitFor(floor, &rep.Clients[i], rep.QueriesPerTransaction)
	}
	describe(rep, cfg, setup)
	rep.Target = ep.Target
	rep.TCP, rep.Socket = Endpoint(ep.TCP), Endpoint(ep.Socket)
	for i := range rep.Clients {
		rep.Clients[i].Transports[0].Endpoint, rep.Clients[i].Transports[1].Endpoint = rep.TCP, rep.Socket
	}
	return rep, nil
}

// analyzeClients analyses each client's rounds and compares every client
// after the first with the first.
func analyzeClients(clients []Client, rounds [][]Round, m Machine, queriesPerTx int) (*Report, error) {
	rep := &Report{Schema: Schema, Machine: m, Seed: BootstrapSeed, Rounds: len(rounds[0])}
	for i, c := range clients {
		res, err := Analyze(rounds[i], m, queriesPerTx)
		if err != nil {
			return nil, err
		}
		res.Client = c.Name()
		rep.Clients = append(rep.Clients, *res)
		if i > 0 {
			cmp, err := Compare(c.Name(), clients[0].Name(), rounds[i], rounds[0])
			if err != nil {
				return nil, err
			}
			rep.Comparisons = append(rep.Comparisons, cmp...)
			g, err := CompareGains(c.Name(), clients[0].Name(), rounds[i], rounds[0])
			if err != nil {
				return nil, err
			}
			rep.GainDifferences = append(rep.GainDifferences, g)
		}
	}
	rep.QueriesPerTransaction = queriesPerTx
	return rep, nil
}

// ClientNames lists the --client values.
var ClientNames = []string{"pgx", "pgbench", "jdbc"}

// newClients builds cfg.Clients (default pgx) against ep. cleanup stops
// what they started and removes what they wrote; it is never nil.
func newClients(ep *Endpoints, cfg Config) ([]Client, func(), error) {
	names := cfg.Clients
	if len(names) == 0 {
		names = []string{"pgx"}
	}
	var clients []Client
	var closers []func()
	cleanup := func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
	}
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			return nil, cleanup, fmt.Errorf("--client %s given twice", name)
		}
		seen[name] = true
		c, closer, err := newClient(name, ep, cfg)
		if closer != nil {
			closers = append(closers, closer)
		}
		if err != nil {
			return nil, cleanup, err
		}
		clients = append(clients, c)
	}
	return clients, cleanup, nil
}

// newClient builds one client; closer (maybe nil, also on error) undoes
// what it started.
func newClient(name string, ep *Endpoints, cfg Config) (Client, func(), error) {
	if name != "pgbench" {
		if err := interpretable(name, cfg.Workload); err != nil {
			return nil, nil, err
		}
	}
	switch name {
	case "pgx":
		return &PgxClient{
			Configs: map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket},
			Script:  cfg.Workload.Script, Defines: cfg.Workload.Defines, Conns: cfg.Conns, Mode: cfg.Mode,
		}, nil, nil
	case "pgbench", "jdbc":
		dir, err := os.MkdirTemp(cfg.TempDir, "uds-bench-")
		if err != nil {
			return nil, nil, err
		}
		rm := func() { os.RemoveAll(dir) }
		if name == "pgbench" {
			c, err := LocalPgbench(cfg.Workload, ep, cfg.Conns, cfg.Mode, dir)
			return c, rm, err
		}
		c, err := NewJDBCClient(cfg.Workload, ep, cfg.Conns, cfg.Mode, dir)
		if err != nil {
			return nil, rm, err
		}
		return c, func() { c.Close(); rm() }, nil
	}
	return nil, nil, fmt.Errorf("unknown client %q (%s, or a comma list)", name, strings.Join(ClientNames, ", "))
}

// interpretable says why client name (pgx or jdbc, which interpret the
// script themselves) cannot run w's script; nil when it can.
func interpretable(name string, w *Workload) error {
	if err := w.Script.InProcess(); err != nil {
		return fmt.Errorf("--client %s: %w (the in-process clients run SQL and \\set with random(); --client pgbench runs any pgbench script)", name, err)
	}
	return nil
}

// describe fills the report fields every target shares.
func describe(rep *Report, cfg Config, setup time.Duration) {
	rep.Workload = cfg.Workload.Name
	rep.Mode = cfg.Mode
	rep.Conns = cfg.Conns
	rep.RoundSeconds = cfg.Plan.Duration.Seconds()
	rep.WarmupSeconds = cfg.Plan.Warmup.Seconds()
	rep.SetupSeconds = setup.Round(time.Millisecond).Seconds()
	rep.SetupNote = cfg.Workload.SetupNote()
}
