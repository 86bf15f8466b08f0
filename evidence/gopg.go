package evidence

import (
	"regexp"
	"strings"
)

// goPGImportRE finds pgx or lib/pq. Both take a host starting with "/" as
// the socket directory: jackc/pgx pgconn/config.go (NetworkAddress: "unix"
// when the host is an absolute path), lib/pq conn.go (a host starting
// with "/" dials unix).
var goPGImportRE = regexp.MustCompile(`"github\.com/(jackc/pgx(?:/v[45])?(?:/[a-z]+)?|lib/pq)"`)

// goPGReader: `cfg.Host = os.Getenv("X")`, `Host: os.Getenv("X")`, or a
// keyword DSN built with fmt.Sprintf("host=%s ...", os.Getenv("X"), ...).
var goPGReader = reader{
	match: func(rel string) bool { return hasExt(rel, ".go") && !strings.HasSuffix(rel, "_test.go") },
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		imp := goPGImportRE.FindSubmatch(data)
		if imp == nil {
			return Verdict{}, false
		}
		driver := "pgx"
		if string(imp[1]) == "lib/pq" {
			driver = "lib/pq"
		}
		getenv := readOrAlias(data, `os\.Getenv\(\s*"`+regexp.QuoteMeta(key)+`"\s*\)`, goAssign)
		if line, ok := firstLine(data, `\bHost\s*(?::|=)\s*`+getenv); ok {
			return Verdict{Directory: true, Driver: driver, Line: line, Reason: driver + "'s config Host reads " + key}, true
		}
		for _, call := range sprintfCalls(data) {
			if sprintfHostArg(call.format, call.args, getenv) {
				return Verdict{Directory: true, Driver: driver, Line: lineOf(data, call.at),
					Reason: "the " + driver + " keyword DSN's host=%s is " + key}, true
			}
		}
		return Verdict{}, false
	},
}

// sprintfHostArg reports whether the argument for the verb after "host="
// in format reads the variable (pattern getenv).
func sprintfHostArg(format string, args []string, getenv string) bool {
	i := strings.Index(format, "host=%")
	if i < 0 {
		return false
	}
	n := strings.Count(strings.ReplaceAll(format[:i], "%%", ""), "%")
	return n < len(args) && regexp.MustCompile(`^\s*`+getenv+`\s*$`).MatchString(args[n])
}

// sprintfCall is a fmt.Sprintf call: its format (string literals joined
// with +) and its top-level arguments.
type sprintfCall struct {
	at     int
	format string
	args   []string
}

var goStringRE = regexp.MustCompile(`^\s*"((?:[^"\\\n]|\\.)*)"\s*`)

// sprintfCalls finds Sprintf calls whose format is made of literals.
func sprintfCalls(data []byte) []sprintfCall {
	var out []sprintfCall
	s := string(data)
	for at := 0; ; {
		i := strings.Index(s[at:], "Sprintf(")
		if i < 0 {
			return out
		}
		start := at + i
		rest := s[start+len("Sprintf("):]
		at = start + 1
		var format strings.Builder
		for {
			m := goStringRE.FindStringSubmatchIndex(rest)
			if m == nil {
				break
			}
			format.WriteString(rest[m[2]:m[3]])
			rest = rest[m[1]:]
			if !strings.HasPrefix(rest, "+") {
				break
			}
			rest = rest[1:]
		}
		if format.Len() == 0 || !strings.HasPrefix(rest, ",") {
			continue
		}
		out = append(out, sprintfCall{at: start, format: format.String(), args: topLevelArgs(rest[1:])})
	}
}

// topLevelArgs splits a call's argument text at commas outside brackets
// and string literals, up to the call's closing parenthesis.
func topLevelArgs(s string) []string { return argsUntil(s, ')') }

// argsUntil splits s at commas outside brackets and string literals ("..."
// and '...'), up to the first closer outside them (')' for a call, ']' for
// a Ruby array); nil when none closes it.
func argsUntil(s string, closer byte) []string {
	var out []string
	depth, last := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == closer && depth == 0:
			return append(out, s[last:i])
		case c == '(' || c == '[' || c == '{':
			depth++
		case (c == ')' || c == ']' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[last:i])
			last = i + 1
		}
	}
	return out
}
