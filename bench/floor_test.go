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
	t.Logf("floor: TCP %.1f µs, socket %.1f µs, saved %.1f µs", f.TCPUS, f.SocketUS, f.SavedUS)

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
	if got := (&Report{}).LimitLine(c); !strings.Contains(got, "not measured") {
		t.Errorf("LimitLine without a floor: %s", got)
	}
}
