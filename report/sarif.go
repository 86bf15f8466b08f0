package report

import (
	"bytes"
	"io"
	"sort"

	"github.com/owenrumney/go-sarif/v2/sarif"

	"github.com/uds-migrate/uds-migrate/finding"
)

// SARIF writes the findings as a SARIF 2.1.0 log (OASIS SARIF v2.1.0, §3)
// with one rule per finding code from finding's registry (its title, its
// cause and fix as fullDescription, and helpUri pointing at its section of
// docs/findings.md), built with github.com/owenrumney/go-sarif.
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
			code, _ := finding.Lookup(c)
			rule := run.AddRule(c).WithDescription(code.Title).WithHelpURI(code.HelpURI())
			if code.Doc != "" {
				rule.WithFullDescription(sarif.NewMultiformatMessageString(code.Doc))
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
	var b bytes.Buffer
	if err := rep.PrettyWrite(&b); err != nil {
		return err
	}
	// A text file ends with a newline (POSIX): without one, a line that
	// follows in the same stream or a shell prompt glues onto the "}".
	b.WriteByte('\n')
	_, err = w.Write(b.Bytes())
	return err
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
