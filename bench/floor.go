package bench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// Floor is the round-trip floor of each transport on this machine,
// measured in the same run as the workload: the median time of an empty
// query (";", the simple query protocol: one message each way, no parse,
// no plan, no row) ping-ponged in alternating batches, each batch on a
// fresh connection, so that both transports see the same machine and the
// same mix of CPU placements of their server processes.
type Floor struct {
	// TCPUS and SocketUS are the medians in microseconds.
	TCPUS    float64 `json:"tcpRoundTripUs"`
	SocketUS float64 `json:"socketRoundTripUs"`
	// SavedUS is TCPUS - SocketUS: what the socket saves per round trip.
	SavedUS float64 `json:"savedPerRoundTripUs"`
	// Samples is the round trips timed per transport.
	Samples int `json:"samplesPerTransport"`
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
// measurement: 20 alternating batches per transport, each a fresh
// connection's floorWarmup untimed and floorBatchSize timed round trips
// (8,000 timed in all, about half a second on a machine with 30 µs round
// trips).
const (
	floorBatches   = 20
	floorBatchSize = 200
	floorWarmup    = 20
)

// MeasureFloor times empty-query round trips over ep's two transports in
// alternating batches. Each batch opens its own connection, because a
// connection's server process stays on the CPU where it was placed: on a
// 2-vCPU guest one connection per transport made the floor bimodal
// (docs/runs/2026-12-02-gomaxprocs: one transport 6-10 µs, the other
// 60-87 µs, and which one was slow changed from run to run). Connections
// are those of the pgx client (blocking reads on a locked OS thread), so
// the floor is that of the path the default client takes. Errors name
// the transport; never the password.
func MeasureFloor(ctx context.Context, ep *Endpoints) (Floor, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cfgs := map[Transport]*pgx.ConnConfig{TCP: ep.TCP, Socket: ep.Socket}
	samples := map[Transport][]float64{}
	var pace pacer // as the client's loop does (yieldEvery)
	batch := func(t Transport) error {
		c, err := connect(ctx, cfgs[t], t, Simple)
		if err != nil {
			return err
		}
		defer c.Close(context.Background())
		pc := c.PgConn()
		for i := range floorWarmup + floorBatchSize {
			start := time.Now()
			if _, err := pc.Exec(ctx, ";").ReadAll(); err != nil {
				return fmt.Errorf("empty query over %s: %w", t, err)
			}
			end := time.Now()
			if i >= floorWarmup {
				samples[t] = append(samples[t], float64(end.Sub(start).Nanoseconds())/1e3)
			}
			pace.tick(end)
		}
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
	f := Floor{TCPUS: median(samples[TCP]), SocketUS: median(samples[Socket]), Samples: len(samples[TCP])}
	f.SavedUS = f.TCPUS - f.SocketUS
	return f, nil
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
// one flush). Nil when the floor or the transaction time is missing, or
// when the floor shows no saving.
func limitFor(f *Floor, c *ClientResult, queriesPerTx int) *Limit {
	if f == nil || len(c.Transports) < 2 || queriesPerTx < 1 {
		return nil
	}
	t := c.Transports[0].MsPerTransaction * 1000
	saved := float64(queriesPerTx) * f.SavedUS
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
// +9.1%". Without a limit it says why.
func (r *Report) LimitLine(c ClientResult) string {
	f := r.Floor
	if f == nil {
		return "not measured (the clients run in containers: the floor is measured in process)"
	}
	head := fmt.Sprintf("the socket saves %.1f µs per round trip here (TCP %.1f µs, socket %.1f µs, empty query)", f.SavedUS, f.TCPUS, f.SocketUS)
	if f.SavedUS <= 0 {
		return head + ": no room for a gain from the transport on this machine"
	}
	if c.Limit == nil {
		return head
	}
	l := c.Limit
	return fmt.Sprintf("%s; this workload makes %d round trip%s per transaction of %.1f µs over TCP, so at most %+.1f%%; measured %+.1f%%",
		head, l.RoundTripsPerTransaction, map[bool]string{true: "", false: "s"}[l.RoundTripsPerTransaction == 1], l.TransactionUS, l.MaxGainPercent, l.MeasuredGainPercent)
}
