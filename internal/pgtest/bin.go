package pgtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// EnvBinDir names the environment variable that, when set, overrides the
// discovery of the PostgreSQL server binaries: it must name a directory
// holding initdb and postgres.
const EnvBinDir = "PGTEST_BINDIR"

// serverUser is the account the server runs as when the caller is root:
// initdb and postgres both refuse to run as root, and Debian's postgresql
// package creates this account.
const serverUser = "postgres"

// Available reports whether Start can work on this machine: nil when the
// server binaries (initdb, postgres) are found and, when running as root,
// the "postgres" account exists to run them. Otherwise the error says what
// is missing and how to install it.
func Available() error {
	if _, err := BinDir(); err != nil {
		return err
	}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup(serverUser); err != nil {
			return fmt.Errorf("pgtest: running as root needs the %q account to run initdb and postgres (apt-get install postgresql creates it): %w", serverUser, err)
		}
	}
	return nil
}

// BinDir returns the directory holding the PostgreSQL server binaries, in
// this order: $PGTEST_BINDIR; `pg_config --bindir` when that directory has
// initdb (Debian's pg_config from libpq-dev points at the server's
// directory); the highest-numbered /usr/lib/postgresql/N/bin. The error
// names every place it looked.
func BinDir() (string, error) {
	if dir := os.Getenv(EnvBinDir); dir != "" {
		if err := hasServerBinaries(dir); err != nil {
			return "", fmt.Errorf("pgtest: $%s: %w", EnvBinDir, err)
		}
		return dir, nil
	}
	var tried []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if hasServerBinaries(dir) == nil {
			return dir, nil
		}
		tried = append(tried, dir+" (from pg_config --bindir)")
	} else {
		tried = append(tried, "pg_config (not runnable)")
	}
	for _, dir := range debianBinDirs() {
		if hasServerBinaries(dir) == nil {
			return dir, nil
		}
		tried = append(tried, dir)
	}
	tried = append(tried, "/usr/lib/postgresql/*/bin")
	return "", fmt.Errorf("pgtest: PostgreSQL server binaries (initdb, postgres) not found; looked in %s; install them with `apt-get install postgresql` or set $%s",
		strings.Join(tried, ", "), EnvBinDir)
}

// debianBinDirs lists /usr/lib/postgresql/N/bin, highest major version
// first (numeric order, so 15 sorts above 9.6).
func debianBinDirs() []string {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	version := func(dir string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(dir)), 64)
		return v
	}
	sort.Slice(matches, func(i, j int) bool { return version(matches[i]) > version(matches[j]) })
	return matches
}

func hasServerBinaries(dir string) error {
	var missing []string
	for _, name := range []string{"initdb", "postgres"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil || fi.IsDir() || fi.Mode()&0o111 == 0 {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return errors.New(dir + " lacks " + strings.Join(missing, " and "))
	}
	return nil
}
