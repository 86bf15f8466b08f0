package rewrite

import "github.com/uds-migrate/uds-migrate/finding"

// The finding model lives in package finding; these names keep rewrite's
// callers (cmd, smoke, tests and code written against rewrite) compiling
// while the redesign moves the rest (docs: shared REDESIGN.md, issue #22).
type (
	Pos      = finding.Pos
	PosError = finding.PosError
	Severity = finding.Severity
	Finding  = finding.Finding
	Change   = finding.Change
	Basis    = finding.Basis
	Code     = finding.Code
)

const (
	SevError   = finding.SevError
	SevWarning = finding.SevWarning
	SevInfo    = finding.SevInfo

	BasisUser      = finding.BasisUser
	BasisEvidence  = finding.BasisEvidence
	BasisCatalogue = finding.BasisCatalogue
	// BasisReader: the value's grammar has one family of readers.
	BasisReader = finding.BasisReader

	// InputErrorCode is the code of an input that cannot be read or
	// loaded (exit 2); it is a finding only in the json, sarif and gcc
	// formats.
	InputErrorCode = finding.InputErrorCode
)

// Codes returns the registry of finding codes, sorted by ID.
func Codes() []Code { return finding.Codes() }

// LookupCode returns the registry entry of a code (any case), and whether
// it exists.
func LookupCode(id string) (Code, bool) { return finding.Lookup(id) }

// newFinding is finding.New: code at a position, about a service's key,
// with the severity the registry gives the code.
func newFinding(code string, at Pos, service, key, msg string) Finding {
	return finding.New(code, at, service, key, msg)
}
