package benchhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uds-migrate/uds-migrate/bench"
)

// tiny is a plan that proves the wiring in well under a second; it
// measures nothing.
var tiny = bench.Plan{Rounds: 2, Duration: 100 * time.Millisecond, Warmup: 20 * time.Millisecond}

// nginxOrSkip returns the system nginx; without it the test skips, except
// in CI (CI set), where .ci/run installs it and a skip would hide a break.
func nginxOrSkip(t *testing.T) string {
	t.Helper()
	bin, err := FindNginx("")
	if err != nil {
		if os.Getenv("CI") != "" && os.Getenv("CI") != "0" && os.Getenv("CI") != "false" {
			t.Fatalf("CI without nginx: %v", err)
		}
		t.Skip("nginx not installed:", err)
	}
	return bin
}

func socketClient(path string) *http.Client {
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", path)
		},
	}}
}

func TestBackendServesBothTransports(t *testing.T) {
	b, err := StartBackend(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(b.SocketPath)
	if err != nil || fi.Mode()&0o666 != 0o666 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket %s: %v %v", b.SocketPath, fi, err)
	}
	for _, tc := range []struct {
		c    *http.Client
		url  string
		want string
	}{
		{http.DefaultClient, "http://" + b.TCPAddr + "/any/path?x=1", "tcp"},
		{socketClient(b.SocketPath), "http://localhost/", "unix"},
	} {
		resp, err := tc.c.Get(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || body.String() != Body || resp.Header.Get(TransportHeader) != tc.want {
			t.Errorf("%s: %s %q %s=%q", tc.url, resp.Status, body.String(), TransportHeader, resp.Header.Get(TransportHeader))
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Dir(b.SocketPath)); !os.IsNotExist(err) {
		t.Errorf("socket directory left behind: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestRenderNginx(t *testing.T) {
	base := NginxConfig{
		Prefix: "/tmp/p", TCPPort: 8001, SocketPort: 8002,
		Backend: "127.0.0.1:9000", BackendSocket: "/tmp/b/app.sock",
	}
	conf, err := RenderNginx(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"listen 127.0.0.1:8001;", "proxy_pass http://127.0.0.1:9000;",
		"listen 127.0.0.1:8002;", "proxy_pass http://unix:/tmp/b/app.sock:/;",
		"pid /tmp/p/nginx.pid;", "daemon off;", "access_log off;",
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("default config lacks %q:\n%s", want, conf)
		}
	}
	// Default proxying: no upstream pool, no HTTP/1.1 upstream, no user.
	for _, bad := range []string{"keepalive", "upstream", "proxy_http_version", "user "} {
		if strings.Contains(conf, bad) {
			t.Errorf("default config has %q:\n%s", bad, conf)
		}
	}

	ka := base
	ka.Keepalive, ka.User = 16, "root"
	conf, err = RenderNginx(ka)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"user root;", "server unix:/tmp/b/app.sock;", "server 127.0.0.1:9000;", "keepalive 16;",
		"proxy_pass http://app_tcp;", "proxy_pass http://app_socket;",
		"proxy_http_version 1.1;", `proxy_set_header Connection "";`,
	} {
		if !strings.Contains(conf, want) {
			t.Errorf("keepalive config lacks %q:\n%s", want, conf)
		}
	}

	for _, bad := range []NginxConfig{
		{Prefix: "/tmp/a b", Backend: "x", BackendSocket: "/s"},
		{Prefix: "/tmp/p", Backend: "x", BackendSocket: "/s;evil"},
		{Prefix: "/tmp/p", Backend: "x", BackendSocket: "/s", Keepalive: -1},
	} {
		if _, err := RenderNginx(bad); err == nil {
			t.Errorf("RenderNginx(%+v): no error", bad)
		}
	}
}

// TestRenderedConfigPassesNginxT runs the system's nginx -t on both
// variants, with real paths.
func TestRenderedConfigPassesNginxT(t *testing.T) {
	bin := nginxOrSkip(t)
	prefix := t.TempDir()
	for _, keepalive := range []int{0, 4} {
		c := NginxConfig{
			Prefix: prefix, TCPPort: 8001, SocketPort: 8002,
			Backend: "127.0.0.1:9000", BackendSocket: filepath.Join(prefix, "app.sock"), Keepalive: keepalive,
		}
		if os.Geteuid() == 0 {
			c.User = "root"
		}
		conf, err := RenderNginx(c)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(prefix, "nginx.conf")
		if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := TestNginxConfig(context.Background(), bin, prefix, path); err != nil {
			t.Errorf("keepalive %d: %v\n%s", keepalive, err, conf)
		}
	}
}

// checkReport asserts what every successful run must give: both
// transports served (every counted request was a 200 with the right body
// and transport header, or the run would have failed) and a ratio with an
// interval around it.
func checkReport(t *testing.T, rep *Report) {
	t.Helper()
	if rep.Rounds != tiny.Rounds || len(rep.Transports) != 2 || len(rep.RoundRatios) != tiny.Rounds {
		t.Fatalf("report %+v", rep)
	}
	for i, want := range []bench.Transport{bench.TCP, bench.Socket} {
		ts := rep.Transports[i]
		if ts.Transport != want || ts.Requests == 0 || ts.RPS <= 0 || !(ts.Latency.P50 > 0) || ts.Endpoint == "" {
			t.Errorf("transport %d: %+v", i, ts)
		}
	}
	r := rep.Ratio
	if r.Level != 0.95 || !(r.Low > 0) || !r.Spans(r.Estimate) || rep.IntervalVerdict != bench.Judge(r) || rep.Verdict != bench.TooFewRounds {
		t.Errorf("ratio %+v verdict %q", r, rep.Verdict)
	}
	for _, format := range bench.Formats {
		var out bytes.Buffer
		if err := rep.Render(&out, format); err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		if format == "json" {
			var back Report
			if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.Ratio != rep.Ratio {
				t.Errorf("json round trip: %v %+v", err, back.Ratio)
			}
			continue
		}
		if !strings.Contains(out.String(), "95% CI") || !strings.Contains(out.String(), "requests/s") {
			t.Errorf("%s report lacks the interval:\n%s", format, out.String())
		}
	}
}

func TestRunEmbeddedNginx(t *testing.T) {
	nginxOrSkip(t)
	for _, keepalive := range []int{0, 2} {
		rep, err := Run(context.Background(), Config{Plan: tiny, Concurrency: 2, Keepalive: keepalive, TempDir: t.TempDir()})
		if err != nil {
			t.Fatalf("keepalive %d: %v", keepalive, err)
		}
		checkReport(t, rep)
		if !strings.HasPrefix(rep.Proxy, "nginx/") || !strings.Contains(rep.Socket, "nginx → unix:") || rep.Note != "" {
			t.Errorf("keepalive %d: proxy %q socket %q note %q", keepalive, rep.Proxy, rep.Socket, rep.Note)
		}
		if keepalive > 0 && !strings.Contains(rep.Upstream, "keepalive 2") {
			t.Errorf("upstream %q", rep.Upstream)
		}
	}
}

func TestRunDirectCountMode(t *testing.T) {
	dir := t.TempDir()
	rep, err := Run(context.Background(), Config{
		Plan: bench.Plan{Rounds: 2, Duration: RunLimit}, Concurrency: 3, Requests: 30, Direct: true, TempDir: dir,
	})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep)
	if rep.Proxy != "" || rep.Note == "" || rep.Transports[0].Requests != 60 || rep.Transports[1].Requests != 60 {
		t.Errorf("proxy %q note %q requests %d/%d", rep.Proxy, rep.Note, rep.Transports[0].Requests, rep.Transports[1].Requests)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind in the temp dir: %v", left)
	}
}

// pair is an "existing app": one handler on a loopback port and a socket,
// counting what each listener served.
func pair(t *testing.T, h http.HandlerFunc) (url, sock string, tcpN, unixN *atomic.Int64) {
	t.Helper()
	tcpN, unixN = new(atomic.Int64), new(atomic.Int64)
	sock = filepath.Join(t.TempDir(), "app.sock")
	for _, l := range []struct {
		network, addr string
		n             *atomic.Int64
	}{{"tcp", "127.0.0.1:0", tcpN}, {"unix", sock, unixN}} {
		ln, err := net.Listen(l.network, l.addr)
		if err != nil {
			t.Fatal(err)
		}
		if l.network == "tcp" {
			url = "http://" + ln.Addr().String() + "/health?x=1"
		}
		n := l.n
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n.Add(1)
			h(w, r)
		})}
		go func() { _ = srv.Serve(ln) }()
		t.Cleanup(func() { srv.Close() })
	}
	return url, sock, tcpN, unixN
}

func TestRunExistingPairDirectly(t *testing.T) {
	var badPath atomic.Int64
	url, sock, tcpN, unixN := pair(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.RequestURI() != "/health?x=1" {
			badPath.Add(1)
		}
		_, _ = w.Write([]byte("ok"))
	})
	rep, err := Run(context.Background(), Config{Plan: tiny, Concurrency: 2, TCPURL: url, SocketPath: sock})
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep)
	if tcpN.Load() < rep.Transports[0].Requests || unixN.Load() < rep.Transports[1].Requests || badPath.Load() != 0 {
		t.Errorf("served tcp %d unix %d (counted %d/%d), wrong path %d",
			tcpN.Load(), unixN.Load(), rep.Transports[0].Requests, rep.Transports[1].Requests, badPath.Load())
	}
	if rep.Target != "existing app, measured directly" || !strings.Contains(rep.Socket, sock) {
		t.Errorf("target %q socket %q", rep.Target, rep.Socket)
	}
}

func TestRunFailsOnErrorAnswers(t *testing.T) {
	url, sock, _, _ := pair(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream gone", http.StatusBadGateway)
	})
	_, err := Run(context.Background(), Config{Plan: tiny, Concurrency: 2, TCPURL: url, SocketPath: sock})
	if err == nil || !strings.Contains(err.Error(), "502 Bad Gateway") || !strings.Contains(err.Error(), "warm-up, tcp") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadRefusesTheWrongTransport(t *testing.T) {
	b, err := StartBackend(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	// The "socket" target is really the TCP listener: a misrouted proxy.
	l := &Load{Concurrency: 1, Targets: map[bench.Transport]Target{
		bench.Socket: {URL: "http://" + b.TCPAddr + "/", WantTransport: "unix"},
	}}
	defer l.Close()
	_, err = l.Run(context.Background(), bench.Socket, 50*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), `answered over "tcp", want "unix"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestRunUsageErrors(t *testing.T) {
	for _, cfg := range []Config{
		{Plan: tiny, Concurrency: 0, Direct: true},
		{Plan: tiny, Concurrency: 1, Requests: -1, Direct: true},
		{Plan: tiny, Concurrency: 1, TCPURL: "http://127.0.0.1:1/"},
		{Plan: tiny, Concurrency: 1, TCPURL: "ftp://x/", SocketPath: "/s"},
		{Plan: bench.Plan{Rounds: 1, Duration: time.Millisecond}, Concurrency: 1, Direct: true},
		{Plan: tiny, Concurrency: 1, Nginx: "/nonexistent/nginx"},
	} {
		if _, err := Run(context.Background(), cfg); err == nil {
			t.Errorf("Run(%+v): no error", cfg)
		}
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Plan: bench.Plan{Rounds: 50, Duration: time.Second}, Concurrency: 2, Direct: true, TempDir: dir})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled run returned no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop within 10 s of cancellation")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
}
