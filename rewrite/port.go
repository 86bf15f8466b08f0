package rewrite

import (
	"strings"

	"github.com/compose-spec/compose-go/v2/types"
)

// serverPort finds the port PostgreSQL listens on inside its container: the
// last of `-p N`, `--port=N`, `-c port=N` in command or entrypoint (later
// settings win in postgres' own argument parsing), else PGPORT, else 5432.
// The host side of `ports:` is irrelevant to a socket.
func serverPort(svc types.ServiceConfig) int {
	port := 0
	words := commandWords(svc)
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		var v string
		switch {
		case w == "-p" || w == "--port":
			v = next
		case strings.HasPrefix(w, "--port="):
			v = strings.TrimPrefix(w, "--port=")
		case strings.HasPrefix(w, "-p") && len(w) > 2 && !strings.HasPrefix(w, "--"):
			v = w[2:]
		case w == "-c" || w == "--set":
			v = settingValue(next, "port")
		case strings.HasPrefix(w, "-c"):
			v = settingValue(w[2:], "port")
		case strings.HasPrefix(w, "--port"):
			v = settingValue(strings.TrimPrefix(w, "--"), "port")
		}
		if n, ok := atoiPort(strings.Trim(v, `'"`)); ok {
			port = n
		}
	}
	if port != 0 {
		return port
	}
	if v, ok := svc.Environment["PGPORT"]; ok && v != nil {
		if n, ok := atoiPort(*v); ok {
			return n
		}
	}
	return 5432
}

// settingValue returns the value of "name=value" when the setting is name.
func settingValue(s, name string) string {
	k, v, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(k) != name {
		return ""
	}
	return strings.TrimSpace(v)
}

// socketDirSetting returns the first directory of unix_socket_directories
// when the command sets it (-c unix_socket_directories=/a,/b or -k /a):
// Postgres creates its socket in each, so sharing the first is enough.
func socketDirSetting(svc types.ServiceConfig) string {
	words := commandWords(svc)
	dir := ""
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		var v string
		switch {
		case w == "-k":
			v = next
		case w == "-c" || w == "--set":
			v = settingValue(next, "unix_socket_directories")
		case strings.HasPrefix(w, "-c"):
			v = settingValue(w[2:], "unix_socket_directories")
		case strings.HasPrefix(w, "--unix_socket_directories="):
			v = strings.TrimPrefix(w, "--unix_socket_directories=")
		}
		v = strings.Trim(v, `'"`)
		if first, _, _ := strings.Cut(v, ","); strings.HasPrefix(strings.TrimSpace(first), "/") {
			dir = strings.TrimSpace(first)
		}
	}
	return dir
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

// bitnamiPort reads the Bitnami image's own port variable.
func bitnamiPort(svc types.ServiceConfig) (int, bool) {
	if v, ok := svc.Environment["POSTGRESQL_PORT_NUMBER"]; ok && v != nil {
		return atoiPort(*v)
	}
	return 0, false
}

// commandWords splits entrypoint and command into words: a shell-form
// command ("sh -c 'postgres -p 5433'") arrives as one argument.
func commandWords(svc types.ServiceConfig) []string {
	var words []string
	for _, a := range append(append([]string{}, svc.Entrypoint...), svc.Command...) {
		words = append(words, strings.Fields(a)...)
	}
	return words
}
