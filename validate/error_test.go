package validate

import (
	"testing"

	"github.com/uds-migrate/uds-migrate/finding"
)

// TestNewErrors: an error of the same code, service and key as one before
// is not new, wherever it moved; a warning never is.
func TestRevertNewErrors(t *testing.T) {
	before := []finding.Finding{
		finding.New("UDS205", finding.Pos{File: "c.yml", Line: 3, Col: 5}, "api", "DB", "old"),
	}
	after := []finding.Finding{
		finding.New("UDS205", finding.Pos{File: "c.yml", Line: 4, Col: 5}, "api", "DB", "old, moved a line"),
		finding.New("UDS205", finding.Pos{File: "c.yml", Line: 9, Col: 5}, "php", "DB_DSN", "new"),
		finding.New("UDS104", finding.Pos{File: "c.yml", Line: 9, Col: 5}, "php", "DB_DSN", "a warning"),
	}
	got := NewErrors(before, after)
	if len(got) != 1 || got[0].Service != "php" || got[0].Code != "UDS205" {
		t.Fatalf("NewErrors = %+v; want only php's UDS205", got)
	}
}
