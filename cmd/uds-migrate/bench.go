package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/compose"
)

// Defaults keep `uds-migrate bench` under a minute on a 2-core machine:
// 2 × 1 s warm-up + 50 rounds × 2 transports × 0.4 s = 42 s, plus the
// connections (one per run) and about 3 s to start and set up the
// embedded server. Many short rounds beat few long ones: the median's
// error shrinks with the square root of the number of rounds, and every
// run draws its connections (and their placement) afresh (14 rounds of
// 1.5 s gave five quiet runs spread -2.5%..+3.6% around their median:
// docs/benchmarks.md).
const (
	defaultRounds   = 50
	defaultDuration = 400 * time.Millisecond
	defaultWarmup   = time.Second
)

func benchCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "bench",
		Usage:     "measure a workload over TCP and over the Unix socket, interleaved, and say which is faster",
		UsageText: "uds-migrate bench [flags]\nuds-migrate bench http [flags]   (nginx → app server: see bench http --help)\nuds-migrate bench --tcp DSN --socket-dir DIR [flags]\nuds-migrate bench --compose FILE [--service DB] [flags]",
		Description: `With no target flags, starts a throwaway PostgreSQL from the system
binaries (apt-get install postgresql), benchmarks it both ways and removes
it. TCP and socket runs alternate in rounds; the verdict is the median of
the per-round socket/TCP queries/s ratios with a 95% bootstrap interval,
and says "no measurable difference" when that interval spans 1.

Workloads: lookup-small (default), lookup-large, heavy, or FILE.sql (a
pgbench script; it sees :rows). The in-process clients (pgx, jdbc) run SQL,
\set NAME EXPR with random(lo, hi), and :NAME; --client pgbench runs any
script pgbench runs (random_zipfian, \sleep, \gset, \if ...).

--client takes a comma list (pgx,pgbench): every round runs each client
over each transport once, in a rotating order, on one server; the report
gives each client's socket/TCP verdict and compares the clients round by
round. A verdict needs at least 6 rounds; with a load average above the
core count before the run, other processes using more than 0.3 cores
during the rounds, or paired ratios spreading more than 30% between
rounds, it says "figure unreliable" and warns on stderr.

--compose runs the clients in containers on the project's network,
mounting the socket volume read-only: --client pgbench (the default there)
in a one-off sidecar from the database service's image, a container per run
  docker compose -f FILE -f OVERRIDE --profile uds-bench run --rm -T uds-bench pgbench ...
and --client jdbc in one JVM for the whole bench, from the image of the
service that reads a jdbc:postgresql: URL (or --client-image; it needs
java 11+ and pgjdbc with junixsocket at Debian's paths, or their classpath
in $UDS_BENCH_CLASSPATH). pgbench counts whole seconds, so --duration and
--warmup round up there.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "workload", Aliases: []string{"b"}, Value: "lookup-small", Usage: "lookup-small, lookup-large, heavy, or a pgbench script FILE.sql (-b as pgbench -b; -w is the top level's --write)"},
			&cli.Int64Flag{Name: "rows", Value: bench.DefaultRows, Usage: "rows in the lookup-large/heavy table (:rows in scripts)"},
			&cli.IntFlag{Name: "rounds", Value: defaultRounds, Usage: "interleaved TCP+socket rounds that count (at least 2)"},
			&cli.DurationFlag{Name: "duration", Value: defaultDuration, Usage: "length of each run, per transport and round"},
			&cli.DurationFlag{Name: "warmup", Value: defaultWarmup, Usage: "discarded run per transport before the rounds (0: none)"},
			&cli.IntFlag{Name: "conns", Aliases: []string{"c"}, Value: 1, Usage: "connections per transport, one client goroutine each"},
			&cli.StringFlag{Name: "M", Aliases: []string{"protocol"}, Value: string(bench.Prepared), Usage: "query protocol: simple, extended or prepared (as pgbench -M)"},
			&cli.StringFlag{Name: "client", Value: "pgx", Usage: "pgx (in process, latency quantiles), pgbench (the pgbench on PATH, mean latency only), or a comma list (pgx,pgbench): their runs interleave on one server"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report format: " + strings.Join(bench.Formats, ", ")},
			&cli.StringFlag{Name: "plot", Usage: "also draw FILE.svg or FILE.png: per-round socket/TCP ratios with the 95% band, and each transport's latency distribution"},
			&cli.BoolFlag{Name: "keep-data", Usage: "leave the uds_bench_* tables in the database afterwards"},
			&cli.StringFlag{Name: "tcp", Usage: "benchmark an existing server: libpq URI or keyword DSN reaching it over TCP (needs --socket-dir)"},
			&cli.StringFlag{Name: "socket-dir", Usage: "with --tcp: the directory holding the server's .s.PGSQL.<port>"},
			&cli.StringSliceFlag{Name: "compose", Usage: "benchmark a migrated compose project (repeatable -f files): pgbench in a sidecar from the database's own image, via docker compose run"},
			&cli.StringFlag{Name: "service", Usage: "with --compose: the database service (default: the only postgres/postgis/timescaledb service)"},
			&cli.StringFlag{Name: "compose-dir", Usage: "with --compose: write the override and scripts here and keep them (default: a temporary directory, removed)"},
			&cli.StringFlag{Name: "client-image", Usage: "with --compose --client jdbc: the image the JVM runs in (default: the image of the service reading a jdbc:postgresql: URL)"},
		},
		Action: func(c *cli.Context) error { return benchAction(c, stdout, stderr) },
		// `bench` alone stays the database benchmark; `bench http` is
		// the reverse-proxy one (bench_http.go).
		Subcommands:  []*cli.Command{benchHTTPCommand(stdout, stderr)},
		OnUsageError: onUsageError("uds-migrate bench"),
	}
}

func benchAction(c *cli.Context, stdout, stderr io.Writer) error {
	if c.NArg() > 0 {
		return usageErr("bench takes no arguments, got %q", c.Args().First())
	}
	format := c.String("format")
	if !contains(bench.Formats, format) {
		return usageErr("--format %q: want %s", format, strings.Join(bench.Formats, ", "))
	}
	mode, err := bench.ParseMode(c.String("M"))
	if err != nil {
		return usageErr("%v", err)
	}
	w, err := bench.LoadWorkload(c.String("workload"), c.Int64("rows"))
	if err != nil {
		return usageErr("--workload: %v", err)
	}
	plan := bench.Plan{Rounds: c.Int("rounds"), Duration: c.Duration("duration"), Warmup: c.Duration("warmup")}
	if plan.Rounds < 2 || plan.Duration <= 0 || plan.Warmup < 0 {
		return usageErr("need --rounds ≥ 2, --duration > 0 and --warmup ≥ 0")
	}
	for _, name := range strings.Split(c.String("client"), ",") {
		if !contains(bench.ClientNames, name) {
			return usageErr("--client: unknown client %q (%s, or a comma list of them)", name, strings.Join(bench.ClientNames, ", "))
		}
	}
	if p := strings.ToLower(c.String("plot")); p != "" && !strings.HasSuffix(p, ".svg") && !strings.HasSuffix(p, ".png") {
		return usageErr("--plot %q: want a .svg or .png file", c.String("plot"))
	}
	if (c.String("tcp") == "") != (c.String("socket-dir") == "") {
		return usageErr("--tcp and --socket-dir go together")
	}

	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := bench.Config{
		Workload: w, Plan: plan, Conns: c.Int("conns"), Mode: mode,
		Clients: strings.Split(c.String("client"), ","), KeepData: c.Bool("keep-data"),
	}
	if len(c.StringSlice("compose")) == 0 && c.IsSet("client-image") {
		return usageErr("--client-image goes with --compose")
	}
	if len(c.StringSlice("compose")) > 0 && !c.IsSet("client") {
		cfg.Clients = []string{"pgbench"} // the client there: no pgx in a container
	}
	bar := progress(stderr, len(cfg.Clients)*2*(plan.Rounds+1))
	cfg.Step = stepReporter(bar, stderr)
	if files := c.StringSlice("compose"); len(files) > 0 {
		if c.String("tcp") != "" {
			return usageErr("--compose and --tcp are different targets: choose one")
		}
		rep, err := benchCompose(ctx, c, files, cfg)
		if bar != nil {
			_ = bar.Clear()
		}
		if err != nil {
			return &codeError{exitError, err}
		}
		return emitBench(c, rep, stdout, stderr, format)
	}
	ep, err := benchTarget(ctx, c, stderr)
	if err != nil {
		return &codeError{exitError, err}
	}
	defer func() {
		if err := ep.Close(); err != nil {
			fmt.Fprintln(stderr, "uds-migrate: stopping the bench server: "+err.Error())
		}
	}()

	rep, err := bench.Run(ctx, ep, cfg)
	if bar != nil {
		_ = bar.Clear()
	}
	if err != nil {
		return &codeError{exitError, err}
	}
	return emitBench(c, rep, stdout, stderr, format)
}

// emitBench prints rep's warnings on stderr, draws --plot, then renders rep.
func emitBench(c *cli.Context, rep *bench.Report, stdout, stderr io.Writer, format string) error {
	warn(stderr, rep)
	if path := c.String("plot"); path != "" {
		if err := rep.WritePlot(path); err != nil {
			return &codeError{exitError, err}
		}
	}
	return rep.Render(stdout, format)
}

// stepReporter shows progress: on the bar when stderr is a terminal, else
// one plain line per run, so a CI log shows the bench is alive.
func stepReporter(bar *progressbar.ProgressBar, stderr io.Writer) bench.Step {
	if bar != nil {
		return func(done, total int, what string, _ bench.Sample) {
			bar.Describe(what)
			_ = bar.Set(done)
		}
	}
	return func(done, total int, what string, s bench.Sample) {
		fmt.Fprintf(stderr, "bench: %d/%d %s: %.4g queries/s\n", done, total, what, s.QPS())
	}
}

// warn repeats the report's warnings on stderr, where they are seen
// whatever the --format.
func warn(stderr io.Writer, rep *bench.Report) {
	for _, c := range rep.Clients {
		for _, w := range c.Warnings {
			fmt.Fprintf(stderr, "uds-migrate bench: WARNING: %s: %s\n", c.Client, w)
		}
	}
}

// benchCompose runs the bench through the compose project's sidecar.
func benchCompose(ctx context.Context, c *cli.Context, files []string, cfg bench.Config) (*bench.Report, error) {
	// compose-go reads every env_file, include and extends file whole: a
	// named pipe or /dev/zero behind one would hang the load (issue 25).
	inputs, err := compose.ReadInputs(files)
	if err != nil {
		return nil, err
	}
	if err := compose.CheckFileRefs(inputs, compose.LoadOptions{Env: os.Environ()}); err != nil {
		return nil, err
	}
	ct, err := bench.LoadCompose(ctx, files, c.String("service"))
	if err != nil {
		return nil, err
	}
	dir, cleanup, err := composeDir(c, "uds-bench-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	r := &bench.ComposeRun{Target: ct, Dir: dir}
	if contains(cfg.Clients, "jdbc") {
		r.JDBCImage = ct.JavaImage
		if img := c.String("client-image"); img != "" {
			r.JDBCImage = img
		}
	}
	return bench.RunCompose(ctx, r, cfg)
}

// composeDir is --compose-dir, kept, or a new temporary directory that
// cleanup removes.
func composeDir(c *cli.Context, prefix string) (dir string, cleanup func(), err error) {
	if dir := c.String("compose-dir"); dir != "" {
		return dir, func() {}, nil
	}
	if dir, err = os.MkdirTemp("", prefix); err != nil {
		return "", nil, err
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// benchTarget resolves which server to measure.
func benchTarget(ctx context.Context, c *cli.Context, stderr io.Writer) (*bench.Endpoints, error) {
	if dsn := c.String("tcp"); dsn != "" {
		return bench.Existing(dsn, c.String("socket-dir"))
	}
	start := time.Now()
	ep, err := bench.StartEmbedded(ctx)
	if err != nil {
		return nil, fmt.Errorf("starting the embedded PostgreSQL: %w", err)
	}
	if isTerminal(stderr) {
		fmt.Fprintf(stderr, "started %s in %.1f s\n", ep.Target, time.Since(start).Seconds())
	}
	return ep, nil
}

// progress returns a bar on stderr when stderr is a terminal, else nil:
// piped or captured output stays free of control characters.
func progress(stderr io.Writer, total int) *progressbar.ProgressBar {
	if !isTerminal(stderr) {
		return nil
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(stderr),
		progressbar.OptionSetDescription("warm-up"),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionClearOnFinish(),
	)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func usageErr(format string, args ...any) error {
	return &codeError{exitError, fmt.Errorf(format, args...)}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
