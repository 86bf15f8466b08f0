package dockere2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"
)

// project is a compose project on disk, ready for docker compose.
type project struct {
	dir, name string
}

// goldenProject writes a golden archive's migrated state into dir: its
// input files, then each want/X over X (want/stderr and want/stdout are
// the tool's messages, not files). input=true keeps the input instead.
func goldenProject(t *testing.T, name string, input bool) string {
	t.Helper()
	found, _ := filepath.Glob(filepath.Join("../../testdata/script", "*", name+".txtar"))
	if len(found) != 1 {
		t.Fatalf("golden %s: found %v in testdata/script/*/", name, found)
	}
	ar, err := txtar.ParseFile(found[0])
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var wantCompose bool
	for _, pass := range []bool{false, true} {
		for _, f := range ar.Files {
			rel, isWant := strings.CutPrefix(f.Name, "want/")
			if isWant != pass || isWant && (input || rel == "stderr" || rel == "stdout") {
				continue
			}
			wantCompose = wantCompose || isWant && (rel == "compose.yml" || rel == "compose.yaml")
			writeFile(t, filepath.Join(dir, rel), f.Data)
		}
	}
	if !input && !wantCompose {
		t.Fatalf("%s has no want/compose.yml or compose.yaml", name)
	}
	return dir
}

// toolProject copies srcDir's compose.yml through the built tool with args
// (e.g. none: migrate; then "revert") into a new directory.
func toolProject(t *testing.T, srcDir string, steps ...[]string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", srcDir, "compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "compose.yml"), data)
	for _, args := range steps {
		out, err := run(context.Background(), dir, env.tool, append(args, "compose.yml")...)
		if err != nil {
			t.Fatalf("uds-migrate %v: %v", args, err)
		}
		writeFile(t, filepath.Join(dir, "compose.yml"), out)
	}
	return dir
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

var nonName = regexp.MustCompile(`[^a-z0-9_-]+`)

func newProject(t *testing.T, dir string) *project {
	p := &project{dir: dir, name: "udsm-" + nonName.ReplaceAllString(strings.ToLower(t.Name()), "-")}
	t.Cleanup(func() { p.compose(context.Background(), "down", "-v", "--remove-orphans", "-t", "3") })
	return p
}

// file is the project's compose file: compose.yaml, else compose.yml.
func (p *project) file() string {
	if _, err := os.Stat(filepath.Join(p.dir, "compose.yaml")); err == nil {
		return "compose.yaml"
	}
	return "compose.yml"
}

// compose runs docker compose on the project with the test override.
func (p *project) compose(ctx context.Context, args ...string) ([]byte, error) {
	base := []string{"compose", "-p", p.name, "-f", p.file()}
	if _, err := os.Stat(filepath.Join(p.dir, overrideName)); err == nil {
		base = append(base, "-f", overrideName)
	}
	return run(ctx, p.dir, "docker", append(base, args...)...)
}

// services is what `docker compose config` makes of the project: each
// service's image, and whether it is built.
func (p *project) services(ctx context.Context) (map[string]composeService, error) {
	out, err := run(ctx, p.dir, "docker", "compose", "-p", p.name, "-f", p.file(), "config", "--format", "json")
	if err != nil {
		return nil, err
	}
	var cfg struct {
		Services map[string]composeService `json:"services"`
	}
	if err := json.Unmarshal(out, &cfg); err != nil {
		return nil, err
	}
	return cfg.Services, nil
}

type composeService struct {
	Image string          `json:"image"`
	Build json.RawMessage `json:"build"`
	Ports json.RawMessage `json:"ports"`
}

// set reports whether a raw field is present.
func set(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }

var (
	bitnamiImage  = regexp.MustCompile(`(^|/)bitnami/postgresql(:|@|$)`)
	postgresImage = regexp.MustCompile(`(^|/)(postgres|postgis|timescaledb[a-z0-9-]*)(:|@|$)`)
	nginxImage    = regexp.MustCompile(`(^|/)nginx(:|@|$)`)
)

// roleOf is the test image standing in for image.
func roleOf(image string) string {
	switch {
	case bitnamiImage.MatchString(image):
		return "bitnami"
	case postgresImage.MatchString(image):
		return "postgres"
	case nginxImage.MatchString(image):
		return "nginx"
	}
	return "client"
}

// logs returns a service's output.
func (p *project) logs(ctx context.Context, service string) string {
	out, _ := p.compose(ctx, "logs", "--no-log-prefix", "--no-color", service)
	return string(out)
}

// mounts returns "destination=rw|ro" for each mount of service's container.
func (p *project) mounts(ctx context.Context, service string) ([]string, error) {
	id, err := p.compose(ctx, "ps", "-a", "-q", service)
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, "", "docker", "inspect", "-f", "{{json .Mounts}}", strings.TrimSpace(string(id)))
	if err != nil {
		return nil, err
	}
	var ms []struct {
		Destination string
		RW          bool
	}
	if err := json.Unmarshal(out, &ms); err != nil {
		return nil, err
	}
	var r []string
	for _, m := range ms {
		r = append(r, m.Destination+"="+map[bool]string{true: "rw", false: "ro"}[m.RW])
	}
	sort.Strings(r)
	return r, nil
}

// waitExit waits until every service has exited.
func (p *project) waitExit(ctx context.Context, services []string) error {
	for _, s := range services {
		for {
			out, err := p.compose(ctx, "ps", "-a", "--format", "{{.State}}", s)
			if err != nil {
				return err
			}
			if st := strings.TrimSpace(string(out)); st == "exited" || st == "dead" {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s still running: %w", s, ctx.Err())
			case <-time.After(time.Second):
			}
		}
	}
	return nil
}
