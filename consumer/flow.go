package consumer

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/uds-migrate/uds-migrate/evidence"
)

// A value read from the environment is often handed on before a reader
// sees it: `const databaseUrl = process.env.DATABASE_URL` then
// `parseDatabaseUrl(databaseUrl)`, whose body runs `new URL(databaseUrl)`;
// or `databaseURL, ok := os.LookupEnv("PG_URL")` then
// `databaseURL += "?sslmode=disable"`. The readers there must count as if
// the read were written inline (issue #20: every reader that can reach
// the value must accept the form). This file follows the value, within a
// file, through local variables assigned from the read (and from each
// other), and into the parameter of a function it is handed to, whose
// definition is in the same file or, when its name is defined once, in
// another code file of the scope. It reads text, not a syntax tree:
// a name it wrongly takes for the value can only add a reader (a form
// fewer, or none), never remove one.

// codeText is one code file of the scope.
type codeText struct {
	rel   string
	lines []string
}

// holder is a name that holds the value in lines [from, to) of a file.
type holder struct {
	file     int
	name     string
	from, to int
	// via says how it got the value, for the finding: "databaseUrl
	// (src/db.js:10)", "parameter databaseUrl of parseDatabaseUrl
	// (handed at src/db.ts:20)".
	via string
}

// maxHops bounds how far the value is followed (aliases and calls).
const maxHops = 4

// lang is the family of a code file, for its assignment and definition
// syntax; "" for a file whose values are not followed.
func lang(rel string) string {
	switch {
	case jsFiles(rel):
		return "js"
	case pyFiles(rel):
		return "py"
	case goFiles(rel):
		return "go"
	case rbFiles(rel):
		return "rb"
	case phpFiles(rel):
		return "php"
	case strings.HasSuffix(rel, ".java") || strings.HasSuffix(rel, ".groovy") || strings.HasSuffix(rel, ".scala"):
		return "java"
	case strings.HasSuffix(rel, ".kt") || strings.HasSuffix(rel, ".kts"):
		return "kt"
	case rsFiles(rel):
		return "rs"
	case shellFiles(rel):
		return "sh"
	}
	return ""
}

// envRead is the pattern of an expression that reads variable key from
// the environment, in the common spellings of each language.
func envRead(key string) string {
	k := regexp.QuoteMeta(key)
	q := `["'\x60]`
	return `(?:process\.env(?:\.` + k + `\b|\[\s*` + q + k + q + `\s*\])` +
		`|import\.meta\.env\.` + k + `\b` +
		`|\b(?:os\.environ\.get|os\.getenv|os\.environ\.setdefault|getenv|env|config|env\.str|env\.url|env\.db_url|Deno\.env\.get|System\.getenv|os\.Getenv|os\.LookupEnv|viper\.GetString|ENV\.fetch|Env\.get|env::var|env::var_os|dotenvy::var)\(\s*` + q + k + q +
		`|\b(?:os\.environ|ENV|\$_ENV|\$_SERVER)\[\s*` + q + k + q + `\s*\]` +
		`|\$\{?` + k + `\b\}?)`
}

// assignLHS is, per language, the left side of an assignment with one
// group for the name; a match is followed directly by the right side.
var assignLHS = map[string]*regexp.Regexp{
	"js":   regexp.MustCompile(`(?:\b(?:const|let|var)\s+|\bthis\.|^\s*(?:(?:private|public|protected|readonly|static)\s+)+)([A-Za-z_$][\w$]*)\s*(?::\s*[^=\n]+?)?\s*=([^=>].*)$`),
	"py":   regexp.MustCompile(`^\s*(?:self\.)?([A-Za-z_]\w*)\s*(?::\s*[^=\n]+?)?\s*=([^=].*)$`),
	"go":   regexp.MustCompile(`(?:\bvar\s+)?\b([A-Za-z_]\w*)(?:\s*,\s*[A-Za-z_]\w*)*(?:\s+[\w.*\[\]]+)?\s*:?=([^=].*)$`),
	"rb":   regexp.MustCompile(`^\s*@?([a-z_]\w*)\s*=([^=~].*)$`),
	"php":  regexp.MustCompile(`\$(?:this->)?([A-Za-z_]\w*)\s*=([^=>].*)$`),
	"java": regexp.MustCompile(`\b(?:final\s+)?(?:String|var)\s+([A-Za-z_]\w*)\s*=([^=].*)$`),
	"kt":   regexp.MustCompile(`\b(?:val|var)\s+([A-Za-z_]\w*)\s*(?::\s*[^=\n]+?)?\s*=([^=].*)$`),
	"sh":   regexp.MustCompile(`^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=(.*)$`),
	// let url = ..., let mut url: String = ..., if let Ok(url) = ...
	"rs": regexp.MustCompile(`\blet\s+(?:mut\s+)?(?:(?:Ok|Some)\(\s*)?([a-z_]\w*)\)?\s*(?::\s*[^=\n]+?)?\s*=([^=].*)$`),
}

// holderRHS reports whether rhs, the right side of an assignment, is the
// value itself: read (a pattern) alone, maybe converted to a string,
// awaited or given a default, and not handed to a call that makes
// something else of it.
func holderRHS(rhs, read string) bool {
	return evidence.Compiled(`^\s*(?:await\s+)?(?:String|str|string|strval)?\(?\s*"?`+read+`[^(\n]*$`).MatchString(rhs) ||
		evidence.Compiled(`^\s*(?:(?:url::)?Url::parse|Url::from_str)\(\s*&?(?:self\.|\w+\.|\w+::)*`+read+`.*$`).MatchString(rhs) ||
		evidence.Compiled(`^\s*(?:\w+::)*`+read+`\s*\)?`+rustUnwrap+`\s*;?\s*$`).MatchString(rhs) ||
		evidence.Compiled(`^\s*&?(?:self\.|[A-Z_]+\.)?`+read+`\(\s*\)[^(\n]*$`).MatchString(rhs)
}

// rustUnwrap is what Rust writes after a read to get the value itself:
// ?, .unwrap(), .expect("..."), .unwrap_or_else(|_| ...), .to_string().
const rustUnwrap = `(?:\?|\.(?:unwrap|expect|unwrap_or|unwrap_or_else|unwrap_or_default|context|with_context|to_string|to_owned|clone|into)\([^()]*(?:\([^()]*\))?[^()]*\))*`

// flows returns the names that hold key's value in files, beyond the
// variable's own mentions.
func flows(files []codeText, key string) []holder {
	var out []holder
	seen := map[string]bool{}
	add := func(h holder) bool {
		id := fmt.Sprintf("%d/%s/%d", h.file, h.name, h.from)
		if seen[id] || h.name == key {
			return false
		}
		seen[id] = true
		out = append(out, h)
		return true
	}
	// Aliases of the read itself.
	var frontier []holder
	for fi, f := range files {
		l := lang(f.rel)
		if l == "" {
			continue
		}
		for _, h := range aliasesOf(f, fi, l, envRead(key), 0, len(f.lines), key) {
			if add(h) {
				frontier = append(frontier, h)
			}
		}
	}
	defs := definitions(files)
	for fi, f := range files {
		if lang(f.rel) == "rs" {
			for _, h := range returnedBy(files, defs, fi, keyRE(key, false).String(), 0, len(f.lines)) {
				if add(h) {
					frontier = append(frontier, h)
				}
			}
		}
	}
	for hop := 0; hop < maxHops && len(frontier) > 0; hop++ {
		var next []holder
		for _, h := range frontier {
			f := files[h.file]
			l := lang(f.rel)
			read := `\b` + regexp.QuoteMeta(h.name) + `\b`
			if l == "sh" {
				read = `\$\{?` + regexp.QuoteMeta(h.name) + `\b\}?`
			}
			for _, a := range aliasesOf(f, h.file, l, read, h.from, h.to, h.name) {
				if add(a) {
					next = append(next, a)
				}
			}
			for _, p := range handedTo(files, defs, h) {
				if add(p) {
					next = append(next, p)
				}
			}
			if l == "rs" {
				for _, r := range returnedBy(files, defs, h.file, read, h.from, h.to) {
					if add(r) {
						next = append(next, r)
					}
				}
			}
		}
		frontier = next
	}
	return out
}

// aliasesOf returns the names assigned from read (a pattern) in lines
// [from, to) of f: each holds the value from its assignment to the end of
// the block that holds it.
func aliasesOf(f codeText, fi int, l, read string, from, to int, src string) []holder {
	lhs := assignLHS[l]
	if lhs == nil {
		return nil
	}
	mention := evidence.Compiled(read)
	var out []holder
	for i := from; i < to && i < len(f.lines); i++ {
		line := f.lines[i]
		if !strings.Contains(line, src) || !mention.MatchString(line) { // every read names src
			continue
		}
		m := lhs.FindStringSubmatch(line)
		if m == nil || m[1] == src || !holderRHS(m[2], read) {
			continue
		}
		out = append(out, holder{file: fi, name: m[1], from: i, to: blockEnd(f.lines, i, l, to),
			via: fmt.Sprintf("%s (%s:%d)", m[1], f.rel, i+1)})
	}
	return out
}

// blockEnd returns the end (exclusive) of the block that holds line i:
// where a brace opened before it closes, or where the indentation falls
// below its own (Python, Ruby, shell: the rest of the file or block).
func blockEnd(lines []string, i int, l string, limit int) int {
	if limit > len(lines) {
		limit = len(lines)
	}
	switch l {
	case "py", "rb":
		ind := indent(lines[i])
		for j := i + 1; j < limit; j++ {
			if strings.TrimSpace(lines[j]) != "" && indent(lines[j]) < ind {
				return j
			}
		}
		return limit
	case "sh":
		return limit
	}
	depth := 0
	for j := i; j < limit; j++ {
		for _, c := range codeChars(lines[j]) {
			switch c {
			case '{':
				depth++
			case '}':
				depth--
				if depth < 0 {
					return j + 1
				}
			}
		}
	}
	return limit
}

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// codeChars returns the line without its string literals and its // or #
// comment, roughly: enough to count braces and parentheses.
func codeChars(s string) string {
	var b strings.Builder
	var quote rune
	esc := false
	for i, c := range s {
		switch {
		case quote != 0:
			if esc {
				esc = false
			} else if c == '\\' {
				esc = true
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && strings.HasPrefix(s[i:], "//"):
			return b.String()
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// def is a function definition: its parameters and body.
type def struct {
	file     int
	name     string
	params   []string
	method   bool // Python: the first parameter is self or cls
	from, to int  // body lines
	line     int
}

// defREs find a function definition's name per language (group 1), the
// parameter list starting at the match's end.
var defREs = map[string][]*regexp.Regexp{
	"js": {
		regexp.MustCompile(`\bfunction\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(`),
		regexp.MustCompile(`\b([A-Za-z_$][\w$]*)\s*[:=]\s*(?:async\s+)?(?:function\s*)?\(`),
		regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|async|readonly|override)\s+)*([A-Za-z_$][\w$]*)\s*\(`),
	},
	"py":   {regexp.MustCompile(`^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(`)},
	"go":   {regexp.MustCompile(`^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\(`)},
	"rb":   {regexp.MustCompile(`^\s*def\s+(?:self\.)?([a-z_]\w*[?!]?)\s*\(`)},
	"php":  {regexp.MustCompile(`\bfunction\s+([A-Za-z_]\w*)\s*\(`)},
	"java": {regexp.MustCompile(`^\s*(?:(?:public|private|protected|static|final|synchronized)\s+)*[\w<>\[\],.?]+\s+([A-Za-z_]\w*)\s*\(`)},
	"kt":   {regexp.MustCompile(`\bfun\s+(?:[\w.]+\.)?([A-Za-z_]\w*)\s*\(`)},
	"rs":   {regexp.MustCompile(`\bfn\s+([A-Za-z_]\w*)\s*(?:<[^>]*>)?\(`)},
}

// notFuncs are words a definition pattern may take for a function name.
var notFuncs = map[string]bool{"if": true, "for": true, "while": true, "switch": true, "catch": true, "return": true, "function": true, "new": true, "super": true, "constructor": false, "else": true, "elif": true, "with": true, "foreach": true}

// definitions returns the functions the files define, by name.
func definitions(files []codeText) map[string][]def {
	out := map[string][]def{}
	for fi, f := range files {
		l := lang(f.rel)
		for i, line := range f.lines {
			for _, re := range defREs[l] {
				loc := re.FindStringSubmatchIndex(line)
				if loc == nil {
					continue
				}
				name := line[loc[2]:loc[3]]
				if notFuncs[name] {
					continue
				}
				params, endLine, endCol, ok := paramList(f.lines, i, loc[1], true)
				if !ok {
					continue
				}
				d := def{file: fi, name: name, line: i}
				for _, p := range params {
					d.params = append(d.params, paramName(p, l))
				}
				if l == "py" && len(d.params) > 0 && (d.params[0] == "self" || d.params[0] == "cls") {
					d.method = true
				}
				d.from, d.to = body(f.lines, i, endLine, endCol, l)
				if d.to <= d.from {
					continue
				}
				out[name] = append(out[name], d)
				break
			}
		}
	}
	return out
}

// paramList reads the parameter list that starts after the "(" ending at
// column col of line i, across lines: its top-level parts, and where its
// ")" is. Angle brackets nest only in a definition (generics), not in a
// call's arguments (comparisons).
func paramList(lines []string, i, col int, angles bool) (parts []string, endLine, endCol int, ok bool) {
	depth := 1
	var cur strings.Builder
	for j := i; j < len(lines) && j < i+20; j++ {
		s := lines[j]
		if j == i {
			s = s[col:]
		}
		for k, c := range s {
			if (c == '<' || c == '>') && (!angles || k > 0 && strings.ContainsRune("=-", rune(s[k-1]))) {
				cur.WriteRune(c) // a comparison, an arrow (=>, ->)
				continue
			}
			switch c {
			case '(', '[', '{', '<':
				depth++
			case ')', ']', '}', '>':
				depth--
				if depth == 0 {
					if t := strings.TrimSpace(cur.String()); t != "" {
						parts = append(parts, t)
					}
					if j == i {
						k += col
					}
					return parts, j, k + 1, true
				}
			case ',':
				if depth == 1 {
					parts = append(parts, strings.TrimSpace(cur.String()))
					cur.Reset()
					continue
				}
			}
			cur.WriteRune(c)
		}
		cur.WriteByte(' ')
	}
	return nil, 0, 0, false
}

var identRE = regexp.MustCompile(`[A-Za-z_$][\w$]*`)

// paramName is the name in one parameter's text: "databaseUrl: string",
// "url string", "String url", "$url", "*args", "url=None".
func paramName(p, l string) string {
	p = strings.TrimLeft(p, ".*&")
	if i := strings.IndexAny(p, "="); i >= 0 && l != "go" {
		p = p[:i]
	}
	switch l {
	case "php":
		if m := regexp.MustCompile(`\$(\w+)`).FindStringSubmatch(p); m != nil {
			return m[1]
		}
	case "java":
		ids := identRE.FindAllString(p, -1)
		if len(ids) > 0 {
			return ids[len(ids)-1]
		}
		return ""
	case "js", "kt":
		for _, mod := range []string{"private ", "public ", "protected ", "readonly ", "override "} {
			p = strings.ReplaceAll(p, mod, "")
		}
	}
	return identRE.FindString(strings.TrimSpace(p))
}

// body returns the lines of a definition's body: after the parameter list
// (ending at endLine, endCol), the next top-level "{" to its match (a
// TypeScript return type written as an object literal is skipped), or the
// lines indented deeper than the definition (Python, Ruby).
func body(lines []string, defLine, endLine, endCol int, l string) (from, to int) {
	if l == "py" || l == "rb" {
		ind := indent(lines[defLine])
		to = endLine + 1
		for j := endLine + 1; j < len(lines); j++ {
			if strings.TrimSpace(lines[j]) == "" {
				continue
			}
			if indent(lines[j]) <= ind {
				break
			}
			to = j + 1
		}
		return endLine, to
	}
	depth, start := 0, -1
	typeBlock, arrow := false, false
	for j := endLine; j < len(lines) && j < endLine+200; j++ {
		s := codeChars(lines[j])
		if j == endLine {
			if endCol > len(lines[j]) {
				return 0, 0
			}
			s = codeChars(lines[j][endCol:])
		}
		if start < 0 && j > endLine+1 && !typeBlock && depth >= 0 {
			return 0, 0 // no body right after the parameters: a call
		}
		for k, c := range s {
			if l == "rs" && start < 0 && depth == 0 && c != '{' {
				if c == ';' {
					return 0, 0 // a declaration without a body (a trait's), or a call
				}
				continue // the return type (-> T), a where clause
			}
			if start < 0 && depth == 0 {
				switch {
				case c == '=' && strings.HasPrefix(s[k:], "=>"):
					arrow = true
					continue
				case arrow && c == '>':
					continue
				case arrow && c != ' ' && c != '\t' && c != '{':
					return endLine, endLine + 1 // an arrow to an expression
				case !typeBlock && l != "go" && l != "java" && (c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'):
					return 0, 0 // a statement follows: this was a call
				}
			}
			switch c {
			case ':':
				if depth == 0 && start < 0 {
					typeBlock = true // a return type follows
				}
			case '=', ';':
				if depth == 0 && start < 0 && l != "go" {
					return 0, 0 // a declaration or a statement: this was a call
				}
			case '{':
				if depth == 0 && start < 0 {
					if typeBlock {
						typeBlock = false
						depth = -1000 // skip the type's braces
					} else {
						start = j
					}
				}
				depth++
			case '}':
				depth--
				if depth == -1000 {
					depth = 0
				}
				if depth == 0 && start >= 0 {
					return start, j + 1
				}
			}
		}
	}
	if start >= 0 {
		return start, len(lines)
	}
	return 0, 0
}

// callRE finds a call's name: the identifier before "(".
var callRE = regexp.MustCompile(`([A-Za-z_$][\w$]*)\s*\(`)

// handedTo returns the parameters that h's value is handed to by calls
// in its lines: each call of a function whose definition is in h's file,
// or defined once in the scope, makes that parameter a holder in the
// function's body.
func handedTo(files []codeText, defs map[string][]def, h holder) []holder {
	f := files[h.file]
	var out []holder
	for i := h.from; i < h.to && i < len(f.lines); i++ {
		line := f.lines[i]
		if !strings.Contains(line, h.name) {
			continue
		}
		for _, m := range callRE.FindAllStringSubmatchIndex(line, -1) {
			name := line[m[2]:m[3]]
			args, _, _, ok := paramList([]string{line}, 0, m[1], false)
			if !ok {
				continue
			}
			idx := -1
			for k, a := range args {
				if argIs(a, h.name) {
					idx = k
					break
				}
			}
			if idx < 0 {
				continue
			}
			d, ok := pickDef(defs[name], h.file, files)
			if !ok {
				continue
			}
			if d.method && m[2] > 0 && line[m[2]-1] == '.' {
				idx++
			}
			if idx >= len(d.params) || d.params[idx] == "" {
				continue
			}
			out = append(out, holder{file: d.file, name: d.params[idx], from: d.from, to: d.to,
				via: fmt.Sprintf("parameter %s of %s (%s:%d), handed %s at %s:%d", d.params[idx], d.name, files[d.file].rel, d.line+1, h.name, f.rel, i+1)})
		}
	}
	return out
}

// returnedBy returns, for a Rust file fi, the functions defined there
// whose body mentions read (a pattern) within lines [from, to) and whose
// signature returns a value (->): each call of one, in every Rust file of
// the scope, holds the value (Lemmy's get_database_url() returns
// LEMMY_DATABASE_URL or database.connection, and its callers parse it).
// A Rust body's last expression is its value, so any mention counts: a
// wrong one can only add a reader.
func returnedBy(files []codeText, defs map[string][]def, fi int, read string, from, to int) []holder {
	f := files[fi]
	mention := evidence.Compiled(read)

	var out []holder
	for _, ds := range defs {
		for _, d := range ds {
			if d.file != fi || d.to <= from || d.from >= to || !strings.Contains(strings.Join(f.lines[d.line:d.from+1], " "), "->") {
				continue
			}
			hit := false
			for i := max(d.from, from); i < min(d.to, to) && !hit; i++ {
				hit = i > d.line && mention.MatchString(f.lines[i]) && rustReturns(f.lines[i])
			}
			if !hit {
				continue
			}
			call := evidence.Compiled(`\b` + regexp.QuoteMeta(d.name) + `\s*\(`)
			for gi, g := range files {
				if lang(g.rel) == "rs" && gi != fi && !callsIn(g, call) {
					continue // a file that never calls it holds nothing
				}
				if lang(g.rel) == "rs" {
					out = append(out, holder{file: gi, name: d.name, from: 0, to: len(g.lines),
						via: fmt.Sprintf("the value %s returns (%s:%d)", d.name, f.rel, d.line+1)})
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].via < out[j].via || out[i].via == out[j].via && out[i].file < out[j].file
	})
	return out
}

// rustReturns reports whether a line of a Rust body gives the function's
// value: a return, or an expression that ends the body (no ; , { or ( at
// its end, not a let): `url`, `self.database.connection.clone()`,
// `if let Ok(url) = env::var("X") { url } else { ... }`, `return url;`.
func rustReturns(line string) bool {
	t := strings.TrimSpace(codeChars(line))
	if strings.HasPrefix(t, "return ") || strings.HasPrefix(t, "return(") {
		return true
	}
	if t == "" || strings.HasPrefix(t, "let ") || strings.HasPrefix(t, "//") {
		return false
	}
	return !strings.ContainsAny(t[len(t)-1:], ";,{([=")
}

// callsIn reports whether a line of f matches call.
func callsIn(f codeText, call *regexp.Regexp) bool {
	name := strings.TrimSuffix(strings.TrimPrefix(call.String(), `\b`), `\s*\(`)
	for _, l := range f.lines {
		if strings.Contains(l, name) && call.MatchString(l) {
			return true
		}
	}
	return false
}

// argIs reports whether one call argument is the name itself (maybe
// asserted, cast or spread).
func argIs(arg, name string) bool {
	a := strings.TrimSpace(arg)
	a = strings.TrimSuffix(strings.TrimSuffix(a, "!"), " as string")
	a = strings.TrimPrefix(strings.TrimPrefix(a, "&"), "$")
	for _, w := range []string{"str(", "String(", "string("} {
		if strings.HasPrefix(a, w) && strings.HasSuffix(a, ")") {
			a = a[len(w) : len(a)-1]
		}
	}
	a = strings.TrimPrefix(strings.TrimPrefix(a, "self."), "this.")
	return a == name
}

// pickDef chooses the definition a call in file fi runs: the one in that
// file, else the only one in a file of the same language.
func pickDef(ds []def, fi int, files []codeText) (def, bool) {
	var same, other []def
	for _, d := range ds {
		if d.file == fi {
			same = append(same, d)
		} else if lang(files[d.file].rel) == lang(files[fi].rel) {
			other = append(other, d)
		}
	}
	switch {
	case len(same) == 1:
		return same[0], true
	case len(same) == 0 && len(other) == 1:
		return other[0], true
	}
	return def{}, false
}
