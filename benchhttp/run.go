// Package benchhttp measures HTTP through a reverse proxy to an app server
// over TCP and over a Unix socket, with package bench's method: TCP and
// socket runs interleave in rounds, and the verdict comes from the median
// of per-round paired requests/s ratios with a bootstrap confidence
// interval.
//
// The embedded default starts a tiny Go backend on a loopback port and a
// socket (backend.go) and, when the system nginx exists, a throwaway nginx
// with one server block proxying over each (nginx.go). Load (load.go) is
// the bench.Client that sends the requests.
package benchhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/uds-migrate/uds-migrate/bench"
)

// Config is one `bench http` run's settings.
type Config struct {
	Plan bench.Plan
	// Concurrency is the number of request goroutines per run (ab -c).
	Concurrency int
	// Requests, when > 0, is the number of requests per counted run (ab
	// -n); Plan.Duration is then only the run's time bound.
	Requests int
	// Keepalive is nginx's upstream keepalive pool (0: nginx's default, a
	// new upstream connection per request). Embedded nginx only.
	Keepalive int
	// Direct skips nginx even when it is installed: client → backend.
	Direct bool
	// Nginx is the nginx binary ("" looks for nginx on PATH and in
	// /usr/sbin).
	Nginx string
	// TCPURL and SocketPath, both set, measure an existing app listening on
	// both, directly; the socket requests use TCPURL's path, query and host.
	TCPURL, SocketPath string
	// TempDir holds the backend's socket and nginx's prefix ("" means
	// os.TempDir()).
	TempDir string
	// Step reports progress (may be nil); Log receives one-line notes on
	// set-up (may be nil).
	Step bench.Step
	Log  io.Writer
}

// Schema names the version of the --format json output; names are
// camelCase, as in bench's and plan's JSON.
const Schema = "uds-migrate.bench-http/v1"

// Report is what a run found; its JSON form is the --format json output.
// Times are in seconds, latencies in microseconds.
type Report struct {
	// Schema is Schema: the version of this JSON form.
	Schema string `json:"schema"`
	// Target says what was measured, e.g. "nginx/1.22.1 → embedded Go
	// backend".
	Target string `json:"target"`
	// Proxy is the proxy's version, "" when the client reached the app
	// directly.
	Proxy string `json:"proxy"`
	// Upstream says how the proxy connects upstream, "" without a proxy.
	Upstream string `json:"upstream"`
	// Note explains a choice the reader should know ("nginx not found").
	Note string `json:"note,omitempty"`
	// TCP and Socket describe the two paths, client to app.
	TCP    string `json:"tcp"`
	Socket string `json:"socket"`
	Client string `json:"client"`

	Concurrency int `json:"concurrency"`
	// RequestsPerRun is Config.Requests (0: runs were timed).
	RequestsPerRun int     `json:"requestsPerRun"`
	Rounds         int     `json:"rounds"`
	RoundSeconds   float64 `json:"roundSeconds"`
	WarmupSeconds  float64 `json:"warmupSeconds"`

	Transports []TransportStats `json:"transports"`
	// RoundRatios are the per-round socket/TCP requests/s ratios, in round
	// order.
	RoundRatios []float64      `json:"roundRatios"`
	Ratio       bench.Interval `json:"ratio"`
	// IntervalVerdict is what the interval alone says; Verdict is that
	// unless the rounds were too few or the machine too busy (Warnings).
	IntervalVerdict bench.Verdict `json:"intervalVerdict"`
	Verdict         bench.Verdict `json:"verdict"`
	Warnings        []string      `json:"warnings"`
	Machine         bench.Machine `json:"machine"`
	Seed            uint64        `json:"bootstrapSeed"`
}

// TransportStats pools every counted round of one transport.
type TransportStats struct {
	Transport bench.Transport `json:"transport"`
	Endpoint  string          `json:"endpoint"`
	// Requests all answered 200 (a run fails on any other answer).
	Requests int64   `json:"requests"`
	Seconds  float64 `json:"seconds"`
	// RPS is Requests / Seconds over all counted rounds.
	RPS     float64       `json:"requestsPerSecond"`
	Latency bench.Latency `json:"latency"`
}

// VerdictLine is the verdict with the effect size, as bench words it.
func (r *Report) VerdictLine() string {
	line := bench.DescribeRatio(r.Ratio, r.IntervalVerdict, "requests/s")
	if r.Verdict != r.IntervalVerdict {
		return fmt.Sprintf("%s (%s); the interval alone says: %s", r.Verdict, strings.Join(r.Warnings, "; "), line)
	}
	return line
}

// Run sets up the target cfg names (an existing pair, or the embedded
// backend behind nginx or direct), runs the interleaved rounds and
// analyses them. Everything it started is stopped and removed before it
// returns, on error and on ctx cancellation too.
func Run(ctx context.Context, cfg Config) (rep *Report, err error) {
	if cfg.Concurrency < 1 {
		return nil, fmt.Errorf("concurrency %d: need at least 1", cfg.Concurrency)
	}
	if cfg.Requests < 0 || cfg.Keepalive < 0 {
		return nil, errors.New("requests and keepalive must not be negative")
	}
	logf := func(format string, args ...any) {
		if cfg.Log != nil {
			fmt.Fprintf(cfg.Log, format+"\n", args...)
		}
	}
	load := &Load{Concurrency: cfg.Concurrency, Requests: cfg.Requests}
	defer load.Close()
	rep = &Report{Client: load.Name(), Concurrency: cfg.Concurrency, RequestsPerRun: cfg.Requests}

	switch {
	case cfg.TCPURL != "" || cfg.SocketPath != "":
		if cfg.TCPURL == "" || cfg.SocketPath == "" {
			return nil, errors.New("an existing app needs both its TCP URL and its socket path")
		}
		u, err := url.Parse(cfg.TCPURL)
		if err != nil || (u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("TCP URL %q: want http://HOST:PORT/PATH", cfg.TCPURL)
		}
		load.Targets = map[bench.Transport]Target{
			bench.TCP:    {URL: cfg.TCPURL},
			bench.Socket: {URL: cfg.TCPURL, Socket: cfg.SocketPath},
		}
		rep.Target = "existing app, measured directly"
		rep.TCP = cfg.TCPURL
		rep.Socket = "unix:" + cfg.SocketPath + " " + u.RequestURI()
	default:
		b, err := StartBackend(cfg.TempDir)
		if err != nil {
			return nil, fmt.Errorf("starting the embedded backend: %w", err)
		}
		defer func() {
			if cerr := b.Close(); cerr != nil {
				logf("stopping the backend: %v", cerr)
			}
		}()
		var bin string
		if !cfg.Direct {
			var lerr error
			if bin, lerr = FindNginx(cfg.Nginx); lerr != nil {
				if cfg.Nginx != "" {
					return nil, fmt.Errorf("--nginx: %w", lerr)
				}
				rep.Note = "nginx not found (apt-get install nginx): the client reached the backend directly, no proxy measured"
				logf("%s", rep.Note)
			}
		} else {
			rep.Note = "--direct: the client reached the backend directly, no proxy measured"
		}
		if bin == "" {
			load.Targets = map[bench.Transport]Target{
				bench.TCP:    {URL: "http://" + b.TCPAddr + "/", WantTransport: "tcp", WantBody: Body},
				bench.Socket: {URL: "http://localhost/", Socket: b.SocketPath, WantTransport: "unix", WantBody: Body},
			}
			rep.Target = "embedded Go backend, direct (no proxy)"
			rep.TCP = "http://" + b.TCPAddr + "/"
			rep.Socket = "unix:" + b.SocketPath
			break
		}
		n, err := StartNginx(ctx, bin, b, cfg.Keepalive, cfg.TempDir)
		if err != nil {
			return nil, fmt.Errorf("starting nginx: %w", err)
		}
		defer func() {
			if cerr := n.Close(); cerr != nil {
				logf("stopping nginx: %v", cerr)
			}
		}()
		load.OnError = func() string {
			if l := n.ErrorLog(); l != "" {
				return "nginx error log:\n" + l
			}
			return ""
		}
		load.Targets = map[bench.Transport]Target{
			bench.TCP:    {URL: n.TCPURL, WantTransport: "tcp", WantBody: Body},
			bench.Socket: {URL: n.SocketURL, WantTransport: "unix", WantBody: Body},
		}
		rep.Target = n.Version + " → embedded Go backend"
		rep.Proxy = n.Version
		rep.Upstream = "nginx default proxying: a new upstream connection per request"
		if cfg.Keepalive > 0 {
			rep.Upstream = fmt.Sprintf("upstream keepalive %d (HTTP/1.1, idle connections reused)", cfg.Keepalive)
		}
		rep.TCP = n.TCPURL + " → nginx → " + b.TCPAddr
		rep.Socket = n.SocketURL + " → nginx → unix:" + b.SocketPath
	}

	// The embedded backend runs in this process and nginx as its child:
	// their CPU is the bench's own. An existing app's is not visible as such.
	return measure(ctx, load, cfg, rep, cfg.TCPURL == "")
}

// measure runs the interleaved rounds of load and completes rep with the
// analysis. With watch, other processes' CPU is measured: everything but
// this process's family and the roots' (bench.CPUWatch).
func measure(ctx context.Context, load *Load, cfg Config, rep *Report, watch bool, roots ...int) (*Report, error) {
	m := bench.StartMachine()
	var cpu *bench.CPUWatch
	if watch {
		cpu = bench.WatchCPU(roots...)
	}
	rounds, err := bench.Interleave(ctx, load, cfg.Plan, cfg.Step)
	if err != nil {
		return nil, err
	}
	m.LoadAfter = bench.LoadAverage()
	if cpu != nil {
		m.OtherCores = cpu.OtherCores()
	}
	a, err := bench.Analyze(rounds, m, 1)
	if err != nil {
		return nil, err
	}
	rep.Schema, rep.Machine = Schema, m
	rep.Rounds = len(rounds)
	if cfg.Requests == 0 {
		rep.RoundSeconds = cfg.Plan.Duration.Seconds()
	}
	rep.WarmupSeconds = cfg.Plan.Warmup.Seconds()
	for i, ts := range a.Transports {
		st := TransportStats{
			Transport: ts.Transport, Requests: ts.Queries, Seconds: ts.Seconds, RPS: ts.QPS,
		}
		if ts.Latency != nil {
			st.Latency = *ts.Latency
		}
		st.Endpoint = rep.TCP
		if i == 1 {
			st.Endpoint = rep.Socket
		}
		rep.Transports = append(rep.Transports, st)
	}
	rep.RoundRatios, rep.Ratio, rep.Seed = a.RoundRatios, a.Ratio, bench.BootstrapSeed
	rep.IntervalVerdict, rep.Verdict, rep.Warnings = a.IntervalVerdict, a.Verdict, a.Warnings
	return rep, nil
}

// RunLimit bounds one counted run in --requests mode: a run that has not
// sent its requests by then stops and counts what it did.
const RunLimit = time.Minute
