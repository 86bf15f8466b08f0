package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ShowSetting runs `postgres -D DataDir -C name args...` as the server's
// account and returns the value postgres resolves for the setting name from
// its configuration files, the environment env ("KEY=value", added to the
// child's) and the command-line args: the server's own answer to "which
// value wins". postgres -C may run beside the live server (PostgreSQL docs,
// "postgres": -C prints a run-time parameter and exits). The error holds
// postgres' stderr.
func (s *Server) ShowSetting(ctx context.Context, name string, env []string, args ...string) (string, error) {
	as, err := lookupRunAs()
	if err != nil {
		return "", err
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.BinDir, "postgres"), append([]string{"-D", s.DataDir, "-C", name}, args...)...)
	cmd.Env = append(childEnv(), env...)
	cmd.Dir = s.Dir
	as.apply(cmd)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("postgres -C %s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// WriteFile writes a file into the server's directory, 0600 and owned by
// the server's account (a postgresql.conf for -c config_file=...), and
// returns its path.
func (s *Server) WriteFile(name string, data []byte) (string, error) {
	as, err := lookupRunAs()
	if err != nil {
		return "", err
	}
	p := filepath.Join(s.Dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if err := as.chown(p); err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	return p, nil
}
