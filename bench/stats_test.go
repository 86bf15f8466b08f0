package bench

import (
	"math"
	"testing"
	"time"
)

func TestQuantileInterpolates(t *testing.T) {
	s := []float64{10, 20, 30, 40, 50}
	cases := []struct{ q, want float64 }{
		{0, 10}, {0.5, 30}, {1, 50}, {0.25, 20}, {0.1, 14}, {0.95, 48},
	}
	for _, c := range cases {
		if got := Quantile(s, c.q); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Quantile(%v, %v) = %v, want %v", s, c.q, got, c.want)
		}
	}
	if got := Quantile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("Quantile(nil) = %v, want NaN", got)
	}
}

func TestMedianEvenCountAndUnsorted(t *testing.T) {
	xs := []float64{4, 1, 3, 2}
	if got := Median(xs); got != 2.5 {
		t.Errorf("Median = %v, want 2.5", got)
	}
	if xs[0] != 4 {
		t.Errorf("Median reordered its input: %v", xs)
	}
}

// Ratios from rounds where the socket wins some and loses some: the
// interval must span 1 and the verdict must not claim a winner.
func TestMedianCISpansOneForMixedRounds(t *testing.T) {
	ratios := []float64{0.91, 1.08, 0.97, 1.12, 0.94, 1.03, 0.99, 1.06, 0.92, 1.01}
	iv, err := MedianCI(ratios, 0.95, BootstrapSeed)
	if err != nil {
		t.Fatal(err)
	}
	if !iv.Spans(1) {
		t.Fatalf("interval %+v excludes 1 for mixed rounds", iv)
	}
	if v := Judge(iv); v != NoDifference {
		t.Errorf("verdict %q, want %q", v, NoDifference)
	}
	if iv.Estimate != 1.0 { // median of the ten values: (0.99+1.01)/2
		t.Errorf("estimate %v, want 1.00", iv.Estimate)
	}
}

// Every round has the socket 12-18% faster: the interval must exclude 1,
// lie inside the range of the data and contain the median.
func TestMedianCIExcludesOneForConsistentGain(t *testing.T) {
	ratios := []float64{1.14, 1.16, 1.12, 1.15, 1.18, 1.13, 1.16, 1.15}
	iv, err := MedianCI(ratios, 0.95, BootstrapSeed)
	if err != nil {
		t.Fatal(err)
	}
	if iv.Spans(1) || Judge(iv) != SocketFaster {
		t.Fatalf("interval %+v, verdict %q; want it above 1", iv, Judge(iv))
	}
	if iv.Low < 1.12 || iv.High > 1.18 || !iv.Spans(iv.Estimate) {
		t.Errorf("interval %+v outside the data range [1.12, 1.18] or missing its estimate", iv)
	}
	if math.Abs(iv.Estimate-1.15) > 1e-9 {
		t.Errorf("estimate %v, want 1.15", iv.Estimate)
	}
}

func TestMedianCIReportsSlowerSocket(t *testing.T) {
	ratios := []float64{0.70, 0.72, 0.69, 0.71, 0.73, 0.70}
	iv, err := MedianCI(ratios, 0.95, BootstrapSeed)
	if err != nil {
		t.Fatal(err)
	}
	if v := Judge(iv); v != SocketSlower {
		t.Errorf("verdict %q for interval %+v, want %q", v, iv, SocketSlower)
	}
}

func TestMedianCIIsReproducible(t *testing.T) {
	ratios := []float64{1.02, 0.97, 1.10, 1.04, 0.99, 1.07}
	a, _ := MedianCI(ratios, 0.95, BootstrapSeed)
	b, _ := MedianCI(ratios, 0.95, BootstrapSeed)
	if a != b {
		t.Errorf("same seed, different intervals: %+v vs %+v", a, b)
	}
	c, _ := MedianCI(ratios, 0.95, BootstrapSeed+1)
	if c.Estimate != a.Estimate {
		t.Errorf("the estimate must not depend on the seed: %v vs %v", c.Estimate, a.Estimate)
	}
}

func TestMedianCIRejectsBadInput(t *testing.T) {
	for _, xs := range [][]float64{nil, {1.1}, {1, math.NaN()}, {1, math.Inf(1)}} {
		if _, err := MedianCI(xs, 0.95, 1); err == nil {
			t.Errorf("MedianCI(%v) succeeded, want an error", xs)
		}
	}
	if _, err := MedianCI([]float64{1, 2}, 1.5, 1); err == nil {
		t.Error("level 1.5 accepted")
	}
}

func TestSummarizeMicroseconds(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 1..100 µs, reversed to prove order does not matter
		ds = append(ds, time.Duration(i)*time.Microsecond)
	}
	l := Summarize(ds)
	if l.P50 != 50.5 || math.Abs(l.P95-95.05) > 1e-9 || math.Abs(l.P99-99.01) > 1e-9 || l.Mean != 50.5 {
		t.Errorf("Summarize = %+v, want p50 50.5, p95 95.05, p99 99.01, mean 50.5", l)
	}
}
