// Package report renders a migration plan (rewrite.Result) as text for a
// reviewer, as versioned JSON for tools, or as SARIF 2.1.0 for code-scanning
// uploads. Passwords are already masked in the Result; nothing here reads
// the files again.
package report

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/uds-migrate/uds-migrate/rewrite"
)

// SchemaVersion names the JSON layout; it changes only when a field changes
// meaning or disappears (docs/plan.schema.json).
const SchemaVersion = "uds-migrate.plan/v1"

// Plan is the JSON document. Field names are part of the versioned schema.
type Plan struct {
	Schema      string     `json:"schema"`
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
	SocketDir string   `json:"socketDir"`
	Port      int      `json:"port"`
	Volume    string   `json:"volume"`
	Names     []string `json:"names"`
}

type Change struct {
	Kind    string `json:"kind"`
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Service string `json:"service,omitempty"`
	Key     string `json:"key,omitempty"`
	Dialect string `json:"dialect,omitempty"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after"`
	Reason  string `json:"reason"`
	// Evidence is why a host variable was trusted (see rewrite.Evidence).
	Evidence *Evidence `json:"evidence,omitempty"`
}

// Evidence is the knowledge source behind a decision and where it rests.
type Evidence struct {
	Source string `json:"source"`
	File   string `json:"file"`
	Line   int    `json:"line"`
	Driver string `json:"driver"`
	Reason string `json:"reason"`
}

type Finding struct {
	File     string `json:"file"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Service  string `json:"service,omitempty"`
	Key      string `json:"key,omitempty"`
	Message  string `json:"message"`
}

// manualCodes are findings that leave work for a person.
var manualCodes = map[string]bool{"UDS101": true, "UDS102": true, "UDS104": true, "UDS106": true, "UDS110": true, "UDS111": true,
	"UDS120": true, "UDS121": true, "UDS122": true, "UDS303": true, "UDS304": true, "UDS308": true, "UDS309": true}

// FromResult builds the JSON document.
func FromResult(r *rewrite.Result) Plan {
	p := Plan{Schema: SchemaVersion, Files: []File{}, Databases: []Database{}, Changes: []Change{}, Findings: []Finding{}, ManualSteps: []string{}, Nothing: r.NothingReason}
	for _, f := range r.Files {
		p.Files = append(p.Files, File{Path: f.Path, Changed: f.Changed})
	}
	for _, d := range r.DBs {
		p.Databases = append(p.Databases, Database{Service: d.Service, Family: d.Family, SocketDir: d.SocketDir, Port: d.Port, Volume: d.Volume, Names: d.Names})
	}
	for _, c := range r.Changes {
		p.Changes = append(p.Changes, Change{Kind: c.Kind, File: c.File, Line: c.Line, Column: c.Col, Service: c.Service, Key: c.Key, Dialect: c.Dialect, Before: c.Before, After: c.After, Reason: c.Reason, Evidence: evidenceOf(c.Evidence)})
	}
	seen := map[string]bool{}
	for _, f := range r.Findings {
		p.Findings = append(p.Findings, Finding{File: f.File, Line: f.Line, Column: f.Col, Severity: string(f.Severity), Code: f.Code, Service: f.Service, Key: f.Key, Message: f.Message})
		if manualCodes[f.Code] && !seen[f.Code+f.Service+f.Message] {
			seen[f.Code+f.Service+f.Message] = true
			p.ManualSteps = append(p.ManualSteps, fmt.Sprintf("%s (%s:%d)", f.Message, f.File, f.Line))
		}
	}
	return p
}

// JSON writes the plan as indented JSON.
func JSON(w io.Writer, r *rewrite.Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(FromResult(r))
}

// Text writes the plan for a reviewer.
func Text(w io.Writer, r *rewrite.Result) error {
	p := FromResult(r)
	var b strings.Builder
	if p.Nothing != "" {
		fmt.Fprintf(&b, "nothing to migrate: %s\n", p.Nothing)
	}
	if len(p.Databases) > 0 {
		b.WriteString("databases:\n")
		for _, d := range p.Databases {
			fmt.Fprintf(&b, "  %s (%s image): socket directory %s, port %d, socket volume %s; reached as %s\n",
				d.Service, d.Family, d.SocketDir, d.Port, d.Volume, strings.Join(d.Names, ", "))
		}
	}
	if len(p.Changes) > 0 {
		b.WriteString("changes:\n")
		for _, c := range p.Changes {
			pos := c.File
			if c.Line > 0 {
				pos = fmt.Sprintf("%s:%d:%d", c.File, c.Line, c.Column)
			}
			switch c.Kind {
			case "value", "repair":
				fmt.Fprintf(&b, "  %s %s %s (%s): %s\n    - %s\n    + %s\n", pos, c.Service, c.Key, c.Dialect, c.Reason, c.Before, c.After)
				if e := c.Evidence; e != nil {
					fmt.Fprintf(&b, "    because (%s) %s:%d: %s; driver %s\n", e.Source, e.File, e.Line, e.Reason, e.Driver)
				}
			case "mount":
				fmt.Fprintf(&b, "  %s %s: mount %s (%s)\n", pos, c.Service, c.After, c.Reason)
			case "volume":
				fmt.Fprintf(&b, "  %s: declare volume %s (%s)\n", pos, c.After, c.Reason)
			}
		}
	}
	if len(p.Findings) > 0 {
		b.WriteString("findings:\n")
		for _, f := range p.Findings {
			fmt.Fprintf(&b, "  %s:%d:%d: %s %s: %s\n", f.File, f.Line, f.Column, f.Severity, f.Code, f.Message)
		}
	}
	if len(p.ManualSteps) > 0 {
		b.WriteString("manual steps:\n")
		for i, s := range p.ManualSteps {
			fmt.Fprintf(&b, "  %d. %s\n", i+1, s)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// SARIF writes the findings as a SARIF 2.1.0 log (OASIS SARIF v2.1.0, §3)
// with one rule per finding code, built with github.com/owenrumney/go-sarif.
func SARIF(w io.Writer, r *rewrite.Result, version string) error {
	rep, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("uds-migrate", "https://github.com/uds-migrate/uds-migrate")
	run.Tool.Driver.Version = &version
	var codes []string
	for _, f := range r.Findings {
		codes = append(codes, f.Code)
	}
	sort.Strings(codes)
	for i, c := range codes {
		if i == 0 || codes[i-1] != c {
			run.AddRule(c).WithDescription(rewrite.CodeTitle(c))
		}
	}
	for _, f := range r.Findings {
		level := "warning"
		switch f.Severity {
		case rewrite.SevError:
			level = "error"
		case rewrite.SevInfo:
			level = "note"
		}
		run.AddDistinctArtifact(f.File)
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(f.File))
		if f.Line > 0 {
			loc = loc.WithRegion(sarif.NewRegion().WithStartLine(f.Line).WithStartColumn(f.Col))
		}
		run.CreateResultForRule(f.Code).WithLevel(level).WithMessage(sarif.NewTextMessage(f.Message)).
			AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	rep.AddRun(run)
	return rep.PrettyWrite(w)
}

func evidenceOf(e *rewrite.Evidence) *Evidence {
	if e == nil {
		return nil
	}
	return &Evidence{Source: e.Source, File: e.File, Line: e.Line, Driver: e.Driver, Reason: e.Reason}
}
