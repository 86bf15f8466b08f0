package rewrite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/compose"
)

// Pathological shapes (issue 25, Medium 5), one benchmark each, up to the
// limit that bounds them (README, "Security and limits"): environment
// variables in the compose file and in an env file (compose.MaxEnvVars per
// service), nginx server blocks (nginx.MaxDirectives per file; linear, so
// 20,000 are shown). Each run is a whole Migrate: load, plan, apply and
// the verification. Past the limits, TestLimitsRefused.
//
//	go test ./rewrite -run '^$' -bench 'BenchmarkEnvKeys|BenchmarkNginxServers' -benchtime 3x

// shapeProject writes files into a new directory and returns the compose
// file as an Input.
func shapeProject(b *testing.B, files map[string]string) []Input {
	b.Helper()
	dir := b.TempDir()
	for name, data := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	p := filepath.Join(dir, "compose.yml")
	return []Input{{Path: p, Data: []byte(files["compose.yml"])}}
}

func envKeysCompose(n int) string {
	var b strings.Builder
	b.WriteString("services:\n  db:\n    image: postgres:16\n  app:\n    image: x/app\n    environment:\n")
	for i := range n {
		fmt.Fprintf(&b, "      K%d: v%d\n", i, i)
	}
	b.WriteString("      PG_DSN: host=db port=5432 dbname=app\n")
	return b.String()
}

func envFileKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "K%d=v%d\n", i, i)
	}
	b.WriteString("PG_DSN=host=db port=5432 dbname=app\n")
	return b.String()
}

func nginxServers(n int) string {
	var b strings.Builder
	b.WriteString("events {}\nhttp {\n")
	for i := range n {
		fmt.Fprintf(&b, " server {\n  listen %d;\n  location / { proxy_pass http://app:8000; }\n }\n", 10000+i)
	}
	b.WriteString("}\n")
	return b.String()
}

const nginxCompose = "services:\n  web:\n    image: nginx:1.27\n    volumes:\n      - ./nginx.conf:/etc/nginx/nginx.conf:ro\n  app:\n    image: x/app\n    command: gunicorn -b 0.0.0.0:8000 app:app\n"

func benchShape(b *testing.B, in []Input) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Migrate(context.Background(), in, DefaultOptions())
		if err != nil || !res.Changed() {
			b.Fatalf("migrate: %v (changed: %v)", err, res != nil && res.Changed())
		}
	}
}

func BenchmarkEnvKeys(b *testing.B) {
	for _, n := range []int{100, compose.MaxEnvVars - 1} {
		b.Run(fmt.Sprintf("compose/%d", n), func(b *testing.B) {
			benchShape(b, shapeProject(b, map[string]string{"compose.yml": envKeysCompose(n)}))
		})
		b.Run(fmt.Sprintf("env_file/%d", n), func(b *testing.B) {
			benchShape(b, shapeProject(b, map[string]string{
				"compose.yml": "services:\n  db:\n    image: postgres:16\n  app:\n    image: x/app\n    env_file: app.env\n",
				"app.env":     envFileKeys(n)}))
		})
	}
}

func BenchmarkNginxServers(b *testing.B) {
	for _, n := range []int{100, 2000, 20000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			benchShape(b, shapeProject(b, map[string]string{"compose.yml": nginxCompose, "nginx.conf": nginxServers(n)}))
		})
	}
}

// TestLimitsRefused: one environment variable past compose.MaxEnvVars, in the
// compose file or with an env file, is an error naming the service, before
// or right after compose-go's load; compose.MaxEnvVars itself migrates.
func TestLimitsRefused(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	ok := []Input{{Path: filepath.Join(dir, "ok.yml"), Data: []byte(envKeysCompose(compose.MaxEnvVars - 1))}}
	if _, err := Migrate(ctx, ok, DefaultOptions()); err != nil {
		t.Fatalf("%d variables: %v", compose.MaxEnvVars, err)
	}
	over := []Input{{Path: filepath.Join(dir, "over.yml"), Data: []byte(envKeysCompose(compose.MaxEnvVars))}}
	_, err := Migrate(ctx, over, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "over.yml:6:5: service app has 2001 environment variables, more than the 2000") {
		t.Errorf("%d variables in the compose file: %v", compose.MaxEnvVars+1, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "app.env"), []byte(envFileKeys(compose.MaxEnvVars)), 0o644); err != nil {
		t.Fatal(err)
	}
	withFile := []Input{{Path: filepath.Join(dir, "file.yml"), Data: []byte("services:\n  db:\n    image: postgres:16\n  app:\n    image: x/app\n    env_file: app.env\n")}}
	_, err = Migrate(ctx, withFile, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "file.yml:6:5: ") || !strings.Contains(err.Error(), "service app has 2001 environment variables with its env files") {
		t.Errorf("%d variables in an env file: %v", compose.MaxEnvVars+1, err)
	}
}
