package e2e

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/lib/pq"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
)

// TestLibPQKeywordDSNSocketDir proves, with lib/pq itself, the reader the
// migration rests on when it writes a socket directory into a host setting
// a Go program formats into a keyword DSN (evidence.FindSetting; ente's
// museum: fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=%s
// sslmode=%s %s", viper.GetString("db.host"), ...), pkg/utils/config
// GetPGInfo): host=DIR opens DIR/.s.PGSQL.<port>, on port 5432 as on the
// server's own, and the empty trailing %s (db.extra unset) does no harm.
func TestLibPQKeywordDSNSocketDir(t *testing.T) {
	srv := pgtest.Shared(t)
	alias := t.TempDir() // the client's /var/run/postgresql, for port 5432
	if err := os.Symlink(srv.SocketPath(), filepath.Join(alias, ".s.PGSQL.5432")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		port int
	}{{alias, 5432}, {srv.SocketDir, srv.Port}} {
		user := srv.SuperUser
		if user == "" {
			user = "postgres"
		}
		dsn := fmt.Sprintf("host=%s port=%d user=%s "+"password=%s dbname=%s sslmode=%s %s", c.dir, c.port, user, srv.SuperPassword, "postgres", "disable", "")
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		var socket bool
		var dirs string
		err = db.QueryRowContext(ctx, readerQuery).Scan(&socket, &dirs)
		cancel()
		db.Close()
		if err != nil || !socket {
			t.Errorf("lib/pq host=%s port=%d: socket %v, %v; want a Unix-socket connection", c.dir, c.port, socket, err)
		}
	}
}
