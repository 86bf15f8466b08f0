package evidence

import (
	"regexp"
	"slices"
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
