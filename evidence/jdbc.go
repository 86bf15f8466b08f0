package evidence

import "regexp"

// jdbcReader: the variable is the host of a pgjdbc URL, in Spring/Java
// configuration (`jdbc:postgresql://${DB_HOST}:5432/app`, with or without
// a `:default`) or Java/Kotlin code (`"jdbc:postgresql://" +
// System.getenv("DB_HOST")`). pgjdbc takes no socket directory as host
// (FACTS.md: a Unix socket needs junixsocket's socketFactory and host
// localhost), so the verdict is that the variable does NOT take a
// directory: the URL itself has to change.
var jdbcReader = reader{
	match: func(rel string) bool {
		return hasExt(rel, ".properties", ".yml", ".yaml", ".java", ".kt", ".xml")
	},
	find: func(data []byte, key string, _ map[string]string) (Verdict, bool) {
		q := regexp.QuoteMeta(key)
		line, ok := firstLine(data, `jdbc:postgresql://(?:\$\{`+q+`(?::[^}]*)?\}|"\s*\+\s*System\.getenv\(\s*"`+q+`"\s*\))`)
		if !ok {
			return Verdict{}, false
		}
		return Verdict{Directory: false, Driver: "pgjdbc", Line: line,
			Reason: key + " is the host of a pgjdbc URL, which takes no socket directory: the URL needs junixsocket's socketFactory with host localhost"}, true
	},
}
