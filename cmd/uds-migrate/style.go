package main

import (
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/uds-migrate/uds-migrate/compose"
	"github.com/uds-migrate/uds-migrate/dialect"
	"github.com/uds-migrate/uds-migrate/report"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// styleFor is how text findings are written to w. For a person at a
// terminal (or with CLICOLOR_FORCE set, as for ls and friends): each
// finding wrapped at the terminal's width with its source line and a caret
// under the position, in colour unless NO_COLOR is set and not empty
// (https://no-color.org). Otherwise the plain one-line form, which scripts
// and goldens read.
func styleFor(w io.Writer, inputs []rewrite.Input) report.Style {
	forced := os.Getenv("CLICOLOR_FORCE") != "" && os.Getenv("CLICOLOR_FORCE") != "0"
	if !isTerminal(w) && !forced {
		return report.Style{}
	}
	return report.Style{
		Color:  os.Getenv("NO_COLOR") == "",
		Width:  termWidth(w),
		Source: excerptLines(inputs),
	}
}

// termWidth is the terminal's width in columns: the window size of w,
// else COLUMNS, else 80.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return cols
		}
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return 80
}

// excerptLines is fileLines for the source line quoted under a finding:
// each line with its passwords masked (redactLine), then, as the findings
// themselves, every password written in the project's files or in this
// file masked wherever it still shows (compose.Scrub). A masked password
// may move the caret of a finding placed after it on the line.
func excerptLines(inputs []rewrite.Input) func(string) []string {
	read := fileLines(inputs)
	done := map[string][]string{}
	return func(p string) []string {
		if ls, ok := done[p]; ok {
			return ls
		}
		src := read(p)
		secrets := compose.InputSecrets(append(slices.Clone(inputs), rewrite.Input{Path: p, Data: []byte(strings.Join(src, "\n"))}))
		out := make([]string, len(src))
		for i, l := range src {
			out[i] = compose.Scrub(redactLine(l), secrets)
		}
		done[p] = out
		return out
	}
}

// lineKV splits a line of a file the tool reads into what comes before
// its value and the value: YAML "KEY: v" (in a "- " list item, with a
// quoted key as a Python dict has it), env-file, .properties and
// Dockerfile "KEY=v" ("export KEY=v", "ENV KEY=v", "- KEY=v").
var lineKV = regexp.MustCompile(`^(\s*(?:-\s+)?(?:(?:export|ENV|ARG)\s+)?["']?)([A-Za-z_][A-Za-z0-9_.-]*)(["']?\s*(?::[ \t]|:$|=)\s*)(.*)$`)

// bareRef is a value that is one compose reference without a default: it
// names where the secret is, not the secret.
var bareRef = regexp.MustCompile(`^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$`)

// redactLine masks the passwords of one source line by its structure: the
// whole value of a key that names a secret (POSTGRES_PASSWORD: x,
// spring.datasource.password=x, 'PASSWORD': 'x'), a connection value by
// the grammar of its dialect with compose references as dialect.Redact
// takes them, and any other line as dialect.Redact masks text of no known
// dialect (a URL's userinfo password, the value after a password keyword).
func redactLine(line string) string {
	m := lineKV.FindStringSubmatch(line)
	if m == nil {
		return dialect.Redact("", line)
	}
	open, inner, end := unquoteValue(m[4])
	if compose.SecretVar(m[2]) {
		if inner != "" && !bareRef.MatchString(inner) {
			inner = "****"
		}
	} else {
		name := ""
		if d := dialect.Recognise(inner); d != nil {
			name = d.Name
		}
		inner = dialect.Redact(name, inner)
	}
	return m[1] + m[2] + m[3] + open + inner + end
}

// unquoteValue splits a value as written into its opening quote, the text
// and what closes it (the quote, a trailing comma of a Python dict or
// list, trailing blanks).
func unquoteValue(v string) (open, inner, end string) {
	inner = strings.TrimRight(v, " \t,")
	end = v[len(inner):]
	if inner != "" && (inner[0] == '\'' || inner[0] == '"') {
		open, inner = inner[:1], inner[1:]
		if strings.HasSuffix(inner, open) {
			inner, end = inner[:len(inner)-1], open+end
		}
	}
	return open, inner, end
}
