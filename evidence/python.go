package evidence

import (
	"regexp"
	"sync"
)

// pyEnvRead matches the usual ways Python settings read a variable:
// os.environ.get("X"), os.environ["X"], os.getenv("X"), and the
// django-environ / python-decouple helpers env("X"), env.str("X"),
// config("X").
func pyEnvRead(key string) string { return pyEnvReadRE(regexp.QuoteMeta(key)) }

// pyEnvReadRE is pyEnvRead for a name given as a pattern.
func pyEnvReadRE(name string) string {
	return `(?:os\.environ\.get\(|os\.getenv\(|os\.environ\[|environ\.get\(|env\.str\(|env\(|config\()\s*["']` + name + `["']`
}

var reCache sync.Map

// Compiled returns pattern compiled, from a cache shared by the readers of
// evidence and consumer (their patterns are built per variable name and
// asked for again for every file and variable). It panics on a bad
// pattern, as regexp.MustCompile does.
func Compiled(pattern string) *regexp.Regexp {
	if re, ok := reCache.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	reCache.Store(pattern, re)
	return re
}

// firstLine returns the line of the first match of pattern in data.
func firstLine(data []byte, pattern string) (int, bool) {
	loc := Compiled(pattern).FindIndex(data)
	if loc == nil {
		return 0, false
	}
	return lineOf(data, loc[0]), true
}
