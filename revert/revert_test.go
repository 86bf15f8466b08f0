package revert

import (
	"testing"

	"github.com/uds-migrate/uds-migrate/dialect"
)

// TestSocketPort: the TCP form keeps the port the socket value connects
// to, which a pooler named with --db (listening on 6432 where the compose
// file shows no port) makes differ from the server's.
func TestSocketPort(t *testing.T) {
	for _, c := range []struct {
		val  string
		want int
	}{
		{"postgres://app@/app?host=/var/run/postgresql-pgbouncer&port=6432", 6432},
		{"host=/var/run/postgresql port=6432 dbname=app", 6432},
		{"jdbc:postgresql://localhost:5432/app?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/var/run/postgresql/.s.PGSQL.5433", 5433},
		{"postgres://app@/app?host=/var/run/postgresql", 5555}, // no port written: the server's
	} {
		_, name, socket := dialect.Classify(c.val)
		if !socket {
			t.Fatalf("%s is not in socket form", c.val)
		}
		if got := socketPort(c.val, name, 5555); got != c.want {
			t.Errorf("socketPort(%s) = %d, want %d", c.val, got, c.want)
		}
	}
}
