package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// short flags: a run that proves the wiring in about a second, not a
// measurement.
var short = []string{"--rounds", "2", "--duration", "150ms", "--warmup", "50ms"}

func runBench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(append([]string{"uds-migrate", "bench"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestBenchEmbeddedDefaultTarget(t *testing.T) {
	if err := pgtest.Available(); err != nil {
		if pgtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	plot := t.TempDir() + "/bench.svg"
	code, out, errOut := runBench(t, append(short, "--format", "json", "-M", "extended", "--plot", plot)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	// Not a terminal: no progress bar, a plain line per run (2 warm-up
	// runs, 2 rounds of 2), then the too-few-rounds warning (and the
	// busy-machine ones, on a busy machine).
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) < 7 || !strings.HasPrefix(lines[0], "bench: 1/6 warm-up tcp: ") ||
		!strings.HasPrefix(lines[5], "bench: 6/6 round 2/2 tcp: ") || !strings.HasSuffix(lines[5], " queries/s") ||
		lines[6] != "uds-migrate bench: WARNING: pgx: 2 rounds: a verdict needs at least 6" {
		t.Errorf("stderr:\n%s", errOut)
	}
	var rep bench.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rep.Clients) != 1 {
		t.Fatalf("report %+v", rep)
	}
	c := rep.Clients[0]
	if rep.Schema != bench.Schema || !strings.HasPrefix(rep.Target, "embedded PostgreSQL") || rep.Workload != "lookup-small" ||
		rep.Mode != bench.Extended || rep.Rounds != 2 || len(c.Transports) != 2 ||
		c.Transports[1].Transport != bench.Socket || c.Transports[1].Queries == 0 || rep.Machine.Cores < 1 {
		t.Errorf("report %+v", rep)
	}
	if svg, err := os.ReadFile(plot); err != nil || !strings.Contains(string(svg), "<svg") {
		t.Errorf("--plot: %v", err)
	}
	if c.Verdict != bench.TooFewRounds || !c.Ratio.Spans(c.Ratio.Estimate) {
		t.Errorf("verdict %q ratio %+v", c.Verdict, c.Ratio)
	}
}

func TestBenchExistingServerMasksPassword(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	const pw = "cli-s3cret-pw"
	if err := srv.EnsureRole(ctx, "cli_bench", pw); err != nil {
		t.Fatal(err)
	}
	if err := srv.EnsureDatabase(ctx, "cli_bench", "cli_bench"); err != nil {
		t.Fatal(err)
	}
	dsn := srv.TCPDSN("cli_bench", "cli_bench")
	code, out, errOut := runBench(t, append(short, "--tcp", dsn, "--socket-dir", srv.SocketDir, "--format", "markdown")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if strings.Contains(out+errOut, pw) {
		t.Errorf("password in output:\n%s%s", out, errOut)
	}
	for _, want := range []string{"Target: existing server postgres://cli_bench:****@127.0.0.1:", "| pgx | socket | `" + srv.SocketPath()} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}

	// A wrong password fails with exit 2, the message masked.
	bad := strings.Replace(dsn, pw, "wrong-pw-123", 1)
	code, out, errOut = runBench(t, append(short, "--tcp", bad, "--socket-dir", srv.SocketDir)...)
	if code != 2 || out != "" || !strings.Contains(errOut, "password authentication failed") || strings.Contains(errOut, "wrong-pw-123") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

func TestBenchUsageErrors(t *testing.T) {
	cases := map[string][]string{
		"--format":        {"--format", "yaml"},
		"-M":              {"-M", "fast"},
		"--workload":      {"--workload", "nope"},
		"--rounds":        {"--rounds", "1"},
		"--socket-dir":    {"--tcp", "postgres://u:pw@h/d"},
		"no arguments":    {"extra"},
		"no such file":    {"--workload", "/nonexistent/x.sql"},
		"--rows at least": {"--rows", "5"},
		"unknown client":  {"--client", "pgx,odbc"},
		"--plot":          {"--plot", "x.pdf"},
	}
	for want, args := range cases {
		code, out, errOut := runBench(t, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, strings.Fields(want)[0]) {
			t.Errorf("bench %q: exit %d, stdout %q, stderr %q (want exit 2 mentioning %q)", args, code, out, errOut, want)
		}
	}
}
