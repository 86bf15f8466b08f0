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
// library: seen are the manifests visible (project-relative, walk order;
// none when no Java build reaches s) and lacking those that leave the
// library out. With several builds in sight (pom.xml beside build.gradle,
// one per module) the image may come from any of them, so every manifest
// that names driver (pgjdbc's group "org.postgresql") must name marker
// too: lacking lists each that does not. When no manifest names driver
// (it comes from a parent outside s) and none names marker, the first
// manifest is lacking. A jar whose name holds marker shipped in the scope
// (lib/junixsocket-core-2.10.1.jar) puts the library in the image:
// nothing is lacking. manifests are base names (pom.xml, build.gradle,
// build.gradle.kts).
func Declares(s Scope, manifests []string, driver, marker string) (seen, lacking []string) {
	shipped, declared := false, false
	for _, f := range s.Files() {
		base := filepath.Base(f)
		if strings.HasSuffix(base, ".jar") && strings.Contains(base, marker) {
			shipped = true
			continue
		}
		if !slices.Contains(manifests, base) {
			continue
		}
		rel, _ := filepath.Rel(s.ProjectDir, f)
		rel = filepath.ToSlash(rel)
		seen = append(seen, rel)
		data, err := s.read(f)
		switch {
		case err != nil:
		case bytes.Contains(data, []byte(marker)):
			declared = true
		case bytes.Contains(data, []byte(driver)):
			lacking = append(lacking, rel)
		}
	}
	if shipped {
		return seen, nil
	}
	if len(lacking) == 0 && !declared && len(seen) > 0 {
		lacking = seen[:1]
	}
	return seen, lacking
}
