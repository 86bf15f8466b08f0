package docs

import (
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

// inputErrorCode is report.InputErrorCode (report imports this package).
const inputErrorCode = "UDS001"

// TestEveryCodeDocumented fails when a finding code of rewrite's catalogue
// has no section in findings.md, or a section names a code that does not
// exist, and says which.
func TestEveryCodeDocumented(t *testing.T) {
	known := map[string]bool{inputErrorCode: true}
	for _, c := range rewrite.Codes() {
		known[c] = true
		if _, ok := Finding(c); !ok {
			t.Errorf("%s (%q) has no section in docs/findings.md: add \"## %s\" with its cause and fix", c, rewrite.CodeTitle(c), c)
		}
	}
	if _, ok := Finding(inputErrorCode); !ok {
		t.Errorf("%s (input error) has no section in docs/findings.md", inputErrorCode)
	}
	for _, c := range Codes() {
		if !known[c] {
			t.Errorf("docs/findings.md has a section %q, but no such finding code exists in rewrite/codes.go", c)
		}
	}
}

// TestSectionsHaveCauseAndFix: every section says why and what to do.
func TestSectionsHaveCauseAndFix(t *testing.T) {
	if len(Codes()) < 40 {
		t.Fatalf("only %d sections parsed from findings.md", len(Codes()))
	}
	for _, c := range Codes() {
		s, _ := Finding(c)
		if !strings.HasPrefix(s, "Cause: ") || !strings.Contains(s, "\nFix: ") {
			t.Errorf("%s: section lacks \"Cause: \" or \"Fix: \":\n%s", c, s)
		}
		if strings.Contains(s, "as the message says") || strings.Contains(s, "as each message says") {
			t.Errorf("%s: section defers to the message instead of giving cause and fix", c)
		}
	}
}
