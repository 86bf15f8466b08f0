package dockere2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// env is what TestMain found: the image cache tag and the built tool, or
// why the engine tests cannot run.
var env struct {
	skip  string // non-empty: no engine, and CI is unset
	tag   string // uds-migrate/<role>:<tag> (scripts/engine.sh images)
	tool  string // the uds-migrate binary built from this tree
	mu    sync.Mutex
	named map[string]bool // image names tagged for the scenarios, untagged at the end
}

func TestMain(m *testing.M) {
	code, err := setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, "engine tests:", err)
		os.Exit(1)
	}
	if code >= 0 {
		os.Exit(code)
	}
	code = m.Run()
	untagAll()
	os.RemoveAll(filepath.Dir(env.tool))
	os.Exit(code)
}

// required reports whether a missing engine is a failure (CI=true).
func required() bool { return os.Getenv("CI") == "true" }

// setup finds the engine and docker compose, builds the images and the
// tool. It returns -1 to run the tests; otherwise an exit code.
func setup() (int, error) {
	dir, err := os.MkdirTemp("", "uds-engine-tool")
	if err != nil {
		return 1, err
	}
	env.tool = filepath.Join(dir, "uds-migrate")
	if _, err := run(context.Background(), "", "go", "build", "-o", env.tool, "../../cmd/uds-migrate"); err != nil {
		return 1, err
	}
	env.named = map[string]bool{}
	if why := engineMissing(); why != "" {
		if required() {
			return 1, fmt.Errorf("CI=true and %s; run `bash scripts/engine.sh up` first", why)
		}
		env.skip = why + " (bash scripts/engine.sh up, as root, installs and starts one)"
		return -1, nil
	}
	out, err := run(context.Background(), "", "bash", "../../scripts/engine.sh", "images")
	if err != nil {
		if required() {
			return 1, fmt.Errorf("building the images: %v", err)
		}
		// An engine without root or debootstrap: say so, as for no engine.
		env.skip = fmt.Sprintf("cannot build the test images (as root: bash scripts/engine.sh up): %v", err)
		return -1, nil
	}
	lines := strings.Fields(string(out))
	env.tag = lines[len(lines)-1]
	return -1, nil
}

// engineMissing says why the tests cannot run, or "" when a Docker engine
// and docker compose v2 answer.
func engineMissing() string {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := run(ctx, "", "docker", "info"); err != nil {
		return "no Docker engine answers `docker info`"
	}
	if _, err := run(ctx, "", "docker", "compose", "version"); err != nil {
		return "`docker compose` (v2 plugin) is missing"
	}
	return ""
}

func needEngine(t *testing.T) {
	t.Helper()
	if env.skip != "" {
		t.Skip(env.skip)
	}
}

// run runs a command in dir and returns its stdout; the error carries the
// tail of stderr.
func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, tail(stderr.String(), 15))
	}
	return stdout.Bytes(), nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tagImage gives image (a name a compose file uses) the test image of role.
func tagImage(role, image string) error {
	env.mu.Lock()
	defer env.mu.Unlock()
	if _, err := run(context.Background(), "", "docker", "tag", "uds-migrate/"+role+":"+env.tag, image); err != nil {
		return err
	}
	env.named[image] = true
	return nil
}

// untagAll removes the names tagImage added: the images stay only under
// their cache tag.
func untagAll() {
	for name := range env.named {
		run(context.Background(), "", "docker", "rmi", name)
	}
}
