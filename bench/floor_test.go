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
	f, err := MeasureFloor(context.Background(), ep, nil)
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
	// Run gives the floor the workload: its statements are timed too, at
	// every placement, and the line leads with their saving.
	if w := rep.Floor.Workload; w == nil || w.Samples != floorBatches*floorWorkloadBatch || !(w.TCPUS > 0) || !(w.SocketUS > 0) || rep.Floor.WorkloadSkipped != "" {
		t.Fatalf("workload floor %+v (skipped: %q)", rep.Floor.Workload, rep.Floor.WorkloadSkipped)
	}
	for _, p := range rep.Floor.Placements {
		if p.Workload == nil {
			t.Errorf("placement %s without the workload's round trip", p.Placement)
		}
	}
	if !strings.Contains(out.String(), "per round trip of this workload's statements here") {
		t.Errorf("limit line does not lead with the workload's saving:\n%s", out.String())
	}
}

// A workload whose statements are slower than floorWorkloadMax gets the
// empty-query floor only, and the reason.
func TestMeasureFloorSlowWorkload(t *testing.T) {
	_, ep := existing(t)
	s, err := ParseScript("slow.sql", "SELECT pg_sleep(0.005);\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := MeasureFloor(context.Background(), ep, &FloorWorkload{Script: s})
	if err != nil {
		t.Fatal(err)
	}
	if f.Workload != nil || !strings.Contains(f.WorkloadSkipped, "above the 2 ms") || !(f.TCPUS > 0) {
		t.Fatalf("slow workload floor %+v", f)
	}
	c := ClientResult{Transports: []TransportStats{{MsPerTransaction: 5.1}, {MsPerTransaction: 5.1}}}
	if got := (&Report{Floor: &f}).LimitLine(c); !strings.Contains(got, "the workload's own statements not timed: a statement of the workload took") {
		t.Errorf("LimitLine without the reason: %s", got)
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
	pinned := &Floor{TCPUS: 30, SocketUS: 20, SavedUS: 10, Placement: "two CPUs", Placements: []PlacementFloor{{Placement: "one CPU", TCPUS: 8, SocketUS: 5, SavedUS: 3}, {Placement: "two CPUs", TCPUS: 30, SocketUS: 20, SavedUS: 10}}}
	c.Ratio.Estimate = 1.2
	c.Limit = limitFor(pinned, &c, 3)
	want = "the socket saves 10.0 µs per round trip here (empty query, client and server on two CPUs: TCP 30.0 µs, socket 20.0 µs; on one CPU: TCP 8.0 µs, socket 5.0 µs); this workload makes 3 round trips per transaction of 300.0 µs over TCP, so at most +11.1%; measured +20.0%, more than empty round trips allow: this workload's round trips cost the transport more than an empty query's"
	if got := (&Report{Floor: pinned}).LimitLine(c); got != want {
		t.Errorf("pinned LimitLine:\n got %s\nwant %s", got, want)
	}
	// With the workload's own round trips: their saving sets the limit
	// and leads the line; the empty query's follows.
	wf := &Floor{TCPUS: 8, SocketUS: 5, SavedUS: 3, Placement: "one CPU",
		Workload:   &RoundTrip{TCPUS: 40, SocketUS: 30, SavedUS: 10, Samples: 2000},
		Placements: []PlacementFloor{{Placement: "one CPU", TCPUS: 8, SocketUS: 5, SavedUS: 3, Workload: &RoundTrip{TCPUS: 40, SocketUS: 30, SavedUS: 10}}, {Placement: "two CPUs", TCPUS: 60, SocketUS: 57, SavedUS: 3, Workload: &RoundTrip{TCPUS: 90, SocketUS: 84, SavedUS: 6}}}}
	c.Ratio.Estimate = 1.05
	c.Limit = limitFor(wf, &c, 3)
	want = "the socket saves 10.0 µs per round trip of this workload's statements here (client and server on one CPU: TCP 40.0 µs, socket 30.0 µs; on two CPUs: TCP 90.0 µs, socket 84.0 µs; an empty query saves 3.0 µs); this workload makes 3 round trips per transaction of 300.0 µs over TCP, so at most +11.1%; measured +5.0%"
	if got := (&Report{Floor: wf}).LimitLine(c); got != want {
		t.Errorf("workload LimitLine:\n got %s\nwant %s", got, want)
	}
	if got := (&Report{}).LimitLine(c); !strings.Contains(got, "not measured") {
		t.Errorf("LimitLine without a floor: %s", got)
	}
}
