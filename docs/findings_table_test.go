package docs_test

import (
	"flag"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/docs"
	"github.com/uds-migrate/uds-migrate/internal/docblock"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

var update = flag.Bool("update", false, "rewrite README's findings table from the registry")

// TestEveryCodeDocumented fails when a code of rewrite's registry has no
// section in findings.md, or a section names a code the registry lacks.
func TestEveryCodeDocumented(t *testing.T) {
	known := map[string]bool{}
	for _, c := range rewrite.Codes() {
		known[c.ID] = true
		if c.Doc == "" {
			t.Errorf("%s (%q) has no section in docs/findings.md: add \"## %s\" with its cause and fix", c.ID, c.Title, c.ID)
		}
	}
	for _, c := range docs.Codes() {
		if !known[c] {
			t.Errorf("docs/findings.md has a section %q, but finding/codes.go has no such finding code", c)
		}
	}
}

const (
	tableStart = "<!-- findings table: generated from finding/codes.go and docs/findings.md by `go test ./docs -run TestREADMEFindingsTable -update` -->"
	tableEnd   = "<!-- end of findings table -->"
)

// findingsTable is README's table: every code of the registry, its
// severity, and the cause and fix of its findings.md section on one line.
func findingsTable() string {
	var b strings.Builder
	b.WriteString("| code | severity | cause | fix |\n| --- | --- | --- | --- |\n")
	for _, c := range rewrite.Codes() {
		cause, fix, _ := strings.Cut(strings.TrimPrefix(c.Doc, "Cause: "), "\nFix: ")
		b.WriteString("| " + c.ID + " | " + strings.ToLower(string(c.Severity)) + " | " + cell(cause) + " | " + cell(fix) + " |\n")
	}
	return b.String()
}

// cell puts markdown text on one table line: paragraphs and wrapped lines
// joined by spaces, a pipe escaped.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}

// TestREADMEFindingsTable fails when README's findings table is not the one
// the registry and findings.md give; -update writes it.
func TestREADMEFindingsTable(t *testing.T) {
	docblock.Check(t, "../README.md", tableStart, tableEnd, findingsTable(), *update)
}
