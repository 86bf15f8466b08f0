package bench

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeClient returns canned samples and records the order of runs.
type fakeClient struct {
	name  string
	calls []string
	qps   map[Transport]float64
	fail  int // fail on this call (1-based); 0 never
}

func (f *fakeClient) Name() string {
	if f.name == "" {
		return "fake"
	}
	return f.name
}

func (f *fakeClient) Run(_ context.Context, t Transport, d time.Duration) (Sample, error) {
	f.calls = append(f.calls, fmt.Sprintf("%s %v", t, d))
	if len(f.calls) == f.fail {
		return Sample{}, errors.New("boom")
	}
	return Sample{Transport: t, Queries: int64(f.qps[t] * d.Seconds()), Elapsed: d}, nil
}

func TestInterleaveAlternatesOrderAndDiscardsWarmup(t *testing.T) {
	f := &fakeClient{qps: map[Transport]float64{TCP: 1000, Socket: 1200}}
	var steps []string
	rounds, err := Interleave(context.Background(), f,
		Plan{Rounds: 3, Duration: 2 * time.Second, Warmup: time.Second},
		func(done, total int, what string, _ Sample) {
			steps = append(steps, fmt.Sprintf("%d/%d %s", done, total, what))
		})
	if err != nil {
		t.Fatal(err)
	}
	wantCalls := []string{"tcp 1s", "socket 1s", "tcp 2s", "socket 2s", "socket 2s", "tcp 2s", "tcp 2s", "socket 2s"}
	if !reflect.DeepEqual(f.calls, wantCalls) {
		t.Errorf("runs %q, want %q", f.calls, wantCalls)
	}
	if len(rounds) != 3 {
		t.Fatalf("%d rounds, want 3 (warm-up must not count)", len(rounds))
	}
	for i, r := range rounds {
		if r.TCP.Elapsed != 2*time.Second || r.Socket.Elapsed != 2*time.Second {
			t.Errorf("round %d holds a warm-up sample: %+v", i, r)
		}
		if r.Ratio() != 1.2 || r.SocketFirst != (i == 1) {
			t.Errorf("round %d: ratio %v socketFirst %v", i, r.Ratio(), r.SocketFirst)
		}
	}
	if steps[0] != "1/8 warm-up tcp" || steps[7] != "8/8 round 3/3 socket" {
		t.Errorf("progress steps %q", steps)
	}
}

func TestInterleaveStopsAtFirstError(t *testing.T) {
	f := &fakeClient{qps: map[Transport]float64{TCP: 1, Socket: 1}, fail: 4}
	_, err := Interleave(context.Background(), f, Plan{Rounds: 5, Duration: time.Second, Warmup: time.Second}, nil)
	if err == nil || err.Error() != "round 1/5, socket: boom" {
		t.Fatalf("error %v, want the round and transport that failed", err)
	}
	if len(f.calls) != 4 {
		t.Errorf("%d runs after the failure, want none", len(f.calls)-4)
	}
}

func TestInterleaveRejectsEmptyRunsAndTooFewRounds(t *testing.T) {
	f := &fakeClient{qps: map[Transport]float64{TCP: 0, Socket: 5}}
	_, err := Interleave(context.Background(), f, Plan{Rounds: 2, Duration: time.Second}, nil)
	if err == nil || !strings.Contains(err.Error(), "no query completed") {
		t.Errorf("zero-query run: %v", err)
	}
	if _, err := Interleave(context.Background(), f, Plan{Rounds: 1, Duration: time.Second}, nil); err == nil {
		t.Error("1 round accepted")
	}
}

// Two clients: every round runs each client over each transport once, the
// list [a tcp, b tcp, a socket, b socket] rotated one place per round, so
// each client goes TCP first in half the rounds.
func TestInterleaveClientsRotates(t *testing.T) {
	var calls []string
	mk := func(name string) *logClient { return &logClient{name: name, calls: &calls} }
	rounds, err := InterleaveClients(context.Background(), []Client{mk("a"), mk("b")}, Plan{Rounds: 4, Duration: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a tcp", "b tcp", "a socket", "b socket",
		"b tcp", "a socket", "b socket", "a tcp",
		"a socket", "b socket", "a tcp", "b tcp",
		"b socket", "a tcp", "b tcp", "a socket",
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("runs\n%q\nwant\n%q", calls, want)
	}
	if len(rounds) != 2 || len(rounds[0]) != 4 || len(rounds[1]) != 4 {
		t.Fatalf("rounds %v", rounds)
	}
	var first []bool
	for _, r := range rounds[0] {
		first = append(first, r.SocketFirst)
	}
	if !reflect.DeepEqual(first, []bool{false, true, true, false}) {
		t.Errorf("client a socket first %v", first)
	}
}

type logClient struct {
	name  string
	calls *[]string
}

func (c *logClient) Name() string { return c.name }

func (c *logClient) Run(_ context.Context, t Transport, d time.Duration) (Sample, error) {
	*c.calls = append(*c.calls, c.name+" "+string(t))
	return Sample{Transport: t, Queries: 100, Elapsed: d}, nil
}
