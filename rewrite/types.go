// Package rewrite migrates docker compose projects whose services reach a
// PostgreSQL service over TCP to a Unix-domain socket shared through a named
// volume.
//
// The pipeline is load and analyze (package analyze, once) → plan (step
// values over one pass, see steps.go) → apply → verify (Migrate validates
// its own output with package validate and migrates it again, expecting
// no change): compose-go gives the meaning of the files (interpolation,
// merges, profiles), yaml.v3 node positions say where each value is
// written, and edits are spliced into the original bytes so that
// everything the migration does not change stays byte-identical. The
// commands beside it, validate and revert, are packages of their own over
// the same analysis.
package rewrite

import (
	"github.com/uds-migrate/uds-migrate/analyze"
	"github.com/uds-migrate/uds-migrate/compose"
)

// Options selects what Migrate does (analyze.Options: validate and revert
// take the same).
type Options = analyze.Options

// DefaultOptions returns the options the CLI starts from.
func DefaultOptions() Options { return analyze.DefaultOptions() }

// Result is what Migrate returns (analyze.Result, as revert does).
type Result = analyze.Result

// DBInfo describes one PostgreSQL service found (analyze.DBInfo).
type DBInfo = analyze.DBInfo

// FileResult is the migrated content of one file (compose.FileResult).
type FileResult = compose.FileResult

// Input is one compose file to migrate (compose.Input).
type Input = compose.Input

// Source is one compose file as read (yamledit.Source, through compose).
type Source = compose.Source

// MaxFileSize is the largest file read, in bytes (yamledit.MaxFileSize).
const MaxFileSize = compose.MaxFileSize

// ReadInputs reads files named on the command line (compose.ReadInputs).
func ReadInputs(paths []string) ([]Input, error) { return compose.ReadInputs(paths) }

// InterpolationEnv is compose's interpolation environment for a project
// directory (compose.InterpolationEnv).
func InterpolationEnv(dir string, opts Options) (map[string]string, error) {
	return compose.InterpolationEnv(dir, opts.LoadOptions())
}
