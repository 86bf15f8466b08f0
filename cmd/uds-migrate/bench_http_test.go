package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/bench"
	"github.com/uds-migrate/uds-migrate/benchhttp"
)

// shortHTTP proves the wiring in well under a second; it measures nothing.
var shortHTTP = []string{"--rounds", "2", "--duration", "100ms", "--warmup", "20ms", "-c", "2"}

func TestBenchHTTPDirect(t *testing.T) {
	code, out, errOut := runBench(t, append([]string{"http"}, append(shortHTTP, "--direct", "--format", "json")...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("stderr not empty: %q", errOut)
	}
	var rep benchhttp.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Concurrency != 2 || rep.Rounds != 2 || len(rep.Transports) != 2 ||
		rep.Transports[0].Requests == 0 || rep.Transports[1].Requests == 0 ||
		rep.Proxy != "" || !strings.Contains(rep.Note, "--direct") {
		t.Errorf("report %+v", rep)
	}
	if rep.IntervalVerdict != bench.Judge(rep.Ratio) || rep.Verdict != bench.TooFewRounds || rep.Schema != benchhttp.Schema || !rep.Ratio.Spans(rep.Ratio.Estimate) {
		t.Errorf("verdict %q ratio %+v", rep.Verdict, rep.Ratio)
	}
}

func TestBenchHTTPNginxText(t *testing.T) {
	if _, err := benchhttp.FindNginx(""); err != nil {
		t.Skip("nginx not installed (benchhttp's tests fail on that in CI):", err)
	}
	code, out, errOut := runBench(t, append([]string{"http"}, append(shortHTTP, "--keepalive", "2")...)...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"nginx/", "→ nginx → unix:", "upstream keepalive 2", "socket/TCP requests/s ratio:", "95% CI", "verdict: "} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBenchHTTPUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"extra"}, "takes no arguments"},
		{[]string{"--format", "xml"}, `--format "xml"`},
		{[]string{"--rounds", "1"}, "--rounds ≥ 2"},
		{[]string{"--duration", "0s"}, "--duration > 0"},
		{[]string{"-c", "0"}, "--concurrency ≥ 1"},
		{[]string{"--keepalive", "-1"}, "--keepalive ≥ 0"},
		{[]string{"-n", "100", "--duration", "1s"}, "choose one"},
		{[]string{"--tcp", "http://127.0.0.1:1/"}, "--tcp and --socket go together"},
		{[]string{"--socket", "/tmp/x.sock"}, "--tcp and --socket go together"},
		{[]string{"--tcp", "127.0.0.1:1", "--socket", "/tmp/x.sock"}, "want an http:// URL"},
		{[]string{"--tcp", "http://127.0.0.1:1/", "--socket", "/tmp/x.sock", "--keepalive", "4"}, "applies to the embedded target"},
		{[]string{"--direct", "--keepalive", "4"}, "--direct measures no proxy"},
		{[]string{"--nginx", "/nonexistent/nginx"}, "--nginx"},
		{[]string{"--no-such-flag"}, "flag provided but not defined"},
		{[]string{"--compose", "compose.yml", "--tcp", "http://127.0.0.1:1/", "--socket", "/tmp/x.sock"}, "--compose and --tcp are different targets"},
		{[]string{"--compose", "compose.yml", "--direct"}, "--compose and --direct are different targets"},
		{[]string{"--app-tcp", "app:8080"}, "--app-tcp goes with --compose"},
		{[]string{"--service", "rproxy"}, "--service goes with --compose"},
		{[]string{"--compose", "compose.yml", "--path", "health"}, `--path "health": want an absolute path`},
	} {
		code, out, errOut := runBench(t, append([]string{"http"}, tc.args...)...)
		if code != exitError || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q (want %q)", tc.args, code, out, errOut, tc.want)
		}
	}
}

// The database bench keeps answering to `bench` without a subcommand, and
// lists http in its help.
func TestBenchHelpListsHTTP(t *testing.T) {
	code, out, errOut := runBench(t, "--help")
	if code != 0 || !strings.Contains(out, "http     measure HTTP through nginx") || !strings.Contains(out, "--workload") {
		t.Errorf("exit %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = runBench(t, "stray")
	if code != exitError || !strings.Contains(errOut, `bench takes no arguments, got "stray"`) {
		t.Errorf("bench stray: exit %d, %q", code, errOut)
	}
}
