package pgserver

import (
	"fmt"
	"slices"
)

// clientVars are libpq variables that, set on the database service, reach
// the psql of the image's init scripts.
var clientVars = []string{"PGHOST", "PGHOSTADDR"}

// ClientVarProblem returns a message (UDS133) when a database service sets
// PGHOST or PGHOSTADDR, "" for any other key: init scripts
// (/docker-entrypoint-initdb.d/*.sh) that run psql inherit them, while the
// first-start server listens on no TCP address and only in its own socket
// directory (docker-library/postgres#474, #807; the entrypoint clears them
// for its own psql only, PR #808).
func ClientVarProblem(db, key string) string {
	if !slices.Contains(clientVars, key) {
		return ""
	}
	return fmt.Sprintf("%s sets %s, a client setting: init scripts in /docker-entrypoint-initdb.d that run psql inherit it and fail on first start (the temporary server listens on no TCP address, and on its own socket directory only; docker-library/postgres#474, #807); remove %s from the database service", db, key, key)
}
