package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
)

// Config is one bench run's settings, independent of the target.
type Config struct {
	Workload *Workload
	Plan     Plan
	Conns    int
	Mode     Mode
	// Client is "pgx" (default: in process, exact latency quantiles) or
	// "pgbench" (the pgbench on PATH; throughput and mean latency only).
	Client string
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

	var client Client
	switch cfg.Client {
	case "", "pgx":
		client = &PgxClient{
			Configs: map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket},
			Script:  w.Script, Defines: w.Defines, Conns: cfg.Conns, Mode: cfg.Mode,
		}
	case "pgbench":
		dir, err := os.MkdirTemp(cfg.TempDir, "uds-bench-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if client, err = LocalPgbench(w, ep, cfg.Conns, cfg.Mode, dir); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unknown client %q (pgx or pgbench)", cfg.Client)
	}
	rounds, err := Interleave(ctx, client, cfg.Plan, cfg.Step)
	if err != nil {
		return nil, err
	}
	rep, err := Analyze(rounds)
	if err != nil {
		return nil, err
	}
	describe(rep, cfg, client.Name(), setup)
	rep.Target = ep.Target
	rep.TCP, rep.Socket = Endpoint(ep.TCP), Endpoint(ep.Socket)
	rep.Transports[0].Endpoint, rep.Transports[1].Endpoint = rep.TCP, rep.Socket
	return rep, nil
}

// describe fills the report fields every target shares.
func describe(rep *Report, cfg Config, client string, setup time.Duration) {
	rep.Workload = cfg.Workload.Name
	rep.Client = client
	rep.Mode = cfg.Mode
	rep.Conns = cfg.Conns
	rep.RoundSeconds = cfg.Plan.Duration.Seconds()
	rep.WarmupSeconds = cfg.Plan.Warmup.Seconds()
	rep.SetupSeconds = setup.Round(time.Millisecond).Seconds()
	rep.SetupNote = cfg.Workload.SetupNote()
}
