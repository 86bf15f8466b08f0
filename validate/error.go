package validate

import (
	"strings"

	"github.com/uds-migrate/uds-migrate/finding"
)

// Error is what migrate and revert return when their output would still
// be a broken socket setup; Findings say where and why.
type Error struct {
	Findings []finding.Finding
	InInput  bool // the input already failed validation
	Revert   bool // the output of revert, not of the migration
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Revert {
		b.WriteString("the reverted output fails validation (a value revert did not bring back to TCP while its socket mount was removed), nothing printed:")
	} else if e.InInput {
		b.WriteString("the input's socket setup is already broken and the migration does not repair it (run uds-migrate validate on the input); nothing printed:")
	} else {
		b.WriteString("the migrated output fails validation (a value shared with a service left on TCP, through an anchor, extends or an env file, is a common cause), nothing printed:")
	}
	for _, f := range e.Findings {
		b.WriteString("\n" + f.String())
	}
	return b.String()
}

// NewErrors returns the validate errors of after that before did not have
// (same code, service and key): what the revert broke, such as a client
// left pointing at a socket directory it no longer mounts (UDS205).
func NewErrors(before, after []finding.Finding) []finding.Finding {
	had := map[string]bool{}
	for _, f := range before {
		had[f.Code+"\x00"+f.Service+"\x00"+f.Key] = true
	}
	var out []finding.Finding
	for _, f := range after {
		if f.Severity == finding.SevError && !had[f.Code+"\x00"+f.Service+"\x00"+f.Key] {
			out = append(out, f)
		}
	}
	return out
}
