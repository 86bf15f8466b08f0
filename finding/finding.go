// Package finding is what uds-migrate reports: positions in the user's
// files (Pos, PosError), the registry of finding codes with their severity
// and documentation (Code, codes.go), findings (Finding) and the reviewer's
// record of each edit (Change), with the knowledge a decision rests on
// (Basis). It is a leaf: report, rewrite and the commands share these
// types without report depending on what the migration knows.
package finding

import "fmt"

// Pos is where something is written: a file (as the user named it) and a
// 1-based line and column; Line 0 stands for the file as a whole.
type Pos struct {
	File      string
	Line, Col int
}

// String is "file:line:col", or "file" for the file as a whole.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// PosError is an error at a place in a file, printed file:line:col: msg.
type PosError struct {
	Pos
	Msg string
}

func (e *PosError) Error() string { return e.Pos.String() + ": " + e.Msg }

// Severity ranks findings.
type Severity string

const (
	SevError   Severity = "ERROR"
	SevWarning Severity = "WARNING"
	SevInfo    Severity = "INFO"
)

// Finding is one thing a reviewer must know: a warning about a change, a
// value that could not be migrated, or an error in a socket setup. Code is
// stable (documented in README); Message never holds a password.
type Finding struct {
	Pos
	Severity Severity
	Code     string
	Service  string
	Key      string
	Message  string
	// Basis, when set, is the knowledge the finding rests on.
	Basis *Basis
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s %s: %s", f.Pos, f.Severity, f.Code, f.Message)
}

// Change is one edit, for reports: a rewritten connection value, an added
// mount or volume, or a repair.
type Change struct {
	Kind string // "value", "mount", "volume", "repair"
	Pos
	Service string
	Key     string
	Dialect string // for Kind "value": jdbc, libpq-uri, libpq-dsn
	Before  string // passwords masked
	After   string // passwords masked
	Reason  string
	// Basis, when set, is why a host variable was trusted: the
	// catalogue's, the project's evidence's or the user's word (nil for
	// values whose dialect the tool knows by itself).
	Basis *Basis
}

// Kinds of Basis, in the order they are consulted.
const (
	BasisUser      = "user"      // --host-var SERVICE/KEY
	BasisEvidence  = "evidence"  // code or config in the project that reads the variable (evidence.SourceName)
	BasisCatalogue = "catalogue" // catalog/images: what a published image does
	// BasisReader: the value's grammar has one family of readers, all of
	// which take the socket form written (JDBC: pgjdbc; keyword DSN,
	// PGHOST: libpq and the drivers that copy its rules; Npgsql, R2DBC,
	// Celery's db+): package dialect's Reader.
	BasisReader = "reader"
)

// Basis is what a decision about a connection value rests on.
type Basis struct {
	Kind string // BasisUser, BasisEvidence or BasisCatalogue
	// Name is the catalogue family, the driver the evidence implies, or
	// "--host-var".
	Name string
	// Cite is where the fact was read: URLs or repo:file for the
	// catalogue; empty for evidence (see At) and for the user's word.
	Cite []string
	// At is the file (relative to the project directory) and line of the
	// evidence; zero for the other kinds.
	At Pos
	// Detail says what the source says about the variable.
	Detail string
	// Via, for evidence, is how its file reaches the service when the
	// service's own build and mounts do not bring it: the build of the
	// service of the project that makes the very image it runs
	// (compose.ImageBuild).
	Via string
}

// Citation names the source for a message: "catalogue odoo: URL ...".
func (b Basis) Citation() string {
	s := b.Kind + " " + b.Name
	if len(b.Cite) > 0 {
		// The first source is the one that says what the image does;
		// plan --format json lists them all.
		s += ": " + b.Cite[0]
	}
	return s
}

// Report is what one run reports, in the order it was found: findings
// (sorted for the reader at the end) and changes (in edit order). Steps
// and editors append to it; nothing is taken back.
type Report struct {
	Findings List
	Changes  []Change
}

// Add appends New(...) to the findings and returns it (to attach a Basis).
func (r *Report) Add(code string, at Pos, service, key, msg string) *Finding {
	return r.Findings.Add(code, at, service, key, msg)
}

// Change appends c to the changes.
func (r *Report) Change(c Change) { r.Changes = append(r.Changes, c) }
