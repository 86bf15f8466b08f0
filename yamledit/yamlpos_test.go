package yamledit

import (
	"testing"

	"github.com/uds-migrate/uds-migrate/finding"
)

// TestSyntaxPos pins where a YAML syntax error is reported: the problem's
// own line and column, not the line where the enclosing block began.
func TestSyntaxPos(t *testing.T) {
	for _, c := range []struct {
		in        string
		line, col int
	}{
		{"services:\n  app:\n    image: x\n   environment: [a\n", 4, 4}, // parser error
		{"a:\n  - b\n c: d\n", 3, 2},                                    // parser error
		{"a: b\n  c: d\n", 2, 4},                                        // scanner error
		{"a: b: c\n", 1, 5},                                             // scanner error on line 1
	} {
		_, err := NewSource("c.yml", []byte(c.in))
		pe, ok := err.(*finding.PosError)
		if !ok {
			t.Errorf("%q: %v, want a *PosError", c.in, err)
			continue
		}
		if c.line > 0 && (pe.Line != c.line || pe.Col != c.col) {
			t.Errorf("%q: reported at %d:%d (%s), want %d:%d", c.in, pe.Line, pe.Col, pe.Msg, c.line, c.col)
		}
	}
}
