package pgserver

import (
	"strconv"
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// Port finds the port PostgreSQL listens on inside its container from
// the command line and PGPORT (see commandSettings), else 5432. The host side
// of `ports:` is irrelevant to a socket.
func Port(svc types.ServiceConfig) int {
	if n, ok := ParsePort(CommandSettings(CommandWords(svc))["port"]); ok {
		return n
	}
	if n, ok := EnvPort(svc); ok {
		return n
	}
	return 5432
}

// EnvPort reads PGPORT, which postgres takes as the default of its port
// setting (below postgresql.conf and the command line).
func EnvPort(svc types.ServiceConfig) (int, bool) {
	if v, ok := svc.Environment["PGPORT"]; ok && v != nil {
		return ParsePort(*v)
	}
	return 0, false
}

// SocketsDisabled reports whether the last unix_socket_directories setting
// on the command line is empty (-c unix_socket_directories= or ”): the
// server then creates no Unix socket at all (PostgreSQL docs,
// runtime-config-connection: "An empty value specifies not listening on
// any Unix-domain sockets").
func SocketsDisabled(svc types.ServiceConfig) bool {
	words := CommandWords(svc)
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

// ImagePort reads an image's own port variable (the catalogue's port_env:
// Bitnami's POSTGRESQL_PORT_NUMBER, which its scripts write into
// postgresql.conf). PGPORT, which postgres reads itself, is serverPort's.
func ImagePort(svc types.ServiceConfig, key string) (int, bool) {
	if key == "" || key == "PGPORT" {
		return 0, false
	}
	if v, ok := svc.Environment[key]; ok && v != nil {
		return ParsePort(*v)
	}
	return 0, false
}

// CommandWords lists entrypoint and command as postgres would see them:
// exec-form words as they are, and the script of a shell wrapper
// ("sh -c 'exec postgres -p 5433'", one argument) split at blanks.
func CommandWords(svc types.ServiceConfig) []string {
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

// ParsePort reads a TCP port number (1-65535), spaces around it allowed.
func ParsePort(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > 65535 {
		return 0, false
	}
	return n, true
}
