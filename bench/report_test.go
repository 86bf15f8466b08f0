package bench

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

func sample(t Transport, queries int64, secs float64, lat ...time.Duration) Sample {
	return Sample{Transport: t, Queries: queries, Elapsed: time.Duration(secs * float64(time.Second)), Latencies: lat}
}

func TestAnalyzePoolsRoundsAndJudges(t *testing.T) {
	us := time.Microsecond
	rounds := []Round{
		{TCP: sample(TCP, 1000, 1, 100*us, 300*us), Socket: sample(Socket, 1100, 1, 90*us)},
		{TCP: sample(TCP, 3000, 2, 200*us), Socket: sample(Socket, 1800, 1, 80*us)},
		{TCP: sample(TCP, 1000, 1), Socket: sample(Socket, 1200, 1)},
	}
	r, err := Analyze(rounds)
	if err != nil {
		t.Fatal(err)
	}
	tcp, sock := r.Transports[0], r.Transports[1]
	if tcp.Queries != 5000 || tcp.Seconds != 4 || tcp.QPS != 1250 {
		t.Errorf("tcp pooled %+v, want 5000 queries in 4 s = 1250/s", tcp)
	}
	if sock.QPS != 4100.0/3 {
		t.Errorf("socket qps %v", sock.QPS)
	}
	if tcp.Latency == nil || tcp.Latency.P50 != 200 || tcp.MeanUS != 200 {
		t.Errorf("tcp latency %+v mean %v, want p50 200 µs", tcp.Latency, tcp.MeanUS)
	}
	// Ratios 1.1, 1.2, 1.2: median 1.2, each round favours the socket.
	want := []float64{1.1, 1.2, 1.2}
	for i := range want {
		if math.Abs(r.RoundRatios[i]-want[i]) > 1e-9 {
			t.Fatalf("ratios %v, want %v", r.RoundRatios, want)
		}
	}
	if math.Abs(r.Ratio.Estimate-1.2) > 1e-9 || r.Verdict != SocketFaster {
		t.Errorf("ratio %+v verdict %q", r.Ratio, r.Verdict)
	}
	if !strings.HasPrefix(r.VerdictLine(), "socket faster: +20.0% queries/s (95% CI +10.0% to +20.0%)") {
		t.Errorf("verdict line %q", r.VerdictLine())
	}
}

func TestRenderFormats(t *testing.T) {
	rounds := []Round{
		{TCP: sample(TCP, 1000, 1, 100*time.Microsecond), Socket: sample(Socket, 990, 1, 101*time.Microsecond)},
		{TCP: sample(TCP, 1000, 1, 100*time.Microsecond), Socket: sample(Socket, 1010, 1, 99*time.Microsecond)},
	}
	r, err := Analyze(rounds)
	if err != nil {
		t.Fatal(err)
	}
	r.Workload, r.Mode, r.Conns, r.Client = "lookup-small", Prepared, 1, "pgx"
	// A pgbench-style transport: no quantiles.
	r.Transports[1].Latency = nil

	var text bytes.Buffer
	if err := r.Render(&text, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"uds-migrate bench: lookup-small, 1 connection, -M prepared, pgx client",
		"tcp            1000.0      100.0      100.0      100.0      100.0",
		"socket         1000.0        n/a        n/a        n/a      100.0",
		"verdict: no measurable difference (socket +0.0% queries/s",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}

	var js bytes.Buffer
	if err := r.Render(&js, "json"); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("json does not read back: %v\n%s", err, js.String())
	}
	if back.Verdict != NoDifference || len(back.RoundRatios) != 2 || back.Transports[0].Latency.P99 != 100 {
		t.Errorf("json round trip lost data: %+v", back)
	}

	var md bytes.Buffer
	if err := r.Render(&md, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| socket | `` | 1000.0 | n/a | n/a | n/a |") {
		t.Errorf("markdown table:\n%s", md.String())
	}
	if err := r.Render(&md, "yaml"); err == nil {
		t.Error("format yaml accepted")
	}
}
