// Package compose is a docker compose project as written and as meant:
// Load reads the -f files as yaml.v3 sources (positions, for edits) and
// through compose-go (interpolation, merges, profiles, includes), checks
// the files they name (file refs, symbolic links out of the project), and
// turns compose-go's errors into file:line:col. A Project answers the
// questions every later stage asks of the files: services in file order
// and where each is written, environment variables where their effective
// value is written (environment:, env_file:, extends, .env references),
// mounts as written, which service a host name reaches from a client as
// Docker's DNS answers it (Resolve), where a variable is used (VarUses),
// and the passwords to keep out of every message (Secrets, Scrub).
//
// It knows compose, not PostgreSQL: what a value means to a driver is the
// business of the packages that read it.
package compose
