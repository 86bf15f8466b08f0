package evidence

import (
	"regexp"
	"slices"
	"strconv"
)

// nodePGImportRE finds node-postgres: require('pg') or import ... from 'pg'.
// node-postgres treats a host starting with "/" as the socket directory
// (brianc/node-postgres: packages/pg/lib/connection-parameters.js,
// isDomainSocket), as libpq does.
var nodePGImportRE = regexp.MustCompile(`require\(\s*["']pg["']\s*\)|from\s+["']pg["']`)

// nodePGNewRE finds a pool or client built from node-postgres.
var nodePGNewRE = regexp.MustCompile(`new\s+(?:pg\.)?(?:Pool|Client)\s*\(`)

// nodePGReader: `host: process.env.X` in a module that builds
// `new Pool({...})` or `new Client({...})` from pg.
var nodePGReader = reader{
	match: func(rel string) bool { return hasExt(rel, ".js", ".mjs", ".cjs", ".ts") },
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		if !nodePGImportRE.Match(data) || !nodePGNewRE.Match(data) {
			return Verdict{}, false
		}
		q := regexp.QuoteMeta(key)
		read := `process\.env(?:\.` + q + `\b|\[\s*["']` + q + `["']\s*\])`
		line, ok := firstLine(data, `\bhost\s*:\s*`+readOrAlias(data, read, jsAssign))
		if !ok && slices.Contains(aliases(data, read, jsAssign), "host") {
			line, ok = firstLine(data, `[{,]\s*host\s*[,}\n]`) // { host, port }
		}
		if !ok {
			return Verdict{}, false
		}
		return Verdict{Directory: true, Driver: "node-postgres (pg)", Line: line,
			Reason: "node-postgres's Pool/Client host reads " + key}, true
	},
}

// nodePGObjectRE finds the options object of a pool or client.
var nodePGObjectRE = regexp.MustCompile(`new\s+(?:pg\.)?(?:Pool|Client)\s*\(\s*\{`)

// nodePGHostNameRE: the options' host is a name, or a member of one.
var nodePGHostNameRE = regexp.MustCompile(`\bhost\s*:\s*(?:([A-Za-z_$][\w$]*)\.)?([A-Za-z_$][\w$]*)\s*[,}\n]`)

// findNodePGImported is node-postgres's shape across files
// (mjftw/typescript-realworld-backend: src/db/dbconfig.ts builds `new
// Pool({ host: dbHost, ... })` with dbHost imported from '../config',
// whose src/config.ts has `export const dbHost = process.env.DB_HOST ||
// 'localhost'`): a package.json of the scope declares pg, a file that
// imports pg builds a Pool or Client whose options' host is a name that
// file imports (`import { dbHost } from`, `const { dbHost } = require(`)
// or a member of an imported module (`config.dbHost` with `import * as
// config` or `const config = require(`), and a file of the scope exports
// that name assigned from the read of key. The options may not turn ssl
// on, nor PGSSLMODE (node-postgres reads it when they set no ssl).
func findNodePGImported(s Scope, key string) (Verdict, bool) {
	all := s.Files()
	if m := s.Env["PGSSLMODE"]; (m != "" && m != "disable") || !manifestDeclares(s, all, "pg") {
		return Verdict{}, false
	}
	files := jsFiles(s, all)
	read := `process\.env(?:\.` + regexp.QuoteMeta(key) + `\b|\[\s*["']` + regexp.QuoteMeta(key) + `["']\s*\])`
	for _, f := range files {
		if !nodePGImportRE.Match(f.data) {
			continue
		}
		for _, loc := range nodePGObjectRE.FindAllIndex(f.data, -1) {
			obj, ok := objectAt(f.data, loc[1]-1)
			if !ok || sslOn(obj) {
				continue
			}
			m := nodePGHostNameRE.FindSubmatch(obj)
			if m == nil {
				continue
			}
			module, name := string(m[1]), string(m[2])
			if !importsName(f.data, module, name) {
				continue
			}
			for _, g := range files {
				if g.rel == f.rel {
					continue
				}
				exp := Compiled(`(?m)(?:\bexport\s+(?:const|let|var)\s+` + regexp.QuoteMeta(name) + `(?:\s*:\s*[\w.<>| ]+)?\s*=|\b(?:module\.)?exports\.` + regexp.QuoteMeta(name) + `\s*=)\s*` + read)
				if l := exp.FindIndex(g.data); l != nil {
					host := name
					if module != "" {
						host = module + "." + name
					}
					return Verdict{Directory: true, Driver: "node-postgres (pg)", File: g.rel, Line: lineOf(g.data, l[0]),
						Reason: "node-postgres's Pool/Client (" + f.rel + ":" + strconv.Itoa(lineOf(f.data, loc[0])) + ") takes host from " + host +
							", which this line exports from " + key}, true
				}
			}
		}
	}
	return Verdict{}, false
}

// importsName reports whether data imports name (module "") or a module
// bound to module whose member name is.
func importsName(data []byte, module, name string) bool {
	if module == "" {
		n := regexp.QuoteMeta(name)
		return Compiled(`\bimport\s*\{[^}]*\b`+n+`\b[^}]*\}\s*from\s*["']`).Match(data) ||
			Compiled(`\b(?:const|let|var)\s*\{[^}]*\b`+n+`\b[^}]*\}\s*=\s*require\(`).Match(data)
	}
	m := regexp.QuoteMeta(module)
	return Compiled(`\bimport\s+(?:\*\s+as\s+)?`+m+`\s+from\s*["']`).Match(data) ||
		Compiled(`\b(?:const|let|var)\s+`+m+`\s*=\s*require\(`).Match(data)
}
