package evidence

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

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

// Declares reports what the build manifests among s's files say about a
// library: manifest is the first one visible (project-relative, "" when
// none is), and declared whether any manifest names marker or a jar
// whose name holds it ships in the scope (lib/junixsocket-core-2.10.1.jar).
// manifests are base names (pom.xml, build.gradle, build.gradle.kts).
func Declares(s Scope, manifests []string, marker string) (manifest string, declared bool) {
	for _, f := range s.Files() {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".jar") && strings.Contains(base, marker) {
			return manifest, true
		}
		if !slices.Contains(manifests, base) {
			continue
		}
		if manifest == "" {
			rel, _ := filepath.Rel(s.ProjectDir, f)
			manifest = filepath.ToSlash(rel)
		}
		if data, err := s.read(f); err == nil && bytes.Contains(data, []byte(marker)) {
			return manifest, true
		}
	}
	return manifest, false
}
