package pgserver

import (
	"path/filepath"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// clientTools are programs of the postgres image that run as clients.
var clientTools = map[string]bool{"psql": true, "pg_dump": true, "pg_dumpall": true, "pg_restore": true, "pg_isready": true, "pgbench": true, "pg_basebackup": true, "sh": true, "bash": true, "/bin/sh": true, "/bin/bash": true}

// RunsServer reports whether a service on a PostgreSQL image runs the
// server: its own entrypoint and a command that is the server or its flags,
// not a client tool or a shell script.
func RunsServer(svc types.ServiceConfig) bool {
	if ep := svc.Entrypoint; len(ep) > 0 {
		first := filepath.Base(ep[0])
		if shells[first] {
			// entrypoint: [bash, -c] wrapping "... exec docker-entrypoint.sh postgres ..."
			return wrapsServer(strings.Join(append(append([]string{}, ep...), svc.Command...), " "))
		}
		if !strings.Contains(first, "entrypoint") && first != "postgres" {
			return false
		}
	}
	if cmd := svc.Command; len(cmd) > 0 {
		first := cmd[0]
		if clientTools[first] || clientTools[filepath.Base(first)] {
			return wrapsServer(strings.Join(cmd, " "))
		}
	}
	return true
}

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true}

// wrapsServer reports whether a shell command line starts the server
// through the image's entrypoint or postgres itself.
func wrapsServer(text string) bool {
	return strings.Contains(text, "docker-entrypoint") || strings.Contains(text, "exec postgres")
}
