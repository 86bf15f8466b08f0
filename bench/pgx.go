package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Mode is the query protocol, named as pgbench -M names it.
type Mode string

const (
	// Simple: the simple query protocol, values spliced into the text.
	Simple Mode = "simple"
	// Extended: parse, bind and execute an unnamed statement each time,
	// one round trip.
	Extended Mode = "extended"
	// Prepared: a named statement prepared once per connection.
	Prepared Mode = "prepared"
)

// ParseMode accepts "simple", "extended" or "prepared".
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Simple, Extended, Prepared:
		return m, nil
	}
	return "", fmt.Errorf("unknown -M %q (simple, extended or prepared)", s)
}

// pgxMode maps a pgbench mode to the pgx mode that sends the same messages:
// QueryExecModeExec is parse/bind/execute of the unnamed statement in one
// round trip, like pgbench -M extended; QueryExecModeCacheStatement
// prepares once per connection, like -M prepared.
func (m Mode) pgxMode() pgx.QueryExecMode {
	switch m {
	case Simple:
		return pgx.QueryExecModeSimpleProtocol
	case Extended:
		return pgx.QueryExecModeExec
	}
	return pgx.QueryExecModeCacheStatement
}

// PgxClient runs a Script in this process with github.com/jackc/pgx/v5,
// one goroutine per connection, timing every query. Queries go through
// pgx's protocol layer (pgconn) as libpq sends them for pgbench: text
// parameters, text results, rows read and discarded, a statement prepared
// once per connection with -M prepared. Each connection's goroutine holds
// its own OS thread and waits for answers in a blocking read (blockingDial),
// so the figures measure the transport, not Go's scheduler.
type PgxClient struct {
	// Configs holds the connection for each transport; the socket one's
	// Host is a directory.
	Configs map[Transport]*pgx.ConnConfig
	Script  *Script
	// Defines are pgbench -D variables (e.g. rows).
	Defines map[string]int64
	Conns   int
	Mode    Mode

	mu   sync.Mutex
	runs uint64 // seeds each run's random streams differently, reproducibly
}

// Name implements Client.
func (*PgxClient) Name() string { return "pgx" }

// pgxConn is one connection with its prepared statements (by SQL text)
// and the buffers its commands are bound into.
type pgxConn struct {
	conn   *pgx.Conn
	runner *Runner
	stmts  map[string]*pgconn.StatementDescription
	cmd    Command
	pace   pacer
}

// yieldEvery is how often a connection's query loop passes through Go's
// scheduler (runtime.Gosched). A goroutine that only ever blocks in system
// calls never does, so its P stays on one scheduling tick; after 10 ms of
// that (forcePreemptNS) the runtime's sysmon thread takes the P away in the
// middle of a read and, having retaken one, goes back to waking every
// 20 µs for a millisecond and more (runtime/proc.go, sysmon and retake,
// Go 1.26). Measured with perf stat on lookup-small at a load average of
// 11-16 (docs/runs/2026-12-01/client-cost.txt): the client process
// switched context 1.12-1.23 times per query, with 0.08-0.19 sysmon
// nanosleeps, against pgbench's 1.00; with the yield 1.10-1.12 and
// 0.02-0.06. A yield every 5 ms moves the tick well within sysmon's 10 ms,
// at the price of one hand-off of the locked thread per 5 ms.
const yieldEvery = 5 * time.Millisecond

// yield is runtime.Gosched; tests count the calls.
var yield = runtime.Gosched

// pacer yields once per yieldEvery of a loop that blocks only in system
// calls; the zero pacer yields at its first tick.
type pacer struct{ next time.Time }

// tick is called after each round trip, outside any timed window.
func (p *pacer) tick(now time.Time) {
	if now.After(p.next) {
		yield()
		p.next = now.Add(yieldEvery)
	}
}

// Run implements Client: it opens Conns connections over t, checks the
// server saw that transport (inet_client_addr() is NULL exactly for a
// socket), runs one untimed pass of the script on each (statements get
// prepared, caches warm), then runs the script for d and stops each
// connection at its first query ending after d. Cancelling ctx shuts the
// connections down.
func (c *PgxClient) Run(ctx context.Context, t Transport, d time.Duration) (Sample, error) {
	cfg, ok := c.Configs[t]
	if !ok {
		return Sample{}, fmt.Errorf("no %s connection configured", t)
	}
	c.mu.Lock()
	c.runs++
	seed := c.runs * 1000
	c.mu.Unlock()

	conns := make([]*pgxConn, 0, c.Conns)
	defer func() {
		for _, pc := range conns {
			pc.conn.Close(context.Background())
		}
	}()
	for i := range c.Conns {
		conn, err := connect(ctx, cfg, t, c.Mode)
		if err != nil {
			return Sample{}, err
		}
		pc := &pgxConn{conn: conn, runner: c.Script.NewRunner(c.Defines, seed+uint64(i)), stmts: map[string]*pgconn.StatementDescription{}}
		conns = append(conns, pc)
		defer context.AfterFunc(ctx, func() { conn.PgConn().Conn().SetDeadline(time.Now()) })()
		for range c.Script.Queries() {
			if _, err := c.query(pc); err != nil {
				return Sample{}, cmp.Or(ctx.Err(), err)
			}
		}
	}

	lat := make([][]time.Duration, c.Conns)
	errs := make([]error, c.Conns)
	ends := make([]time.Time, c.Conns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i, pc := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			lat[i] = make([]time.Duration, 0, 1<<14)
			for {
				took, err := c.query(pc)
				if err != nil {
					errs[i] = err
					return
				}
				lat[i] = append(lat[i], took)
				if now := time.Now(); !now.Before(deadline) {
					ends[i] = now
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return Sample{}, err
	}
	if err := errors.Join(errs...); err != nil {
		return Sample{}, err
	}
	return sampleOf(t, start, ends, lat), nil
}

// sampleOf pools the connections' latencies; the run ends when the last
// connection's last query does.
func sampleOf(t Transport, start time.Time, ends []time.Time, lat [][]time.Duration) Sample {
	s := Sample{Transport: t}
	var end time.Time
	var sum time.Duration
	for i := range lat {
		s.Latencies = append(s.Latencies, lat[i]...)
		if ends[i].After(end) {
			end = ends[i]
		}
	}
	for _, l := range s.Latencies {
		sum += l
	}
	s.Queries = int64(len(s.Latencies))
	s.Elapsed = end.Sub(start)
	if s.Queries > 0 {
		s.MeanLatency = sum / time.Duration(s.Queries)
	}
	return s
}

// query sends the runner's next command and reads every row (discarding
// them, as pgbench does), returning the round trip. It runs without a
// context (no per-query watcher): Run's context shuts the socket down.
func (c *PgxClient) query(pc *pgxConn) (time.Duration, error) {
	if err := pc.runner.NextCommand(&pc.cmd, c.Mode == Simple); err != nil {
		return 0, err
	}
	t0 := time.Now()
	err := c.exec(pc)
	t1 := time.Now()
	took := t1.Sub(t0)
	pc.pace.tick(t1)
	if err != nil {
		sql := pc.cmd.SQL
		if c.Mode == Simple {
			sql = string(pc.cmd.Literal)
		}
		return 0, fmt.Errorf("%s: %w", oneLine(sql), err)
	}
	return took, nil
}

// exec sends pc.cmd with c.Mode's messages: simple Query; extended
// Parse/Bind/Describe/Execute/Sync of the unnamed statement; prepared
// Bind/Execute/Sync of a statement prepared on first use.
func (c *PgxClient) exec(pc *pgxConn) error {
	ctx := context.Background()
	pg := pc.conn.PgConn()
	cmd := &pc.cmd
	var rr *pgconn.ResultReader
	switch c.Mode {
	case Simple:
		return execLiteral(ctx, pg, cmd.Literal)
	case Extended:
		rr = pg.ExecParams(ctx, cmd.SQL, cmd.Params, nil, nil, nil)
	default:
		sd := pc.stmts[cmd.SQL]
		if sd == nil {
			var err error
			sd, err = pg.Prepare(ctx, "uds_bench_"+strconv.Itoa(len(pc.stmts)), cmd.SQL, nil)
			if err != nil {
				return err
			}
			pc.stmts[cmd.SQL] = sd
		}
		rr = pg.ExecStatement(ctx, sd, cmd.Params, nil, nil)
	}
	for rr.NextRow() {
	}
	_, err := rr.Close()
	return err
}

// connect opens one connection and proves it uses transport t.
func connect(ctx context.Context, cfg *pgx.ConnConfig, t Transport, m Mode) (*pgx.Conn, error) {
	cfg = cfg.Copy()
	cfg.DefaultQueryExecMode = m.pgxMode()
	cfg.DialFunc = blockingDial
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connecting over %s: %w", t, err)
	}
	var overSocket bool
	if err := conn.QueryRow(ctx, "SELECT inet_client_addr() IS NULL").Scan(&overSocket); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("checking the transport: %w", err)
	}
	if overSocket != (t == Socket) {
		conn.Close(context.Background())
		return nil, fmt.Errorf("asked for %s but the server saw the other transport (host %q)", t, cfg.Host)
	}
	return conn, nil
}

func oneLine(s string) string {
	const max = 80
	b := []byte(s)
	for i, c := range b {
		if c == '\n' || c == '\t' {
			b[i] = ' '
		}
	}
	if len(b) > max {
		return string(b[:max]) + "..."
	}
	return string(b)
}
