package dockere2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tagServices tags every image the project's services run with the test
// image of its role.
func (p *project) tagServices(ctx context.Context, t *testing.T) map[string]composeService {
	t.Helper()
	services, err := p.services(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range services {
		if s.Image != "" && !set(s.Build) {
			if err := tagImage(roleOf(s.Image), s.Image); err != nil {
				t.Fatal(err)
			}
		}
	}
	return services
}

// tool runs the built uds-migrate in the project folder with the project's
// name, so its docker compose calls land in the project the cleanup removes.
func (p *project) tool(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	cmd := exec.CommandContext(ctx, env.tool, args...)
	cmd.Dir = p.dir
	cmd.Env = append(os.Environ(), "COMPOSE_PROJECT_NAME="+p.name)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	return o.String(), e.String(), err
}

// TestBenchCompose runs `bench --compose` for real on the migrated example:
// the sidecar from the database's own image reaches the server over TCP
// (service name) and over the socket volume.
func TestBenchCompose(t *testing.T) {
	needEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := newProject(t, toolProject(t, "examples/spring-postgres", []string{}))
	p.tagServices(ctx, t)
	out, errOut, err := p.tool(ctx, "bench", "--compose", "compose.yml", "--rounds", "4", "--duration", "2s", "--warmup", "1s")
	t.Logf("uds-migrate bench --compose compose.yml --rounds 4 --duration 2s --warmup 1s:\n%s%s", out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"compose service postgres (postgres:13.15)", "/var/run/postgresql/.s.PGSQL.5432 (volume postgres-socket)", "pgbench"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(out+errOut, "change-me") {
		t.Error("the report shows the password")
	}
}

// TestSmokeCompose runs `migrate --smoke --smoke-target compose` on the
// example: every migrated value connects, then lookup-small runs in the
// compose project.
func TestSmokeCompose(t *testing.T) {
	needEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	// The input as it is: the smoke run migrates it (-w) itself.
	p := newProject(t, toolProject(t, "examples/spring-postgres"))
	p.tagServices(ctx, t)
	out, errOut, err := p.tool(ctx, "--smoke", "--smoke-target", "compose", "--smoke-duration", "10s", "-w", "compose.yml")
	t.Logf("uds-migrate --smoke --smoke-target compose --smoke-duration 10s -w compose.yml:\n%s%s", out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut, "compose") {
		t.Errorf("smoke report does not name the compose target")
	}
	// Issue 25: the run uses a compose project of its own and takes it
	// down; the project's own (named after its folder) is never started.
	// The file the run read is outside the project.
	out2, err := run(ctx, p.dir, "docker", "ps", "-a", "--format", "{{.Label \"com.docker.compose.project\"}}")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range strings.Fields(string(out2)) {
		if name == filepath.Base(p.dir) || strings.HasPrefix(name, "uds-smoke-") {
			t.Errorf("a container of compose project %s is left after --smoke", name)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(p.dir, ".uds-smoke-*")); len(left) > 0 {
		t.Errorf("--smoke left %v in the project", left)
	}
}

// TestBenchComposeJDBC runs `bench --compose --client jdbc` on the migrated
// example: one JVM (pgjdbc + junixsocket) in a container from the Java
// service's image reaches the database over the compose network and over
// the socket volume, with the URL uds-migrate wrote. Short rounds: it
// proves the path, scripts/bench-headlines.sh measures.
func TestBenchComposeJDBC(t *testing.T) {
	needEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := newProject(t, toolProject(t, "examples/spring-postgres", []string{}))
	p.tagServices(ctx, t)
	args := []string{"bench", "--compose", "compose.yml", "--client", "jdbc", "--rounds", "2", "--duration", "1s", "--warmup", "1s", "--format", "json"}
	out, errOut, err := p.tool(ctx, args...)
	t.Logf("uds-migrate %s:\n%s%s", strings.Join(args, " "), out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Target  string `json:"target"`
		Clients []struct {
			Client     string `json:"client"`
			Transports []struct {
				Transport string `json:"transport"`
				Endpoint  string `json:"endpoint"`
				Queries   int64  `json:"queries"`
				Latency   *struct {
					P50 float64 `json:"p50Us"`
				} `json:"latency"`
			} `json:"transports"`
		} `json:"clients"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Target, "jdbc from registry.example/simulator/measure:1.1.0") || len(rep.Clients) != 1 || rep.Clients[0].Client != "jdbc" {
		t.Fatalf("report %+v", rep)
	}
	for _, ts := range rep.Clients[0].Transports {
		if ts.Queries < 100 || ts.Latency == nil || ts.Latency.P50 <= 0 {
			t.Errorf("%s: %d queries, latency %+v", ts.Transport, ts.Queries, ts.Latency)
		}
	}
	if ep := rep.Clients[0].Transports[1].Endpoint; !strings.Contains(ep, "/var/run/postgresql/.s.PGSQL.5432 (volume postgres-socket)") {
		t.Errorf("socket endpoint %q", ep)
	}
	if strings.Contains(out+errOut, "change-me") {
		t.Error("the report shows the password")
	}
	// The JVM's container is gone (docker compose run --rm).
	if ps, _ := p.compose(ctx, "ps", "-a", "-q", "uds-bench-jdbc"); strings.TrimSpace(string(ps)) != "" {
		t.Errorf("JDBC sidecar left behind: %s", ps)
	}
}

// TestBenchHTTPCompose runs `bench http --compose` on seed 004 as migrated
// (golden nginx-unicorn): nginx from the proxy's image in a sidecar, to the
// app over the compose network and over the socket volume, the app being
// the bench backend (testdata/seed004.engine.yml), whose transport header
// proves each front reached it the way it claims. Short rounds: it proves
// the path, scripts/bench-headlines.sh measures.
func TestBenchHTTPCompose(t *testing.T) {
	needEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p := newProject(t, goldenProject(t, "nginx-unicorn", false))
	if _, err := run(ctx, "", "env", "CGO_ENABLED=0", "go", "build", "-o", filepath.Join(p.dir, "httpapp"), "./httpapp"); err != nil {
		t.Fatal(err)
	}
	ov, err := os.ReadFile("testdata/seed004.engine.yml")
	if err != nil {
		t.Fatal(err)
	}
	ov = []byte(regexp.MustCompile(`\$\{UDS_ENGINE_TAG[^}]*\}`).ReplaceAllString(string(ov), env.tag))
	writeFile(t, filepath.Join(p.dir, overrideName), ov)
	args := []string{"bench", "http", "--compose", "compose.yaml", "--compose", overrideName, "--rounds", "2", "--duration", "500ms", "--warmup", "500ms", "--format", "json"}
	out, errOut, err := p.tool(ctx, args...)
	t.Logf("uds-migrate %s:\n%s%s", strings.Join(args, " "), out, errOut)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Target, Proxy, TCP, Socket string
		Transports                 []struct {
			Transport string
			Requests  int64
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rep.Target, "rproxy's image uds-migrate/nginx:") || !strings.HasPrefix(rep.Proxy, "nginx/") ||
		!strings.Contains(rep.TCP, "→ nginx → app:8080") || !strings.Contains(rep.Socket, "→ nginx → unix:/run/app/app.sock (volume app-socket)") {
		t.Errorf("report %+v", rep)
	}
	for _, ts := range rep.Transports {
		if ts.Requests < 100 {
			t.Errorf("%s: %d requests", ts.Transport, ts.Requests)
		}
	}
	if ps, _ := p.compose(ctx, "ps", "-a", "-q", "uds-bench-proxy"); strings.TrimSpace(string(ps)) != "" {
		t.Errorf("proxy sidecar left behind: %s", ps)
	}
}
