package analyze

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/evidence"
	"github.com/uds-migrate/uds-migrate/hostvar"
)

// A connection carried only by a dotenv file that reaches the container
// (issue #21): COPY . . puts the project's .env into the image, or a bind
// mount of the source tree shows it, and the application loads it
// (python-dotenv, the dotenv packages of Node, Ruby, Go, PHP, Java;
// Next.js and Laravel load .env themselves). compose never passes that
// file to the container, so no compose value shows the connection; the
// tool does not edit it (the value is baked into the image at build time,
// and the project's .env is also compose's interpolation file), it says so.

// dotenvLoaderRE marks code or a manifest that loads dotenv files
// (envFilePath: @nestjs/config's ConfigModule.forRoot option). Next.js,
// which loads .env itself, is told by nextSignal: the word "next" alone is
// none (a switch's case "next": in a front-end script, trial 10 B6).
var dotenvLoaderRE = regexp.MustCompile(`(?i)dotenv|\bread_env\(|laravel/framework|--env-file[= ]|\benvFilePath\b`)

// nextImportRE is code that imports Next.js: from "next/...", require("next").
var nextImportRE = regexp.MustCompile(`(?:\bfrom\s+|\bimport\s+|\brequire\(\s*)["']next(?:/[^"'\s]*)?["']`)

// nextConfigRE is Next.js's own configuration file.
var nextConfigRE = regexp.MustCompile(`^next\.config\.(?:js|mjs|cjs|ts|mts)$`)

// nextSignal returns the line of a file that shows a Next.js application
// (which loads .env files itself): its next.config.*, a package.json
// that declares next as a dependency (the key of dependencies or
// devDependencies, parsed as JSON), or code that imports it.
func nextSignal(base string, data []byte) (int, bool) {
	switch {
	case nextConfigRE.MatchString(base):
		return 1, true
	case base == "package.json":
		var pkg struct {
			Dependencies    map[string]any `json:"dependencies"`
			DevDependencies map[string]any `json:"devDependencies"`
		}
		if json.Unmarshal(data, &pkg) != nil {
			return 0, false
		}
		if _, ok := pkg.Dependencies["next"]; !ok {
			if _, ok := pkg.DevDependencies["next"]; !ok {
				return 0, false
			}
		}
		if loc := regexp.MustCompile(`"next"\s*:`).FindIndex(data); loc != nil {
			return bytes.Count(data[:loc[0]], []byte("\n")) + 1, true
		}
		return 1, true
	case slices.Contains([]string{".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts"}, filepath.Ext(base)):
		if loc := nextImportRE.FindIndex(data); loc != nil {
			return bytes.Count(data[:loc[0]], []byte("\n")) + 1, true
		}
	}
	return 0, false
}

// dotenvTemplates are dotenv files that are examples, not settings.
var dotenvTemplates = []string{".example", ".sample", ".template", ".dist", ".defaults"}

// warn reports (UDS181) each connection value in a dotenv file
// that reaches a client's container, when the client's code loads dotenv
// files and the service does not set that variable itself (the usual
// loaders leave a variable the environment sets alone unless told to
// override it).
// imageDotenv reports connections carried by dotenv files in containers.
type imageDotenv struct{ cl *collector }

func (d imageDotenv) warn() {
	cl := d.cl
	for _, name := range cl.clientServices() {
		scope := cl.scopes.Of(name)
		var envFiles []string
		for _, f := range scope.Files() {
			if isDotenvFile(filepath.Base(f)) { // a .dockerignored one is not in Files
				envFiles = append(envFiles, f)
			}
		}
		if len(envFiles) == 0 {
			continue
		}
		loader, line := d.loader(scope)
		if loader == "" {
			continue
		}
		set := map[string]bool{}
		for _, v := range cl.p.ServiceEnv(name) {
			set[v.Key] = true
		}
		for _, f := range envFiles {
			d.file(name, f, fmt.Sprintf("%s:%d", loader, line), set)
		}
	}
}

// isDotenvFile reports whether a base name is a dotenv file an application
// loads (.env, .env.production), not a template (.env.example).
func isDotenvFile(base string) bool {
	if base != ".env" && !strings.HasPrefix(base, ".env.") {
		return false
	}
	for _, t := range dotenvTemplates {
		if strings.HasSuffix(base, t) {
			return false
		}
	}
	return true
}

// lockFiles list resolved dependency trees: a dotenv package there may be
// any dependency's, not the code's loader.
var lockFiles = []string{"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock", "poetry.lock", "Pipfile.lock", "uv.lock", "Gemfile.lock", "composer.lock", "Cargo.lock", "mix.lock", "go.sum"}

// dotenvLoader returns the first file (as reports show it) and line of the
// scope that loads dotenv files, or "": program code first (import
// 'dotenv/config', envFilePath: ['.env']), then the other files (a
// manifest's dotenv dependency, a script's --env-file); lock files never.
func (d imageDotenv) loader(scope evidence.Scope) (string, int) {
	cl := d.cl
	for _, code := range []bool{true, false} {
		for _, f := range scope.Files() {
			base := filepath.Base(f)
			if isDotenvFile(base) || slices.Contains(lockFiles, base) || slices.Contains(programExts, filepath.Ext(f)) != code {
				continue
			}
			data, err := scope.ReadFile(f)
			if err != nil || bytes.IndexByte(data, 0) >= 0 {
				continue
			}
			if n, ok := nextSignal(base, data); ok {
				return cl.p.DisplayPath(f), n
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			for n := 1; sc.Scan(); n++ {
				if dotenvLoaderRE.Match(sc.Bytes()) && !commentRE.Match(sc.Bytes()) {
					return cl.p.DisplayPath(f), n
				}
			}
		}
	}
	return "", 0
}

// warnDotenvFile reports the connection values of one dotenv file (abs).
func (d imageDotenv) file(service, abs, loader string, set map[string]bool) {
	cl := d.cl
	for _, v := range cl.p.EnvFileVars(service, abs) {
		if set[v.Key] {
			continue
		}
		db := d.target(service, v.Key, v.Value)
		if db == nil {
			continue
		}
		set[v.Key] = true
		path := v.Pos.File
		cl.note("UDS181", v.Pos, service, v.Key,
			fmt.Sprintf("%s/%s is set only in %s, which reaches the container (the build context's COPY or a bind mount) and which the code loads (%s): it reaches %s over TCP from inside the image, where the tool does not edit it; set %s in %s's environment: in the socket form its reader takes (or edit %s and rebuild the image), and mount %s's socket volume on %s",
				service, v.Key, path, loader, db.Name, v.Key, service, path, db.Name, service))
	}
}

// dotenvTarget returns the database a dotenv value connects to (a
// connection string, or a host variable naming it), or nil.
func (d imageDotenv) target(service, key, val string) *DB {
	cl := d.cl
	hosts, dname, socket := dialect.Classify(val)
	if socket {
		return nil
	}
	if dname == "" && hostvar.IsAppHostKey(key) {
		hosts = []string{strings.TrimSpace(val)}
	}
	for _, h := range hosts {
		if db, code, _ := cl.p.dbFor(cl.dbs, service, h); db != nil && code == "" {
			return db
		}
	}
	return nil
}
