package bench

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// pgbench 15's summary for a -T run, as printed on this machine.
const pgbench15Output = `pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: /tmp/lookup-small.sql
scaling factor: 1
query mode: prepared
number of clients: 1
number of threads: 1
maximum number of tries: 1
duration: 2 s
number of transactions actually processed: 4321
number of failed transactions: 0 (0.000%)
latency average = 0.462 ms
initial connection time = 3.106 ms
tps = 2160.512345 (without initial connection time)
`

func TestParsePgbench(t *testing.T) {
	r, err := ParsePgbench([]byte(pgbench15Output))
	if err != nil {
		t.Fatal(err)
	}
	want := PgbenchResult{Transactions: 4321, LatencyMS: 0.462, TPS: 2160.512345}
	if r != want {
		t.Errorf("got %+v, want %+v", r, want)
	}
	failed := strings.Replace(pgbench15Output, "failed transactions: 0", "failed transactions: 3", 1)
	if _, err := ParsePgbench([]byte(failed)); err == nil {
		t.Error("failed transactions accepted")
	}
	if _, err := ParsePgbench([]byte("pgbench: error: connection refused\n")); err == nil ||
		!strings.Contains(err.Error(), "connection refused") {
		t.Errorf("missing summary: %v", err)
	}
}

func TestPgbenchArgsAndSample(t *testing.T) {
	s, _ := ParseScript("x.sql", "SELECT 1;\nSELECT 2;\n")
	c := &PgbenchClient{
		ScriptPath: "/s/x.sql", Script: s, Defines: map[string]int64{"rows": 100, "b": 2},
		Conns: 2, Mode: Extended,
		Conn: func(t Transport) []string { return []string{"-h", string(t)} },
	}
	got := c.Args(Socket, 1500*time.Millisecond)
	want := []string{"-n", "-M", "extended", "-c", "2", "-j", "2", "-T", "2", "-D", "b=2", "-D", "rows=100", "-f", "/s/x.sql", "-h", "socket"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("args\n%q\nwant\n%q", got, want)
	}
}

func TestPgbenchRunCountsQueriesPerTransaction(t *testing.T) {
	s, _ := ParseScript("x.sql", "SELECT 1;\nSELECT 2;\n")
	c := &PgbenchClient{
		ScriptPath: "x.sql", Script: s, Conns: 1, Mode: Prepared,
		Conn: func(Transport) []string { return nil },
		Exec: func(_ context.Context, _ Transport, _ []string) ([]byte, error) { return []byte(pgbench15Output), nil },
	}
	got, err := c.Run(context.Background(), TCP, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	// 4321 transactions of 2 queries at 2160.5 tps: 8642 queries, 4321.0/s,
	// 0.231 ms per query.
	if got.Queries != 8642 || math.Abs(got.QPS()-2*2160.512345) > 0.01 || got.MeanLatency != 231*time.Microsecond || got.Latencies != nil {
		t.Errorf("sample %+v (qps %v)", got, got.QPS())
	}
}
