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

	"github.com/urfave/cli/v2"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/benchhttp"
)

// Defaults keep `uds-migrate bench http` under 45 s: 2 × 1 s warm-up +
// 12 rounds × 2 transports × 1.5 s = 38 s, plus well under a second to
// start the backend and nginx. As for the database bench, many short
// interleaved rounds beat few long ones (FACTS.md, "Measured here").
const (
	defaultHTTPRounds      = 12
	defaultHTTPDuration    = 1500 * time.Millisecond
	defaultHTTPWarmup      = time.Second
	defaultHTTPConcurrency = 10
)

func benchHTTPCommand(stdout, stderr io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "http",
		Usage:     "measure HTTP through nginx to an app server over TCP and over a Unix socket",
		UsageText: "uds-migrate bench http [flags]\nuds-migrate bench http --tcp URL --socket PATH [flags]\nuds-migrate bench http --compose FILE [--service PROXY] [flags]",
		Description: `With no target flags, starts a tiny built-in HTTP backend on a loopback
port and on a Unix socket, and (when nginx is installed: apt-get install
nginx) a throwaway nginx with two server blocks, one proxying to the
backend over TCP, one over the socket (proxy_pass http://unix:PATH:/).
nginx's default proxying opens a new upstream connection per request;
--keepalive N reuses N idle upstream connections per worker instead.
Without nginx (or with --direct) the client requests the backend directly.

--tcp URL --socket PATH measures an existing app listening on both,
directly; socket requests use the URL's path and host header.

--compose FILE measures a migrated compose project container to container:
an nginx of the proxy service's own image (uds-bench-proxy, profile
uds-bench, on the proxy's networks, mounting the socket volume read-only)
proxies one front to the app over the compose network (--app-tcp, default
the app service's only exposed port) and one to its socket (--app-socket,
default the unix: upstream of the proxy's mounted configuration); this
process requests both at the sidecar's container address (a Linux host).
The sidecar is removed afterwards; the app keeps running.

TCP and socket runs alternate in rounds; the verdict is the median of the
per-round socket/TCP requests/s ratios with a 95% bootstrap interval, and
says "no measurable difference" when that interval spans 1. Every response
must be 200 (the embedded backend's also prove which transport served
them); any other answer stops the run.`,
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "concurrency", Aliases: []string{"c"}, Value: defaultHTTPConcurrency, Usage: "concurrent requests (goroutines, one keep-alive connection each)"},
			&cli.IntFlag{Name: "requests", Aliases: []string{"n"}, Usage: "requests per run (0: run for --duration); a run stops after 1 minute regardless"},
			&cli.IntFlag{Name: "rounds", Value: defaultHTTPRounds, Usage: "interleaved TCP+socket rounds that count (at least 2)"},
			&cli.DurationFlag{Name: "duration", Value: defaultHTTPDuration, Usage: "length of each run, per transport and round (without -n)"},
			&cli.DurationFlag{Name: "warmup", Value: defaultHTTPWarmup, Usage: "discarded run per transport before the rounds (0: none)"},
			&cli.IntFlag{Name: "keepalive", Usage: "embedded nginx: upstream keepalive connections per worker (0: nginx's default, a new connection per request)"},
			&cli.BoolFlag{Name: "direct", Usage: "embedded: skip nginx even when installed, client → backend"},
			&cli.StringFlag{Name: "nginx", Usage: "nginx binary (default: nginx on PATH or /usr/sbin/nginx)"},
			&cli.StringFlag{Name: "tcp", Usage: "benchmark an existing app: its http:// URL over TCP (needs --socket)"},
			&cli.StringFlag{Name: "socket", Usage: "with --tcp: the app's Unix socket file"},
			&cli.StringSliceFlag{Name: "compose", Usage: "benchmark a migrated compose project (repeatable -f files): nginx from the proxy's image in a sidecar, to the app over the network and over the socket volume"},
			&cli.StringFlag{Name: "service", Usage: "with --compose: the proxy service (default: the only nginx/openresty service)"},
			&cli.StringFlag{Name: "app-tcp", Usage: "with --compose: the app's HOST:PORT on the compose network (default: the app service's only exposed port)"},
			&cli.StringFlag{Name: "app-socket", Usage: "with --compose: the app's socket file as the proxy sees it (default: the unix: upstream in the proxy's mounted nginx configuration)"},
			&cli.StringFlag{Name: "path", Value: "/", Usage: "with --compose: the path every request asks for (each answer must be 200)"},
			&cli.StringFlag{Name: "compose-dir", Usage: "with --compose: write the override and nginx.conf here and keep them (default: a temporary directory, removed)"},
			&cli.StringFlag{Name: "format", Value: "text", Usage: "report format: " + strings.Join(bench.Formats, ", ")},
		},
		Action: func(c *cli.Context) error { return benchHTTPAction(c, stdout, stderr) },
		// A subcommand does not inherit the app's OnUsageError: without
		// this, urfave/cli prints the whole help to stdout.
		OnUsageError: onUsageError("uds-migrate bench http"),
	}
}

func benchHTTPAction(c *cli.Context, stdout, stderr io.Writer) error {
	if c.NArg() > 0 {
		return usageErr("bench http takes no arguments, got %q", c.Args().First())
	}
	format := c.String("format")
	if !contains(bench.Formats, format) {
		return usageErr("--format %q: want %s", format, strings.Join(bench.Formats, ", "))
	}
	plan := bench.Plan{Rounds: c.Int("rounds"), Duration: c.Duration("duration"), Warmup: c.Duration("warmup")}
	if plan.Rounds < 2 || plan.Duration <= 0 || plan.Warmup < 0 {
		return usageErr("need --rounds ≥ 2, --duration > 0 and --warmup ≥ 0")
	}
	cfg := benchhttp.Config{
		Plan: plan, Concurrency: c.Int("concurrency"), Requests: c.Int("requests"), Keepalive: c.Int("keepalive"),
		Direct: c.Bool("direct"), Nginx: c.String("nginx"),
		TCPURL: c.String("tcp"), SocketPath: c.String("socket"),
	}
	if cfg.Concurrency < 1 || cfg.Requests < 0 || cfg.Keepalive < 0 {
		return usageErr("need --concurrency ≥ 1, --requests ≥ 0 and --keepalive ≥ 0")
	}
	if cfg.Requests > 0 {
		if c.IsSet("duration") {
			return usageErr("--requests and --duration are two ways to size a run: choose one")
		}
		cfg.Plan.Duration = benchhttp.RunLimit
	}
	if (cfg.TCPURL == "") != (cfg.SocketPath == "") {
		return usageErr("--tcp and --socket go together")
	}
	if cfg.TCPURL != "" {
		for _, f := range []string{"keepalive", "direct", "nginx"} {
			if c.IsSet(f) {
				return usageErr("--%s applies to the embedded target, not to --tcp/--socket", f)
			}
		}
		if !strings.HasPrefix(cfg.TCPURL, "http://") {
			return usageErr("--tcp %q: want an http:// URL", cfg.TCPURL)
		}
	}
	if cfg.Direct && (c.IsSet("keepalive") || c.IsSet("nginx")) {
		return usageErr("--direct measures no proxy: drop --keepalive and --nginx")
	}
	files := c.StringSlice("compose")
	if p := c.String("path"); !strings.HasPrefix(p, "/") {
		return usageErr("--path %q: want an absolute path (/health)", p)
	}
	if len(files) > 0 {
		for _, f := range []string{"tcp", "socket", "direct", "nginx"} {
			if c.IsSet(f) {
				return usageErr("--compose and --%s are different targets: choose one", f)
			}
		}
	} else {
		for _, f := range []string{"service", "app-tcp", "app-socket", "path", "compose-dir"} {
			if c.IsSet(f) {
				return usageErr("--%s goes with --compose", f)
			}
		}
	}

	// SIGINT/SIGTERM cancel the run; Run's deferred clean-up then stops
	// nginx and the backend and removes their directories.
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if isTerminal(stderr) {
		cfg.Log = stderr
	}
	bar := progress(stderr, 2*plan.Rounds+2)
	if bar != nil {
		cfg.Step = func(done, total int, what string, _ bench.Sample) {
			bar.Describe(what)
			_ = bar.Set(done)
		}
	}
	var rep *benchhttp.Report
	var err error
	if len(files) > 0 {
		rep, err = benchHTTPCompose(ctx, c, files, cfg)
	} else {
		rep, err = benchhttp.Run(ctx, cfg)
	}
	if bar != nil {
		_ = bar.Clear()
	}
	if err != nil {
		return &codeError{exitError, fmt.Errorf("bench http: %w", err)}
	}
	return rep.Render(stdout, format)
}

// benchHTTPCompose runs bench http through the compose project's sidecar.
func benchHTTPCompose(ctx context.Context, c *cli.Context, files []string, cfg benchhttp.Config) (*benchhttp.Report, error) {
	ct, err := benchhttp.LoadCompose(ctx, files, c.String("service"), c.String("app-socket"), c.String("app-tcp"))
	if err != nil {
		return nil, err
	}
	dir, cleanup, err := composeDir(c, "uds-bench-http-")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	return benchhttp.RunCompose(ctx, &benchhttp.ComposeRun{Target: ct, Dir: dir, Path: c.String("path")}, cfg)
}
