package evidence

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// knex's postgres client hands its connection object to node-postgres
// unchanged: `new this.driver.Client(this.connectionSettings)` (knex 3.3.0
// lib/dialects/postgres/index.js _acquireOnlyConnection), and the client
// names pg and postgresql are aliases of postgres (lib/constants.js
// CLIENT_ALIASES). node-postgres takes a host starting with "/" as the
// socket directory (nodepg.go). e2e TestKnexHostDirectory connects
// through the shape below with a directory in host.
var (
	// knexClientRE: the options name the postgres client.
	knexClientRE = regexp.MustCompile(`\bclient\s*:\s*["'](?:pg|postgres|postgresql)["']`)
	// knexConnectionRE: the connection option, up to the end of its line.
	knexConnectionRE = regexp.MustCompile(`\bconnection\s*:\s*([^\n]*)`)
)

// findKnex is the knex shape, which spans files (nickjj/docker-node-example
// @ 2025: knexfile.js has `client: 'pg', connection: process.env.DATABASE_URL
// || config.pg`, config/index.js has `config.pg = { host:
// process.env.POSTGRES_HOST || 'postgres', ... }`): a package.json of the
// scope declares knex and pg among its dependencies, a file names the
// postgres client, and its connection option is either an object whose
// host reads key in that file, or a name (config.pg, dbConfig) that a
// file of the scope binds to an object literal whose host reads key. A
// variable read before it with || or ?? (a URL that replaces the object)
// must be unset in the service's environment, and the object may not turn
// ssl on (node-postgres asks a socket for SSL, which PostgreSQL refuses
// there; nor may PGSSLMODE, which node-postgres reads when the object
// sets no ssl). Anything less visible gives no verdict.
func findKnex(s Scope, key string) (Verdict, bool) {
	all := s.Files()
	manifest := manifestDeclares(s, all, "knex", "pg")
	// node-postgres reads PGSSLMODE when the object sets no ssl.
	if m := s.Env["PGSSLMODE"]; !manifest || (m != "" && m != "disable") {
		return Verdict{}, false
	}
	files := jsFiles(s, all)
	read := `process\.env(?:\.` + regexp.QuoteMeta(key) + `\b|\[\s*["']` + regexp.QuoteMeta(key) + `["']\s*\])`
	hostRE := Compiled(`\bhost\s*:\s*` + read)
	for _, f := range files {
		if !knexClientRE.Match(f.data) {
			continue
		}
		for _, m := range knexConnectionRE.FindAllSubmatchIndex(f.data, -1) {
			expr := string(f.data[m[2]:m[3]])
			name, ok := knexConnectionName(expr, s.Env)
			if !ok {
				continue
			}
			if name == "" { // an inline object: connection: { host: ... }
				obj, ok := objectAt(f.data, m[2]+strings.Index(expr, "{"))
				if !ok {
					continue
				}
				if loc := hostRE.FindIndex(obj); loc != nil && !sslOn(obj) {
					line := lineOf(f.data, m[2]+strings.Index(expr, "{")+loc[0])
					return Verdict{Directory: true, Driver: "knex (node-postgres)", File: f.rel, Line: line,
						Reason: "knex's postgres connection takes host from " + key + " and hands it to node-postgres (package.json declares knex and pg)"}, true
				}
				continue
			}
			for _, g := range files {
				obj, off, ok := boundObject(g.data, name)
				if !ok {
					continue
				}
				if loc := hostRE.FindIndex(obj); loc != nil && !sslOn(obj) {
					return Verdict{Directory: true, Driver: "knex (node-postgres)", File: g.rel, Line: lineOf(g.data, off+loc[0]),
						Reason: "knex's postgres connection (" + f.rel + ":" + strconv.Itoa(lineOf(f.data, m[0])) + ", connection: " + strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(expr), ",")) +
							") is this object, whose host reads " + key + "; knex hands it to node-postgres (package.json declares knex and pg)"}, true
				}
			}
		}
	}
	return Verdict{}, false
}

// knexConnectionName reads a connection option's expression: "" and true
// for an inline object, the name (its last segment: "pg" of config.pg)
// and true for a name, after any `process.env.X ||` / `??` alternatives
// whose variables env leaves unset. ok is false for anything else (a call,
// a set URL variable, a string).
func knexConnectionName(expr string, env map[string]string) (name string, ok bool) {
	alts := regexp.MustCompile(`\|\||\?\?`).Split(expr, -1)
	envRE := regexp.MustCompile(`^process\.env(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])$`)
	for i, a := range alts {
		a = strings.TrimSpace(a)
		if i < len(alts)-1 {
			m := envRE.FindStringSubmatch(a)
			if m == nil {
				return "", false
			}
			if env[m[1]+m[2]] != "" {
				return "", false // the URL is set and replaces the object
			}
			continue
		}
		if strings.HasPrefix(a, "{") {
			return "", true
		}
		// The name ends where the option does: `connection: dbConfig });`.
		if i := strings.IndexAny(a, ",}); \t"); i >= 0 {
			a = a[:i]
		}
		if m := regexp.MustCompile(`^(?:[A-Za-z_$][\w$]*\.)*([A-Za-z_$][\w$]*)$`).FindStringSubmatch(a); m != nil && m[1] != "undefined" && !strings.HasPrefix(a, "process.env") {
			return m[1], true
		}
		return "", false
	}
	return "", false
}

// boundObject finds name bound to an object literal in data
// (`config.pg = {`, `pg: {`, `const dbConfig = {`, `export const
// dbConfig: Knex.ConnectionConfig = {`) and returns the literal and its
// offset.
func boundObject(data []byte, name string) ([]byte, int, bool) {
	re := Compiled(`(?:^|[^\w$])` + regexp.QuoteMeta(name) + `\s*(?::\s*[\w.<>]+\s*=|[:=])\s*\{`)
	loc := re.FindIndex(data)
	if loc == nil {
		return nil, 0, false
	}
	obj, ok := objectAt(data, loc[1]-1)
	return obj, loc[1] - 1, ok
}

// objectAt returns the braced text starting at data[open] ('{') through
// its matching brace, counting braces outside quoted strings.
func objectAt(data []byte, open int) ([]byte, bool) {
	if open < 0 || open >= len(data) || data[open] != '{' {
		return nil, false
	}
	depth := 0
	var quote byte
	for i := open; i < len(data); i++ {
		c := data[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return data[open : i+1], true
			}
		}
	}
	return nil, false
}

// sslOn reports whether an options object has an ssl key that is not
// literally false.
func sslOn(obj []byte) bool {
	m := regexp.MustCompile(`\bssl\s*:\s*([^,\n}]*)`).FindSubmatch(obj)
	return m != nil && strings.TrimSpace(string(m[1])) != "false"
}

// jsFiles reads the JavaScript and TypeScript files among all (declaration
// files and node_modules left out), for the shapes that span files.
func jsFiles(s Scope, all []string) []typeORMFile {
	var files []typeORMFile
	for _, f := range all {
		rel, _ := filepath.Rel(s.ProjectDir, f)
		rel = filepath.ToSlash(rel)
		if !hasExt(rel, ".ts", ".js", ".mjs", ".cjs") || strings.HasSuffix(rel, ".d.ts") || strings.Contains(rel, "node_modules/") {
			continue
		}
		data, err := s.read(f)
		if err != nil || len(data) > MaxFileSize {
			continue
		}
		files = append(files, typeORMFile{rel, data})
	}
	return files
}

// declares reports whether a package.json's dependencies (the ones a
// production install keeps) name every one of pkgs.
func declares(data []byte, pkgs ...string) bool {
	var m struct {
		Dependencies map[string]any `json:"dependencies"`
	}
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	for _, p := range pkgs {
		if _, ok := m.Dependencies[p]; !ok {
			return false
		}
	}
	return true
}

// manifestDeclares reports whether a package.json of the scope declares
// every one of pkgs.
func manifestDeclares(s Scope, all []string, pkgs ...string) bool {
	for _, f := range all {
		if filepath.Base(f) != "package.json" {
			continue
		}
		if data, err := s.read(f); err == nil && len(data) <= MaxFileSize && declares(data, pkgs...) {
			return true
		}
	}
	return false
}
