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

// quiet is a machine with nothing else running.
var quiet = Machine{Cores: 2, LoadBefore: 0.1, LoadAfter: 2}

func TestAnalyzePoolsRoundsAndJudges(t *testing.T) {
	us := time.Microsecond
	rounds := []Round{
		{TCP: sample(TCP, 1000, 1, 100*us, 300*us), Socket: sample(Socket, 1100, 1, 90*us)},
		{TCP: sample(TCP, 3000, 2, 200*us), Socket: sample(Socket, 1800, 1, 80*us)},
		{TCP: sample(TCP, 1000, 1), Socket: sample(Socket, 1200, 1)},
	}
	r, err := Analyze(rounds, quiet, 2)
	if err != nil {
		t.Fatal(err)
	}
	tcp, sock := r.Transports[0], r.Transports[1]
	if tcp.Queries != 5000 || tcp.Seconds != 4 || tcp.QPS != 1250 || tcp.TPS != 625 {
		t.Errorf("tcp pooled %+v, want 5000 queries in 4 s = 1250/s, 625 tps at 2 queries per transaction", tcp)
	}
	if sock.QPS != 4100.0/3 {
		t.Errorf("socket qps %v", sock.QPS)
	}
	if tcp.Latency == nil || tcp.Latency.P50 != 200 || tcp.MeanUS != 200 || tcp.MsPerTransaction != 0.4 {
		t.Errorf("tcp latency %+v mean %v ms/tx %v, want p50 200 µs, 0.4 ms per 2-query transaction", tcp.Latency, tcp.MeanUS, tcp.MsPerTransaction)
	}
	// Ratios 1.1, 1.2, 1.2: median 1.2, each round favours the socket.
	want := []float64{1.1, 1.2, 1.2}
	for i := range want {
		if math.Abs(r.RoundRatios[i]-want[i]) > 1e-9 {
			t.Fatalf("ratios %v, want %v", r.RoundRatios, want)
		}
	}
	if math.Abs(r.Ratio.Estimate-1.2) > 1e-9 || r.IntervalVerdict != SocketFaster {
		t.Errorf("ratio %+v interval verdict %q", r.Ratio, r.IntervalVerdict)
	}
	// The table pools: (4100/3)/1250 = 1.093, not the median's 1.2.
	if math.Abs(r.PooledRatio-4100.0/3/1250) > 1e-9 {
		t.Errorf("pooled ratio %v", r.PooledRatio)
	}
	// Three rounds support no verdict, whatever the interval says.
	if r.Verdict != TooFewRounds || !strings.HasPrefix(r.VerdictLine(), "too few rounds (3 rounds: a verdict needs at least 6); the interval alone says: socket faster: +20.0% queries/s (95% CI +10.0% to +20.0%)") {
		t.Errorf("verdict %q line %q", r.Verdict, r.VerdictLine())
	}
}

// steady returns n rounds whose socket/TCP ratio is ratio with a small,
// fixed wobble.
func steady(n int, ratio float64) []Round {
	var rs []Round
	for i := range n {
		w := 1 + 0.01*float64(i%3-1)
		rs = append(rs, Round{TCP: sample(TCP, 1000, 1), Socket: sample(Socket, int64(1000*ratio*w), 1)})
	}
	return rs
}

func TestVerdictNeedsMinRoundsAndAQuietMachine(t *testing.T) {
	cases := []struct {
		name    string
		rounds  []Round
		m       Machine
		verdict Verdict
		warning string
	}{
		{"enough rounds, quiet", steady(MinRounds, 1.2), quiet, SocketFaster, ""},
		{"too few", steady(MinRounds-1, 1.2), quiet, TooFewRounds, "5 rounds: a verdict needs at least 6"},
		{"busy machine", steady(10, 1.2), Machine{Cores: 2, LoadBefore: 7.5, LoadAfter: 9}, Unreliable, "load average 7.50 above 2 cores before the run"},
		{"unknown load", steady(10, 1.2), Machine{Cores: 2, LoadBefore: -1, LoadAfter: -1}, SocketFaster, ""},
		{"rounds spread", append(steady(4, 1.3), steady(4, 0.8)...), quiet, Unreliable, "paired ratios spread"},
		{"other processes busy", steady(10, 1.2), Machine{Cores: 2, LoadBefore: 0.2, LoadAfter: 1, OtherCores: 0.9}, Unreliable, "other processes used 0.90 cores during the rounds"},
	}
	for _, c := range cases {
		r, err := Analyze(c.rounds, c.m, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Verdict != c.verdict {
			t.Errorf("%s: verdict %q, want %q (%v)", c.name, r.Verdict, c.verdict, r.Warnings)
		}
		got := strings.Join(r.Warnings, "; ")
		if c.warning == "" && got != "" || !strings.Contains(got, c.warning) {
			t.Errorf("%s: warnings %q, want %q", c.name, got, c.warning)
		}
		if c.verdict == Unreliable && !strings.HasPrefix(r.VerdictLine(), "figure unreliable (") {
			t.Errorf("%s: verdict line %q", c.name, r.VerdictLine())
		}
	}
}

func testReport(t *testing.T) *Report {
	t.Helper()
	us := time.Microsecond
	var rounds []Round
	for i := range MinRounds {
		d := time.Duration(i%2) * us
		rounds = append(rounds, Round{TCP: sample(TCP, 1000, 1, 100*us), Socket: sample(Socket, 1000+int64(2*(i%2)-1), 1, 100*us+d)})
	}
	r, err := analyzeClients([]Client{&fakeClient{name: "pgx"}}, [][]Round{rounds}, quiet, 1)
	if err != nil {
		t.Fatal(err)
	}
	r.Workload, r.Mode, r.Conns = "lookup-small", Prepared, 1
	// A pgbench-style transport: no quantiles.
	r.Clients[0].Transports[1].Latency = nil
	return r
}

func TestRenderFormats(t *testing.T) {
	r := testReport(t)
	var text bytes.Buffer
	if err := r.Render(&text, "text"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"uds-migrate bench: lookup-small, 1 connection, -M prepared, client pgx",
		"machine:  load average 0.10 before, 2.00 after, 2 cores",
		"pgx       tcp            1000.0      1000.0      100.0      0.100      100.0      100.0      100.0",
		"pgx       socket         1000.0      1000.0      100.5      0.101        n/a        n/a        n/a",
		"  table (pooled totals):                 1.000 (+0.0%)",
		"  verdict (median of 6 paired round ratios): ",
		"  verdict: no measurable difference (socket ",
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
	c := back.Clients[0]
	if back.Schema != "uds-migrate.bench/v1" || c.Verdict != NoDifference || len(c.RoundRatios) != 6 || c.Transports[0].Latency.P99 != 100 {
		t.Errorf("json round trip lost data: %+v", back)
	}
	for _, key := range []string{`"queriesPerSecond"`, `"transactionsPerSecond"`, `"msPerTransaction"`, `"p50Us"`, `"loadAverageBefore"`, `"pooledRatio"`} {
		if !strings.Contains(js.String(), key) {
			t.Errorf("json lacks %s:\n%s", key, js.String())
		}
	}
	if strings.Contains(js.String(), "_") && strings.Contains(js.String(), `_seconds"`) {
		t.Errorf("json mixes snake_case names:\n%s", js.String())
	}

	var md bytes.Buffer
	if err := r.Render(&md, "markdown"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| pgx | socket | `` | 1000.0 | 1000.0 |      100.5 | 0.101 | n/a | n/a | n/a |") {
		t.Errorf("markdown table:\n%s", md.String())
	}
	if err := r.Render(&md, "yaml"); err == nil {
		t.Error("format yaml accepted")
	}
}

// A client whose socket gain is 10 points below the baseline's in every
// round shows -10 points; the text report says so beside the comparisons.
func TestGainDifferences(t *testing.T) {
	rep, err := analyzeClients([]Client{&fakeClient{name: "pgbench"}, &fakeClient{name: "pgx"}},
		[][]Round{steady(MinRounds, 1.2), steady(MinRounds, 1.1)}, Machine{Cores: 2, LoadBefore: -1, LoadAfter: -1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.GainDifferences) != 1 {
		t.Fatalf("gain differences %+v", rep.GainDifferences)
	}
	g := rep.GainDifferences[0]
	if g.Client != "pgx" || g.Baseline != "pgbench" || len(g.RoundPoints) != MinRounds || math.Abs(g.Points.Estimate+10) > 0.5 || g.Points.Low > g.Points.High {
		t.Errorf("gain difference %+v", g)
	}
	var b bytes.Buffer
	if err := rep.Render(&b, "text"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "pgx's socket gain − pgbench's: -10.0 percentage points") {
		t.Errorf("text report:\n%s", b.String())
	}
}
