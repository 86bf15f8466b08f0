// Package probe connects to PostgreSQL with real client drivers (pgx in
// process, libpq through psql, pgjdbc + junixsocket through a JVM) and
// reports what the server saw, so tests can prove that a rewritten
// connection string reaches the intended database, as the intended user,
// over the Unix socket.
//
// Every probe runs the same query:
//
//	SELECT 1, current_user, current_database(), inet_client_addr() IS NULL
//
// inet_client_addr() is NULL exactly when the session came over a Unix
// socket (PostgreSQL docs, "System Information Functions").
package probe

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Query is the statement every probe runs.
const Query = "SELECT 1, current_user, current_database(), inet_client_addr() IS NULL"

// Result is what the server reported to a probe.
type Result struct {
	// User is current_user, Database is current_database().
	User, Database string
	// OverSocket is inet_client_addr() IS NULL: true for a Unix-socket
	// session, false for TCP.
	OverSocket bool
	// One is the constant 1 the query selects, proving a round trip.
	One int
}

func (r Result) String() string {
	via := "tcp"
	if r.OverSocket {
		via = "socket"
	}
	return fmt.Sprintf("%s@%s via %s (one=%d)", r.User, r.Database, via, r.One)
}

// Pgx connects with github.com/jackc/pgx/v5 in this process. connString is
// anything pgx.ParseConfig accepts (URI or keyword DSN). Note that pgx, like
// libpq, fills unset fields from PG* environment variables. The error is
// pgx's own, wrapped.
func Pgx(ctx context.Context, connString string) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return Result{}, fmt.Errorf("pgx: %w", err)
	}
	defer conn.Close(context.Background())
	var r Result
	if err := conn.QueryRow(ctx, Query).Scan(&r.One, &r.User, &r.Database, &r.OverSocket); err != nil {
		return Result{}, fmt.Errorf("pgx: %w", err)
	}
	return r, nil
}

// Psql runs psql (libpq) with connString as its dbname argument, which libpq
// expands as a URI or keyword DSN. PG* variables are removed from psql's
// environment so that only connString decides where it connects, and -w
// makes a password prompt an error instead of a hang. The error carries
// psql's stderr.
func Psql(ctx context.Context, connString string) (Result, error) {
	psql, err := PsqlPath()
	if err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, psql, "-X", "-w", "-q", "-A", "-t", "-F", "\t",
		"-v", "ON_ERROR_STOP=1", "-d", connString, "-c", Query)
	cmd.Env = append(withoutPGEnv(os.Environ()), "PGCONNECT_TIMEOUT=60")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return Result{}, fmt.Errorf("psql: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	f := strings.Split(strings.TrimRight(string(out), "\n"), "\t")
	if len(f) != 4 {
		return Result{}, fmt.Errorf("psql: unexpected output %q", out)
	}
	return Result{One: atoi(f[0]), User: f[1], Database: f[2], OverSocket: f[3] == "t"}, nil
}

// PsqlPath finds psql on $PATH, else in the highest
// /usr/lib/postgresql/N/bin.
func PsqlPath() (string, error) {
	if p, err := exec.LookPath("psql"); err == nil {
		return p, nil
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/psql")
	if len(m) > 0 {
		return m[len(m)-1], nil
	}
	return "", fmt.Errorf("psql: not found on $PATH or in /usr/lib/postgresql/*/bin (apt-get install postgresql-client)")
}

func withoutPGEnv(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "PG") {
			out = append(out, kv)
		}
	}
	return out
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}
