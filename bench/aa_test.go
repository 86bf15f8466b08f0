package bench

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"time"
)

// simulatedAA returns the share of trials in which an A/A comparison
// (both "transports" drawn from one distribution, so the true ratio is 1)
// got a "socket faster" or "socket slower" interval from rounds rounds.
// Each run's throughput is log-normal around 1000 with 10% noise; every
// tenth run also loses 30% to a neighbour, as on a busy machine. Seeded:
// the same rates every time.
func simulatedAA(rounds, trials int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 7))
	run := func() float64 {
		x := 1000 * math.Exp(0.1*rng.NormFloat64())
		if rng.IntN(10) == 0 {
			x *= 0.7
		}
		return x
	}
	wrong := 0
	for i := range trials {
		ratios := make([]float64, rounds)
		for j := range ratios {
			ratios[j] = run() / run()
		}
		iv, err := MedianCI(ratios, 0.95, uint64(i))
		if err != nil {
			panic(err)
		}
		if Judge(iv) != NoDifference {
			wrong++
		}
	}
	return float64(wrong) / float64(trials)
}

// The verdict's false-positive rate on A/A comparisons stays near the
// nominal 5% from MinRounds rounds on, and is far above it below: the
// reason for MinRounds.
func TestAAFalsePositiveRate(t *testing.T) {
	for _, c := range []struct {
		rounds, trials int
		lo, hi         float64
	}{
		{MinRounds, 300, 0.01, 0.10},
		{14, 300, 0.01, 0.10}, // bench's default
		{2, 100, 0.30, 1},     // the two ratios are the "interval"
	} {
		rate := simulatedAA(c.rounds, c.trials, 42)
		t.Logf("%2d rounds: %.1f%% of %d A/A trials claimed a difference", c.rounds, 100*rate, c.trials)
		if rate < c.lo || rate > c.hi {
			t.Errorf("%d rounds: false-positive rate %.3f outside [%.2f, %.2f]", c.rounds, rate, c.lo, c.hi)
		}
	}
}

// aaClient runs TCP whatever transport it is asked for: an A/A
// comparison through the real client and server.
type aaClient struct{ *PgxClient }

func (c aaClient) Run(ctx context.Context, t Transport, d time.Duration) (Sample, error) {
	s, err := c.PgxClient.Run(ctx, TCP, d)
	s.Transport = t
	return s, err
}

// TestAARealRuns compares TCP with TCP through pgx and the shared test
// server, MinRounds short rounds per run: few runs may claim a difference.
// Slow (about a minute): UDS_SLOW=1 go test ./bench -run TestAARealRuns -v
func TestAARealRuns(t *testing.T) {
	if os.Getenv("UDS_SLOW") != "1" {
		t.Skip("slow: set UDS_SLOW=1")
	}
	_, ep := existing(t)
	c := aaClient{&PgxClient{Configs: map[Transport]*pgx.ConnConfig{TCP: ep.TCP}, Script: selectOne(t).Script, Conns: 1, Mode: Prepared}}
	const runs = 12
	wrong := 0
	for i := range runs {
		rounds, err := Interleave(context.Background(), c, Plan{Rounds: MinRounds, Duration: 100 * time.Millisecond, Warmup: 50 * time.Millisecond}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Analyze(rounds, StartMachine(), 1)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("run %2d: ratio %.3f (%.3f–%.3f) %s; load %.2f", i+1, r.Ratio.Estimate, r.Ratio.Low, r.Ratio.High, r.IntervalVerdict, LoadAverage())
		if r.IntervalVerdict != NoDifference {
			wrong++
		}
	}
	t.Logf("%d of %d A/A runs claimed a difference", wrong, runs)
	// Binomial(12, 5%): 3 or more happens 2% of the time.
	if wrong > 3 {
		t.Errorf("%d of %d A/A runs claimed a difference, want about 5%%", wrong, runs)
	}
}
