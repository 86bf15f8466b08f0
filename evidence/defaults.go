package evidence

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/uds-migrate/uds-migrate/internal/dockerfile"
)

// Default is a variable the code reads with a literal fallback: the value
// the program uses while the variable is unset (os.getenv("POSTGRES_HOST",
// "postgres")).
type Default struct {
	Key, Value string
	// File is relative to the scope's ProjectDir (slash-separated); Line
	// is 1-based.
	File string
	Line int
}

// At returns "file:line".
func (d Default) At() string { return d.File + ":" + strconv.Itoa(d.Line) }

// envName is a variable name as the readers below capture it (group key).
const envName = `(?P<key>[A-Za-z_][A-Za-z0-9_]*)`

// lit is a one-line string literal in single, double or back quotes,
// captured without them (group val).
const lit = `(?:"(?P<val>[^"\n]*)"|'(?P<val>[^'\n]*)'|` + "`(?P<val>[^`\\n]*)`" + `)`

// defaultReaders are the usual forms of an environment read with a
// fallback, per language (matched by file extension).
var defaultReaders = []struct {
	exts []string
	re   *regexp.Regexp
}{
	// Python: os.getenv("X", "d"), os.environ.get("X", "d"), and the
	// django-environ / python-decouple helpers env("X", default="d"),
	// env.str("X", "d"), config("X", default="d").
	{[]string{".py"}, regexp.MustCompile(`\b(?:os\.getenv|os\.environ\.get|environ\.get|env\.str|env|config)\(\s*["']` + envName + `["']\s*,\s*(?:default\s*=\s*)?` + lit + `\s*[,)]`)},
	// Ruby: ENV.fetch("X", "d"), ENV.fetch("X") { "d" }, ENV["X"] || "d".
	{[]string{".rb"}, regexp.MustCompile(`ENV\.fetch\(\s*["']` + envName + `["']\s*(?:,\s*|\)\s*\{\s*)` + lit + `\s*[)}]`)},
	{[]string{".rb"}, regexp.MustCompile(`ENV\[\s*["']` + envName + `["']\s*\]\s*(?:\|\||or)\s*` + lit)},
	// JavaScript / TypeScript: process.env.X || "d", process.env["X"] ?? "d".
	{[]string{".js", ".mjs", ".cjs", ".ts"}, regexp.MustCompile(`process\.env(?:\.` + envName + `\b|\[\s*["']` + envName + `["']\s*\])\s*(?:\|\||\?\?)\s*` + lit)},
	// Go: cmp.Or(os.Getenv("X"), "d").
	{[]string{".go"}, regexp.MustCompile(`cmp\.Or\(\s*os\.Getenv\(\s*"` + envName + `"\s*\)\s*,\s*` + lit + `\s*\)`)},
}

// Defaults lists the variables the scope's code reads with a literal
// fallback, in the order of the scope's files and of their lines. Files of
// no listed language are not read.
func Defaults(s Scope) []Default {
	var out []Default
	for _, f := range s.Files() {
		var mine []*regexp.Regexp
		for _, r := range defaultReaders {
			if hasExt(f, r.exts...) {
				mine = append(mine, r.re)
			}
		}
		if len(mine) == 0 {
			continue
		}
		data, err := s.read(f)
		if err != nil || len(data) > MaxFileSize {
			continue
		}
		rel, _ := filepath.Rel(s.ProjectDir, f)
		for _, re := range mine {
			for _, m := range re.FindAllSubmatchIndex(data, -1) {
				out = append(out, Default{Key: group(re, data, m, "key"), Value: group(re, data, m, "val"),
					File: filepath.ToSlash(rel), Line: lineOf(data, m[0])})
			}
		}
	}
	return out
}

// group returns the text of the first group called name that matched.
func group(re *regexp.Regexp, data []byte, m []int, name string) string {
	for i, n := range re.SubexpNames() {
		if n == name && m[2*i] >= 0 {
			return string(data[m[2*i]:m[2*i+1]])
		}
	}
	return ""
}

// EnvKeys lists the variables a Dockerfile's ENV instructions set (ENV
// K=V ..., and the legacy ENV K V): inside the image they are set, so a
// code default for them does not apply.
func EnvKeys(data []byte) []string {
	var out []string
	for _, ins := range dockerfile.Instructions(data) {
		fields := strings.Fields(ins)
		if len(fields) < 2 || !strings.EqualFold(fields[0], "ENV") {
			continue
		}
		if !strings.Contains(fields[1], "=") {
			out = append(out, fields[1])
			continue
		}
		for _, f := range fields[1:] {
			if k, _, ok := strings.Cut(f, "="); ok && k != "" {
				out = append(out, k)
			}
		}
	}
	return out
}
