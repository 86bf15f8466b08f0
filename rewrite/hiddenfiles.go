package rewrite

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
func (pl *planner) hiddenConnection(service string, db *dbService) (string, int) {
	skip := map[string]bool{}
	for _, src := range pl.p.sources {
		if abs, err := filepath.Abs(src.Path); err == nil {
			skip[abs] = true
		}
	}
	var names []string
	for _, n := range db.names {
		names = append(names, regexp.QuoteMeta(n))
	}
	nameRE := regexp.MustCompile(`(^|[^\w.-])(` + strings.Join(names, "|") + `)([^\w.-]|$)`)
	for _, abs := range pl.evidenceScope(service).Files() {
		base := filepath.Base(abs)
		if skip[abs] || strings.HasPrefix(base, ".env") || strings.HasSuffix(base, ".env") || base == "Dockerfile" {
			continue
		}
		path := pl.p.displayPath(abs)
		data, err := pl.readFile(path)
		if err != nil || bytes.IndexByte(data, 0) >= 0 {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			if line := sc.Text(); connWordRE.MatchString(line) && nameRE.MatchString(line) {
				return path, n
			}
		}
	}
	return "", 0
}
