// Package evidence decides, from the project's own code and configuration,
// whether an application hands a host variable (DB_HOST, POSTGRES_HOST ...)
// to a driver that takes an absolute directory as the Unix-socket
// directory (libpq and the drivers that copy its rule: psycopg, node-postgres,
// pgx, lib/pq, the Rails pg gem).
//
// It reads only files that reach the container: the build context's COPY
// and ADD sources when the image is built here, and bind-mounted sources.
// One reader per stack (django.go, psycopg.go, rails.go, nodepg.go,
// gopg.go, and jdbc.go for a consumer that does NOT take a directory)
// looks for the line that reads the variable; typeorm.go follows the
// variable across files (a NestJS configuration namespace) to TypeORM,
// knex.go from a knexfile's connection to the object it names.
package evidence

import (
	"path/filepath"
	"strconv"
	"strings"
)

// SourceName labels verdicts from this package, beside the user's flag and
// the image catalogue.
const SourceName = "evidence"

// Verdict is what one knowledge source says about a (service, key) host
// variable.
type Verdict struct {
	// Directory reports whether the consumer takes an absolute directory
	// as the socket directory (so the variable can become the mount path).
	Directory bool
	// Driver names the driver the evidence implies, e.g. "psycopg (libpq)".
	Driver string
	// Reason says in one clause what the evidence shows.
	Reason string
	// Pasted: the consumer pastes the variable into a URL as HOST:PORT
	// (pasteReader), where no socket directory works whoever vouches
	// for the variable: the user's --host-var does not override it.
	Pasted bool
	// Advice, for a consumer that takes no directory, says what to change
	// by hand; "" means the JDBC advice (the URL needs the socket factory).
	Advice string
	// Source is SourceName.
	Source string
	// File is the evidence's path relative to the project directory
	// (slash-separated); Line is 1-based.
	File string
	Line int
}

// At returns "file:line".
func (v Verdict) At() string { return v.File + ":" + strconv.Itoa(v.Line) }

// Scope is what a service's code can be: files that reach its container.
type Scope struct {
	// ProjectDir is absolute; nothing outside it is read.
	ProjectDir string
	// Roots are absolute files or directories that reach the container.
	Roots []string
	// Env is the service's effective environment (RAILS_ENV picks the
	// database.yml section).
	Env map[string]string
	// Read reads a file; nil means a regular-file read bounded by MaxFileSize.
	Read func(path string) ([]byte, error)
	// List, when set, replaces the walk of Roots (a caller's cache of Files).
	List []string
	// Refused, when set, hears of each root that leads outside ProjectDir
	// once its symbolic links are resolved (a confine.EscapeError): it is
	// neither walked nor read.
	Refused func(root string, err error)
}

// Find returns the verdict the readers draw about key, in the files of s,
// walked in lexical order: the first consumer that takes no directory (a
// pgjdbc URL, a TCP wait in a script) wherever it is, since one such use
// breaks the container whatever else reads the variable; else the first
// that takes one. ok is false when no reader recognises a consumer of key.
//
// The TypeORM, knex and imported node-postgres shapes (typeorm.go,
// knex.go, nodepg.go), which span files,
// are asked last: they only ever say a directory is taken.
func Find(s Scope, key string) (v Verdict, ok bool) {
	if v, ok := find(s, key, readers); ok {
		return v, true
	}
	if v, ok := findTypeORM(s, key); ok {
		return v, true
	}
	if v, ok := findKnex(s, key); ok {
		return v, true
	}
	return findNodePGImported(s, key)
}

// find is Find with the given readers.
func find(s Scope, key string, readers []reader) (v Verdict, ok bool) {
	var first *Verdict
	for _, f := range s.Files() {
		rel, _ := filepath.Rel(s.ProjectDir, f)
		rel = filepath.ToSlash(rel)
		var mine []reader
		for _, r := range readers {
			if r.match(rel) {
				mine = append(mine, r)
			}
		}
		if len(mine) == 0 {
			continue
		}
		data, err := s.read(f)
		if err != nil || len(data) > MaxFileSize {
			continue
		}
		for _, r := range mine {
			if hit, ok := r.find(data, key, s.Env); ok {
				hit.File, hit.Source = rel, SourceName
				if !hit.Directory {
					return hit, true
				}
				if first == nil {
					first = &hit
				}
			}
		}
	}
	if first != nil {
		return *first, true
	}
	return Verdict{}, false
}

// reader recognises one stack's consumer of a host variable.
type reader struct {
	// match says whether a project-relative path is this stack's file.
	match func(rel string) bool
	// find returns the verdict (without File and Source) for key.
	find func(data []byte, key string, env map[string]string) (Verdict, bool)
}

var readers = []reader{djangoReader, psycopgReader, railsReader, railsCaseReader, nodePGReader, goPGReader, jdbcReader, tcpWaitReader, pasteReader, pasteScriptReader}

// FindPasted returns the first paste of key into a URL in the files of s
// (pasteReader), the one use a user's word does not override.
func FindPasted(s Scope, key string) (Verdict, bool) {
	return find(s, key, []reader{pasteReader, pasteScriptReader})
}

// PastedInValue reports whether text, another variable's compose or env
// file value (interpolation text, references intact), pastes key into a
// URL (DATABASE_URL=postgresql://${U}:${P}@${DB_HOST}:${DB_PORT}/db): the
// URL shapes of shell references only, as pasteScriptReader reads them.
// The verdict's Line is 1 (the value's own line); File is empty.
func PastedInValue(text, key string) (Verdict, bool) {
	return pasted([]byte(text), key, true)
}

func hasExt(rel string, exts ...string) bool {
	for _, e := range exts {
		if strings.HasSuffix(rel, e) {
			return true
		}
	}
	return false
}

// lineOf returns the 1-based line of byte offset off.
func lineOf(data []byte, off int) int {
	return strings.Count(string(data[:off]), "\n") + 1
}
