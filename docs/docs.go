// Package docs ships the documentation the binary prints: the cause and
// fix of every finding code, written once in findings.md (one "## CODE"
// section per code) and embedded, so `uds-migrate explain CODE`, SARIF
// rules (fullDescription, helpUri) and the repository say the same.
package docs

import (
	_ "embed"
	"sort"
	"strings"
)

//go:embed findings.md
var findingsMD string

// FindingsURL is where findings.md is read on the web; a code's section is
// at FindingsURL + "#" + lower-case code (GitHub's heading anchors).
const FindingsURL = "https://github.com/uds-migrate/uds-migrate/blob/main/docs/findings.md"

var sections, examples = parse(findingsMD)

// examplePrefix starts the line of a section that names the golden case
// showing the code (a test runs it); it is for the repository's reader,
// not part of the text explain and SARIF give.
const examplePrefix = "Example: "

// parse splits the markdown into its "## CODE" sections: the text between
// one heading and the next, trimmed, less its Example line, which goes to
// examples (the path between backquotes, or the line's text).
func parse(md string) (map[string]string, map[string]string) {
	out, ex := map[string]string{}, map[string]string{}
	code := ""
	var body []string
	flush := func() {
		if code != "" {
			out[code] = strings.TrimSpace(strings.Join(body, "\n"))
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "## ") {
			flush()
			code, body = strings.TrimSpace(line[3:]), nil
			continue
		}
		if rest, ok := strings.CutPrefix(line, examplePrefix); ok && code != "" {
			ex[code] = strings.Trim(rest, "`")
			continue
		}
		body = append(body, line)
	}
	flush()
	return out, ex
}

// Example returns the golden case a code's section names (a path relative
// to the repository, testdata/script/FOLDER/NAME.txtar), or its text when
// no case can show the code, and whether the section has one.
func Example(code string) (string, bool) {
	e, ok := examples[strings.ToUpper(code)]
	return e, ok
}

// Finding returns the cause and fix of a finding code (markdown), and
// whether findings.md documents it.
func Finding(code string) (string, bool) {
	s, ok := sections[strings.ToUpper(code)]
	return s, ok
}

// Codes lists the documented codes, sorted.
func Codes() []string {
	var out []string
	for c := range sections {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}

// HelpURI is the web address of a code's section in findings.md.
func HelpURI(code string) string {
	return FindingsURL + "#" + strings.ToLower(code)
}
