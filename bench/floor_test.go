package bench

import (
	"context"
	"math"
	"strings"
	"testing"
)

// The floor is measured with the real server over both transports: each
// median is a positive round trip from the full sample count (which
// transport is faster is the measurement's to say, not the test's: a busy
// machine may blur it), and Run puts the floor and the limit line into the
// report.
func TestMeasureFloorRealServer(t *testing.T) {
	_, ep := existing(t)
	f, err := MeasureFloor(context.Background(), ep)
	if err != nil {
		t.Fatal(err)
	}
	if f.Samples != floorBatches*floorBatchSize || !(f.TCPUS > 0) || !(f.SocketUS > 0) || math.Abs(f.SavedUS-(f.TCPUS-f.SocketUS)) > 1e-9 {
		t.Fatalf("floor %+v", f)
	}
	// The test server is this machine's own, started as this user or, under
	// root, as postgres: on Linux with two CPUs the floor is pinned, both
	// placements, and the figures are those where the socket saves most.
	if _, ok := newCPUPin(); ok {
		if len(f.Placements) != 2 || f.Placements[0].Placement != "one CPU" || f.Placements[1].Placement != "two CPUs" || f.Unpinned != "" {
			t.Fatalf("pinning was possible, floor %+v", f)
		}
		best := f.Placements[0]
		if f.Placements[1].SavedUS > best.SavedUS {
			best = f.Placements[1]
		}
		if f.Placement != best.Placement || f.TCPUS != best.TCPUS || f.SocketUS != best.SocketUS {
			t.Fatalf("top-level figures are not the placement saving most: %+v", f)
		}
		// The thread got its affinity back: it may run on every CPU again.
		after, _ := newCPUPin()
		if len(after.cpus) < 2 {
			t.Fatalf("the thread stayed pinned: %v", after.cpus)
		}
	} else if f.Placement != "unpinned" || f.Unpinned == "" {
		t.Fatalf("unpinned floor without its reason: %+v", f)
	}
	t.Logf("floor: %+v", f)

	rep, err := Run(context.Background(), ep, Config{Workload: selectOne(t), Plan: quick, Conns: 1, Mode: Simple})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Floor == nil {
		t.Fatal("Run left the floor out")
	}
	var out strings.Builder
	if err := rep.Render(&out, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  limit: the socket saves ") {
		t.Errorf("text report lacks the limit line:\n%s", out.String())
	}
}

func TestLimitArithmetic(t *testing.T) {
	c := ClientResult{Client: "pgx", Transports: []TransportStats{{MsPerTransaction: 0.3}, {MsPerTransaction: 0.27}}, Ratio: Interval{Estimate: 1.09}}
	f := &Floor{TCPUS: 30, SocketUS: 20, SavedUS: 10, Samples: 4000}
	l := limitFor(f, &c, 3)
	// 3 round trips save 30 µs of a 300 µs transaction: 300/270 = +11.1%.
	if l == nil || l.RoundTripsPerTransaction != 3 || l.TransactionUS != 300 || math.Abs(l.MaxGainPercent-100.0/9) > 1e-9 || math.Abs(l.MeasuredGainPercent-9) > 1e-9 {
		t.Fatalf("limit %+v", l)
	}
	c.Limit = l
	r := &Report{Floor: f}
	want := "the socket saves 10.0 µs per round trip here (TCP 30.0 µs, socket 20.0 µs, empty query); this workload makes 3 round trips per transaction of 300.0 µs over TCP, so at most +11.1%; measured +9.0%"
	if got := r.LimitLine(c); got != want {
		t.Errorf("LimitLine:\n got %s\nwant %s", got, want)
	}
	// No saving, or a saving the transaction cannot hold: no limit.
	if limitFor(&Floor{SavedUS: -1}, &c, 3) != nil || limitFor(&Floor{SavedUS: 200}, &c, 3) != nil || limitFor(nil, &c, 3) != nil {
		t.Error("a limit without room for one")
	}
	if got := (&Report{Floor: &Floor{TCPUS: 20, SocketUS: 21, SavedUS: -1}}).LimitLine(c); !strings.Contains(got, "no room for a gain") {
		t.Errorf("LimitLine with no saving: %s", got)
	}
	// Pinned: the line names the placement of its figures and the other's;
	// a measured gain above the limit is said, not hidden.
	pinned := &Floor{TCPUS: 30, SocketUS: 20, SavedUS: 10, Placement: "two CPUs", Placements: []PlacementFloor{{"one CPU", 8, 5, 3}, {"two CPUs", 30, 20, 10}}}
	c.Ratio.Estimate = 1.2
	c.Limit = limitFor(pinned, &c, 3)
	want = "the socket saves 10.0 µs per round trip here (empty query, client and server on two CPUs: TCP 30.0 µs, socket 20.0 µs; on one CPU: TCP 8.0 µs, socket 5.0 µs); this workload makes 3 round trips per transaction of 300.0 µs over TCP, so at most +11.1%; measured +20.0%, more than empty round trips allow: this workload's round trips cost the transport more than an empty query's"
	if got := (&Report{Floor: pinned}).LimitLine(c); got != want {
		t.Errorf("pinned LimitLine:\n got %s\nwant %s", got, want)
	}
	if got := (&Report{}).LimitLine(c); !strings.Contains(got, "not measured") {
		t.Errorf("LimitLine without a floor: %s", got)
	}
}
