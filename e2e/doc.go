// Package e2e proves the golden outputs with real drivers: every expected
// compose file under testdata/script (and the samples in e2e/testdata) is
// loaded the way Docker Compose loads it, and every socket-form connection
// string in it is used to connect, with pgx, psql (libpq) or pgjdbc +
// junixsocket, to a throwaway PostgreSQL whose socket stands in for the
// database container's /var/run/postgresql.
//
// It shares no code with the product: the checks here are an independent
// reading of the same facts (shared/FACTS.md), so a bug in the rewriter
// cannot hide itself by being repeated in its own test.
//
// The package holds tests only; this file exists for the documentation.
package e2e
