package e2e

import (
	"context"
	"path"
	"strconv"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// TestHostShapes proves the facts behind validate's UDS204 and UDS215 with
// libpq (psql) and pgx: a host naming the socket FILE fails with "Not a
// directory", a relative directory is read as a TCP host name, and the
// directory the migration writes instead (libpq.DSNToSocket on the file's
// directory) connects over the socket.
func TestHostShapes(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	port := strconv.Itoa(srv.Port)
	file := srv.SocketPath()
	fileDSN := "host=" + file + " port=" + port + " dbname=postgres user=postgres sslmode=require"

	if _, err := probe.Psql(ctx, fileDSN); err == nil || !strings.Contains(err.Error(), "Not a directory") {
		t.Errorf("psql with the socket file as host: %v, want \"Not a directory\"", err)
	}
	rel := "host=." + srv.SocketDir + " port=" + port + " dbname=postgres user=postgres"
	if _, err := probe.Psql(ctx, rel); err == nil || !strings.Contains(err.Error(), "could not translate host name") {
		t.Errorf("psql with a relative host: %v, want \"could not translate host name\"", err)
	}

	fixed, _, err := libpq.DSNToSocket(fileDSN, path.Dir(file), srv.Port)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fixed, "sslmode=disable") {
		t.Errorf("repaired DSN %q keeps a TLS mode", fixed)
	}
	for name, connect := range map[string]func(context.Context, string) (probe.Result, error){"psql": probe.Psql, "pgx": probe.Pgx} {
		r, err := connect(ctx, fixed)
		if err != nil || !r.OverSocket {
			t.Errorf("%s %q: %v %v, want a socket connection", name, fixed, r, err)
		}
	}
}
