package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestPGXKeywordDSNSocketDir proves, with pgx itself, the form a Go
// service's host field takes once migrated when the code formats it into a
// keyword DSN (fmt.Sprintf("host=%s port=%d ...", cfg.Host, ...), the
// struct-tag env configuration shape: caarlos0/env, envconfig) or sets
// pgconn's Config.Host from it: host=DIR opens DIR/.s.PGSQL.<port>.
func TestPGXKeywordDSNSocketDir(t *testing.T) {
	srv := pgtest.Shared(t)
	alias := t.TempDir() // the client's /var/run/postgresql, for port 5432
	if err := os.Symlink(srv.SocketPath(), filepath.Join(alias, ".s.PGSQL.5432")); err != nil {
		t.Fatal(err)
	}
	user := srv.SuperUser
	if user == "" {
		user = "postgres"
	}
	for _, c := range []struct {
		dir  string
		port int
	}{{alias, 5432}, {srv.SocketDir, srv.Port}} {
		dsn := fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s sslmode=%s", c.dir, c.port, user, srv.SuperPassword, "postgres", "disable")
		// The keyword DSN as written, and a Config whose Host is set after
		// parsing (pgconn Config.Host, the other shape a host field takes).
		cfg, err := pgx.ParseConfig(fmt.Sprintf("port=%d user=%s password=%s dbname=postgres sslmode=disable", c.port, user, srv.SuperPassword))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Host = c.dir
		for _, connect := range []struct {
			name string
			fn   func(context.Context) (*pgx.Conn, error)
		}{
			{"keyword DSN", func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, dsn) }},
			{"Config.Host", func(ctx context.Context) (*pgx.Conn, error) { return pgx.ConnectConfig(ctx, cfg) }},
		} {
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			var socket bool
			var dirs string
			conn, err := connect.fn(ctx)
			if err == nil {
				err = conn.QueryRow(ctx, readerQuery).Scan(&socket, &dirs)
				conn.Close(context.Background())
			}
			cancel()
			if err != nil || !socket {
				t.Errorf("pgx %s host=%s port=%d: socket %v, %v; want a Unix-socket connection", connect.name, c.dir, c.port, socket, err)
			}
		}
	}
}
