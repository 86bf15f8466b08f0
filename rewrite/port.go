package rewrite

import (
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// serverPort finds the port PostgreSQL listens on inside its container from
// the command line and PGPORT (see commandSettings), else 5432. The host side
// of `ports:` is irrelevant to a socket.
func serverPort(svc types.ServiceConfig) int {
	if n, ok := atoiPort(commandSettings(commandWords(svc))["port"]); ok {
		return n
	}
	if n, ok := envPort(svc); ok {
		return n
	}
	return 5432
}

// envPort reads PGPORT, which postgres takes as the default of its port
// setting (below postgresql.conf and the command line).
func envPort(svc types.ServiceConfig) (int, bool) {
	if v, ok := svc.Environment["PGPORT"]; ok && v != nil {
		return atoiPort(*v)
	}
	return 0, false
}

// socketsDisabled reports whether the last unix_socket_directories setting
// on the command line is empty (-c unix_socket_directories= or ”): the
// server then creates no Unix socket at all (PostgreSQL docs,
// runtime-config-connection: "An empty value specifies not listening on
// any Unix-domain sockets").
func socketsDisabled(svc types.ServiceConfig) bool {
	words := commandWords(svc)
	disabled := false
	for i, w := range words {
		if w == "-c" || w == "--set" || w == "-k" {
			if i+1 == len(words) {
				continue
			}
			if w == "-k" {
				disabled = strings.Trim(words[i+1], `'"`) == ""
				continue
			}
			w = words[i+1]
		}
		w = strings.TrimPrefix(strings.TrimPrefix(w, "-c"), "--")
		if k, v, ok := strings.Cut(w, "="); ok && strings.ReplaceAll(k, "-", "_") == "unix_socket_directories" {
			disabled = strings.Trim(strings.TrimSpace(v), `'"`) == ""
		}
	}
	return disabled
}

// imagePort reads an image's own port variable (the catalogue's port_env:
// Bitnami's POSTGRESQL_PORT_NUMBER, which its scripts write into
// postgresql.conf). PGPORT, which postgres reads itself, is serverPort's.
func imagePort(svc types.ServiceConfig, key string) (int, bool) {
	if key == "" || key == "PGPORT" {
		return 0, false
	}
	if v, ok := svc.Environment[key]; ok && v != nil {
		return atoiPort(*v)
	}
	return 0, false
}

// commandWords lists entrypoint and command as postgres would see them:
// exec-form words as they are, and the script of a shell wrapper
// ("sh -c 'exec postgres -p 5433'", one argument) split at blanks.
func commandWords(svc types.ServiceConfig) []string {
	all := append(append([]string{}, svc.Entrypoint...), svc.Command...)
	shell := len(all) > 0 && clientTools[all[0]] && strings.HasSuffix(all[0], "sh")
	var words []string
	for _, a := range all {
		if shell {
			words = append(words, strings.Fields(a)...)
		} else {
			words = append(words, a)
		}
	}
	return words
}
