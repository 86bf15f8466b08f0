package dockere2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

// discoveryCase is a folder layout and a command line: docker compose and
// uds-migrate, run in dir with the same flags and environment, must load
// the same project.
type discoveryCase struct {
	name  string
	files map[string]string // path → content; a service name per file
	dir   string            // working directory, relative to the layout
	args  []string          // -f, --project-directory, --env-file
	env   []string          // COMPOSE_* variables
}

// svc is a compose file with one service of that name.
func svc(name string) string { return "services:\n  " + name + ":\n    image: alpine:3\n" }

var discoveryCases = []discoveryCase{
	{name: "docker-compose.yml before .yaml", files: map[string]string{"docker-compose.yaml": svc("dc_yaml"), "docker-compose.yml": svc("dc_yml")}},
	{name: "compose.yaml before compose.yml and docker-compose.*", files: map[string]string{"compose.yaml": svc("c_yaml"), "compose.yml": svc("c_yml"), "docker-compose.yml": svc("dc_yml")}},
	{name: "override of another name", files: map[string]string{"compose.yaml": svc("base"), "docker-compose.override.yml": svc("over")}},
	{name: "override .yml before .yaml", files: map[string]string{"compose.yml": svc("base"), "compose.override.yaml": svc("o_yaml"), "compose.override.yml": svc("o_yml")}},
	{name: "parent folder", files: map[string]string{"compose.yml": svc("root"), "compose.override.yml": svc("root_over"), "app/web/index.html": ""}, dir: "app/web"},
	{name: "nearest folder wins", files: map[string]string{"compose.yml": svc("root"), "app/compose.yml": svc("app"), "app/web/index.html": ""}, dir: "app/web"},
	{name: "--project-directory without -f", files: map[string]string{"compose.yml": svc("here"), "proj/compose.yaml": svc("proj"), "proj/compose.override.yaml": svc("proj_over")}, args: []string{"--project-directory", "proj"}},
	{name: "--project-directory walks up", files: map[string]string{"compose.yml": svc("root"), "proj/sub/x.txt": ""}, args: []string{"--project-directory", "proj/sub"}},
	{name: "-f files in order", files: map[string]string{"compose.yml": svc("default"), "a.yml": svc("a"), "b.yml": svc("b")}, args: []string{"-f", "b.yml", "-f", "a.yml"}},
	{name: "COMPOSE_FILE", files: map[string]string{"compose.yml": svc("default"), "a.yml": svc("a"), "b.yml": svc("b")}, env: []string{"COMPOSE_FILE=a.yml:b.yml"}},
	{name: "COMPOSE_PATH_SEPARATOR", files: map[string]string{"compose.yml": svc("default"), "a.yml": svc("a"), "b.yml": svc("b")}, env: []string{"COMPOSE_FILE=a.yml,b.yml", "COMPOSE_PATH_SEPARATOR=,"}},
	{name: "COMPOSE_FILE in .env", files: map[string]string{"compose.yml": svc("default"), "a.yml": svc("a"), ".env": "COMPOSE_FILE=a.yml\n"}},
	{name: "COMPOSE_ENV_FILES sets COMPOSE_FILE", files: map[string]string{"compose.yml": svc("default"), "ci.yml": svc("ci"), "ci.env": "COMPOSE_FILE=ci.yml\n", ".env": "COMPOSE_FILE=compose.yml\n"}, env: []string{"COMPOSE_ENV_FILES=ci.env"}},
	{name: "--env-file sets COMPOSE_FILE", files: map[string]string{"compose.yml": svc("default"), "ci.yml": svc("ci"), "ci.env": "COMPOSE_FILE=ci.yml\n"}, args: []string{"--env-file", "ci.env"}},
	{name: "--env-file wins over COMPOSE_ENV_FILES", files: map[string]string{"compose.yml": svc("default"), "a.yml": svc("a"), "b.yml": svc("b"), "a.env": "COMPOSE_FILE=a.yml\n", "b.env": "COMPOSE_FILE=b.yml\n"}, args: []string{"--env-file", "a.env"}, env: []string{"COMPOSE_ENV_FILES=b.env"}},
}

// TestDiscoveryMatchesCompose (issue #23 point 4): for each layout, the
// services `docker compose config --services` lists are the services of
// the files uds-migrate loads (plan --format json, files[].path), run in
// the same folder with the same flags and COMPOSE_* environment. Each
// file defines services of its own, so the lists name the files chosen.
func TestDiscoveryMatchesCompose(t *testing.T) {
	needEngine(t)
	for _, c := range discoveryCases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			root := t.TempDir()
			for p, data := range c.files {
				writeFile(t, filepath.Join(root, p), []byte(data))
			}
			dir := filepath.Join(root, c.dir)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out, err := runEnv(ctx, dir, c.env, "docker", append(append([]string{"compose"}, c.args...), "config", "--services")...)
			if err != nil {
				t.Fatal(err)
			}
			want := strings.Fields(string(out))
			slices.Sort(want)
			plan, err := runEnv(ctx, dir, c.env, env.tool, append([]string{"plan", "--format", "json"}, c.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct{ Files []struct{ Path string } }
			if err := json.Unmarshal(plan, &doc); err != nil {
				t.Fatalf("plan --format json: %v\n%s", err, plan)
			}
			var got, paths []string
			for _, f := range doc.Files {
				paths = append(paths, f.Path)
				p := f.Path
				if !filepath.IsAbs(p) {
					p = filepath.Join(dir, p)
				}
				got = append(got, servicesOf(t, p)...)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("docker compose %v (env %v) in %s loads services %v; uds-migrate loads %v from %v", c.args, c.env, c.dir, want, got, paths)
			}
		})
	}
}

// servicesOf lists the services a compose file defines.
func servicesOf(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct{ Services map[string]any }
	if err := yaml.Unmarshal(data, &f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	for name := range f.Services {
		out = append(out, name)
	}
	return out
}

// runEnv is run with the COMPOSE_* variables of this process replaced by
// vars, so the case alone decides what compose reads.
func runEnv(ctx context.Context, dir string, vars []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COMPOSE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, vars...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), &runError{name + " " + strings.Join(args, " "), err, tail(stderr.String(), 15)}
	}
	return stdout.Bytes(), nil
}

type runError struct {
	cmd    string
	err    error
	stderr string
}

func (e *runError) Error() string { return e.cmd + ": " + e.err.Error() + ": " + e.stderr }
