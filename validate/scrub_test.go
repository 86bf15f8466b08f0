package validate

import (
	"errors"
	"strings"
	"testing"

	"github.com/uds-migrate/uds-migrate/finding"
)

// TestScrubErr: a password in a *PosError's message is masked in the
// error's text and in the message the CLI prints field by field.
func TestScrubErr(t *testing.T) {
	err := ScrubErr(&finding.PosError{Pos: finding.Pos{File: "f", Line: 1, Col: 1}, Msg: "bad U9riSecret"}, []string{"U9riSecret"})
	var pe *finding.PosError
	if strings.Contains(err.Error(), "U9riSecret") || !errors.As(err, &pe) || strings.Contains(pe.Msg, "U9riSecret") {
		t.Errorf("scrubErr left the password: %v", err)
	}
}
