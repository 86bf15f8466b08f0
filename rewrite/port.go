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

// bitnamiPort reads the Bitnami image's own port variable.
func bitnamiPort(svc types.ServiceConfig) (int, bool) {
	if v, ok := svc.Environment["POSTGRESQL_PORT_NUMBER"]; ok && v != nil {
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
