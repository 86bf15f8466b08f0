package consumer

import (
	"bytes"
	"encoding/json"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// dep is one dependency a manifest declares: ECOSYSTEM:NAME and its line.
type dep struct {
	pkg  string
	line int
	// version is the declared version or range as written ("^0.3.17"),
	// for package.json and composer.json; "" elsewhere.
	version string
}

// IsManifest reports whether a project-relative path is a dependency
// manifest this package reads (package.json, go.mod, pom.xml ...).
func IsManifest(rel string) bool { return manifestKind(rel) != "" }

// manifestKind returns the ecosystem a project-relative path's manifest
// belongs to, or "" when the file is not a manifest this package reads.
func manifestKind(rel string) string {
	base := path.Base(rel)
	switch {
	case base == "package.json":
		return "npm"
	case base == "Pipfile" || base == "pyproject.toml" || base == "poetry.lock" || base == "setup.py" || base == "setup.cfg" ||
		(strings.HasPrefix(base, "requirements") && (strings.HasSuffix(base, ".txt") || strings.HasSuffix(base, ".in"))):
		return "pypi"
	case base == "go.mod":
		return "go"
	case base == "Gemfile" || base == "Gemfile.lock":
		return "gem"
	case base == "mix.exs":
		return "hex"
	case base == "composer.json":
		return "composer"
	case base == "pom.xml" || base == "build.gradle" || base == "build.gradle.kts":
		return "maven"
	case strings.HasSuffix(base, ".csproj"):
		return "nuget"
	case base == "Cargo.toml":
		return "cargo"
	}
	return ""
}

// Line patterns per ecosystem; the first group is the package name. They
// read declarations, not a full grammar: a dependency is evidence only when
// it is a reader the table knows, so a false match costs at most a skipped
// edit (Choose over more readers), never a wrong one.
var depREs = map[string][]*regexp.Regexp{
	"npm": {regexp.MustCompile(`^\s*"(@?[a-z0-9][a-z0-9._/-]*)"\s*:\s*"`)},
	"pypi": {
		regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[=<>!~;]|$)`),         // requirements.txt
		regexp.MustCompile(`^\s*["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[=<>!~;,"' ]|$)`), // pyproject/setup lists
		regexp.MustCompile(`^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*=\s*[{"'*]`),                               // Pipfile, poetry
		regexp.MustCompile(`^name\s*=\s*"([A-Za-z0-9][A-Za-z0-9._-]*)"`),                                  // poetry.lock
	},
	"go":       {regexp.MustCompile(`^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+/[^\s]+)\s+v[0-9]`)},
	"gem":      {regexp.MustCompile(`^\s*gem\s+["']([A-Za-z0-9_-]+)["'](?:\s*,\s*["']([^"']*)["'])?`), regexp.MustCompile(`^\s{4}([A-Za-z0-9_-]+) \(([^)]*)\)`)},
	"hex":      {regexp.MustCompile(`\{\s*:([a-z0-9_]+)\s*,(?:\s*"([^"]*)")?`)},
	"composer": {regexp.MustCompile(`^\s*"([a-z0-9_.-]+/[a-z0-9_.-]+)"\s*:\s*"`)},
	"maven":    {regexp.MustCompile(`(org\.postgresql)`)},
	"nuget":    {regexp.MustCompile(`(?i)PackageReference\s+Include="([A-Za-z0-9_.-]+)"`)},
	"cargo":    {regexp.MustCompile(`^\s*([a-z0-9_-]+)\s*=`)},
}

// manifestDeps returns the dependencies a manifest declares.
func manifestDeps(rel string, data []byte) []dep {
	eco := manifestKind(rel)
	if eco == "" {
		return nil
	}
	if eco == "npm" || eco == "composer" {
		if deps, ok := jsonDeps(eco, data); ok {
			return deps
		}
	}
	var out []dep
	for i, line := range strings.Split(string(data), "\n") {
		for _, re := range depREs[eco] {
			m := re.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			name := strings.ToLower(m[1])
			switch eco {
			case "pypi":
				name = strings.ReplaceAll(strings.ReplaceAll(name, "_", "-"), ".", "-")
			case "maven":
				name = "org.postgresql:postgresql"
			}
			d := dep{pkg: eco + ":" + name, line: i + 1}
			if len(m) > 2 {
				d.version = m[2] // mix.exs: {:ecto_sql, "~> 3.10"}
			}
			if eco == "pypi" {
				d.version = pypiVersion(line[len(m[0]):], m[0])
			}
			if eco == "gem" && d.version == "" && path.Base(rel) == "Gemfile" {
				// gem "rails" with no requirement: bundle install resolves
				// the newest release (a Gemfile.lock beside it decides
				// instead: gateVersions).
				d.version = "*"
			}
			out = append(out, d)
			break
		}
	}
	return out
}

// pypiVersionRE finds a PyPI declaration's version specifier after its
// name: requirements.txt and pyproject lists (databases[postgresql]>=0.6.1,
// "databases==0.5.5"), poetry and Pipfile (databases = "^0.6.1",
// databases = {version = "^0.6", extras = [...]}).
var pypiVersionRE = regexp.MustCompile(`^\s*(?:\[[^\]]*\]\s*)?(?:=\s*["']|=\s*\{[^}]*\bversion\s*=\s*["'])?\s*((?:==|>=|~=|\^|~|>)?\s*[0-9][0-9.]*)`)

// pypiVersion returns the specifier that follows a PyPI package's name
// (rest is the line from where the name's pattern matched, matched that
// match), or "" when none is read: only a lower bound (==, >=, ~=, ^, ~,
// >) or a bare version counts, so "<0.6" or "!=0.5" is not known recent.
func pypiVersion(rest, matched string) string {
	// The name's pattern may have consumed the specifier's first
	// character (=, >, ~, a quote): read from the name's end instead.
	i := strings.IndexFunc(matched, func(r rune) bool {
		return !(r == '.' || r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == ' ' || r == '\t' || r == '"' || r == '\'')
	})
	if i < 0 {
		i = len(matched)
	}
	m := pypiVersionRE.FindStringSubmatch(matched[i:] + rest)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(m[1], " ", "")
}

// jsonDeps reads the dependency maps of a package.json (dependencies,
// devDependencies, peerDependencies, optionalDependencies) or a
// composer.json (require, require-dev) as JSON, whatever its layout (a
// one-line file included); a dependency's line is the first that names it
// in quotes. ok is false when data is not a JSON object.
func jsonDeps(eco string, data []byte) (out []dep, ok bool) {
	// npm and Composer read a file that starts with a UTF-8 BOM;
	// encoding/json does not.
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return nil, false
	}
	sections := []string{"dependencies", "devDependencies", "peerDependencies", "optionalDependencies"}
	if eco == "composer" {
		sections = []string{"require", "require-dev"}
	}
	lines := strings.Split(string(data), "\n")
	for _, sec := range sections {
		var deps map[string]json.RawMessage
		if json.Unmarshal(m[sec], &deps) != nil {
			continue
		}
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			line := 1
			for i, l := range lines {
				if strings.Contains(l, `"`+name+`"`) {
					line = i + 1
					break
				}
			}
			var version string
			_ = json.Unmarshal(deps[name], &version)
			out = append(out, dep{pkg: eco + ":" + strings.ToLower(name), line: line, version: version})
		}
	}
	return out, true
}
