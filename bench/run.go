// Package bench measures how much faster (or not) a PostgreSQL workload
// runs over a Unix-domain socket than over TCP, with an uncertainty a
// reader can trust: TCP and socket runs interleave in rounds, and the
// verdict comes from the median of per-round paired throughput ratios with
// a bootstrap confidence interval (stats.go).
//
// A Client (pgx in process, or pgbench locally or in a compose sidecar)
// runs one transport for a fixed time; Interleave alternates the two;
// Analyze turns the rounds into a Report.
package bench

import (
	"context"
	"fmt"
	"time"
)

// Transport names how a client reaches the server.
type Transport string

const (
	TCP    Transport = "tcp"
	Socket Transport = "socket"
)

// Sample is one timed run of one transport.
type Sample struct {
	Transport Transport
	// Queries counts the SQL commands that completed inside the run.
	Queries int64
	// Elapsed is the time from the first query's start to the last one's
	// end, excluding connection set-up.
	Elapsed time.Duration
	// Latencies holds each query's round trip, in no particular order; nil
	// when the client reports only a mean (pgbench).
	Latencies []time.Duration
	// MeanLatency is the mean time per query.
	MeanLatency time.Duration
}

// QPS is Queries per second of Elapsed; 0 for an empty sample.
func (s Sample) QPS() float64 {
	if s.Elapsed <= 0 {
		return 0
	}
	return float64(s.Queries) / s.Elapsed.Seconds()
}

// Client runs the workload over one transport for about d and reports what
// it measured. Connection set-up happens before the clock starts. A Client
// must fail, not fall back, when it cannot use the transport asked for.
type Client interface {
	Run(ctx context.Context, t Transport, d time.Duration) (Sample, error)
	// Name is the client's name in reports: "pgx", "pgbench".
	Name() string
}

// Plan is how long and how often to measure.
type Plan struct {
	// Rounds is the number of TCP+socket pairs that count (≥ 2 to run,
	// ≥ MinRounds for a verdict).
	Rounds int
	// Duration is each counted run's length, per transport.
	Duration time.Duration
	// Warmup is the length of one discarded run per transport before the
	// first round: it fills caches, JITs nothing but wakes everything.
	Warmup time.Duration
}

// Round is one counted pair of runs.
type Round struct {
	TCP, Socket Sample
	// SocketFirst records the order inside the round.
	SocketFirst bool
}

// Ratio is the round's socket/TCP queries-per-second ratio.
func (r Round) Ratio() float64 { return r.Socket.QPS() / r.TCP.QPS() }

// Step describes progress after each run: done of total runs finished
// (warm-up included), what just ran ("round 3/14 socket", "round 3/14
// pgbench tcp") and what it measured.
type Step func(done, total int, what string, s Sample)

// Interleave runs plan.Rounds rounds of one TCP and one socket run of c,
// after one discarded warm-up run of each: InterleaveClients with one
// client.
func Interleave(ctx context.Context, c Client, plan Plan, step Step) ([]Round, error) {
	rounds, err := InterleaveClients(ctx, []Client{c}, plan, step)
	if len(rounds) == 0 {
		return nil, err
	}
	return rounds[0], err
}

// unit is one client on one transport: one run per round.
type unit struct {
	client int
	t      Transport
}

// InterleaveClients runs plan.Rounds rounds in which every client runs
// once over TCP and once over the socket, after one discarded warm-up run
// of each, and returns the rounds per client (in clients' order). The
// runs of a round are the list [client 1 TCP, client 2 TCP, ..., client 1
// socket, ...] rotated by one place per round: a slow drift of the
// machine then hits every client and transport alike, where a fixed order
// would bias every paired ratio the same way (with one client: TCP first,
// then socket first, ...). step, if not nil, is called after every run.
// The first error stops the rounds and is returned with the round number;
// the rounds completed so far are returned with it.
func InterleaveClients(ctx context.Context, clients []Client, plan Plan, step Step) ([][]Round, error) {
	if plan.Rounds < 2 {
		return nil, fmt.Errorf("need at least 2 rounds for a confidence interval, have %d", plan.Rounds)
	}
	var units []unit
	for _, t := range []Transport{TCP, Socket} {
		for i := range clients {
			units = append(units, unit{i, t})
		}
	}
	total := len(units) * (plan.Rounds + 1)
	done := 0
	run := func(u unit, d time.Duration, what string) (Sample, error) {
		c := clients[u.client]
		name := string(u.t)
		if len(clients) > 1 {
			name = c.Name() + " " + name
		}
		s, err := c.Run(ctx, u.t, d)
		if err != nil {
			return s, fmt.Errorf("%s, %s: %w", what, name, err)
		}
		if s.Queries == 0 {
			return s, fmt.Errorf("%s, %s: no query completed in %v (make --duration longer than one query)", what, name, d)
		}
		done++
		if step != nil {
			step(done, total, fmt.Sprintf("%s %s", what, name), s)
		}
		return s, nil
	}
	if plan.Warmup > 0 {
		for _, u := range units {
			if _, err := run(u, plan.Warmup, "warm-up"); err != nil {
				return nil, err
			}
		}
	} else {
		done = len(units)
	}
	rounds := make([][]Round, len(clients))
	for i := 0; i < plan.Rounds; i++ {
		cur := make([]Round, len(clients))
		seenTCP := make([]bool, len(clients))
		for k := range units {
			u := units[(k+i)%len(units)]
			s, err := run(u, plan.Duration, fmt.Sprintf("round %d/%d", i+1, plan.Rounds))
			if err != nil {
				return rounds, err
			}
			if u.t == TCP {
				cur[u.client].TCP = s
				seenTCP[u.client] = true
			} else {
				cur[u.client].Socket = s
				cur[u.client].SocketFirst = !seenTCP[u.client]
			}
		}
		for c := range clients {
			rounds[c] = append(rounds[c], cur[c])
		}
	}
	return rounds, nil
}
