package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
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
// one goroutine per connection, timing every query.
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

// Run implements Client: it opens Conns connections over t, checks the
// server saw that transport (inet_client_addr() is NULL exactly for a
// socket), runs one untimed pass of the script on each (statements get
// prepared, caches warm), then runs the script for d and stops each
// connection at its first query ending after d.
func (c *PgxClient) Run(ctx context.Context, t Transport, d time.Duration) (Sample, error) {
	cfg, ok := c.Configs[t]
	if !ok {
		return Sample{}, fmt.Errorf("no %s connection configured", t)
	}
	c.mu.Lock()
	c.runs++
	seed := c.runs * 1000
	c.mu.Unlock()

	conns := make([]*pgx.Conn, 0, c.Conns)
	defer func() {
		for _, conn := range conns {
			conn.Close(context.Background())
		}
	}()
	runners := make([]*Runner, c.Conns)
	for i := range c.Conns {
		conn, err := connect(ctx, cfg, t, c.Mode)
		if err != nil {
			return Sample{}, err
		}
		conns = append(conns, conn)
		runners[i] = c.Script.NewRunner(c.Defines, seed+uint64(i))
		for range c.Script.Queries() {
			if _, err := c.query(ctx, conn, runners[i]); err != nil {
				return Sample{}, err
			}
		}
	}

	lat := make([][]time.Duration, c.Conns)
	errs := make([]error, c.Conns)
	ends := make([]time.Time, c.Conns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for i, conn := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat[i] = make([]time.Duration, 0, 4096)
			for {
				took, err := c.query(ctx, conn, runners[i])
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
	if err := errors.Join(errs...); err != nil {
		return Sample{}, err
	}
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
	return s, nil
}

// query sends the runner's next command and reads every row (discarding
// them, as pgbench does), returning the round trip.
func (c *PgxClient) query(ctx context.Context, conn *pgx.Conn, r *Runner) (time.Duration, error) {
	b, err := r.Next()
	if err != nil {
		return 0, err
	}
	sql, args := b.SQL, b.Args
	if c.Mode == Simple {
		sql, args = b.Literal, nil
	}
	t0 := time.Now()
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", oneLine(sql), err)
	}
	for rows.Next() {
	}
	rows.Close()
	took := time.Since(t0)
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", oneLine(sql), err)
	}
	return took, nil
}

// connect opens one connection and proves it uses transport t.
func connect(ctx context.Context, cfg *pgx.ConnConfig, t Transport, m Mode) (*pgx.Conn, error) {
	cfg = cfg.Copy()
	cfg.DefaultQueryExecMode = m.pgxMode()
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
