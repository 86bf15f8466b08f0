package consumer

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/evidence"
)

// Use is one reader the project shows for a value, and where.
type Use struct {
	Reader *Reader
	// File is project-relative (slash-separated); Line is 1-based.
	File string
	Line int
	// How says what the line shows: "reads the variable", "opens the
	// connection", "declares the dependency".
	How string
	// Version is the version or range a manifest declares ("^0.3.17"),
	// for a manifest use; "" when the manifest does not say or the use is
	// not a manifest entry.
	Version string
	// Declared marks a manifest entry: the library is there, the code
	// does not show it reading this value.
	Declared bool
}

// Verdict is what the project's files say about the readers of one
// variable.
type Verdict struct {
	// Uses are the readers found, the deciding one first.
	Uses []Use
	// Form is the socket form every reader accepts, or "" when some
	// reader accepts none (Uses[0] is that reader then).
	Form Form
}

// Readers returns the names of the verdict's readers, without repeats.
func (v Verdict) Readers() []string {
	var out []string
	for _, u := range v.Uses {
		if !slices.Contains(out, u.Reader.Name) {
			out = append(out, u.Reader.Name)
		}
	}
	return out
}

// validators check a URL without connecting: the code that connects
// decides too.
var validators = map[string]bool{"pydantic": true, "whatwg-url": true, "rust-url": true}

// Decide finds the readers of the connection URI held in variable key, in
// the files of s (the code and configuration that reach one service's
// container), and the socket form they all accept. In order:
//  1. lines that mention key: a use that breaks every socket form
//     (a script that splits the URL, code that appends "?..." to it or
//     parses it itself, Ecto, Tortoise, "jdbc:" + URL) decides alone; else
//     the readers those lines and the connectors of their files show;
//  2. when key is mentioned but no reader shows there, the connectors in
//     the whole scope (a settings module read by another module);
//  3. then the PostgreSQL libraries the manifests declare;
//  4. DATABASE_URL that no code names: the frameworks that read it
//     implicitly (Rails, dj-database-url's config(), django-environ's env.db());
//  5. a variable no code names, in a scope whose code hands a URL to a
//     reader that takes no socket URI ((str "jdbc:" uri)): that reader.
//
// ok is false when no reader is found: the consumer is unknown and the
// value must not be edited. A validator (pydantic, new URL()) joins the
// connectors found by steps 2 and 3, since both must accept the form.
func Decide(s evidence.Scope, key string) (v Verdict, ok bool) {
	var (
		lineUses, fileUses, scopeUses, manifestUses []Use
		mentioned                                   bool
		code                                        []codeText
		codeConns                                   [][]Use
		hitFile                                     = map[int]bool{}
		configSeen                                  = map[string]bool{}
	)
	for _, f := range s.Files() {
		rel, _ := filepath.Rel(s.ProjectDir, f)
		rel = filepath.ToSlash(rel)
		for name, cfg := range ownConfig {
			if cfg(rel) {
				configSeen[name] = true
			}
		}
		isManifest := manifestKind(rel) != ""
		if !isManifest && !codeFile(rel) {
			continue
		}
		data, err := s.ReadFile(f)
		if err != nil || len(data) > evidence.MaxFileSize {
			continue
		}
		if isManifest {
			for _, d := range manifestDeps(rel, data) {
				if r := byPackage(d.pkg); r != nil {
					manifestUses = append(manifestUses, Use{Reader: r, File: rel, Line: d.line, How: "declares the dependency " + d.pkg, Version: d.version, Declared: true})
				}
			}
			if rel != "package.json" && !strings.HasSuffix(rel, "/package.json") && !strings.HasSuffix(rel, "composer.json") {
				continue
			}
		}
		lines := strings.Split(string(data), "\n")
		conns := connectors(rel, string(data), lines)
		scopeUses = append(scopeUses, conns...)
		code = append(code, codeText{rel: rel, lines: lines})
		codeConns = append(codeConns, conns)
		mention := keyRE(key, pyFiles(rel) || viperFile(rel, data))
		hit := false
		for i, line := range lines {
			if !mention.MatchString(line) {
				continue
			}
			hit = true
			lineUses = append(lineUses, keyUses(rel, line, i, key, "reads "+key)...)
		}
		if hit {
			mentioned = true
			hitFile[len(code)-1] = true
			fileUses = append(fileUses, conns...)
		}
	}
	manifestUses = slices.DeleteFunc(manifestUses, func(m Use) bool { return unused(m.Reader, code, scopeUses) })
	// The value handed on through local variables and parameters counts
	// as if read inline (flow.go).
	for _, h := range flows(code, key) {
		f := code[h.file]
		name := evidence.Compiled(`\b` + regexp.QuoteMeta(h.name) + `\b`)
		for i := h.from; i < h.to && i < len(f.lines); i++ {
			if name.MatchString(f.lines[i]) {
				lineUses = append(lineUses, keyUses(f.rel, f.lines[i], i, h.name, "reads "+key+" through "+h.via)...)
			}
		}
		if !hitFile[h.file] {
			hitFile[h.file] = true
			fileUses = append(fileUses, codeConns[h.file]...)
		}
	}
	for _, u := range lineUses {
		if len(u.Reader.Forms) == 0 {
			return Verdict{Uses: []Use{u}}, true
		}
	}
	uses := append(lineUses, fileUses...)
	if onlyValidators(uses) && mentioned {
		uses = append(uses, scopeUses...)
		if onlyValidators(uses) {
			uses = append(uses, manifestUses...)
		}
	}
	if len(uses) == 0 && mentioned {
		uses = scopeUses
		if len(uses) == 0 {
			uses = manifestUses
		}
	}
	if len(uses) == 0 && !mentioned && key == "DATABASE_URL" {
		uses = implicit(scopeUses, manifestUses)
	}
	if len(uses) == 0 && !mentioned {
		// The variable is named nowhere (a configuration library derives
		// its name: Penpot's :database-uri from PENPOT_DATABASE_URI), but
		// the code in view hands a URL to a reader that takes no socket
		// URI ((str "jdbc:" uri) into pgjdbc): no form fits it, and that
		// line is the reason to say.
		if i := slices.IndexFunc(scopeUses, func(u Use) bool { return len(u.Reader.Forms) == 0 }); i >= 0 {
			// The line opens the project's connections, not this variable
			// (fastapi-tdd-docker: DATABASE_TEST_URL is read in tests/,
			// which the tool does not read): say so.
			u := scopeUses[i]
			u.How += ", and no file the tool reads names " + key
			return Verdict{Uses: []Use{u}}, true
		}
	}
	if len(uses) == 0 || onlyValidators(uses) {
		return Verdict{}, false
	}
	// Every reader the manifests bring may reach the value too (a
	// migration command beside the code's pool): the form must suit all
	// of them. A reader with configuration files of its own that the scope
	// shows, none naming key, reads another variable.
	for _, m := range manifestUses {
		if cfg := ownConfig[m.Reader.Name]; cfg != nil && configSeen[m.Reader.Name] &&
			!slices.ContainsFunc(lineUses, func(u Use) bool { return u.Reader == m.Reader }) {
			continue
		}
		uses = append(uses, m)
	}
	return Combine(gateVersions(uses, manifestUses)), true
}

// langFiles are the code files of a reader's Lang, for Reader.Imported.
var langFiles = map[string]func(string) bool{"python": pyFiles, "node": jsFiles, "go": goFiles, "ruby": rbFiles, "elixir": exFiles}

// unused reports whether a reader that only reads where code builds it
// (Reader.Imported) is declared but not used: code of its language is in
// view and no connector of it shows (fastapi-realworld declares databases
// and connects with asyncpg.create_pool).
func unused(r *Reader, code []codeText, scopeUses []Use) bool {
	files := langFiles[r.Lang]
	if !r.Imported || files == nil || slices.ContainsFunc(scopeUses, func(u Use) bool { return u.Reader == r }) {
		return false
	}
	return slices.ContainsFunc(code, func(c codeText) bool { return files(c.rel) })
}

// ownConfig names the readers that read a connection URI from a file of
// their own, which names the variable: Prisma's schema.prisma
// (url = env("X")) or, from Prisma 7, prisma.config.ts.
var ownConfig = map[string]func(rel string) bool{"prisma": prismaFiles}

// gateVersions replaces each use of a reader whose forms hold only from
// a version on (Reader.Since) by that reader as it was before, taking no
// socket URI, unless a manifest in the scope declares the package at that
// version or above: the code alone does not say which version runs.
func gateVersions(uses, manifest []Use) []Use {
	out := slices.Clone(uses)
	for i, u := range out {
		if u.Reader.Since == nil {
			continue
		}
		recent := false
		for _, m := range pinned(manifest, u.Reader) {
			if !recent && atLeast(m.Version, u.Reader.Since.Version) {
				recent = true
				if u.Declared && m.File != u.File {
					// The line that shows the version that runs is the
					// basis (Gemfile.lock's rails (7.1.3.2), not the
					// Gemfile's range).
					out[i] = m
					if strings.HasSuffix(m.File, ".lock") {
						out[i].How = strings.Replace(m.How, "declares the dependency", "locks", 1) + " " + m.Version
					}
				}
			}
		}
		if !recent {
			old := *u.Reader
			old.Forms, old.Newer, old.Reason = nil, nil, u.Reader.Since.Before
			out[i].Reader = &old
		}
	}
	return out
}

// pinned returns the manifest uses of reader r that give the version
// that runs: a lock file's (Gemfile.lock, poetry.lock), resolved by the
// package manager, over a requirement's range, when the scope has one.
func pinned(manifest []Use, r *Reader) []Use {
	var reqs, locks []Use
	for _, m := range manifest {
		if m.Reader != r {
			continue
		}
		if strings.HasSuffix(m.File, ".lock") && m.Version != "" {
			locks = append(locks, m)
		} else {
			reqs = append(reqs, m)
		}
	}
	if len(locks) > 0 {
		return locks
	}
	return reqs
}

// atLeast reports whether the lowest version a manifest's range allows
// ("^0.3.17", "~6.37.0", ">=6", "6.x", "0.2.29") is at least since
// ("0.2.29"); "latest" and "*" mean the newest. Anything else (a git URL,
// a tag, "") is not known to be recent.
func atLeast(spec, since string) bool {
	spec = strings.TrimSpace(spec)
	if spec == "latest" || spec == "*" || spec == "x" {
		return true
	}
	spec = strings.TrimLeft(spec, "^~>=v ")
	end := strings.IndexFunc(spec, func(r rune) bool { return (r < '0' || r > '9') && r != '.' && r != 'x' && r != 'X' })
	if end >= 0 {
		spec = spec[:end]
	}
	if spec == "" || spec[0] < '0' || spec[0] > '9' {
		return false
	}
	have, want := strings.Split(spec, "."), strings.Split(since, ".")
	for i := range want {
		h := 0
		if i < len(have) {
			h, _ = strconv.Atoi(have[i]) // "x" reads as 0: the lowest
		}
		w, _ := strconv.Atoi(want[i])
		if h != w {
			return h > w
		}
	}
	return true
}

// Combine is the verdict of a set of uses: a reader that takes no socket
// URI decides alone (it comes first); else the form every reader takes
// ("" when they share none).
func Combine(uses []Use) Verdict {
	uses = dedupe(uses)
	for _, u := range uses {
		if len(u.Reader.Forms) == 0 {
			return Verdict{Uses: append([]Use{u}, without(uses, u)...)}
		}
	}
	var rs []*Reader
	for _, u := range uses {
		rs = append(rs, u.Reader)
	}
	return Verdict{Uses: uses, Form: Choose(rs)}
}

// keyUses returns the uses the key rules find in one line that mentions
// name (the variable, or a name that holds its value), at 0-based line i.
func keyUses(rel, line string, i int, name, how string) []Use {
	var out []Use
	for _, kr := range keyRules {
		if kr.files(rel) && keyRule(kr.pattern, name).MatchString(line) {
			out = append(out, Use{Reader: ByName(kr.reader), File: rel, Line: i + 1, How: how})
		}
	}
	return out
}

// connectors returns the connector uses in one file.
func connectors(rel, text string, lines []string) []Use {
	var out []Use
	for _, c := range connectorRules {
		if !c.files(rel) || (c.also != nil && !c.also.MatchString(text)) {
			continue
		}
		how := c.how
		if how == "" {
			how = "opens the connection"
		}
		for i, line := range lines {
			if c.re.MatchString(line) {
				out = append(out, Use{Reader: ByName(c.reader), File: rel, Line: i + 1, How: how})
				break
			}
		}
	}
	return out
}

// railsPkgs are the gems that make ActiveRecord read DATABASE_URL.
var railsPkgs = []string{"rails", "activerecord"}

// implicit returns the readers of a DATABASE_URL no code names: Rails
// (ActiveRecord merges DATABASE_URL into database.yml) and
// dj_database_url.config() and django-environ's env.db() (their default
// variable).
func implicit(scope, manifest []Use) []Use {
	var out []Use
	for _, u := range manifest {
		if u.Reader.Name == "rails" && slices.ContainsFunc(railsPkgs, func(p string) bool { return strings.HasSuffix(u.How, "gem:"+p) }) {
			out = append(out, u)
		}
	}
	for _, u := range scope {
		if u.Reader.Name == "dj-database-url" || u.Reader.Name == "django-environ" {
			out = append(out, u)
		}
	}
	return out
}

func onlyValidators(uses []Use) bool {
	for _, u := range uses {
		if !validators[u.Reader.Name] {
			return false
		}
	}
	return true
}

func dedupe(uses []Use) []Use {
	var out []Use
	seen := map[string]bool{}
	for _, u := range uses {
		if !seen[u.Reader.Name] {
			seen[u.Reader.Name] = true
			out = append(out, u)
		}
	}
	return out
}

func without(uses []Use, x Use) []Use {
	return slices.DeleteFunc(slices.Clone(uses), func(u Use) bool { return u.Reader.Name == x.Reader.Name })
}
