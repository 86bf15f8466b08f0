package evidence

import (
	"regexp"
	"strconv"
	"strings"
)

// pasteReader: code or configuration that reaches the container pastes
// the variable into a URL as HOST:PORT, so a socket directory there gives
// postgresql://USER:PASSWORD@/var/run/postgresql:5432/DB, which URL
// readers take as an empty host and a database named
// "var/run/postgresql:5432/DB" (SQLAlchemy 1.4.46 make_url and psycopg2's
// parse_dsn, that is libpq, checked). Indico's indico.conf, a Python file bind-mounted
// into the container, builds
// f'postgresql://{os.environ["PGUSER"]}:...@{os.environ["PGHOST"]}:5432/...'
// beside the libpq tools that also read PGHOST; FastAPI-boilerplate's
// settings paste {POSTGRES_SERVER}:{POSTGRES_PORT}. The shapes, per
// language, in any program or configuration file:
//   - a placeholder that reads the variable, then ':' and a port (digits or
//     another placeholder): f-strings and str.format fields, JS and shell
//     ${...}, Ruby #{...}, Jinja {{ ... }}, ERB <%= ... %>, shell $X;
//   - a format string whose HOST:PORT verbs follow '@' or '//' ("...@%s:%s/..."
//     with % (...), .format(...), Sprintf/format/sprintf arguments, "{}:{}"),
//     when the argument in the host's place reads the variable;
//   - concatenation: X + ":" + port, PHP X . ':' . $port, net.JoinHostPort(X, ...).
//
// The variable is read as written ($X, os.environ["X"], process.env.X,
// settings.X, self.x: pydantic fields ignore case), or through a name
// assigned from it in the same file (host = os.getenv("X")). A line that
// only prints or logs (print, console.log, logger.info, echo) builds no
// connection. In shell scripts the pair must be inside a URL (after '@' or
// '//'): a bare "$X:$PORT" there is a wait's argument, which the TCP-wait
// reader judges, and a user's --host-var may override it.
//
// Its verdicts are Pasted: no reader of that text takes a directory,
// whoever vouches for the variable.
var pasteReader = reader{
	match: func(rel string) bool { return pasteFile(rel) && !scriptFile(rel) },
	find:  func(data []byte, key string, _ map[string]string) (Verdict, bool) { return pasted(data, key, false) },
}

// pasteScriptReader is pasteReader for shell scripts and Dockerfiles: only
// a pair inside a URL counts.
var pasteScriptReader = reader{
	match: scriptFile,
	find:  func(data []byte, key string, _ map[string]string) (Verdict, bool) { return pasted(data, key, true) },
}

// pasteFile reports whether rel is a program or configuration file whose
// text may build a connection URL: source code of the languages the
// readers know, templates, and configuration formats (indico.conf is
// Python; settings.py, config.ru, *.ini, *.toml ...).
func pasteFile(rel string) bool {
	return hasExt(strings.ToLower(rel), ".py", ".conf", ".cfg", ".ini", ".cnf", ".rb", ".erb", ".ru", ".rake", ".js", ".mjs", ".cjs",
		".ts", ".mts", ".cts", ".jsx", ".tsx", ".php", ".go", ".ex", ".exs", ".java", ".kt", ".kts", ".groovy", ".scala", ".rs", ".cs",
		".yml", ".yaml", ".toml", ".json", ".properties", ".xml", ".j2", ".jinja", ".jinja2", ".tmpl", ".tpl", ".template", ".lua", ".pl", ".cr")
}

// pasted returns the verdict of the first line of data that pastes key
// into a URL or HOST:PORT text; urlOnly asks for the URL shapes only.
func pasted(data []byte, key string, urlOnly bool) (Verdict, bool) {
	ref := pasteRef(data, key)
	line, hostOnly, ok := pastedLine(data, ref, urlOnly)
	if !ok {
		return Verdict{}, false
	}
	reason := key + " is pasted into a URL as HOST:PORT, where a socket directory gives @/var/run/postgresql:5432/DB, which URL readers take as an empty host and a database named var/run/postgresql:5432/DB (SQLAlchemy, libpq), so no socket form of the variable works there"
	if hostOnly {
		reason = key + " is pasted into a URL as its host (@HOST/DB), where a socket directory gives @/var/run/postgresql/DB, which URL readers take as an empty host and a database named var/run/postgresql/DB (libpq, tokio-postgres, SQLAlchemy), so no socket form of the variable works there"
	}
	return Verdict{Directory: false, Pasted: true, Driver: "a URL built from it", Line: line,
		Reason: reason,
		Advice: "build that URL in the socket form its reader takes (for libpq, psycopg, SQLAlchemy or pgx: postgresql://USER:PASSWORD@/DB?host=" + SocketDirWord + ") in place of " + map[bool]string{false: "HOST:PORT", true: "@HOST/DB"}[hostOnly] + " and mount the database's socket volume by hand"}, true
}

// SocketDirWord stands for the mount path in Advice texts; hostvar puts
// the real directory in its place.
const SocketDirWord = "SOCKET_DIR"

// pasteRef is the pattern of a reading of key in data: the name itself
// as a word ($X, os.environ["X"], process.env.X, settings.X), an
// attribute of any case (self.postgres_server, a pydantic field), or a
// name assigned from a reading of it in the same file.
func pasteRef(data []byte, key string) string {
	q := regexp.QuoteMeta(key)
	alts := []string{`\b` + q + `\b`, `\.(?i:` + q + `)\b`}
	for _, name := range aliases(data, envReadRE(q), anyAssign) {
		if name != key {
			alts = append(alts, `\b`+regexp.QuoteMeta(name)+`\b`)
		}
	}
	return `(?:` + strings.Join(alts, `|`) + `)`
}

// envReadRE matches a reading of the variable named by pattern name in
// the languages the readers know: Python's os.environ/os.getenv and the
// settings helpers (env("X"), config("X")), Ruby's ENV, PHP's getenv and
// $_ENV, Go's os.Getenv, Java's System.getenv, Node's process.env.
func envReadRE(name string) string {
	return `(?:` + pyEnvReadRE(name) + `|(?:getenv|Getenv|ENV\.fetch|env)\(\s*["']` + name + `["']|(?:ENV|\$_ENV|\$_SERVER)\[\s*["']` + name + `["']|process\.env(?:\.` + name + `\b|\[\s*["']` + name + `["'])|System\.getenv\(\s*"` + name + `")`
}

// anyAssign is an assignment's left side in the languages the readers
// know (x = ..., const x = ..., x := ..., x: str = ..., $x = ...).
const anyAssign = `(?:^|\b(?:const|let|var)\s)\s*\$?([A-Za-z_][\w]*)\s*(?::\s*[\w.\[\]| ]+?\s*)?(?::=|=)`

// placeholder is a template field, any language: {...} (f-strings,
// str.format), ${...} (JS, shell), #{...} (Ruby), {{ ... }} (Jinja, Go
// templates), <%= ... %> (ERB).
const placeholderOpen, placeholderBody = `(?:\{\{?|<%=)`, `[^{}%\n]*`

// portAfter is what follows HOST in a pasted pair: ':' and a port, as
// digits, a template field, a shell variable or a format verb.
const portAfter = `:(?:[0-9]{2,5}\b|#?\{|<%=|\$\{?[A-Za-z_]|%[sdv])`

// portTokenRE is the port of a pair, matched from its ':' on: a field up
// to its end, a variable, a verb or digits. What follows it tells a
// HOST:PORT pair from USER:PASSWORD@.
var portTokenRE = regexp.MustCompile(`^:(?:[0-9]+|#?\{\{?[^{}\n]*\}\}?|<%=[^%\n]*%>|\$\{[^}\n]*\}|\$[A-Za-z_]\w*|%[sdv])`)

// outputLineRE marks a line that prints or logs: what it pastes is a
// message, not a connection.
var outputLineRE = regexp.MustCompile(`(?i)\b(?:print|println|printf|puts|echo|log|logger|logging|console\.\w+|warn|info|debug)\b\s*[.(]|\blog\.\w+\(|^\s*echo\b`)

// pastedLine returns the 1-based line of the first paste of ref in data;
// hostOnly says it is a URL's host with no port beside it (ChirpStack's
// chirpstack.toml: dsn="postgres://u:p@$POSTGRESQL_HOST/chirpstack?...",
// or @${X}?..., @{x}/db, @$X at the string's end).
func pastedLine(data []byte, ref string, urlOnly bool) (line int, hostOnly, ok bool) {
	field := placeholderOpen + placeholderBody + ref + placeholderBody + `(?:\}\}?|%>)`
	shellVar := `\$\{?` + ref + `[^}\s"':/@?]*\}?`
	pair := `(?:` + field + `|` + shellVar + `)` + portAfter
	if urlOnly {
		pair = `(?:@|//)` + pair
	}
	// The authority's host alone: after '@', up to the path, the query,
	// the fragment or the string's end.
	host := `@(?:` + field + `|` + shellVar + `)(?:[/?#"'\x60]|\s|$)`
	concat := ref + `[\w"'\])]*\s*[+.]\s*["'\x60]:|JoinHostPort\(\s*[^,\n]*` + ref
	pairRE, concatRE, hostRE := Compiled(pair), Compiled(concat), Compiled(host)
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if commentLineRE.MatchString(l) || outputLineRE.MatchString(l) {
			continue
		}
		if hostPortPair(l, pairRE) || !urlOnly && concatRE.MatchString(l) {
			return i + 1, false, true
		}
		if formatHostArg(lines, i, ref) {
			return i + 1, false, true
		}
		if hostRE.MatchString(l) {
			return i + 1, true, true
		}
	}
	return 0, false, false
}

// hostPortPair reports whether pairRE matches l at a HOST:PORT pair, not
// at a URL's USER:PASSWORD@ (a pair directly followed by '@').
func hostPortPair(l string, pairRE *regexp.Regexp) bool {
	for _, m := range pairRE.FindAllStringIndex(l, -1) {
		colon := strings.LastIndexByte(l[m[0]:m[1]], ':') + m[0]
		tok := portTokenRE.FindString(l[colon:])
		if rest := l[colon+len(tok):]; !strings.HasPrefix(rest, "@") {
			return true
		}
	}
	return false
}

// commentLineRE matches a whole-line comment (#, //, /* and its * lines, --).
var commentLineRE = regexp.MustCompile(`^\s*(?:#|//|/\*|\*|--|;)`)

// hostVerbRE finds a HOST:PORT pair of format verbs in a string literal:
// %s / %v (printf families, Python %), {} or {N} (str.format, Rust,
// .NET), {name} (str.format keywords), with the port a verb or digits.
var hostVerbRE = regexp.MustCompile(`(?:@|//)(%[sdvq]|\{\w*\})\s*:\s*(?:%[sdv]|\{\w*\}|[0-9]{2,5}\b)`)

// verbRE counts the verbs of a format string (%% is none).
var verbRE = regexp.MustCompile(`%%|%[-+# 0-9.]*[sdvqfx]|\{\w*\}`)

// stringLitRE finds string literals on a line.
var stringLitRE = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\x60[^\x60\n]*\x60`)

// formatHostArg reports whether line i of lines holds a format string
// with a HOST:PORT verb pair whose host argument reads ref: the arguments
// after the literal (% (...), .format(...), , a, b ...), read over the
// next lines too, up to the call's end.
func formatHostArg(lines []string, i int, ref string) bool {
	l := lines[i]
	for _, lit := range stringLitRE.FindAllStringIndex(l, -1) {
		s := l[lit[0]+1 : lit[1]-1]
		if lit[0] > 0 && strings.ContainsAny(l[lit[0]-1:lit[0]], "fF") {
			continue // an f-string: its fields are read as placeholders
		}
		m := hostVerbRE.FindStringSubmatchIndex(s)
		if m == nil {
			continue
		}
		if s[m[0]] == '/' {
			// //%s:%s@ is user and password, not host and port.
			rest := s[m[1]:]
			if at, slash := strings.IndexByte(rest, '@'), strings.IndexByte(rest, '/'); at >= 0 && (slash < 0 || at < slash) {
				if m2 := hostVerbRE.FindStringSubmatchIndex(rest[at:]); m2 != nil {
					m = []int{m[1] + at + m2[0], m[1] + at + m2[1], m[1] + at + m2[2], m[1] + at + m2[3]}
				} else {
					continue
				}
			}
		}
		verb := s[m[2]:m[3]]
		tail := strings.Join(append([]string{l[lit[1]:]}, lines[i+1:min(len(lines), i+20)]...), "\n")
		args := formatArgs(tail)
		if args == nil {
			continue
		}
		var arg string
		switch name := strings.Trim(verb, "{}"); {
		case strings.HasPrefix(verb, "{") && name != "" && !isDigits(name):
			for _, a := range args {
				if k, v, ok := strings.Cut(a, "="); ok && strings.TrimSpace(k) == name {
					arg = v
				}
			}
		case strings.HasPrefix(verb, "{") && name != "":
			n, _ := strconv.Atoi(name)
			if n < len(args) {
				arg = args[n]
			}
		default:
			n := 0
			for _, v := range verbRE.FindAllString(s[:m[2]], -1) {
				if v != "%%" {
					n++
				}
			}
			if n < len(args) {
				arg = args[n]
			}
		}
		if arg != "" && Compiled(ref).MatchString(arg) {
			return true
		}
	}
	return false
}

// formatArgs returns the arguments a format string literal is applied to,
// from the text right after it: Python's % (a, b) or % x, Ruby's % [a, b],
// .format(a, b), or a call's further arguments (, a, b)). nil when the
// literal is not applied to arguments.
func formatArgs(tail string) []string {
	t := strings.TrimLeft(tail, " \t")
	switch {
	case strings.HasPrefix(t, "%"):
		t = strings.TrimLeft(t[1:], " \t")
		if strings.HasPrefix(t, "(") {
			return topLevelArgs(t[1:])
		}
		if strings.HasPrefix(t, "[") {
			return argsUntil(t[1:], ']')
		}
		end := strings.IndexAny(t, ")\n")
		if end < 0 {
			end = len(t)
		}
		return []string{t[:end]}
	case strings.HasPrefix(t, ".format("):
		return topLevelArgs(t[len(".format("):])
	case strings.HasPrefix(t, ","):
		return topLevelArgs(t[1:])
	}
	return nil
}

func isDigits(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}
