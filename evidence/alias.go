package evidence

import (
	"regexp"
	"strings"
)

// readOrAlias extends read (a pattern that reads the variable) with the
// names assigned from it in the same file (`DB_HOST = os.getenv("DB_HOST")`
// then `"HOST": DB_HOST`): one level of indirection, the common shape of
// settings files. assign is the pattern of an assignment's left side,
// with one group for the name, directly followed by read.
func readOrAlias(data []byte, read, assign string) string {
	alts := []string{read}
	for _, name := range aliases(data, read, assign) {
		alts = append(alts, `\b`+regexp.QuoteMeta(name)+`\b`)
	}
	return `(?:` + strings.Join(alts, `|`) + `)`
}

// aliases lists the names assigned from read in data.
func aliases(data []byte, read, assign string) []string {
	var out []string
	for _, m := range Compiled(`(?m)`+assign+`\s*`+read).FindAllSubmatch(data, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// Assignment left sides per language.
const (
	pyAssign = `^\s*([A-Za-z_]\w*)\s*=`
	jsAssign = `\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=`
	goAssign = `\b([A-Za-z_]\w*)\s*(?::=|=)`
)
