// Package report is the one findings model of migrate, plan, validate and
// revert: a Plan (docs/plan.schema.json) built from an Input (what a
// migration or revert produced), from validate's findings or from an input
// error, rendered as text for a
// reviewer, versioned JSON for tools, SARIF 2.1.0 for code-scanning uploads
// or gcc-style lines for editors and CI problem matchers. Passwords are
// already masked in the Input; nothing here reads the files again. It
// depends on package finding only, not on what the migration knows.
package report

import (
	"errors"
	"fmt"

	"github.com/uds-migrate/uds-migrate/finding"
)

// SchemaVersion names the JSON layout; it changes only when a field changes
// meaning or disappears (docs/plan.schema.json).
const SchemaVersion = "uds-migrate.plan/v1"

// Plan is the JSON document. Field names are part of the versioned schema.
type Plan struct {
	Schema string `json:"schema"`
	// Command is the command that wrote the document: migrate, plan,
	// validate or revert (validate fills only findings).
	Command     string     `json:"command,omitempty"`
	Files       []File     `json:"files"`
	Databases   []Database `json:"databases"`
	Changes     []Change   `json:"changes"`
	Findings    []Finding  `json:"findings"`
	ManualSteps []string   `json:"manualSteps"`
	Nothing     string     `json:"nothingToDo,omitempty"`
}

type File struct {
	Path    string `json:"path"`
	Changed bool   `json:"changed"`
}

type Database struct {
	Service   string   `json:"service"`
	Family    string   `json:"family"`
	Image     string   `json:"image,omitempty"`
	SocketDir string   `json:"socketDir"`
	Port      int      `json:"port"`
	Volume    string   `json:"volume"`
	Names     []string `json:"names"`
}

type Change struct {
	Kind    string  `json:"kind"`
	File    string  `json:"file"`
	Line    int     `json:"line,omitempty"`
	Column  int     `json:"column,omitempty"`
	Service string  `json:"service,omitempty"`
	Key     string  `json:"key,omitempty"`
	Dialect string  `json:"dialect,omitempty"`
	Before  string  `json:"before,omitempty"`
	After   string  `json:"after"`
	Reason  string  `json:"reason"`
	Source  *Source `json:"source,omitempty"`
	// Evidence is why a host variable was trusted (finding.BasisEvidence).
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Source is the knowledge a decision rests on (docs/plan.schema.json):
// the user's word (--host-var), evidence in the project, or the image
// catalogue.
type Source struct {
	Kind   string   `json:"kind"`
	Name   string   `json:"name"`
	Cite   []string `json:"cite,omitempty"`
	Detail string   `json:"detail"`
}

func sourceOf(b *finding.Basis) *Source {
	if b == nil || b.Kind == finding.BasisEvidence {
		return nil // evidenceOf: the plan's evidence, with file and line
	}
	return &Source{Kind: b.Kind, Name: b.Name, Cite: b.Cite, Detail: b.Detail}
}

// Evidence is the knowledge source behind a decision and where it rests.
type Evidence struct {
	Source string `json:"source"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Driver string `json:"driver"`
	Reason string `json:"reason"`
	// Via is how File reaches the service when its own build and mounts
	// do not bring it (finding.Basis.Via).
	Via string `json:"via,omitempty"`
}

type Finding struct {
	File     string  `json:"file"`
	Line     int     `json:"line,omitempty"`
	Column   int     `json:"column,omitempty"`
	Severity string  `json:"severity"`
	Code     string  `json:"code"`
	Service  string  `json:"service,omitempty"`
	Key      string  `json:"key,omitempty"`
	Message  string  `json:"message"`
	Source   *Source `json:"source,omitempty"`
}

// InputErrorCode is the code of a finding that stands for an input the
// tool could not read or load (exit status 2): in a SARIF log or a JSON
// plan it carries the error's position, so an upload is never empty.
const InputErrorCode = finding.InputErrorCode

func empty(command string) Plan {
	return Plan{Schema: SchemaVersion, Command: command, Files: []File{}, Databases: []Database{}, Changes: []Change{}, Findings: []Finding{}, ManualSteps: []string{}}
}

// FromFindings builds the document of a command that only finds (validate).
func FromFindings(command string, fs []finding.Finding) Plan {
	return FromResult(command, Input{Findings: fs})
}

// FromError builds the document for an input error: one ERROR finding
// with code InputErrorCode (see ErrorFinding).
func FromError(command string, err error) Plan {
	p := empty(command)
	p.Findings = append(p.Findings, ErrorFinding(InputErrorCode, err))
	return p
}

// RunErrorCode is the code of a finding that stands for a command line
// the tool refuses or a run that cannot finish (exit status 2): in a
// machine format the error is a finding like any other, so the document
// stays the whole of its stream.
const RunErrorCode = finding.RunErrorCode

// ErrorFinding is an error as an ERROR finding of code: at the error's
// position when it is a *finding.PosError, else without a file.
func ErrorFinding(code string, err error) Finding {
	f := Finding{Severity: string(finding.SevError), Code: code, Message: err.Error()}
	var pe *finding.PosError
	if errors.As(err, &pe) {
		f.File, f.Line, f.Column, f.Message = pe.File, pe.Line, pe.Col, pe.Msg
	}
	return f
}

// Input is what a migration or revert hands to report: every input file
// and whether it changed, the databases found, the changes and findings
// (passwords already masked), and why nothing changed when nothing did.
// The command fills it from rewrite's Result.
type Input struct {
	Files    []File
	DBs      []Database
	Changes  []finding.Change
	Findings []finding.Finding
	// NothingReason says why no edit was made, when none was.
	NothingReason string
}

// FromResult builds the document of a migration or revert.
func FromResult(command string, r Input) Plan {
	p := empty(command)
	p.Nothing = r.NothingReason
	p.Files = append(p.Files, r.Files...)
	p.Databases = append(p.Databases, r.DBs...)
	for _, c := range r.Changes {
		p.Changes = append(p.Changes, Change{Kind: c.Kind, File: c.File, Line: c.Line, Column: c.Col, Service: c.Service, Key: c.Key, Dialect: c.Dialect, Before: c.Before, After: c.After, Reason: c.Reason, Source: sourceOf(c.Basis), Evidence: evidenceOf(c.Basis)})
	}
	for _, f := range r.Findings {
		p.Findings = append(p.Findings, Finding{File: f.File, Line: f.Line, Column: f.Col, Severity: string(f.Severity), Code: f.Code, Service: f.Service, Key: f.Key, Message: f.Message, Source: sourceOf(f.Basis)})
	}
	// One step per line of a file, naming every service it concerns.
	seen := map[string]bool{}
	for _, f := range MergeShared(p.Findings) {
		if code, _ := finding.Lookup(f.Code); code.Manual && !seen[f.Code+f.Service+f.Message] {
			seen[f.Code+f.Service+f.Message] = true
			p.ManualSteps = append(p.ManualSteps, fmt.Sprintf("%s (%s:%d)", f.Message, f.File, f.Line))
		}
	}
	return p
}

func evidenceOf(b *finding.Basis) *Evidence {
	if b == nil || b.Kind != finding.BasisEvidence {
		return nil
	}
	return &Evidence{Source: b.Kind, File: b.At.File, Line: b.At.Line, Driver: b.Name, Reason: b.Detail, Via: b.Via}
}
