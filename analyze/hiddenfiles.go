package analyze

import (
	"bufio"
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
)

// connWordRE marks a line that configures a connection.
var connWordRE = regexp.MustCompile(`(?i)host|url|jdbc|postgres|dsn|server|database`)

// hiddenConnection finds the first line in the project files reaching a
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
	var names []string
	for _, n := range db.Names {
		names = append(names, regexp.QuoteMeta(n))
	}
	nameRE := regexp.MustCompile(`(^|[^\w.-])(` + strings.Join(names, "|") + `)([^\w.-]|$)`)
	for _, abs := range cl.scopes.Of(service).Files() {
		base := filepath.Base(abs)
		if skip[abs] || strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".env") || base == "Dockerfile" {
			continue
		}
		path := cl.p.DisplayPath(abs)
		data, err := cl.readFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		if n := connectionLine(data, nameRE); n > 0 {
			return path, n
		}
	}
	return "", 0
}

// hostWordRE marks a line that names a host: a host or URL key, or URL
// syntax.
var hostWordRE = regexp.MustCompile(`(?i)host|url|jdbc|dsn|server|@|//`)

// connectionLine returns the line of data that names one of nameRE's host
// names as a host, else the first connection line naming one (0 if none).
// A database named like its server ("NAME": "postgres" above "HOST":
// "postgres", as in Sentry's sentry.conf.py) is not the host line.
func connectionLine(data []byte, nameRE *regexp.Regexp) int {
	first := 0
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if !nameRE.MatchString(line) || !connWordRE.MatchString(line) {
			continue
		}
		if hostWordRE.MatchString(nameRE.ReplaceAllString(line, "$1$3")) {
			return n
		}
		if first == 0 {
			first = n
		}
	}
	return first
}
