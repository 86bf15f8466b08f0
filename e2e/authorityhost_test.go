package e2e

import (
	"context"
	"testing"

	"github.com/uds-migrate/uds-migrate/internal/pgtest"
	"github.com/uds-migrate/uds-migrate/internal/probe"
	"github.com/uds-migrate/uds-migrate/libpq"
)

// TestAuthorityHostSocket proves the fact behind the catalogue's uri_host
// (libpq.WithAuthorityHost): in postgresql://u@localhost/db?host=/dir the
// ?host= parameter overrides the authority host, so libpq (psql) and pgx
// connect over the socket in /dir, not over TCP to localhost (the probe
// reports the transport the session used).
func TestAuthorityHostSocket(t *testing.T) {
	srv := pgtest.Shared(t)
	ctx := context.Background()
	sock, _, err := libpq.URIToSocket("postgresql://postgres@db:5432/postgres", srv.SocketDir, srv.Port)
	if err != nil {
		t.Fatal(err)
	}
	uri, err := libpq.WithAuthorityHost(sock, "localhost")
	if err != nil || uri == sock {
		t.Fatalf("WithAuthorityHost(%q) = %q, %v; want localhost written", sock, uri, err)
	}
	for name, connect := range map[string]func(context.Context, string) (probe.Result, error){"psql": probe.Psql, "pgx": probe.Pgx} {
		r, err := connect(ctx, uri)
		if err != nil || !r.OverSocket {
			t.Errorf("%s %q: %v %v, want a socket connection", name, uri, r, err)
		}
	}
}
