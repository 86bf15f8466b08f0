package report

import (
	"io"
	"sort"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/uds-migrate/uds-migrate/docs"
	"github.com/uds-migrate/uds-migrate/rewrite"
)

// Title is a code's one-line description (SARIF rules, explain).
func Title(code string) string {
	if code == InputErrorCode {
		return "input cannot be read or loaded as a compose project"
	}
	return rewrite.CodeTitle(code)
}

// SARIF writes the findings as a SARIF 2.1.0 log (OASIS SARIF v2.1.0, §3)
// with one rule per finding code (its title, the cause and fix from
// docs/findings.md as fullDescription, and helpUri pointing at that
// section), built with github.com/owenrumney/go-sarif.
// An input error is a result of level error like any other finding.
func SARIF(w io.Writer, p Plan, version string) error {
	rep, err := sarif.New(sarif.Version210)
	if err != nil {
		return err
	}
	run := sarif.NewRunWithInformationURI("uds-migrate", "https://github.com/uds-migrate/uds-migrate")
	run.Tool.Driver.Version = &version
	var codes []string
	for _, f := range p.Findings {
		codes = append(codes, f.Code)
	}
	sort.Strings(codes)
	for i, c := range codes {
		if i == 0 || codes[i-1] != c {
			rule := run.AddRule(c).WithDescription(Title(c)).WithHelpURI(docs.HelpURI(c))
			if text, ok := docs.Finding(c); ok {
				rule.WithFullDescription(sarif.NewMultiformatMessageString(text))
			}
		}
	}
	for _, f := range p.Findings {
		res := run.CreateResultForRule(f.Code).WithLevel(sarifLevel(f.Severity)).WithMessage(sarif.NewTextMessage(f.Message))
		if f.File == "" {
			continue
		}
		run.AddDistinctArtifact(f.File)
		loc := sarif.NewPhysicalLocation().WithArtifactLocation(sarif.NewSimpleArtifactLocation(f.File))
		if f.Line > 0 {
			loc = loc.WithRegion(sarif.NewRegion().WithStartLine(f.Line).WithStartColumn(max(f.Column, 1)))
		}
		res.AddLocation(sarif.NewLocationWithPhysicalLocation(loc))
	}
	rep.AddRun(run)
	return rep.PrettyWrite(w)
}

func sarifLevel(sev string) string {
	switch sev {
	case "ERROR":
		return "error"
	case "INFO":
		return "note"
	}
	return "warning"
}
