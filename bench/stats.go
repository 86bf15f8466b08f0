package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// BootstrapSeed seeds the bootstrap resampling, so the same rounds always
// give the same interval: a re-run of a report must not move its verdict.
const BootstrapSeed = 20240611

// bootstrapResamples is how many resamples the percentile bootstrap draws;
// 10,000 keeps the 2.5/97.5 percentiles stable to well under the rounding
// of a printed ratio, in a few milliseconds.
const bootstrapResamples = 10000

// Quantile returns the q-quantile (0 ≤ q ≤ 1) of sorted, a slice in
// ascending order, by linear interpolation between the closest ranks (the
// "type 7" estimator of R and NumPy). It returns NaN for an empty slice.
func Quantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	pos := q * float64(n-1)
	lo := int(math.Floor(pos))
	hi := int(math.Ceil(pos))
	frac := pos - float64(lo)
	return sorted[lo] + frac*(sorted[hi]-sorted[lo])
}

// Median returns the median of xs (any order; xs is not modified), NaN when
// xs is empty.
func Median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return Quantile(s, 0.5)
}

// Interval is a confidence interval [Low, High] around Estimate, all in the
// unit of the statistic (for ratios: socket/TCP, dimensionless).
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// Level is the nominal coverage, e.g. 0.95.
	Level float64 `json:"level"`
}

// Spans reports whether x lies inside the interval (bounds included).
func (iv Interval) Spans(x float64) bool { return iv.Low <= x && x <= iv.High }

// MedianCI returns the median of xs with a percentile-bootstrap confidence
// interval at the given level (e.g. 0.95): it resamples xs with replacement,
// takes each resample's median and reports the (1-level)/2 and (1+level)/2
// quantiles of those medians. The resampling is seeded with seed, so equal
// inputs give equal intervals.
//
// Rounds are the resampling unit because they are the independent
// observations: queries inside one round share its noise (a neighbour's
// load, a CPU frequency step). It errors when xs has fewer than two values
// (no spread to resample) or holds NaN or Inf.
func MedianCI(xs []float64, level float64, seed uint64) (Interval, error) {
	if len(xs) < 2 {
		return Interval{}, fmt.Errorf("confidence interval needs at least 2 rounds, have %d", len(xs))
	}
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return Interval{}, fmt.Errorf("confidence interval: non-finite value %v", x)
		}
	}
	if level <= 0 || level >= 1 {
		return Interval{}, fmt.Errorf("confidence level %v outside (0, 1)", level)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	medians := make([]float64, bootstrapResamples)
	sample := make([]float64, len(xs))
	for i := range medians {
		for j := range sample {
			sample[j] = xs[rng.IntN(len(xs))]
		}
		slices.Sort(sample)
		medians[i] = Quantile(sample, 0.5)
	}
	slices.Sort(medians)
	return Interval{
		Estimate: Median(xs),
		Low:      Quantile(medians, (1-level)/2),
		High:     Quantile(medians, (1+level)/2),
		Level:    level,
	}, nil
}

// MinRounds is the fewest rounds a verdict needs. The bootstrap interval
// of a median cannot reach 95% coverage with fewer: with 2 rounds the
// "interval" is the two ratios themselves, and an A/A comparison (TCP
// against TCP) came out "faster" or "slower" in 49% of seeded simulated
// runs; with 5, 6%; from 6 on, 5-7%, near the nominal 5%
// (TestAAFalsePositiveRate).
const MinRounds = 6

// Verdict is the one-line answer a report gives, from the socket/TCP
// throughput ratio's interval.
type Verdict string

const (
	// NoDifference: the interval spans 1, so the rounds cannot tell the
	// transports apart.
	NoDifference Verdict = "no measurable difference"
	// SocketFaster: the whole interval lies above 1.
	SocketFaster Verdict = "socket faster"
	// SocketSlower: the whole interval lies below 1. It happens (FACTS.md:
	// a Go client and server on one connection), so it is a first-class
	// answer, not an error.
	SocketSlower Verdict = "socket slower"
	// TooFewRounds: fewer than MinRounds rounds; the interval is shown but
	// supports no claim.
	TooFewRounds Verdict = "too few rounds"
	// Unreliable: the machine was busy (Machine.Busy) or the rounds spread
	// beyond MaxSpread; the interval's own verdict is kept beside it.
	Unreliable Verdict = "figure unreliable"
)

// Judge turns a socket/TCP ratio interval into a Verdict. Only an interval
// that excludes 1 claims a difference; nothing favours the socket.
func Judge(ratio Interval) Verdict {
	switch {
	case ratio.Spans(1):
		return NoDifference
	case ratio.Low > 1:
		return SocketFaster
	default:
		return SocketSlower
	}
}

// Decide is the verdict a report gives for an interval from rounds
// rounds: TooFewRounds below MinRounds, Unreliable when busy names a
// reason, else Judge's.
func Decide(ratio Interval, rounds int, busy string) Verdict {
	switch {
	case rounds < MinRounds:
		return TooFewRounds
	case busy != "":
		return Unreliable
	}
	return Judge(ratio)
}

// Latency summarises a latency distribution, in microseconds.
type Latency struct {
	P50  float64 `json:"p50Us"`
	P95  float64 `json:"p95Us"`
	P99  float64 `json:"p99Us"`
	Mean float64 `json:"meanUs"`
}

// Summarize returns exact quantiles and the mean of ds (any order; ds is
// not modified), in microseconds. An empty ds gives NaN fields.
func Summarize(ds []time.Duration) Latency {
	us := make([]float64, len(ds))
	var sum float64
	for i, d := range ds {
		us[i] = float64(d) / float64(time.Microsecond)
		sum += us[i]
	}
	slices.Sort(us)
	return Latency{
		P50:  Quantile(us, 0.50),
		P95:  Quantile(us, 0.95),
		P99:  Quantile(us, 0.99),
		Mean: sum / float64(len(us)),
	}
}
