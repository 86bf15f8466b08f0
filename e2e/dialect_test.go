package e2e

import (
	"errors"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// edge is one socket-form connection string found in a client service.
type edge struct {
	service string
	key     string // environment variable, or command[i] / entrypoint[i]
	dialect string // "jdbc", "uri", "dsn" (libpq keywords), "npgsql", "pgenv" (PGHOST=/dir) or "hostdir" (an application's host variable)
	value   string // interpolated, as the container sees it
	// dir is the socket directory as the client sees it, and port the
	// number in the socket file name the client will open.
	dir  string
	port int
	// user, password, database: from the string, else from sibling
	// variables (*_USERNAME/*_USER, *_PASSWORD), else "postgres"; the
	// database defaults to the user, as in libpq and pgjdbc.
	user, password, database string
	userInString             bool
	// inFile: the value is in a configuration file, which nothing
	// interpolates (a JDBC URL there holds a single-$ $FactoryArg).
	inFile bool
}

func (e edge) String() string { return e.service + "/" + e.key + " (" + e.dialect + "): " + e.value }

// socketFileRe is the name PostgreSQL gives its socket file.
var socketFileRe = regexp.MustCompile(`^\.s\.PGSQL\.(\d+)$`)

// parseJDBC reads a pgjdbc URL that uses a socket factory. pgjdbc splits the
// query on & and URL-decodes each value (so %24 is a $), and a factory with
// a socketFactoryArg opens that FILE; the host and port only matter to the
// factory's own checks.
func parseJDBC(v string) (edge, bool) {
	rest, ok := strings.CutPrefix(v, "jdbc:postgresql:")
	if !ok {
		return edge{}, false
	}
	base, query, _ := strings.Cut(rest, "?")
	q, err := url.ParseQuery(query)
	if err != nil || q.Get("socketFactory") == "" {
		return edge{}, false
	}
	e := edge{dialect: "jdbc", value: v, user: q.Get("user"), password: q.Get("password")}
	file := q.Get("socketFactoryArg")
	e.dir = path.Dir(file)
	if m := socketFileRe.FindStringSubmatch(path.Base(file)); m != nil {
		e.port, _ = strconv.Atoi(m[1])
	}
	// //host:port/db, ///db, or a bare db name.
	if after, ok := strings.CutPrefix(base, "//"); ok {
		_, db, _ := strings.Cut(after, "/")
		e.database = db
	} else {
		e.database = strings.TrimPrefix(base, "/")
	}
	e.database, _ = url.PathUnescape(e.database)
	return e, true
}

// uriSchemeRe matches libpq URI schemes, with SQLAlchemy-style +driver
// suffixes (postgresql+psycopg2://), which name the same URI syntax, and
// Celery's db+ prefix in front of a SQLAlchemy URL (the probe connects
// with the URL behind it, as Celery hands it to SQLAlchemy).
var uriSchemeRe = regexp.MustCompile(`^(db\+)?postgres(ql)?(\+[A-Za-z0-9_]+)?://`)

// parseURI reads a libpq URI whose host is a directory: the query's host=
// (libpq lets it override the authority) or a percent-encoded authority
// host. Parsed by hand: net/url refuses %2F in a host.
func parseURI(v string) (edge, bool) {
	loc := uriSchemeRe.FindStringIndex(v)
	if loc == nil {
		return edge{}, false
	}
	rest := v[loc[1]:]
	rest, query, _ := strings.Cut(rest, "?")
	authority, dbpath, _ := strings.Cut(rest, "/")
	q, err := url.ParseQuery(query)
	if err != nil {
		return edge{}, false
	}
	e := edge{dialect: "uri", value: v, port: 5432}
	hostport := authority
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		userinfo := authority[:i]
		hostport = authority[i+1:]
		u, pw, _ := strings.Cut(userinfo, ":")
		e.user, _ = url.PathUnescape(u)
		e.password, _ = url.PathUnescape(pw)
	}
	host, port := hostport, ""
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 && !strings.Contains(hostport[i:], "]") {
		host, port = hostport[:i], hostport[i+1:]
	}
	host, _ = url.PathUnescape(host)
	if h := q.Get("host"); h != "" {
		host = h
	}
	if p := q.Get("port"); p != "" {
		port = p
	}
	if !strings.HasPrefix(host, "/") {
		return edge{}, false
	}
	e.dir = host
	if port != "" {
		if e.port, err = strconv.Atoi(port); err != nil {
			return edge{}, false
		}
	}
	if u := q.Get("user"); u != "" {
		e.user = u
	}
	if pw := q.Get("password"); pw != "" {
		e.password = pw
	}
	e.database, _ = url.PathUnescape(dbpath)
	if d := q.Get("dbname"); d != "" {
		e.database = d
	}
	return e, true
}

// dsnStartRe recognizes a libpq keyword/value string.
var dsnStartRe = regexp.MustCompile(`^\s*[a-z_]+\s*=`)

// parseDSN reads a libpq keyword/value connection string whose host is a
// directory.
func parseDSN(v string) (edge, bool) {
	if !dsnStartRe.MatchString(v) {
		return edge{}, false
	}
	kv, err := parseKeywords(v)
	if err != nil || !strings.HasPrefix(kv["host"], "/") {
		return edge{}, false
	}
	e := edge{dialect: "dsn", value: v, dir: kv["host"], port: 5432, user: kv["user"], password: kv["password"], database: kv["dbname"]}
	if p := kv["port"]; p != "" {
		if e.port, err = strconv.Atoi(p); err != nil {
			return edge{}, false
		}
	}
	return e, true
}

// parseKeywords implements libpq's keyword/value syntax (libpq docs,
// "Keyword/Value Connection Strings"): key = value pairs separated by
// whitespace; a value may be single-quoted, with \' and \\ escapes.
func parseKeywords(s string) (map[string]string, error) {
	out := map[string]string{}
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
			i++
		}
	}
	for {
		skip()
		if i == len(s) {
			return out, nil
		}
		start := i
		for i < len(s) && s[i] != '=' && s[i] != ' ' && s[i] != '\t' {
			i++
		}
		key := s[start:i]
		skip()
		if i == len(s) || s[i] != '=' || key == "" {
			return nil, errors.New("missing = after " + strconv.Quote(key))
		}
		i++
		skip()
		var val strings.Builder
		if i < len(s) && s[i] == '\'' {
			i++
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			if i == len(s) {
				return nil, errors.New("unterminated quoted value for " + key)
			}
			i++
		} else {
			for ; i < len(s) && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
		}
		out[key] = val.String()
	}
}

// quoteKeyword quotes a value for a libpq keyword/value string.
func quoteKeyword(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// classify returns the socket-form edge value holds, if any.
func classify(v string) (edge, bool) {
	for _, parse := range []func(string) (edge, bool){parseJDBC, parseURI, parseDSN, parseNpgsql} {
		if e, ok := parse(v); ok {
			return e, true
		}
	}
	return edge{}, false
}

// pgenvEdge turns PGHOST=/dir (with PGPORT, PGUSER, PGDATABASE, PGPASSWORD)
// into an edge: every libpq-based client reads these variables.
func pgenvEdge(env map[string]string) (edge, bool) {
	host := env["PGHOST"]
	if !strings.HasPrefix(host, "/") {
		return edge{}, false
	}
	e := edge{dialect: "pgenv", key: "PGHOST", dir: host, port: 5432,
		user: env["PGUSER"], password: env["PGPASSWORD"], database: env["PGDATABASE"]}
	if p := env["PGPORT"]; p != "" {
		var err error
		if e.port, err = strconv.Atoi(p); err != nil {
			return edge{}, false
		}
	}
	keys := []string{"PGHOST", "PGPORT", "PGUSER", "PGDATABASE"}
	var parts []string
	for _, k := range keys {
		if env[k] != "" {
			parts = append(parts, k+"="+env[k])
		}
	}
	e.value = strings.Join(parts, " ")
	return e, true
}

// sibling finds the variable next to key that ends in one of suffixes,
// preferring the longest shared prefix (SPRING_DATASOURCE_URL ->
// SPRING_DATASOURCE_USERNAME over DB_USER).
func sibling(env map[string]string, key string, suffixes ...string) string {
	best, bestLen := "", -1
	names := make([]string, 0, len(env))
	for k := range env {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, suf := range suffixes {
			if !strings.HasSuffix(k, suf) || k == key {
				continue
			}
			n := commonPrefix(k, key)
			if n > bestLen {
				best, bestLen = env[k], n
			}
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// fillDefaults completes user, password and database from the service's
// other variables and the drivers' defaults.
func (e *edge) fillDefaults(env map[string]string) {
	e.userInString = e.user != ""
	if e.user == "" {
		e.user = sibling(env, e.key, "_USERNAME", "_USER")
	}
	if e.user == "" {
		e.user = "postgres"
	}
	if e.password == "" {
		e.password = sibling(env, e.key, "_PASSWORD")
	}
	if e.database == "" {
		e.database = e.user
	}
}

// substituteDir replaces the socket directory dir by to wherever it appears
// in v as a whole path prefix, raw or percent-encoded (the two spellings a
// connection string can use), leaving the rest of the string untouched.
func substituteDir(v, dir, to string) (string, bool) {
	changed := false
	for _, spell := range []struct{ from, to string }{
		{dir, to},
		{url.PathEscape(dir), url.PathEscape(to)},
		{strings.ReplaceAll(url.PathEscape(dir), "%2F", "%2f"), url.PathEscape(to)},
	} {
		var b strings.Builder
		rest := v
		for {
			i := strings.Index(rest, spell.from)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(spell.from)
			// A whole path: what follows must not continue the last
			// path element (/var/run/postgresql2 is another directory).
			if end < len(rest) && !strings.ContainsRune("/&;'\" %,:", rune(rest[end])) {
				b.WriteString(rest[:end])
				rest = rest[end:]
				continue
			}
			b.WriteString(rest[:i] + spell.to)
			rest = rest[end:]
			changed = true
		}
		v = b.String()
	}
	return v, changed
}
