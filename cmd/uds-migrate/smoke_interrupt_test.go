package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestSmokeInterrupted (issue 25, Medium 8): Ctrl-C during --smoke with
// the compose target, while the benchmark waits for the database, is
// reported as an interruption (exit 130), after the run's compose project
// is taken down (down -v) and its temporary files removed; before, it
// said "cannot connect through the migrated socket path" and exited 2. A
// fake docker records the calls and never answers pg_isready.
func TestSmokeInterrupted(t *testing.T) {
	if err := pgtest.Available(); err != nil {
		if pgtest.Required() {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	dir := t.TempDir()
	proj, bin, tmp := filepath.Join(dir, "proj"), filepath.Join(dir, "bin"), filepath.Join(dir, "tmp")
	for _, d := range []string{proj, bin, tmp} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	log := filepath.Join(dir, "docker.log")
	writeFile := func(p, data string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(filepath.Join(bin, "docker"), "#!/bin/sh\necho \"$*\" >> '"+log+"'\ncase \" $* \" in *\" pg_isready \"*) exec sleep 60;; esac\n", 0o755)
	writeFile(filepath.Join(proj, "compose.yml"), "services:\n  app:\n    image: example/app:1\n    environment:\n      DATABASE_URL: postgres://app:Int3rPw@db:5432/app\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_USER: app\n      POSTGRES_PASSWORD: Int3rPw\n", 0o644)

	cmd := exec.Command("uds-migrate", "--consumer", "app/DATABASE_URL=empty", "--smoke", "--smoke-target", "compose", "--smoke-duration", "5s", "compose.yml")
	cmd.Dir = proj
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+tmp)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if b, _ := os.ReadFile(log); bytes.Contains(b, []byte(" pg_isready ")) {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("uds-migrate ended before the benchmark waited for the database: %v\n%s", err, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the benchmark never asked for the database:\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatalf("no exit a minute after Ctrl-C:\n%s", stderr.String())
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v, want status 130", err)
	}
	if !strings.Contains(stderr.String(), "--smoke: interrupted (interrupt)") || strings.Contains(stderr.String(), "cannot connect") {
		t.Errorf("stderr:\n%s\nwant the interruption, not a connection failure", stderr.String())
	}
	if strings.Contains(stderr.String(), "Int3rPw") {
		t.Error("stderr shows the password")
	}
	calls, _ := os.ReadFile(log)
	if !regexp.MustCompile(`(?m)^compose -p uds-smoke-[0-9a-f]{8} .* down -v --remove-orphans -t 5$`).Match(calls) {
		t.Errorf("the run's compose project was not taken down; docker calls:\n%s", calls)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "uds-smoke-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(proj, ".uds-smoke-*")); len(left) > 0 {
		t.Errorf("files left in the project: %v", left)
	}
}
