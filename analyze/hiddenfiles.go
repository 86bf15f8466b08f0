package analyze

import (
	"bufio"
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/uds-migrate/uds-migrate/configfile"
	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// nameRE matches one of db's host names as a word of a line (group 2):
// not inside a longer name (db in db-replica, db.example.com, mydb).
func nameRE(db *DB) *regexp.Regexp {
	var names []string
	for _, n := range db.Names {
		names = append(names, regexp.QuoteMeta(n))
	}
	return regexp.MustCompile(`(^|[^\w.-])(` + strings.Join(names, "|") + `)([^\w.-]|$)`)
}

// connection finds the first line in the project files reaching a
// service's container that names one of db's host names where a
// connection is configured (a format the tool does not edit, such as
// Python settings with a literal host). It returns the file as reports
// use it and the line, or "" when no such line is found.
func (hc hiddenClients) connection(service string, db *DB) (string, int) {
	cl := hc.cl
	skip := map[string]bool{}
	for _, src := range cl.p.Sources {
		if abs, err := filepath.Abs(src.Path); err == nil {
			skip[abs] = true
		}
	}
	nameRE := nameRE(db)
	for _, abs := range cl.scopes.Of(service).Files() {
		base := filepath.Base(abs)
		if skip[abs] || strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".env") || base == "Dockerfile" {
			continue
		}
		path := cl.p.DisplayPath(abs)
		data, err := cl.readFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 || configfile.IsSchema(path, data) {
			// a schema's examples are documentation (trial 11 D2)
			continue
		}
		if n := connectionLine(data, nameRE); n > 0 {
			return path, n
		}
	}
	return "", 0
}

// programExts are the source files of the languages whose code the
// evidence readers know: where one reaches a container, the program that
// would open a connection is in view.
var programExts = []string{".go", ".py", ".rb", ".js", ".mjs", ".cjs", ".ts", ".ex", ".exs", ".php", ".java", ".kt", ".scala", ".rs", ".cs", ".cr"}

// codeInView returns, for a service whose project files name none of db's
// host names, the first program file (as reports show it) among the files
// that reach its container, and how many do: its code is in view and
// opens no connection to db as configured. It is "" when no program file
// reaches it, or when its Dockerfile bakes a connection to db into the
// image (ENV DB_HOST=db).
func (hc hiddenClients) codeInView(service string, db *DB) (string, int) {
	cl := hc.cl
	if b := cl.p.Model.Services[service].Build; b != nil && b.Context != "" {
		if data, err := cl.readFile(cl.p.DisplayPath(dockerfile.Path(b.Context, b.Dockerfile))); err == nil {
			var env []string
			for _, ins := range dockerfile.Instructions(data) {
				if f := strings.Fields(ins); len(f) > 1 && (strings.EqualFold(f[0], "ENV") || strings.EqualFold(f[0], "ARG")) {
					env = append(env, ins)
				}
			}
			if connectionLine([]byte(strings.Join(env, "\n")), nameRE(db)) > 0 {
				return "", 0
			}
		}
	}
	first, n := "", 0
	for _, abs := range cl.scopes.Of(service).Files() {
		if slices.Contains(programExts, filepath.Ext(abs)) {
			if n++; first == "" {
				first = cl.p.DisplayPath(abs)
			}
		}
	}
	return first, n
}

// hostWordRE marks a line that configures a host: a host, server or
// address key (HOST, hostname:, Server=, POSTGRES_HOST).
var hostWordRE = regexp.MustCompile(`(?i)host|server|addr`)

// Around a name's occurrence: a URL scheme or a key after it
// (postgres://, postgres+asyncpg://, jdbc:postgresql:, "postgres": {), a
// URL authority before it (//db, @db), a URL path before it (/postgres,
// the database), or a key of another setting before it (user=postgres,
// "NAME": "postgres").
//
// An image reference is never a host: a name after an image key or FROM
// (image: postgres:16.8-alpine in another compose file that a bind mount
// or a build context brings into view) is the image's repository, and
// its :TAG no port. A port after a name is a whole token (:5432,
// :${DB_PORT}, :{port}), not the start of a tag (:15-trixie, :16.8).
var (
	imageBeforeRE      = regexp.MustCompile(`(?i)(?:^|[^\w.-])image["']?\s*[:=]\s*["']?$|^\s*FROM\s+(?:--\S+\s+)*$`)
	portAfterRE        = regexp.MustCompile(`^:(?:[0-9]{1,5}|\$\{?\w+\}?|\{\{?[^{}\n]*\}\}?|<%=[^%\n]*%>|%[sd])(?:[^\w.-]|$)`)
	schemeOrKeyAfterRE = regexp.MustCompile(`^(\+[\w.+-]*)?://|^["']?:(\D|$)`)
	authorityBeforeRE  = regexp.MustCompile(`(//|@)$`)
	otherKeyBeforeRE   = regexp.MustCompile(`(?i)(^|[^a-z])(user|username|name|database|dbname|db|password|schema)["']?\s*[:=]>?\s*["']?$`)
)

// commentRE matches a whole-line comment (//, #, /* and its * lines, ;):
// prose, even beside code.
var commentRE = regexp.MustCompile(`^\s*(//|#|/\*|\*|;)`)

// connectionLine returns the first line of data that names one of
// nameRE's host names (group 2 of nameRE) as a host: the host of a URL
// (postgres://u@db/x, //db:5432), host:port, or a value on a line that
// configures a host ('HOST': 'db', hostname: System.get_env("PGHOST",
// "db"), host=db). A name in any other place is no connection: a URL
// scheme (postgres:// with a service named postgres), a URL's database,
// a user or database setting, a driver name (sql.Open("postgres", ...)),
// a comment. It returns 0 when no line names one as a host.
func connectionLine(data []byte, nameRE *regexp.Regexp) int {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if commentRE.MatchString(line) {
			continue
		}
		for _, m := range nameRE.FindAllStringSubmatchIndex(line, -1) {
			before, after := line[:m[4]], line[m[5]:]
			switch {
			case imageBeforeRE.MatchString(before):
				continue
			case portAfterRE.MatchString(after) && !strings.HasSuffix(before, "/") && !otherKeyBeforeRE.MatchString(before):
				return n // host:port
			case schemeOrKeyAfterRE.MatchString(after):
				continue
			case authorityBeforeRE.MatchString(before):
				return n
			case strings.HasSuffix(before, "/"), otherKeyBeforeRE.MatchString(before):
				continue
			case strings.HasPrefix(after, ":"):
				continue // name:tag, a tag or a key's colon, not a port
			case hostWordRE.MatchString(line):
				return n // a host setting
			}
		}
	}
	return 0
}
