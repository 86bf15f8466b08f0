// Package dockere2e runs migrated compose projects on a real Docker engine
// with docker compose v2: each scenario is `docker compose up` on the
// MIGRATED output (a golden's expected files, or the tool's output on an
// example), with a small override that replaces each client's command by
// udsprobe (./probe) reading the migrated variable, and asserts what the
// server saw (user, database, inet_client_addr() IS NULL over the socket).
//
// The images come from scripts/engine.sh (no registry: a debootstrapped
// Debian root file system, cached by a hash of its recipe) and are tagged
// with the names the compose files use (postgres:16, registry.example/...).
// Without an engine the tests skip, unless CI=true: then they fail.
//
// The package holds tests only; this file exists for the documentation.
package dockere2e
