package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Floor is the round-trip floor of each transport on this machine,
// measured in the same run as the workload: the median time of an empty
// query (";", the simple query protocol: one message each way, no parse,
// no plan, no row) ping-ponged in alternating batches, each batch on a
// fresh connection.
//
// Where it can (Linux, a server process on this machine that the bench
// may pin: its own embedded server, or one run by the same user or as
// root), it pins the client's thread and the connection's server process
// to CPUs, once both on one CPU and once on two, because on a guest with
// few vCPUs where the scheduler put the two decides the unpinned figure:
// docs/runs/2026-12-02-quiet gave TCP/socket medians 51.7/49.1, 66.2/16.7
// and 10.8/6.9 µs in runs minutes apart. Pinned, each placement is one
// figure. TCPUS, SocketUS and SavedUS are then those of the placement
// where the socket saves the most (the limit is an upper bound), and
// Placements holds both.
type Floor struct {
	// TCPUS and SocketUS are the medians in microseconds.
	TCPUS    float64 `json:"tcpRoundTripUs"`
	SocketUS float64 `json:"socketRoundTripUs"`
	// SavedUS is TCPUS - SocketUS: what the socket saves per round trip.
	SavedUS float64 `json:"savedPerRoundTripUs"`
	// Samples is the round trips timed per transport and placement.
	Samples int `json:"samplesPerTransport"`
	// Placement names where the figures above were measured: "one CPU"
	// (client thread and server process pinned to the same CPU), "two
	// CPUs" (pinned to different ones) or "unpinned" (pinning was not
	// possible; Unpinned says why).
	Placement string `json:"placement"`
	// Placements is every pinned placement measured; empty unpinned.
	Placements []PlacementFloor `json:"placements,omitempty"`
	// Unpinned is why the floor was measured without pinning.
	Unpinned string `json:"unpinnedBecause,omitempty"`
	// Workload is the same ping-pong with the workload's own statements,
	// at the placement above; nil when no script was given or its
	// statements are too slow for one (WorkloadSkipped says so).
	Workload        *RoundTrip `json:"workload,omitempty"`
	WorkloadSkipped string     `json:"workloadSkippedBecause,omitempty"`
}

// perTripSaved is what the socket saves per round trip of the workload:
// its own statements' saving when the floor timed them, else the empty
// query's.
func (f Floor) perTripSaved() float64 {
	if f.Workload != nil {
		return f.Workload.SavedUS
	}
	return f.SavedUS
}

// RoundTrip is one statement kind's median round trip per transport, in
// microseconds, and what the socket saves (TCPUS - SocketUS).
type RoundTrip struct {
	TCPUS    float64 `json:"tcpRoundTripUs"`
	SocketUS float64 `json:"socketRoundTripUs"`
	SavedUS  float64 `json:"savedPerRoundTripUs"`
	Samples  int     `json:"samplesPerTransport"`
}

// PlacementFloor is the floor of one pinned placement, in microseconds.
type PlacementFloor struct {
	Placement string     `json:"placement"`
	TCPUS     float64    `json:"tcpRoundTripUs"`
	SocketUS  float64    `json:"socketRoundTripUs"`
	SavedUS   float64    `json:"savedPerRoundTripUs"`
	Workload  *RoundTrip `json:"workload,omitempty"`
}

// Limit relates one client's measured gain to what the floor allows: a
// transaction of R round trips that takes T µs over TCP saves at most
// R × SavedUS over the socket, so its throughput can rise by at most
// R × SavedUS / (T - R × SavedUS). A measured gain above it means the
// workload's round trips cost more than the empty query's (bigger
// messages, more wake-ups), one below it that the client's or server's own
// work hides part of the saving.
type Limit struct {
	RoundTripsPerTransaction int `json:"roundTripsPerTransaction"`
	// TransactionUS is the client's mean transaction time over TCP.
	TransactionUS float64 `json:"transactionUs"`
	// MaxGainPercent is the most the socket can add to queries/s;
	// MeasuredGainPercent is the verdict's figure (median round ratio).
	MaxGainPercent      float64 `json:"maxGainPercent"`
	MeasuredGainPercent float64 `json:"measuredGainPercent"`
}

// floorBatches, floorBatchSize and floorWarmup shape the floor
// measurement: 20 alternating batches per transport and placement, each a
// fresh connection's floorWarmup untimed and floorBatchSize timed round
// trips (8,000 timed per placement, about half a second on a machine with
// 30 µs round trips).
const (
	floorBatches   = 20
	floorBatchSize = 200
	floorWarmup    = 20
)

// floorWorkloadBatch and floorWorkloadWarmup shape the workload's own
// ping-pong in each batch (2,000 timed statements per transport and
// placement); floorWorkloadMax is the slowest statement it is measured
// for: past it a few microseconds per round trip are below the noise of
// the statement's own time (heavy: about a second each), and the floor
// would take minutes.
const (
	floorWorkloadBatch  = 100
	floorWorkloadWarmup = 10
	floorWorkloadMax    = 2 * time.Millisecond
)

// FloorWorkload is the workload whose statements the floor also times: its
// script and pgbench -D defines, sent with the simple protocol (one
// message each way, as the empty query), rows read and discarded.
type FloorWorkload struct {
	Script  *Script
	Defines map[string]int64
}

// floorPlacement is where MeasureFloor runs a batch: the client thread on
// CPU client, the server process on CPU server; both -1 unpinned.
type floorPlacement struct {
	name           string
	client, server int
}

// unpinned is the placement of a floor measured without pinning.
var unpinned = floorPlacement{name: "unpinned", client: -1, server: -1}

// errNoPin is a batch's failure to pin: MeasureFloor then measures
// unpinned and says why.
type errNoPin struct{ err error }

func (e errNoPin) Error() string { return e.err.Error() }

// MeasureFloor times empty-query round trips over ep's two transports in
// alternating batches, pinned to one CPU and to two where it can (see
// Floor), else unpinned. Each batch opens its own connection, because a
// connection's server process stays where it was placed. Connections are
// those of the pgx client (blocking reads on a locked OS thread), so the
// floor is that of the path the default client takes. Errors name the
// transport; never the password.
//
// With wl, each batch also ping-pongs the workload's own statements after
// the empty queries, so the saving per round trip is also known for
// messages that carry the workload's rows (docs/runs/2026-12-02-pinned:
// every measured gain lay above what empty round trips allow). A
// statement slower than floorWorkloadMax (timed once over TCP first)
// skips that part, and WorkloadSkipped says why. The placement quoted is
// then the one where the workload's statements save the most.
func MeasureFloor(ctx context.Context, ep *Endpoints, wl *FloorWorkload) (Floor, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	skipped := ""
	if wl != nil {
		if took, err := timeOneStatement(ctx, ep, wl); err != nil {
			return Floor{}, err
		} else if took > floorWorkloadMax {
			skipped = fmt.Sprintf("a statement of the workload took %.1f ms over TCP, above the %.0f ms where a round trip's microseconds matter", float64(took.Microseconds())/1e3, float64(floorWorkloadMax.Milliseconds()))
			wl = nil
		}
	}
	pin, ok := newCPUPin()
	if !ok {
		f, err := measureFloor(ctx, ep, nil, unpinned, wl)
		f.Unpinned = "this thread may run on one CPU only, or CPU affinity is not available here"
		f.WorkloadSkipped = skipped
		return f, err
	}
	defer pin.restore()
	a, b := pin.cpus[0], pin.cpus[1]
	var best Floor
	for _, pl := range []floorPlacement{{"one CPU", a, a}, {"two CPUs", a, b}} {
		f, err := measureFloor(ctx, ep, pin, pl, wl)
		var np errNoPin
		if errors.As(err, &np) {
			pin.restore()
			u, err := measureFloor(ctx, ep, nil, unpinned, wl)
			u.Unpinned = "the server process could not be pinned: " + np.Error()
			u.WorkloadSkipped = skipped
			return u, err
		}
		if err != nil {
			return Floor{}, err
		}
		best.Placements = append(best.Placements, PlacementFloor{pl.name, f.TCPUS, f.SocketUS, f.SavedUS, f.Workload})
		if len(best.Placements) == 1 || f.perTripSaved() > best.perTripSaved() {
			best.TCPUS, best.SocketUS, best.SavedUS, best.Samples, best.Placement, best.Workload = f.TCPUS, f.SocketUS, f.SavedUS, f.Samples, pl.name, f.Workload
		}
	}
	best.WorkloadSkipped = skipped
	return best, nil
}

// timeOneStatement runs the workload's first statement once over TCP
// (after one untimed run) and returns how long the second took.
func timeOneStatement(ctx context.Context, ep *Endpoints, wl *FloorWorkload) (time.Duration, error) {
	c, err := connect(ctx, ep.TCP, TCP, Simple)
	if err != nil {
		return 0, err
	}
	defer c.Close(context.Background())
	r := wl.Script.NewRunner(wl.Defines, 1)
	var cmd Command
	var took time.Duration
	for range 2 {
		if err := r.NextCommand(&cmd, true); err != nil {
			return 0, err
		}
		start := time.Now()
		if err := execLiteral(ctx, c.PgConn(), cmd.Literal); err != nil {
			return 0, fmt.Errorf("workload statement over %s: %w", TCP, err)
		}
		took = time.Since(start)
	}
	return took, nil
}

// execLiteral sends one simple-protocol query and reads every result,
// discarding the rows (as pgbench does).
func execLiteral(ctx context.Context, pc *pgconn.PgConn, sql []byte) error {
	mrr := pc.Exec(ctx, string(sql))
	for mrr.NextResult() {
		rr := mrr.ResultReader()
		for rr.NextRow() {
		}
	}
	return mrr.Close()
}

// measureFloor runs floorBatches alternating batches per transport at pl
// (pin nil: unpinned). A server process it cannot pin is an errNoPin.
func measureFloor(ctx context.Context, ep *Endpoints, pin *cpuPin, pl floorPlacement, wl *FloorWorkload) (Floor, error) {
	cfgs := map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket}
	samples := map[Transport][]float64{}
	wsamples := map[Transport][]float64{}
	var runs uint64
	var pace pacer // as the client's loop does (yieldEvery)
	if pin != nil {
		if err := pin.self(pl.client); err != nil {
			return Floor{}, errNoPin{fmt.Errorf("pinning the client thread: %w", err)}
		}
	}
	batch := func(t Transport) error {
		c, err := connect(ctx, cfgs[t], t, Simple)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		if pin != nil {
			var backend int
			if err := c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend); err != nil {
				return fmt.Errorf("asking the server process over %s: %w", t, err)
			}
			// Only a server process on this machine: a pid from another
			// host or container names some other process here.
			if !isPostgres(backend) {
				return errNoPin{fmt.Errorf("server process %d is not a PostgreSQL process on this machine", backend)}
			}
			if err := pin.process(backend, pl.server); err != nil {
				return errNoPin{fmt.Errorf("server process %d: %w", backend, err)}
			}
		}
		pc := c.PgConn()
		empty, err := pingPong(floorWarmup, floorBatchSize, &pace, func() error {
			_, err := pc.Exec(ctx, ";").ReadAll()
			return err
		})
		if err != nil {
			return fmt.Errorf("empty query over %s: %w", t, err)
		}
		samples[t] = append(samples[t], empty...)
		if wl == nil {
			return nil
		}
		runs++
		r := wl.Script.NewRunner(wl.Defines, runs)
		var cmd Command
		own, err := pingPong(floorWorkloadWarmup, floorWorkloadBatch, &pace, func() error {
			if err := r.NextCommand(&cmd, true); err != nil {
				return err
			}
			return execLiteral(ctx, pc, cmd.Literal)
		})
		if err != nil {
			return fmt.Errorf("workload statement over %s: %w", t, err)
		}
		wsamples[t] = append(wsamples[t], own...)
		return nil
	}
	for b := range floorBatches {
		order := []Transport{TCP, Socket}
		if b%2 == 1 {
			order = []Transport{Socket, TCP}
		}
		for _, t := range order {
			if err := batch(t); err != nil {
				return Floor{}, err
			}
		}
	}
	f := Floor{TCPUS: median(samples[TCP]), SocketUS: median(samples[Socket]), Samples: len(samples[TCP]), Placement: pl.name}
	f.SavedUS = f.TCPUS - f.SocketUS
	if wl != nil {
		w := &RoundTrip{TCPUS: median(wsamples[TCP]), SocketUS: median(wsamples[Socket]), Samples: len(wsamples[TCP])}
		w.SavedUS = w.TCPUS - w.SocketUS
		f.Workload = w
	}
	return f, nil
}

// pingPong runs warm untimed and n timed round trips of send, pacing
// between them as the client's loop does, and returns the timed ones in
// microseconds. The clock is read outside pace's yield.
func pingPong(warm, n int, pace *pacer, send func() error) ([]float64, error) {
	out := make([]float64, 0, n)
	for i := range warm + n {
		start := time.Now()
		if err := send(); err != nil {
			return nil, err
		}
		end := time.Now()
		if i >= warm {
			out = append(out, float64(end.Sub(start).Nanoseconds())/1e3)
		}
		pace.tick(end)
	}
	return out, nil
}

// median of xs (xs is sorted in place); NaN when empty.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// limitFor is c's Limit under f for a script of queriesPerTx commands,
// each one round trip in every client (pgbench and pgx send a command and
// wait for its answer; extended and prepared modes send their messages in
// one flush). The saving per round trip is that of the workload's own
// statements when the floor measured them, else the empty query's. Nil
// when the floor or the transaction time is missing, or when the floor
// shows no saving.
func limitFor(f *Floor, c *ClientResult, queriesPerTx int) *Limit {
	if f == nil || len(c.Transports) < 2 || queriesPerTx < 1 {
		return nil
	}
	t := c.Transports[0].MsPerTransaction * 1000
	saved := float64(queriesPerTx) * f.perTripSaved()
	if math.IsNaN(t) || t <= 0 || math.IsNaN(saved) || saved <= 0 || saved >= t {
		return nil
	}
	return &Limit{
		RoundTripsPerTransaction: queriesPerTx,
		TransactionUS:            t,
		MaxGainPercent:           100 * saved / (t - saved),
		MeasuredGainPercent:      100 * (c.Ratio.Estimate - 1),
	}
}

// LimitLine words c's limit: "the socket saves 9.8 µs per round trip here
// (TCP 31.0 µs, socket 21.2 µs, empty query); this workload makes 3 round
// trips per transaction of 310.2 µs over TCP, so at most +10.5%; measured
// +9.1%". When the floor timed the workload's own statements, their
// saving leads and the empty query's follows. Without a limit it says why.
func (r *Report) LimitLine(c ClientResult) string {
	f := r.Floor
	if f == nil {
		return "not measured (the clients run in containers: the floor is measured in process)"
	}
	if f.Workload != nil {
		return r.workloadLimitLine(c)
	}
	head := fmt.Sprintf("the socket saves %.1f µs per round trip here (TCP %.1f µs, socket %.1f µs, empty query)", f.SavedUS, f.TCPUS, f.SocketUS)
	if f.Placement != "" {
		head = fmt.Sprintf("the socket saves %.1f µs per round trip here (empty query, client and server %s: TCP %.1f µs, socket %.1f µs", f.SavedUS, placedOn(f.Placement), f.TCPUS, f.SocketUS)
		for _, p := range f.Placements {
			if p.Placement != f.Placement {
				head += fmt.Sprintf("; %s: TCP %.1f µs, socket %.1f µs", placedOn(p.Placement), p.TCPUS, p.SocketUS)
			}
		}
		head += ")"
	}
	if f.WorkloadSkipped != "" {
		head += "; the workload's own statements not timed: " + f.WorkloadSkipped
	}
	if f.SavedUS <= 0 {
		return head + ": no room for a gain from the transport on this machine"
	}
	return head + gainTail(c.Limit, "empty round trips allow: this workload's round trips cost the transport more than an empty query's")
}

// workloadLimitLine is LimitLine when the floor timed the workload's own
// statements: "the socket saves 6.4 µs per round trip of this workload's
// statements here (client and server on one CPU: TCP 30.1 µs, socket
// 23.7 µs; on two CPUs: ...; an empty query saves 3.1 µs); this workload
// makes ...".
func (r *Report) workloadLimitLine(c ClientResult) string {
	f := r.Floor
	w := f.Workload
	head := fmt.Sprintf("the socket saves %.1f µs per round trip of this workload's statements here (client and server %s: TCP %.1f µs, socket %.1f µs", w.SavedUS, placedOn(f.Placement), w.TCPUS, w.SocketUS)
	for _, p := range f.Placements {
		if p.Placement != f.Placement && p.Workload != nil {
			head += fmt.Sprintf("; %s: TCP %.1f µs, socket %.1f µs", placedOn(p.Placement), p.Workload.TCPUS, p.Workload.SocketUS)
		}
	}
	head += fmt.Sprintf("; an empty query saves %.1f µs)", f.SavedUS)
	if w.SavedUS <= 0 {
		return head + ": no room for a gain from the transport on this machine"
	}
	return head + gainTail(c.Limit, "the saving per round trip measured alone explains: the rounds run the connections unpinned, side by side")
}

// gainTail is the limit line's second half, "; this workload makes R round
// trips per transaction of T µs over TCP, so at most +X%; measured +Y%",
// with ", more than WHY" when Y > X; "" without a limit.
func gainTail(l *Limit, why string) string {
	if l == nil {
		return ""
	}
	line := fmt.Sprintf("; this workload makes %d round trip%s per transaction of %.1f µs over TCP, so at most %+.1f%%; measured %+.1f%%",
		l.RoundTripsPerTransaction, map[bool]string{true: "", false: "s"}[l.RoundTripsPerTransaction == 1], l.TransactionUS, l.MaxGainPercent, l.MeasuredGainPercent)
	if l.MeasuredGainPercent > l.MaxGainPercent {
		// Not a contradiction to hide: say it beside the figures.
		line += ", more than " + why
	}
	return line
}

// placedOn words a placement for the limit line: "on one CPU", "on two
// CPUs", "unpinned".
func placedOn(p string) string {
	if p == "unpinned" {
		return p
	}
	return "on " + p
}
