package evidence

import "regexp"

// psycopgImportRE finds code that connects through psycopg (2 or 3) or
// SQLAlchemy's psycopg dialects; both pass host= to libpq
// (psycopg docs, "psycopg.connect": keyword arguments are libpq
// connection parameters).
var psycopgImportRE = regexp.MustCompile(`(?m)^\s*(?:import|from)\s+(psycopg2?|sqlalchemy)\b`)

// otherPyDriverRE marks code that may use a Python driver without libpq's
// socket-directory rule (asyncpg, pg8000): no verdict then.
var otherPyDriverRE = regexp.MustCompile(`\b(asyncpg|pg8000)\b`)

// psycopgReader: `host=os.environ["X"]` or `"host": os.getenv("X")` in a
// module that imports psycopg or SQLAlchemy (psycopg dialect).
var psycopgReader = reader{
	match: func(rel string) bool { return hasExt(rel, ".py") },
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		imp := psycopgImportRE.FindSubmatch(data)
		if imp == nil || otherPyDriverRE.Match(data) {
			return Verdict{}, false
		}
		line, ok := firstLine(data, `(?:\bhost\s*=\s*|["']host["']\s*:\s*)`+readOrAlias(data, pyEnvRead(key), pyAssign))
		if !ok {
			return Verdict{}, false
		}
		driver, reason := "psycopg (libpq)", "psycopg's host= reads "+key
		if string(imp[1]) == "sqlalchemy" {
			driver, reason = "SQLAlchemy + psycopg (libpq)", "SQLAlchemy's host= (psycopg dialect) reads "+key
		}
		return Verdict{Directory: true, Driver: driver, Line: line, Reason: reason}, true
	},
}
