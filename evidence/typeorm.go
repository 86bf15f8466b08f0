package evidence

import (
	"regexp"
	"strconv"
	"strings"
)

// TypeORM's postgres driver builds node-postgres's pool from the options'
// host, port, username, password, database and ssl (typeorm 0.3.31
// driver/postgres/PostgresDriver.js createPool: host: credentials.host,
// ssl: credentials.ssl, with pg loaded by loadDependencies), and a url
// option replaces them (driver/DriverUtils.js buildDriverOptions parses it
// over the options). node-postgres takes a host starting with "/" as the
// socket directory (nodepg.go). @nestjs/typeorm hands the options of
// TypeOrmModule.forRoot, or of a TypeOrmOptionsFactory's
// createTypeOrmOptions, to new DataSource(options) unchanged
// (nestjs/typeorm @ 69d4cd83, lib/typeorm-core.module.ts
// createDataSourceFactory). e2e TestTypeORMHostDirectory connects through
// both TypeORM lines with a directory in host.
var (
	typeORMImportRE = regexp.MustCompile(`from\s+["'](?:typeorm|@nestjs/typeorm)["']|require\(\s*["'](?:typeorm|@nestjs/typeorm)["']\s*\)`)
	nestConfigRE    = regexp.MustCompile(`from\s+["']@nestjs/config["']|require\(\s*["']@nestjs/config["']\s*\)`)
	// registerAs('database', () => ({...})), generic argument allowed.
	registerAsRE = regexp.MustCompile(`\bregisterAs\s*(?:<[^>()]*>)?\(\s*["']([\w-]+)["']`)
)

// typeORMFile is one JavaScript or TypeScript file of the scope.
type typeORMFile struct {
	rel  string
	data []byte
}

// findTypeORM is the TypeORM shape, which spans files: a package.json in
// the scope declares typeorm (or @nestjs/typeorm) and pg among its
// dependencies, and a file that imports typeorm or @nestjs/typeorm builds
// options whose host reads key, either directly (`host:
// process.env.KEY`, a DataSource or TypeOrmModule.forRoot) or through a
// NestJS configuration namespace: `host: config.get('NS.host')` where
// another file, importing @nestjs/config, has registerAs('NS', ...) with
// `host: process.env.KEY`. The same options must say type postgres (a
// literal, or a variable the service's environment sets to postgres), and
// neither a url (which replaces host) nor ssl (node-postgres asks a socket
// for SSL, which PostgreSQL refuses there) may be on in env. Anything less
// visible gives no verdict.
func findTypeORM(s Scope, key string) (Verdict, bool) {
	// The manifests first: most scopes have no TypeORM, and their code is
	// then not read again.
	all := s.Files()
	if !manifestDeclares(s, all, "typeorm", "pg") && !manifestDeclares(s, all, "@nestjs/typeorm", "pg") {
		return Verdict{}, false
	}
	files := jsFiles(s, all)
	spaces := nestNamespaces(files)
	read := `process\.env(?:\.` + regexp.QuoteMeta(key) + `\b|\[\s*["']` + regexp.QuoteMeta(key) + `["']\s*\])`
	for _, f := range files {
		if !typeORMImportRE.Match(f.data) {
			continue
		}
		if line, ok := firstLine(f.data, `\bhost\s*:\s*`+readOrAlias(f.data, read, jsAssign)); ok {
			if typeORMOptionsOK(f.data, spaces, s.Env) {
				return Verdict{Directory: true, Driver: "TypeORM (node-postgres)", File: f.rel, Line: line,
					Reason: "TypeORM's postgres options take host from " + key + " and hand it to node-postgres (package.json declares typeorm and pg)"}, true
			}
			continue
		}
		for ns, nf := range spaces {
			nsLine, ok := firstLine(nf.data, `\bhost\s*:\s*`+readOrAlias(nf.data, read, jsAssign))
			if !ok {
				continue
			}
			line, ok := firstLine(f.data, `\bhost\s*:\s*`+configGet(ns, "host"))
			if !ok || !typeORMOptionsOK(f.data, spaces, s.Env) {
				continue
			}
			return Verdict{Directory: true, Driver: "TypeORM (node-postgres)", File: f.rel, Line: line,
				Reason: "TypeORM's postgres options take host from the NestJS configuration " + ns + ".host, which " +
					nf.rel + ":" + strconv.Itoa(nsLine) + " sets from " + key + ", and hand it to node-postgres (package.json declares typeorm and pg)"}, true
		}
	}
	return Verdict{}, false
}

// nestNamespaces maps each NestJS configuration namespace to the file that
// registers it: a file importing @nestjs/config with exactly one
// registerAs; a namespace registered twice is dropped (which one applies
// is not visible).
func nestNamespaces(files []typeORMFile) map[string]typeORMFile {
	out := map[string]typeORMFile{}
	twice := map[string]bool{}
	for _, f := range files {
		if !nestConfigRE.Match(f.data) {
			continue
		}
		m := registerAsRE.FindAllSubmatch(f.data, -1)
		if len(m) != 1 {
			continue
		}
		ns := string(m[0][1])
		if _, ok := out[ns]; ok {
			twice[ns] = true
		}
		out[ns] = f
	}
	for ns := range twice {
		delete(out, ns)
	}
	return out
}

// configGet is the pattern of a ConfigService read of NS.prop:
// this.configService.get('NS.prop', ...), config.getOrThrow<T>("NS.prop").
func configGet(ns, prop string) string {
	return `[\w$.]*\.get(?:OrThrow)?\s*(?:<[^>()]*>)?\(\s*["']` + regexp.QuoteMeta(ns+"."+prop) + `["']`
}

var (
	// configGetAnyRE is a whole ConfigService read of NS.prop, receiver
	// and options ({ infer: true }) included.
	configGetAnyRE = regexp.MustCompile(`[\w$.]*\.get(?:OrThrow)?\s*(?:<[^>()]*>)?\(\s*["']([\w-]+)\.(\w+)["']\s*(?:,\s*\{[^{}]*\}\s*)?,?\s*\)`)
	typeORMEnvRE   = regexp.MustCompile(`process\.env(?:\.([A-Za-z_]\w*)|\[\s*["']([A-Za-z_]\w*)["']\s*\])(\s*===?\s*["']true["'])?`)
)

// typeORMOptionsOK reports whether the TypeORM options in data (a file
// with one options object, as a DataSource module or a
// TypeOrmOptionsFactory has) say postgres and, in the service's
// environment env, turn on neither url nor ssl.
func typeORMOptionsOK(data []byte, spaces map[string]typeORMFile, env map[string]string) bool {
	typ, ok := property(data, "type")
	if !ok || !isPostgres(resolve(typ, spaces), env) {
		return false
	}
	if url, ok := property(data, "url"); ok && !allOff(resolve(url, spaces), env) {
		return false
	}
	if ssl, ok := property(data, "ssl"); ok && !allOff(resolve(ssl, spaces), env) {
		return false
	}
	// node-postgres reads PGSSLMODE when the options set no ssl.
	if m := env["PGSSLMODE"]; m != "" && m != "disable" {
		return false
	}
	return true
}

// property returns the expression of the first `name:` property in data:
// the rest of its line and the lines below it indented deeper (a
// multi-line ternary or object, as prettier lays them out).
func property(data []byte, name string) (string, bool) {
	lines := strings.Split(string(data), "\n")
	re := Compiled(`^(\s*)` + name + `\s*:\s*(.*)$`)
	for i, l := range lines {
		m := re.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		expr := []string{m[2]}
		for _, next := range lines[i+1:] {
			if strings.TrimSpace(next) == "" || len(next)-len(strings.TrimLeft(next, " \t")) <= len(m[1]) {
				break
			}
			expr = append(expr, next)
		}
		return strings.TrimRight(strings.Join(expr, "\n"), ", \t"), true
	}
	return "", false
}

// resolve replaces each ConfigService read of NS.prop in expr with the
// expression the namespace's file gives prop (one level), so the
// environment reads behind it are visible; a read of an unknown namespace
// or property is left as written.
func resolve(expr string, spaces map[string]typeORMFile) string {
	return configGetAnyRE.ReplaceAllStringFunc(expr, func(call string) string {
		m := configGetAnyRE.FindStringSubmatch(call)
		nf, ok := spaces[m[1]]
		if !ok {
			return call
		}
		if e, ok := property(nf.data, m[2]); ok {
			return "(" + e + ")"
		}
		return call
	})
}

var (
	postgresLiteralRE = regexp.MustCompile(`^\(?\s*["']postgres["']\s*\)?$`)
	asTypeRE          = regexp.MustCompile(`^as\s+[\w.]+$`) // process.env.DATABASE_TYPE as DatabaseType
)

// isPostgres reports whether a type expression is the literal 'postgres'
// or reads one variable that env sets to postgres.
func isPostgres(expr string, env map[string]string) bool {
	if postgresLiteralRE.MatchString(expr) {
		return true
	}
	m := typeORMEnvRE.FindAllStringSubmatch(expr, -1)
	if len(m) != 1 || m[0][3] != "" {
		return false
	}
	rest := strings.TrimSpace(strings.Replace(expr, m[0][0], "", 1))
	rest = strings.Trim(rest, "(), ")
	if rest != "" && !asTypeRE.MatchString(rest) {
		return false // a fallback or a computation: not only the variable
	}
	return env[m[0][1]+m[0][2]] == "postgres"
}

// allOff reports whether expr (a url or ssl option, its configuration
// reads resolved) is off in env: every variable it reads is unset or
// empty, or, compared with === 'true', not true. An expression that reads
// no variable is off only when it is undefined, null or false (a literal
// true or an object turns ssl on).
func allOff(expr string, env map[string]string) bool {
	reads := typeORMEnvRE.FindAllStringSubmatch(expr, -1)
	if len(reads) == 0 {
		t := strings.Trim(strings.TrimSpace(expr), "(), ")
		return t == "undefined" || t == "null" || t == "false"
	}
	if configGetAnyRE.MatchString(expr) {
		return false // a read the namespaces do not explain
	}
	for _, m := range reads {
		v := env[m[1]+m[2]]
		if m[3] != "" {
			if v == "true" {
				return false
			}
			continue
		}
		if v != "" {
			return false
		}
	}
	return true
}
