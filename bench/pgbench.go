package bench

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PgbenchExec runs pgbench with args (options, then connection options)
// for transport t and returns its standard output. The local form runs the
// pgbench on PATH; the compose form wraps it in docker compose run.
type PgbenchExec func(ctx context.Context, t Transport, args []string) ([]byte, error)

// PgbenchClient runs a Script with pgbench. pgbench reports throughput and
// a mean latency per transaction, not quantiles, so its Samples carry no
// Latencies.
type PgbenchClient struct {
	// ScriptPath is the script's path as pgbench sees it.
	ScriptPath string
	Script     *Script
	Defines    map[string]int64
	Conns      int
	Mode       Mode
	// Conn returns the connection options for t: -h HOST -p PORT -U USER
	// DBNAME.
	Conn func(t Transport) []string
	Exec PgbenchExec
}

// Name implements Client.
func (*PgbenchClient) Name() string { return "pgbench" }

// Args returns pgbench's arguments for a run of d over t. pgbench's -T
// takes whole seconds, so d rounds up to the next second.
func (c *PgbenchClient) Args(t Transport, d time.Duration) []string {
	secs := int(math.Ceil(d.Seconds()))
	if secs < 1 {
		secs = 1
	}
	args := []string{"-n", "-M", string(c.Mode), "-c", strconv.Itoa(c.Conns), "-j", strconv.Itoa(c.Conns),
		"-T", strconv.Itoa(secs)}
	keys := make([]string, 0, len(c.Defines))
	for k := range c.Defines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "-D", fmt.Sprintf("%s=%d", k, c.Defines[k]))
	}
	args = append(args, "-f", c.ScriptPath)
	return append(args, c.Conn(t)...)
}

// Run implements Client.
func (c *PgbenchClient) Run(ctx context.Context, t Transport, d time.Duration) (Sample, error) {
	out, err := c.Exec(ctx, t, c.Args(t, d))
	if err != nil {
		return Sample{}, err
	}
	res, err := ParsePgbench(out)
	if err != nil {
		return Sample{}, err
	}
	q := int64(c.Script.Queries())
	s := Sample{Transport: t, Queries: res.Transactions * q}
	if res.TPS > 0 {
		s.Elapsed = time.Duration(float64(res.Transactions) / res.TPS * float64(time.Second))
	}
	s.MeanLatency = time.Duration(res.LatencyMS * float64(time.Millisecond) / float64(q))
	return s, nil
}

// PgbenchResult is what ParsePgbench reads from pgbench's summary.
type PgbenchResult struct {
	Transactions int64
	Failed       int64
	// LatencyMS is the mean transaction latency in milliseconds.
	LatencyMS float64
	// TPS excludes connection time.
	TPS float64
}

var (
	pgbenchTxRE     = regexp.MustCompile(`(?m)^number of transactions actually processed: (\d+)`)
	pgbenchFailedRE = regexp.MustCompile(`(?m)^number of failed transactions: (\d+)`)
	pgbenchLatRE    = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
	pgbenchTPSRE    = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)
)

// ParsePgbench reads pgbench's (PostgreSQL 13-17) summary. It errors when a
// figure is missing or a transaction failed: a partial run must not pass
// as a result.
func ParsePgbench(out []byte) (PgbenchResult, error) {
	var r PgbenchResult
	get := func(re *regexp.Regexp) (string, bool) {
		m := re.FindSubmatch(out)
		if m == nil {
			return "", false
		}
		return string(m[1]), true
	}
	tx, ok1 := get(pgbenchTxRE)
	lat, ok2 := get(pgbenchLatRE)
	tps, ok3 := get(pgbenchTPSRE)
	if !ok1 || !ok2 || !ok3 {
		return r, fmt.Errorf("pgbench output lacks its summary:\n%s", tail(out, 10))
	}
	r.Transactions, _ = strconv.ParseInt(tx, 10, 64)
	r.LatencyMS, _ = strconv.ParseFloat(lat, 64)
	r.TPS, _ = strconv.ParseFloat(tps, 64)
	if f, ok := get(pgbenchFailedRE); ok {
		r.Failed, _ = strconv.ParseInt(f, 10, 64)
	}
	if r.Failed > 0 {
		return r, fmt.Errorf("pgbench: %d failed transactions", r.Failed)
	}
	return r, nil
}

func tail(b []byte, n int) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// LocalPgbench returns a PgbenchClient running the pgbench on PATH against
// ep, with the script written to dir. The password travels in PGPASSWORD,
// never on the command line.
func LocalPgbench(w *Workload, ep *Endpoints, conns int, mode Mode, dir string) (*PgbenchClient, error) {
	bin, err := exec.LookPath("pgbench")
	if err != nil {
		return nil, fmt.Errorf("--client pgbench: %w (apt-get install postgresql-client)", err)
	}
	path := filepath.Join(dir, w.Script.Name)
	if !strings.HasSuffix(path, ".sql") {
		path += ".sql"
	}
	if err := os.WriteFile(path, []byte(w.Script.Text), 0o644); err != nil {
		return nil, err
	}
	cfgs := map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket}
	return &PgbenchClient{
		ScriptPath: path, Script: w.Script, Defines: w.Defines, Conns: conns, Mode: mode,
		Conn: func(t Transport) []string {
			c := cfgs[t]
			return []string{"-h", c.Host, "-p", strconv.Itoa(int(c.Port)), "-U", c.User, c.Database}
		},
		Exec: func(ctx context.Context, t Transport, args []string) ([]byte, error) {
			cmd := exec.CommandContext(ctx, bin, args...)
			// Match pgx's TLS choice, so both clients pay the same per query.
			ssl := "PGSSLMODE=disable"
			if cfgs[t].TLSConfig != nil {
				ssl = "PGSSLMODE=require"
			}
			cmd.Env = append(os.Environ(), "PGPASSWORD="+cfgs[t].Password, ssl)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				return out, fmt.Errorf("pgbench: %w: %s", err, tail(stderr.Bytes(), 5))
			}
			return out, nil
		},
	}, nil
}
