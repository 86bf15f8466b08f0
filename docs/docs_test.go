package docs

import (
	"strings"
	"testing"
)

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
