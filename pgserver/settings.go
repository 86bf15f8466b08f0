package pgserver

import (
	"strings"
)

// CommandSettings reads the server settings a postgres command line sets,
// the way postgres parses it (src/backend/postmaster/postmaster.c getopt
// loop and guc.c ParseLongOption): `-c name=value`, `-cname=value`,
// `--name=value`, and the short options `-p PORT` and `-k DIR` (also
// glued: `-p5433`). Names are case-insensitive and `-` stands for `_`
// (ParseLongOption), so `--unix-socket-directories=/s` and
// `-c UNIX_SOCKET_DIRECTORIES=/s` both set unix_socket_directories. The
// last setting of a name wins. Keys are normalised names (settingName);
// values lose one level of surrounding quotes a shell would strip.
// Checked with `postgres -C` (PostgreSQL 15; see TestCommandSettingsPostgres).
func CommandSettings(words []string) map[string]string {
	out := map[string]string{}
	set := func(nv string) {
		if k, v, ok := strings.Cut(unquoteWord(nv), "="); ok {
			out[settingName(k)] = unquoteWord(v)
		}
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "-c" || w == "--set":
			set(next)
			i++
		case strings.HasPrefix(w, "--"):
			set(w[2:])
		case w == "-p" || w == "-k":
			out[shortOptions[w[1]]] = unquoteWord(next)
			i++
		case strings.HasPrefix(w, "-c"):
			set(w[2:])
		case len(w) > 2 && (w[1] == 'p' || w[1] == 'k') && w[0] == '-':
			out[shortOptions[w[1]]] = unquoteWord(w[2:])
		}
	}
	return out
}

// shortOptions are the postgres short options that set a setting this
// tool reads (postgres --help: -p PORT, -k DIRECTORY).
var shortOptions = map[byte]string{'p': "port", 'k': "unix_socket_directories"}

// settingName normalises a setting name as postgres looks it up:
// case-insensitive, `-` read as `_`.
func settingName(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_")
}

func unquoteWord(s string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(s), `'"`))
}

// SocketDirList splits a unix_socket_directories value into its absolute
// directories, in order: postgres splits at commas, trims blanks and
// double quotes around each element (SplitDirectoriesString), and creates
// a socket in each. Relative and empty elements are left out.
func SocketDirList(v string) []string {
	var dirs []string
	for _, d := range strings.Split(v, ",") {
		d = strings.Trim(strings.TrimSpace(d), `"`)
		if strings.HasPrefix(d, "/") {
			dirs = append(dirs, d)
		}
	}
	return dirs
}
